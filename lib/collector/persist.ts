// The write half of a collection run, in one transaction: current desired and
// live rows (only what changed), drift item lifecycle, applied revision
// lineage, and the environment's summary. Comparison happens here too, because
// it is skipped for objects that did not change since the last good run.
import { Prisma } from "@/lib/db/generated/client";
import type { ControllerStatus, RolloutStatus, RunStats } from "@/lib/domain/types";
import { compareObject, parseObjectKey, type Change, type CompareOptions, type KubeObject, type ObjectDrift } from "@/lib/drift";
import { contentHash } from "./canonical";
import {
  appendVersions,
  deleteRows,
  moveDesiredRevision,
  readBlobs,
  readCurrent,
  touchResourceVersions,
  upsertDesiredRows,
  upsertLiveRows,
  writeBlobs,
  type Blob,
  type CurrentRow,
} from "./store";
import type { CollectorContext } from "./collect-environment";
import { recordEvents, type ObservedEvent } from "./events";

export interface DesiredEntry {
  key: string;
  object: KubeObject;
  sourcePath: string;
  revisionSha: string;
}

export interface LiveEntry {
  key: string;
  object: KubeObject;
  resourceVersion: string | null;
}

export interface CollectedState {
  environmentId: string;
  runId: number;
  approvedSha: string;
  desired: Map<string, DesiredEntry>;
  live: Map<string, LiveEntry>;
  /** Files that failed to parse: their objects keep their last good desired state. */
  failingFiles: Set<string>;
  /** `${group}/${kind}` the credential may not list: their last good live state is kept and not compared. */
  forbiddenKinds: Set<string>;
  controller: ControllerStatus | null;
  compareOptions: CompareOptions;
  rollout: RolloutStatus[];
  appliedSha: string | null;
  appliedSource: "controller" | "inferred" | null;
}

/** Same as storedForm in collect-environment, kept here to avoid an import cycle. */
function stored(obj: KubeObject): KubeObject {
  const { status: _s, ...rest } = obj;
  const { managedFields: _m, resourceVersion: _r, ...metadata } = obj.metadata;
  return { ...rest, metadata } as KubeObject;
}

function groupKindOfKey(key: string): string {
  const p = parseObjectKey(key);
  return `${p.group}/${p.kind}`;
}

function rowFor(key: string, obj: KubeObject, blobHash: string): CurrentRow {
  return { key, apiVersion: obj.apiVersion, kind: obj.kind, namespace: obj.metadata.namespace ?? "", name: obj.metadata.name, blobHash };
}

type OpenItem = Prisma.DriftItemGetPayload<{ select: { id: true; key: true; type: true; changes: true; conflict: true; reopenCount: true; ignored: true } }>;

function mainAttribution(changes: Change[]): Change["attribution"] | null {
  // The most recent human change explains the drift best; else the most recent of any.
  const sorted = [...changes].sort((a, b) => (b.attribution.time ?? "").localeCompare(a.attribution.time ?? ""));
  return sorted.find((c) => c.attribution.class === "human")?.attribution ?? sorted[0]?.attribution ?? null;
}

/** Owner flips per path between the previous and the current changes of one drift item. */
function ownerFlips(previous: Change[], current: Change[]): Array<{ path: string; from: string; to: string }> {
  const before = new Map(previous.map((c) => [c.display, c.attribution.manager]));
  const flips: Array<{ path: string; from: string; to: string }> = [];
  for (const c of current) {
    const prev = before.get(c.display);
    if (prev && c.attribution.manager && prev !== c.attribution.manager) flips.push({ path: c.display, from: prev, to: c.attribution.manager });
  }
  return flips;
}

interface Conflict {
  path: string | null;
  managers: string[];
  flips: number;
}

