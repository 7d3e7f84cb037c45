// The write half of a collection run, in one transaction: current desired and
// live rows (only what changed), drift item lifecycle, applied revision
// lineage, and the environment's summary. Comparison happens here too, because
// it is skipped for objects that did not change since the last good run.
import { randomUUID } from "node:crypto";
import { Prisma } from "@/lib/db/generated/client";
import type { ControllerStatus, RolloutStatus, RunStats } from "@/lib/domain/types";
import { compareObject, detectReopenConflicts, parseObjectKey, planDriftLifecycle, type Change, type CompareContext, type CompareOptions, type DriftEpisode, type KubeObject, type Observation, type ObjectDrift } from "@/lib/drift";
import { contentHash } from "./canonical";
import { appendVersions, deleteRows, moveDesiredRevision, readBlobs, readCurrent, touchResourceVersions, upsertDesiredRows, upsertLiveRows, writeBlobs, type Blob, type CurrentRow } from "./store";
import type { CollectorContext } from "./collect-environment";
import { recordEvents, type ObservedEvent } from "./events";
import { closeClaimsForResolvedDrift } from "@/lib/claims";
import { desiredHash, rememberedRows, rememberRows, forgetRows } from "./run-memo";
import { insertDriftItems, nextConflict, updateDriftContent, type NewDriftRow, type StoredConflict } from "./persist-drift-rows";

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
  /** The revision desired objects were rendered at (the applied one when the controller reports it). */
  compareSha: string;
  desired: Map<string, DesiredEntry>;
  live: Map<string, LiveEntry>;
  /** Files that failed to parse: their objects keep their last good desired state. */
  failingFiles: Set<string>;
  /** `${group}/${kind}` the credential may not list: their last good live state is kept and not compared. */
  forbiddenKinds: Set<string>;
  controller: ControllerStatus | null;
  compareOptions: CompareOptions;
  compareContext: CompareContext;
  rollout: RolloutStatus[];
  appliedSha: string | null;
  appliedSource: "controller" | "inferred" | null;
  /** readPersistInputs, started early by the run; read here when absent. */
  inputs?: Promise<PersistInputs>;
}

/** Same as storedForm in collect-environment, kept here to avoid an import cycle. */
function stored(obj: KubeObject): KubeObject {
  const { status: _s, ...rest } = obj;
  const { managedFields: _m, resourceVersion: _r, ...metadata } = obj.metadata;
  return { ...rest, metadata } as KubeObject;
}

/** Whether a key is of a kind the credential may not list (parsing keys only when some kind is). */
function forbidden(state: Pick<CollectedState, "forbiddenKinds">, key: string): boolean {
  return state.forbiddenKinds.size > 0 && state.forbiddenKinds.has(groupKindOfKey(key));
}

function groupKindOfKey(key: string): string {
  const p = parseObjectKey(key);
  return `${p.group}/${p.kind}`;
}

function rowFor(key: string, obj: KubeObject, blobHash: string): CurrentRow {
  return { key, apiVersion: obj.apiVersion, kind: obj.kind, namespace: obj.metadata.namespace ?? "", name: obj.metadata.name, blobHash };
}

type OpenItem = Prisma.DriftItemGetPayload<{ select: { id: true; key: true; type: true; changes: true; conflict: true; openedAt: true; lastSeenAt: true } }>;

/** An open drift item's lastSeenAt is accurate to this (the environment's lastGoodCollectedAt is exact). */
export const LAST_SEEN_STEP_MS = 5 * 60_000;

export type PersistInputs = Awaited<ReturnType<typeof readPersistInputs>>;

/**
 * What persistRun reads before it writes: the environment, its last good
 * run's comparison settings and its drift (open, and resolved within a day).
 * Nothing in the run changes these, so a run may start reading them early.
 */
export async function readPersistInputs(db: CollectorContext["db"], envId: string, now: Date) {
  const [lastGoodRows, openItems, recent] = await Promise.all([
    db.$queryRaw<Array<{ name: string; lastGoodRunId: number | null; approvedSha: string | null; optionsHash: string | null }>>`
      SELECT e.name, e."lastGoodRunId", e."approvedSha", r.stats->>'optionsHash' AS "optionsHash"
      FROM "Environment" e LEFT JOIN "CollectionRun" r ON r.id = e."lastGoodRunId"
      WHERE e.id = ${envId}::uuid`,
    db.driftItem.findMany({
      where: { environmentId: envId, resolvedAt: null },
      select: { id: true, key: true, type: true, changes: true, conflict: true, openedAt: true, lastSeenAt: true },
    }),
    db.driftItem.findMany({
      where: { environmentId: envId, resolvedAt: { gte: new Date(now.getTime() - 86_400_000) } },
      select: { key: true, openedAt: true, resolvedAt: true, resolution: true, attributionManager: true, changes: true },
    }),
  ]);
  return { lastGoodRows, openItems, recent };
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

  const { lastGoodRows, openItems, recent } = await (state.inputs ?? readPersistInputs(db, envId, now));
  const lastGood = lastGoodRows[0];
  if (!lastGood) throw new Error(`environment ${envId} does not exist`);
  // The rows this process wrote as the last good run are the rows in Postgres, unless someone ran since.
  const remembered = rememberedRows(envId, lastGood.lastGoodRunId);
  const [prevLive, prevDesired] = remembered
    ? [remembered.live, remembered.desired]
    : await Promise.all([readCurrent(db, "LiveObject", envId), readCurrent(db, "DesiredObject", envId)]);
  forgetRows(envId);
  const sameOptions = lastGood.optionsHash === optionsHash;

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
    if (forbidden(state, key)) continue; // unknown, not gone
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
    // Desired objects come from a render that is reused while Git does not move: hash each once.
    const hash = desiredHash(d.object, () => contentHash(stored(d.object)).hash);
    if (prev?.blobHash === hash) {
      if (prev.revisionSha !== d.revisionSha || prev.sourcePath !== d.sourcePath) desiredMoved.push(d.key);
      continue;
    }
    blobs.push({ hash, text: contentHash(stored(d.object)).text });
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
  const openByKey = new Map<string, OpenItem>(openItems.map((i) => [i.key, i]));
  const compareContext = state.compareContext;
  const results = new Map<string, ObjectDrift>();
  const observations = new Map<string, Observation>();
  const allKeys = new Set<string>([...state.desired.keys(), ...carried.keys(), ...state.live.keys()]);
  for (const key of allKeys) {
    if (forbidden(state, key)) continue;
    const unchanged = sameOptions && !liveChanged.has(key) && !desiredChanged.has(key) && (prevLive.has(key) || prevDesired.has(key));
    if (unchanged) {
      // Nothing about this object changed since the last good run: its verdict stands.
      const open = openByKey.get(key);
      results.set(key, open ? ({ type: open.type, changes: open.changes as unknown as Change[], ignored: {} } as ObjectDrift) : { type: "InSync", ignored: {} });
      continue;
    }
    const desiredObj = state.desired.get(key)?.object ?? (carried.has(key) ? (carriedBodies.get(carried.get(key)?.blobHash ?? "") as KubeObject | undefined) : undefined) ?? null;
    const liveObj = state.live.get(key)?.object ?? null;
    const drift = compareObject(desiredObj, liveObj, compareContext);
    results.set(key, drift);
    observations.set(key, { drift, inDesired: desiredObj !== null, inLive: liveObj !== null });
  }
  // Open items whose object is now gone from both sides.
  for (const open of openItems) {
    if (allKeys.has(open.key) || forbidden(state, open.key)) continue;
    observations.set(open.key, { drift: { type: "InSync", ignored: {} }, inDesired: false, inLive: false });
  }
  const previousResolutions = new Map<string, number>();
  const recentEpisodes = new Map<string, DriftEpisode[]>();
  for (const r of recent) {
    previousResolutions.set(r.key, (previousResolutions.get(r.key) ?? 0) + 1);
    const list = recentEpisodes.get(r.key) ?? [];
    list.push({
      key: r.key,
      openedAt: r.openedAt.toISOString(),
      resolvedAt: r.resolvedAt?.toISOString() ?? null,
      resolution: r.resolution,
      managers: [r.attributionManager],
      paths: (r.changes as unknown as Change[]).map((c) => c.display),
    });
    recentEpisodes.set(r.key, list);
  }

  const applied = await resolveApplied(results);
  const events: ObservedEvent[] = [];

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

  const rolloutJson = JSON.stringify(state.rollout);
  const controllerJson = JSON.stringify(state.controller ?? null);
  await db.$transaction(
    async (tx) => {
      stats.blobsWritten = await writeBlobs(tx, blobs);
      await upsertLiveRows(tx, envId, liveUpserts, now);
      await touchResourceVersions(tx, envId, rvTouches);
      await deleteRows(tx, "LiveObject", envId, liveDeleted);
      await appendVersions(tx, envId, state.runId, "live", liveVersions, now);
      await upsertDesiredRows(tx, envId, desiredUpserts, now);
      await moveDesiredRevision(tx, envId, desiredMoved, state.compareSha);
      await deleteRows(tx, "DesiredObject", envId, desiredDeleted);
      await appendVersions(tx, envId, state.runId, "desired", desiredVersions, now);

      // ── Drift lifecycle ──────────────────────────────────────────────────
      const plan = planDriftLifecycle({
        now,
        open: openItems.map((i) => ({ id: i.id, key: i.key, type: i.type, changes: i.changes as unknown as Change[], openedAt: i.openedAt.toISOString() })),
        results: observations,
        desiredChanges: new Map([...desiredChanged].map((k) => [k, state.compareSha])),
        approvedSha: state.approvedSha,
        context: compareContext,
        previousResolutions,
      });
      const stillSeen = openItems.filter((i) => !observations.has(i.key) && !forbidden(state, i.key)).map((i) => i.id);
      // Seen again, unchanged: one statement for all of them, and only for items
      // last stamped LAST_SEEN_STEP_MS ago, so every run does not rewrite every
      // open item (MVCC keeps each rewrite until vacuum).
      const stale = new Date(now.getTime() - LAST_SEEN_STEP_MS);
      const lastSeen = new Map(openItems.map((i) => [i.id, i.lastSeenAt]));
      const seen = [...stillSeen, ...plan.update.filter((u) => !u.contentChanged).map((u) => u.id)].filter((id) => (lastSeen.get(id) ?? now) < stale);
      if (seen.length > 0) {
        await tx.driftItem.updateMany({ where: { id: { in: seen }, lastSeenAt: { lt: new Date(now.getTime() - LAST_SEEN_STEP_MS) } }, data: { lastSeenAt: now } });
      }
      const changed = plan.update
        .filter((u) => u.contentChanged)
        .map((u) => ({ u, conflict: nextConflict(openByKey.get(u.key)?.conflict as StoredConflict | null, u.changes) }));
      await updateDriftContent(tx, changed, now);
      // Resolutions that end the same way are written (and their claims closed) together.
      const resolvedBy = new Map<string, { reason: (typeof plan.resolve)[number]["reason"]; sha: string | null; ids: string[] }>();
      for (const r of plan.resolve) {
        const how = `${r.reason}\0${r.sha ?? ""}`;
        const group = resolvedBy.get(how) ?? { reason: r.reason, sha: r.sha ?? null, ids: [] };
        group.ids.push(r.id);
        resolvedBy.set(how, group);
        events.push({ action: "drift.resolved", targetId: r.id, key: r.key, before: { type: openByKey.get(r.key)?.type }, after: { resolution: r.reason, sha: r.sha, durationMs: r.durationMs } });
      }
      for (const g of resolvedBy.values()) {
        await tx.driftItem.updateMany({ where: { id: { in: g.ids } }, data: { resolvedAt: now, resolution: g.reason, resolutionSha: g.sha, lastSeenAt: now } });
      }
      // A claimed divergence ends by itself when its drift does, recording how.
      for (const g of resolvedBy.values()) await closeClaimsForResolvedDrift(tx, g.ids, { resolution: g.reason, sha: g.sha }, now);
      const opened: NewDriftRow[] = [];
      for (const n of plan.open) {
        const parts = parseObjectKey(n.key);
        const obj = state.live.get(n.key)?.object ?? state.desired.get(n.key)?.object;
        const episodes = recentEpisodes.get(n.key) ?? [];
        const reopen = detectReopenConflicts(
          [...episodes, { key: n.key, openedAt: n.openedAt, resolvedAt: null, resolution: null, managers: [n.attribution?.manager ?? null], paths: n.changes.map((c) => c.display) }],
          { controllerManager: state.compareOptions.controllerManagers?.[0] ?? "controller" },
        )[0];
        const conflict = nextConflict(null, n.changes, reopen ? { path: reopen.path, managers: reopen.managers, flips: reopen.flips } : null);
        const id = randomUUID();
        opened.push({ id, key: n.key, apiVersion: obj?.apiVersion ?? "", kind: parts.kind, namespace: parts.namespace, name: parts.name, item: n, conflict });
        events.push({ action: "drift.opened", targetId: id, key: n.key, after: { type: n.type, fields: n.changes.map((c) => c.display), manager: n.attribution?.manager ?? null } });
      }
      await insertDriftItems(tx, envId, opened, now);

      // ── Lineage ──────────────────────────────────────────────────────────
      let appliedSince: Date | undefined;
      if (applied.sha) {
        // Still the same applied revision (nearly every run): one statement stamps it and says since when.
        const [still] = await tx.$queryRaw<Array<{ firstSeenAt: Date }>>`
          UPDATE "AppliedRevision" SET "lastSeenAt" = ${now}, source = ${applied.source}
          WHERE id = (SELECT id FROM "AppliedRevision" WHERE "environmentId" = ${envId}::uuid AND "endedAt" IS NULL ORDER BY "firstSeenAt" DESC LIMIT 1)
            AND sha = ${applied.sha}
          RETURNING "firstSeenAt"`;
        if (still) {
          appliedSince = still.firstSeenAt;
        } else {
          const current = await tx.appliedRevision.findFirst({ where: { environmentId: envId, endedAt: null }, orderBy: { firstSeenAt: "desc" } });
          if (current) await tx.appliedRevision.update({ where: { id: current.id }, data: { endedAt: now } });
          await tx.appliedRevision.create({ data: { environmentId: envId, sha: applied.sha, source: applied.source, firstSeenAt: now, lastSeenAt: now } });
          appliedSince = now;
          events.push({ action: "revision.applied", targetId: applied.sha, key: null, before: { sha: current?.sha ?? null }, after: { sha: applied.sha, source: applied.source } });
        }
      }
      if (lastGood.approvedSha !== state.approvedSha) {
        events.push({ action: "revision.approved", targetId: state.approvedSha, key: null, before: { sha: lastGood.approvedSha }, after: { sha: state.approvedSha } });
      }
      // The environment's summary and the run's stats in one statement. The
      // rollout summary (one entry per workload) and the controller status are
      // written only when they changed: each rewrite is a new copy until vacuum.
      const controllerChanged = state.controller !== null && remembered?.controller !== controllerJson;
      const rolloutChanged = remembered?.rollout !== rolloutJson;
      await tx.$executeRaw`
        WITH run AS (UPDATE "CollectionRun" SET stats = ${JSON.stringify({ ...stats, optionsHash })}::jsonb WHERE id = ${state.runId})
        UPDATE "Environment" SET
          "approvedSha" = ${state.approvedSha},
          "approvedAt" = (SELECT "committedAt" FROM "Revision" WHERE sha = ${state.approvedSha} LIMIT 1),
          "appliedSha" = ${applied.sha},
          "appliedSource" = ${applied.sha ? applied.source : null},
          "appliedSince" = COALESCE(${appliedSince ?? null}::timestamptz, "appliedSince"),
          "objectCount" = ${stats.live},
          "lastRunId" = ${state.runId},
          "lastGoodRunId" = ${state.runId},
          "lastCollectedAt" = ${now},
          "lastGoodCollectedAt" = ${now},
          "lastError" = NULL,
          "updatedAt" = ${new Date()}
          ${controllerChanged ? Prisma.sql`, controller = ${controllerJson}::jsonb` : Prisma.empty}
          ${rolloutChanged ? Prisma.sql`, rollout = ${rolloutJson}::jsonb` : Prisma.empty}
        WHERE id = ${envId}::uuid`;
      await recordEvents(tx, lastGood.name, events, now);
    },
    { timeout: 120_000, maxWait: 30_000 },
  );

  // What Postgres now holds, kept for this environment's next run in this process.
  for (const r of liveUpserts) prevLive.set(r.key, r);
  for (const t of rvTouches) {
    const row = prevLive.get(t.key);
    if (row) prevLive.set(t.key, { ...row, resourceVersion: t.resourceVersion });
  }
  for (const key of liveDeleted) prevLive.delete(key);
  for (const r of desiredUpserts) prevDesired.set(r.key, r);
  for (const key of desiredMoved) {
    const row = prevDesired.get(key);
    if (row) prevDesired.set(key, { ...row, revisionSha: state.compareSha });
  }
  for (const key of desiredDeleted) prevDesired.delete(key);
  rememberRows(envId, { runId: state.runId, live: prevLive, desired: prevDesired, rollout: rolloutJson, controller: controllerJson });
  return { stats, appliedSha: applied.sha };
}