export async function persistRun(
  ctx: CollectorContext,
  state: CollectedState,
  resolveApplied: (results: Map<string, ObjectDrift>) => Promise<{ sha: string | null; source: "controller" | "inferred" }>,
): Promise<{ stats: Omit<RunStats, "durationMs">; appliedSha: string | null }> {
  const now = ctx.now();
  const { db } = ctx;
  const envId = state.environmentId;
  const optionsHash = contentHash({ ...state.compareOptions, secretKey: undefined, extraTracking: { ...state.compareOptions.extraTracking, fluxInventory: undefined } }).hash;

  const [prevLive, prevDesired, lastGood] = await Promise.all([
    readCurrent(db, "LiveObject", envId),
    readCurrent(db, "DesiredObject", envId),
    db.environment.findUniqueOrThrow({ where: { id: envId }, select: { lastGoodRunId: true, appliedSha: true, approvedSha: true } }),
  ]);
  const lastGoodRun = lastGood.lastGoodRunId ? await db.collectionRun.findUnique({ where: { id: lastGood.lastGoodRunId }, select: { stats: true } }) : null;
  const sameOptions = (lastGoodRun?.stats as { optionsHash?: string } | null)?.optionsHash === optionsHash;

  // ── Live rows ──────────────────────────────────────────────────────────
  const blobs: Blob[] = [];
  const liveUpserts: CurrentRow[] = [];
  const liveVersions: Array<{ key: string; blobHash: string | null }> = [];
  const rvTouches: Array<{ key: string; resourceVersion: string | null }> = [];
  const liveChanged = new Set<string>();
  for (const l of state.live.values()) {
    const prev = prevLive.get(l.key);
    if (prev && l.resourceVersion !== null && prev.resourceVersion === l.resourceVersion) continue; // untouched since last run
    const { hash, text } = contentHash(stored(l.object));
    if (prev?.blobHash === hash) {
      rvTouches.push({ key: l.key, resourceVersion: l.resourceVersion });
      continue;
    }
    blobs.push({ hash, text });
    liveUpserts.push({ ...rowFor(l.key, l.object, hash), resourceVersion: l.resourceVersion });
    liveVersions.push({ key: l.key, blobHash: hash });
    liveChanged.add(l.key);
  }
  const liveDeleted: string[] = [];
  for (const key of prevLive.keys()) {
    if (state.live.has(key)) continue;
    if (state.forbiddenKinds.has(groupKindOfKey(key))) continue; // unknown, not gone
    liveDeleted.push(key);
    liveVersions.push({ key, blobHash: null });
    liveChanged.add(key);
  }

  // ── Desired rows ───────────────────────────────────────────────────────
  const desiredUpserts: CurrentRow[] = [];
  const desiredVersions: Array<{ key: string; blobHash: string | null }> = [];
  const desiredMoved: string[] = [];
  const desiredChanged = new Set<string>();
  for (const d of state.desired.values()) {
    const prev = prevDesired.get(d.key);
    const { hash, text } = contentHash(stored(d.object));
    if (prev?.blobHash === hash) {
      if (prev.revisionSha !== d.revisionSha || prev.sourcePath !== d.sourcePath) desiredMoved.push(d.key);
      continue;
    }
    blobs.push({ hash, text });
    desiredUpserts.push({ ...rowFor(d.key, d.object, hash), revisionSha: d.revisionSha, sourcePath: d.sourcePath });
    desiredVersions.push({ key: d.key, blobHash: hash });
    desiredChanged.add(d.key);
  }
  const carried = new Map<string, CurrentRow>();
  const desiredDeleted: string[] = [];
  for (const [key, prev] of prevDesired) {
    if (state.desired.has(key)) continue;
    if (prev.sourcePath && state.failingFiles.has(prev.sourcePath)) {
      carried.set(key, prev);
      continue;
    }
    desiredDeleted.push(key);
    desiredVersions.push({ key, blobHash: null });
    desiredChanged.add(key);
  }
  const carriedBodies = await readBlobs(db, [...carried.values()].map((c) => c.blobHash));

  // ── Compare (only what changed, unless the comparison itself changed) ─────
  const openItems = await db.driftItem.findMany({
    where: { environmentId: envId, resolvedAt: null },
    select: { id: true, key: true, type: true, changes: true, conflict: true, reopenCount: true, ignored: true },
  });
  const openByKey = new Map<string, OpenItem>(openItems.map((i) => [i.key, i]));
  const results = new Map<string, ObjectDrift>();
  const recomputed = new Set<string>();
  const allKeys = new Set<string>([...state.desired.keys(), ...carried.keys(), ...state.live.keys()]);
  for (const key of allKeys) {
    if (state.forbiddenKinds.has(groupKindOfKey(key))) continue;
    const unchanged = sameOptions && !liveChanged.has(key) && !desiredChanged.has(key) && (prevLive.has(key) || prevDesired.has(key));
    if (unchanged && !state.compareOptions.extraTracking?.fluxInventory) {
      const open = openByKey.get(key);
      results.set(key, open ? ({ type: open.type, changes: open.changes as unknown as Change[], ignored: open.ignored as Record<string, number> } as ObjectDrift) : { type: "InSync", ignored: {} });
      continue;
    }
    const desiredObj = state.desired.get(key)?.object ?? (carried.has(key) ? (carriedBodies.get(carried.get(key)?.blobHash ?? "") as KubeObject | undefined) : undefined) ?? null;
    const liveObj = state.live.get(key)?.object ?? null;
    results.set(key, compareObject(desiredObj, liveObj, state.compareOptions));
    recomputed.add(key);
  }

  const applied = await resolveApplied(results);
  const events: ObservedEvent[] = [];
  const envRow = await db.environment.findUniqueOrThrow({ where: { id: envId }, select: { name: true } });

  const stats = {
    desired: state.desired.size + carried.size,
    live: state.live.size,
    drift: { Modified: 0, Missing: 0, Extra: 0 },
    ignored: 0,
    blobsWritten: 0,
    objectsChanged: liveChanged.size + desiredChanged.size,
  };
  for (const r of results.values()) {
    if (r.type !== "InSync") stats.drift[r.type]++;
    for (const n of Object.values(r.ignored)) stats.ignored += n;
  }

  await db.$transaction(
    async (tx) => {
      stats.blobsWritten = await writeBlobs(tx, blobs);
      await upsertLiveRows(tx, envId, liveUpserts, now);
      await touchResourceVersions(tx, envId, rvTouches);
      await deleteRows(tx, "LiveObject", envId, liveDeleted);
      await appendVersions(tx, envId, state.runId, "live", liveVersions, now);
      await upsertDesiredRows(tx, envId, desiredUpserts, now);
      await moveDesiredRevision(tx, envId, desiredMoved, state.approvedSha);
      await deleteRows(tx, "DesiredObject", envId, desiredDeleted);
      await appendVersions(tx, envId, state.runId, "desired", desiredVersions, now);

      // ── Drift lifecycle ──────────────────────────────────────────────────
      const seenKeys: string[] = [];
      for (const [key, result] of results) {
        const open = openByKey.get(key);
        if (result.type === "InSync") {
          if (!open) continue;
          const how = desiredChanged.has(key) && !liveChanged.has(key) ? "adopted" : Object.keys(result.ignored).length > 0 && !liveChanged.has(key) && !desiredChanged.has(key) ? "ignored" : "reverted";
          await tx.driftItem.update({ where: { id: open.id }, data: { resolvedAt: now, resolution: how, resolutionSha: how === "adopted" ? state.approvedSha : null, lastSeenAt: now } });
          events.push({ action: "drift.resolved", targetId: open.id, key, before: { type: open.type }, after: { resolution: how, sha: how === "adopted" ? state.approvedSha : null } });
          continue;
        }
        const changes = result.type === "Modified" ? result.changes : [];
        const attribution = mainAttribution(changes);
        if (open) {
          if (!recomputed.has(key)) {
            seenKeys.push(open.id);
            continue;
          }
          const flips = ownerFlips(open.changes as unknown as Change[], changes);
          const prevConflict = open.conflict as Conflict | null;
          const conflict: Conflict | null =
            flips.length > 0
              ? { path: flips[0]?.path ?? null, managers: [...new Set([...(prevConflict?.managers ?? []), flips[0]?.from ?? "", flips[0]?.to ?? ""])].filter(Boolean), flips: (prevConflict?.flips ?? 0) + flips.length }
              : prevConflict;
          await tx.driftItem.update({
            where: { id: open.id },
            data: {
              type: result.type,
              changes: changes as unknown as Prisma.InputJsonValue,
              ignored: result.ignored,
              lastSeenAt: now,
              attributionManager: attribution?.manager ?? null,
              attributionClass: attribution?.class ?? null,
              attributionTime: attribution?.time ? new Date(attribution.time) : null,
              conflict: (conflict ?? undefined) as Prisma.InputJsonValue | undefined,
            },
          });
          continue;
        }
        const parts = parseObjectKey(key);
        const obj = state.live.get(key)?.object ?? state.desired.get(key)?.object;
        // Drift that keeps coming back (a person re-applying while the controller reverts) is a fight, not an accident.
        const recent = await tx.driftItem.findMany({
          where: { environmentId: envId, key, resolvedAt: { gte: new Date(now.getTime() - 86_400_000) } },
          select: { attributionManager: true, resolution: true },
        });
        const conflict: Conflict | null =
          recent.length >= 2
            ? { path: changes[0]?.display ?? null, managers: [...new Set([attribution?.manager, ...recent.map((r) => r.attributionManager)].filter((m): m is string => Boolean(m)))], flips: recent.length }
            : null;
        const created = await tx.driftItem.create({
          data: {
            environmentId: envId,
            key,
            apiVersion: obj?.apiVersion ?? "",
            kind: parts.kind,
            namespace: parts.namespace,
            name: parts.name,
            type: result.type,
            changes: changes as unknown as Prisma.InputJsonValue,
            ignored: result.ignored,
            openedAt: now,
            lastSeenAt: now,
            reopenCount: recent.length,
            conflict: (conflict ?? undefined) as Prisma.InputJsonValue | undefined,
            attributionManager: attribution?.manager ?? null,
            attributionClass: attribution?.class ?? null,
            attributionTime: attribution?.time ? new Date(attribution.time) : null,
          },
          select: { id: true },
        });
        events.push({ action: "drift.opened", targetId: created.id, key, after: { type: result.type, fields: changes.map((c) => c.display), manager: attribution?.manager ?? null } });
      }
      if (seenKeys.length > 0) await tx.driftItem.updateMany({ where: { id: { in: seenKeys } }, data: { lastSeenAt: now } });
      // Open items whose object is gone on both sides, or whose kind we can read again and is absent.
      for (const open of openItems) {
        if (results.has(open.key) || state.forbiddenKinds.has(groupKindOfKey(open.key))) continue;
        const how = open.type === "Missing" ? "adopted" : "deleted";
        await tx.driftItem.update({ where: { id: open.id }, data: { resolvedAt: now, resolution: how, resolutionSha: how === "adopted" ? state.approvedSha : null } });
        events.push({ action: "drift.resolved", targetId: open.id, key: open.key, before: { type: open.type }, after: { resolution: how } });
      }

      // ── Lineage ──────────────────────────────────────────────────────────
      let appliedSince: Date | undefined;
      if (applied.sha) {
        const current = await tx.appliedRevision.findFirst({ where: { environmentId: envId, endedAt: null }, orderBy: { firstSeenAt: "desc" } });
        if (current?.sha === applied.sha) {
          await tx.appliedRevision.update({ where: { id: current.id }, data: { lastSeenAt: now, source: applied.source } });
          appliedSince = current.firstSeenAt;
        } else {
          if (current) await tx.appliedRevision.update({ where: { id: current.id }, data: { endedAt: now } });
          await tx.appliedRevision.create({ data: { environmentId: envId, sha: applied.sha, source: applied.source, firstSeenAt: now, lastSeenAt: now } });
          appliedSince = now;
          events.push({ action: "revision.applied", targetId: applied.sha, key: null, before: { sha: current?.sha ?? null }, after: { sha: applied.sha, source: applied.source } });
        }
      }
      if (lastGood.approvedSha !== state.approvedSha) {
        events.push({ action: "revision.approved", targetId: state.approvedSha, key: null, before: { sha: lastGood.approvedSha }, after: { sha: state.approvedSha } });
      }
      const approvedRev = await tx.revision.findFirst({ where: { sha: state.approvedSha }, select: { committedAt: true } });

      await tx.environment.update({
        where: { id: envId },
        data: {
          approvedSha: state.approvedSha,
          approvedAt: approvedRev?.committedAt ?? null,
          appliedSha: applied.sha,
          appliedSource: applied.sha ? applied.source : null,
          ...(appliedSince ? { appliedSince } : {}),
          controller: (state.controller ?? undefined) as Prisma.InputJsonValue | undefined,
          rollout: state.rollout as unknown as Prisma.InputJsonValue,
          objectCount: stats.live,
          lastRunId: state.runId,
          lastGoodRunId: state.runId,
          lastCollectedAt: now,
          lastGoodCollectedAt: now,
          lastError: Prisma.DbNull,
        },
      });
      await tx.collectionRun.update({ where: { id: state.runId }, data: { stats: { ...stats, optionsHash } as Prisma.InputJsonValue } });
      await recordEvents(tx, envRow.name, events, now);
    },
    { timeout: 120_000, maxWait: 30_000 },
  );
  return { stats, appliedSha: applied.sha };
}
