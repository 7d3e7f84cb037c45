// The write half of a collection run, in one transaction: current desired and
// live rows (only what changed), drift item lifecycle, applied revision
// lineage, and the environment's summary. Comparison happens here too, because
// it is skipped for objects that did not change since the last good run.
import { randomUUID } from "node:crypto";
import { Prisma } from "@/lib/db/generated/client";
import { clearLogs as clearPrismaDebugHistory } from "@prisma/debug";
import type { ControllerStatus, RolloutStatus, RunError, RunStats } from "@/lib/domain/types";
import type { ApplicationSpec } from "@/lib/applications/spec";
import { rollupApplications, rollupInputs } from "@/lib/applications/rollup";
import { compareObject, detectReopenConflicts, keyMayCarryOwnPause, parseObjectKey, planDriftLifecycle, type Change, type CompareContext, type CompareOptions, type DriftEpisode, type KubeObject, type Observation, type ObjectDrift } from "@/lib/drift";
import { contentHash } from "./canonical";
import { summariseRollout } from "@/lib/kube/rollout";
import { appendVersions, deleteRows, moveDesiredRevision, moveDesiredSourcePaths, readBlobs, readCurrent, reassignRows, touchResourceVersions, upsertDesiredRows, upsertLiveRows, writeBlobs, type Blob, type CurrentRow, type StoredRow, type Tx, storedRow } from "./store";
import type { CollectorContext } from "./collect-environment";
import { RunSuperseded } from "./run-context";
import { recordEvents, type ObservedEvent } from "./events";
import { closeClaimsForResolvedDrift } from "@/lib/claims";
import { rememberedRows, rememberRows, forgetRows, type CurrentRows } from "./run-memo";
import { desiredBlobHash, storedForm, type LiveEntry } from "./live-intake";
import { settle, type IntakeMemory } from "./live-delta";
import { insertDriftItems, nextConflict, updateDriftContent, type NewDriftRow, type StoredConflict } from "./persist-drift-rows";

export interface DesiredEntry {
  key: string;
  object: KubeObject;
  sourcePath: string;
  revisionSha: string;
}

export type { LiveEntry } from "./live-intake";

/** One application as this run collected it. */
export interface ApplicationState {
  /** Its Application row's id (new applications get theirs from the run). */
  id: string;
  spec: ApplicationSpec;
  approvedSha: string;
  /** When the approved revision was published, where it is not a commit's (a chart version); null: read from its commit. */
  approvedAt: Date | null;
  /** The revision its desired objects were rendered at (the applied one when the controller reports it). */
  compareSha: string;
  controller: ControllerStatus | null;
  compareOptions: CompareOptions;
  compareContext: CompareContext;
  /** Files that failed to parse: their objects keep their last good desired state. */
  failingFiles: Set<string>;
  rollout: RolloutStatus[];
  /**
   * The commits this run found changing its controller object's manifest in its parent's Git, newest first (declared-by.ts); null when it
   * could not tell. Added to the stored ones, not put in their place: see DECLARED_CHANGES_KEPT.
   */
  declaredChanges: readonly string[] | null;
  /** The parent's files declaring or patching it, with declaredChanges (declared-by.ts): added to the stored ones likewise. */
  declaringFiles: readonly string[];
  /**
   * Applied revision: the controller's word, else inferred from live state (given this application's drift results);
   * `behind` when it does not contain the approved revision (a commit to another path leaves it not behind).
   */
  resolveApplied: (results: Map<string, ObjectDrift>) => Promise<AppliedRevisionOf>;
}

export interface AppliedRevisionOf {
  sha: string | null;
  source: "controller" | "inferred";
  behind: boolean;
}

/** An application the run could not collect: its last good state is kept untouched, and the reason shown on it. */
export interface SkippedApplication {
  id: string;
  spec: ApplicationSpec;
  error: RunError;
}

export interface CollectedState {
  environmentId: string;
  runId: number;
  /** At least one; the first stands for the environment in its per-environment columns (approved/applied/controller). */
  applications: ApplicationState[];
  skipped: SkippedApplication[];
  /** Which application each desired and live key belongs to (its Application id). */
  ownerOf: Pick<ReadonlyMap<string, string>, "get" | "has">;
  desired: Map<string, DesiredEntry>;
  /** Compact entries, hashed and compared as they arrived (live-intake.ts) against `previous`. */
  live: Map<string, LiveEntry>;
  /** The last good run's rows and settings, read before the lists (readPrevious). */
  previous: PreviousRun;
  /** `${group}/${kind}` the credential may not list: their last good live state is kept and not compared. */
  forbiddenKinds: Set<string>;
  /** Every workload of the environment. */
  rollout: RolloutStatus[];
  staleAfterMs: number;
  /** readPersistInputs, started early by the run; read here when absent. */
  inputs?: Promise<PersistInputs>;
  /**
   * Set when `live` is the last good run's entries with only these keys taken in again (live-delta.ts): every
   * other entry is untouched, with the owner it was written with, so only these keys are gone through.
   */
  delta?: ReadonlySet<string> | null;
  /** What the next run may continue from, kept with the rows once they are written (live-delta.ts). */
  intake?: IntakeMemory | null;
}

const stored = storedForm;

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

export interface PreviousRun {
  /** The last good run these rows are of, when the run read them: persistRun writes only while it still is (holdEnvironment). */
  lastGoodRunId: number | null;
  prevLive: Map<string, StoredRow>;
  prevDesired: Map<string, StoredRow>;
  /** What this process remembered of the last good run (null: rows read from Postgres). */
  remembered: ReturnType<typeof rememberedRows>;
  optionsHash: string;
  sameOptions: boolean;
  /** Hash of the pauses Driftwatch holds, apart from the options: a pause changes verdicts on controller objects only. */
  pausesHash: string;
  samePauses: boolean;
}

/**
 * Whether the last good run's verdict on `key` still stands, content unchanged: the same comparison settings,
 * and for a controller object that may carry a pause, the same pauses held.
 */
export function sameComparison(previous: Pick<PreviousRun, "sameOptions" | "samePauses">, key: string): boolean {
  return previous.sameOptions && (previous.samePauses || !keyMayCarryOwnPause(key));
}

/**
 * The last good run's current rows and comparison settings, read before the
 * lists so each page can be compared as it arrives. The rows this process
 * wrote as the last good run are the rows in Postgres, unless someone ran
 * since (persistRun forgets them before it writes, and remembers what it wrote).
 */
export async function readPrevious(db: CollectorContext["db"], envId: string, inputs: PersistInputs, apps: ReadonlyArray<Pick<ApplicationState, "spec" | "compareOptions">>): Promise<PreviousRun> {
  const lastGood = inputs.lastGoodRows[0];
  if (!lastGood) throw new Error(`environment ${envId} does not exist`);
  const remembered = rememberedRows(envId, lastGood.lastGoodRunId);
  const [prevLive, prevDesired] = remembered
    ? [remembered.live, remembered.desired]
    : await Promise.all([readCurrent(db, "LiveObject", envId), readCurrent(db, "DesiredObject", envId)]);
  const optionsHash = optionsHashOf(apps);
  const pausesHash = pausesHashOf(apps);
  // A run written before pauses were hashed apart held none that counted.
  const samePauses = (lastGood.pausesHash ?? pausesHashOf([])) === pausesHash;
  return { lastGoodRunId: lastGood.lastGoodRunId, prevLive, prevDesired, remembered, optionsHash, sameOptions: lastGood.optionsHash === optionsHash, pausesHash, samePauses };
}

type OpenItem = Prisma.DriftItemGetPayload<{ select: { id: true; applicationId: true; key: true; type: true; changes: true; conflict: true; openedAt: true; lastSeenAt: true } }>;

/** An open drift item's lastSeenAt is accurate to this (the environment's lastGoodCollectedAt is exact). */
export const LAST_SEEN_STEP_MS = 5 * 60_000;

export type PersistInputs = Awaited<ReturnType<typeof readPersistInputs>>;

/** The verdict of every object nothing changed about and no drift item is open for; shared, never changed. */
const IN_SYNC: ObjectDrift = Object.freeze({ type: "InSync", ignored: Object.freeze({}) }) as ObjectDrift;

/**
 * Remembered desired rows (run-memo.ts) → the desired set they were last
 * brought up to date with. A run with the same set (collect-environment keeps
 * it while no render moves) has nothing to write on the desired side.
 */
const desiredWritten = new WeakMap<Map<string, StoredRow>, ReadonlyMap<string, DesiredEntry>>();

/**
 * Whether `desired` is the very desired set the remembered rows were written from, with nothing kept beside it
 * (carried or frozen rows make the sizes differ): then no desired row can differ, and nothing needs hashing.
 */
export function isDesiredAsStored(previous: Pick<PreviousRun, "remembered" | "prevDesired">, desired: ReadonlyMap<string, unknown>): boolean {
  return previous.remembered !== null && desiredWritten.get(previous.prevDesired) === desired && previous.prevDesired.size === desired.size;
}

/**
 * What persistRun reads before it writes: the environment, its last good
 * run's comparison settings and its drift (open, and resolved within a day).
 * Nothing in the run changes these, so a run may start reading them early.
 */
export async function readPersistInputs(db: CollectorContext["db"], envId: string, now: Date) {
  const [lastGoodRows, openItems, recent, applicationRows, ownPauses] = await Promise.all([
    db.$queryRaw<Array<{ name: string; lastGoodRunId: number | null; approvedSha: string | null; optionsHash: string | null; pausesHash: string | null }>>`
      SELECT e.name, e."lastGoodRunId", e."approvedSha", r.stats->>'optionsHash' AS "optionsHash", r.stats->>'pausesHash' AS "pausesHash"
      FROM "Environment" e LEFT JOIN "CollectionRun" r ON r.id = e."lastGoodRunId"
      WHERE e.id = ${envId}::uuid`,
    db.driftItem.findMany({
      where: { environmentId: envId, resolvedAt: null },
      select: { id: true, applicationId: true, key: true, type: true, changes: true, conflict: true, openedAt: true, lastSeenAt: true },
    }),
    db.driftItem.findMany({
      where: { environmentId: envId, resolvedAt: { gte: new Date(now.getTime() - 86_400_000) } },
      select: { key: true, openedAt: true, resolvedAt: true, resolution: true, attributionManager: true, changes: true },
    }),
    // controllerRef and spec: a discovered application whose kind cannot be listed this run is kept as it was (run-applications.ts).
    db.application.findMany({ where: { environmentId: envId }, select: { id: true, name: true, removedAt: true, approvedSha: true, controllerRef: true, spec: true } }),
    // Every environment's: a controller object paused in one environment may be declared by an application of another (a hub).
    db.pause.findMany({ where: { origin: "dashboard", endedAt: null }, select: { id: true }, orderBy: { id: "asc" } }),
  ]);
  return { lastGoodRows, openItems, recent, applicationRows, ownPauseIds: ownPauses.map((p) => p.id) };
}

/**
 * Each application's Application row id: the stored one for a name seen
 * before (removed ones come back under their old id and history), a new one
 * otherwise. Duplicate names keep the first.
 */
export function applicationIds(inputs: PersistInputs, specs: readonly ApplicationSpec[]): Map<string, string> {
  const ids = new Map<string, string>();
  for (const spec of specs) {
    if (ids.has(spec.name)) continue;
    ids.set(spec.name, inputs.applicationRows.find((r) => r.name === spec.name)?.id ?? randomUUID());
  }
  return ids;
}

function optionsHashOf(apps: ReadonlyArray<Pick<ApplicationState, "spec" | "compareOptions">>): string {
  // Held pauses are hashed apart (pausesHashOf): one starting or ending anywhere must not recompare every object.
  const strip = (o: CompareOptions) => ({ ...o, secretKey: undefined, ownPauseIds: undefined, extraTracking: { ...o.extraTracking, fluxInventory: undefined } });
  // One application hashes as the environment did before applications, so an upgrade does not recompare everything.
  return contentHash(apps.length === 1 ? strip(apps[0]!.compareOptions) : apps.map((a) => [a.spec.name, strip(a.compareOptions)])).hash;
}

/** The pauses Driftwatch holds, as this run's applications compare with them (every application is given the same). */
function pausesHashOf(apps: ReadonlyArray<Pick<ApplicationState, "compareOptions">>): string {
  return contentHash([...new Set(apps.flatMap((a) => a.compareOptions.ownPauseIds ?? []))].sort()).hash;
}

export async function persistRun(ctx: CollectorContext, state: CollectedState): Promise<{ stats: Omit<RunStats, "durationMs">; appliedSha: string | null }> {
  const now = ctx.now();
  const { db } = ctx;
  const envId = state.environmentId;
  const apps = state.applications;
  const primary = apps[0];
  if (!primary) throw new Error("a run collects at least one application");
  const appById = new Map(apps.map((a) => [a.id, a]));
  const skippedIds = new Set(state.skipped.map((a) => a.id));
  const { prevLive, prevDesired, remembered, optionsHash, pausesHash } = state.previous;
  forgetRows(envId);
  const desiredAsStored = isDesiredAsStored(state.previous, state.desired);
  // Only the changed keys: when nothing but live objects moved, nothing is left unread and the per-application object counts are known.
  const delta = state.delta && desiredAsStored && remembered?.objects && state.forbiddenKinds.size === 0 && state.skipped.length === 0 ? state.delta : null;

  const { lastGoodRows, openItems, recent, applicationRows } = await (state.inputs ?? readPersistInputs(db, envId, now));
  const lastGood = lastGoodRows[0];
  if (!lastGood) throw new Error(`environment ${envId} does not exist`);
  // Rows an older release wrote carry no application: they are the first application's (the migration's "default").
  const storedOwner = (row: StoredRow | undefined) => row?.applicationId ?? primary.id;
  /** Unknown this run, not gone: kinds the credential may not list, and applications the run could not collect. */
  const frozen = (key: string) => forbidden(state, key) || (skippedIds.size > 0 && !state.ownerOf.has(key) && skippedIds.has(storedOwner(prevLive.get(key) ?? prevDesired.get(key))));
  const ownerOf = (key: string) => state.ownerOf.get(key) ?? storedOwner(prevDesired.get(key) ?? prevLive.get(key));
  const appOf = (key: string) => appById.get(ownerOf(key)) ?? primary;

  // ── Live rows ──────────────────────────────────────────────────────────
  const blobs: Blob[] = [];
  const liveUpserts: CurrentRow[] = [];
  const liveVersions: Array<{ key: string; blobHash: string | null }> = [];
  const rvTouches: Array<{ key: string; resourceVersion: string | null }> = [];
  const liveMoved: Array<{ key: string; applicationId: string }> = [];
  const liveChanged = new Set<string>();
  const liveRow = (l: LiveEntry) => {
    const prev = prevLive.get(l.key);
    const applicationId = ownerOf(l.key);
    // An object that changed hands between applications, unchanged itself: only its owner is rewritten.
    if (prev && prev.applicationId !== applicationId) liveMoved.push({ key: l.key, applicationId });
    if (l.hash === undefined) return; // untouched since last run
    if (l.text === undefined) {
      rvTouches.push({ key: l.key, resourceVersion: l.resourceVersion });
      return;
    }
    blobs.push({ hash: l.hash, text: l.text });
    liveUpserts.push({ key: l.key, apiVersion: l.apiVersion, kind: l.kind, namespace: l.namespace, name: l.name, blobHash: l.hash, resourceVersion: l.resourceVersion, applicationId });
    liveVersions.push({ key: l.key, blobHash: l.hash });
    liveChanged.add(l.key);
  };
  if (delta) {
    for (const key of delta) {
      const l = state.live.get(key);
      if (l) liveRow(l);
    }
  } else for (const l of state.live.values()) liveRow(l);
  const liveDeleted: string[] = [];
  for (const key of delta ?? prevLive.keys()) {
    if (state.live.has(key) || !prevLive.has(key)) continue;
    if (frozen(key)) continue;
    liveDeleted.push(key);
    liveVersions.push({ key, blobHash: null });
    liveChanged.add(key);
  }

  // ── Desired rows ───────────────────────────────────────────────────────
  const desiredUpserts: CurrentRow[] = [];
  const desiredVersions: Array<{ key: string; blobHash: string | null }> = [];
  const desiredMoved = new Map<string, string[]>(); // revision → keys whose content stayed
  const desiredRenamed: Array<{ key: string; sourcePath: string }> = []; // content stayed, its file did not
  const desiredReassigned: Array<{ key: string; applicationId: string }> = [];
  const desiredChanged = new Set<string>();
  for (const d of desiredAsStored ? [] : state.desired.values()) {
    const prev = prevDesired.get(d.key);
    const applicationId = ownerOf(d.key);
    if (prev && prev.applicationId !== applicationId) desiredReassigned.push({ key: d.key, applicationId });
    // Desired objects come from a render that is reused while Git does not move: hash each once.
    const hash = desiredBlobHash(d.object);
    if (prev?.blobHash === hash) {
      // Appended in place: a push moves every row of the environment, and copying the list per row was quadratic.
      if (prev.revisionSha !== d.revisionSha) {
        const keys = desiredMoved.get(d.revisionSha);
        if (keys) keys.push(d.key);
        else desiredMoved.set(d.revisionSha, [d.key]);
      }
      // A renamed file's rows follow it: the next run's parse failure of that file must carry them, not drop them.
      if (prev.sourcePath !== d.sourcePath) desiredRenamed.push({ key: d.key, sourcePath: d.sourcePath });
      continue;
    }
    // Made when its statement is sent: desired objects stay in memory (the kept render), their bodies need not.
    blobs.push({ hash, text: () => contentHash(stored(d.object)).text });
    desiredUpserts.push({ ...rowFor(d.key, d.object, hash), revisionSha: d.revisionSha, sourcePath: d.sourcePath, applicationId });
    desiredVersions.push({ key: d.key, blobHash: hash });
    desiredChanged.add(d.key);
  }
  const carried = new Map<string, StoredRow>();
  const desiredDeleted: string[] = [];
  for (const [key, prev] of desiredAsStored ? [] : prevDesired) {
    if (state.desired.has(key)) continue;
    if (frozen(key)) continue;
    if (prev.sourcePath && appById.get(storedOwner(prev))?.failingFiles.has(prev.sourcePath)) {
      carried.set(key, prev);
      continue;
    }
    desiredDeleted.push(key);
    desiredVersions.push({ key, blobHash: null });
    desiredChanged.add(key);
  }
  const carriedBodies = await readBlobs(db, [...carried.values()].map((c) => c.blobHash));

  // ── Compare (only what changed, unless the comparison itself changed), each object as its application compares ──
  const openByKey = new Map<string, OpenItem>(openItems.map((i) => [i.key, i]));
  const results = new Map<string, ObjectDrift>();
  const observations = new Map<string, Observation>();
  const inRun = (key: string) => state.desired.has(key) || carried.has(key) || state.live.has(key);
  const compareKey = (key: string) => {
    if (forbidden(state, key)) return;
    const unchanged = sameComparison(state.previous, key) && !liveChanged.has(key) && !desiredChanged.has(key) && (prevLive.has(key) || prevDesired.has(key));
    if (unchanged) {
      // Nothing about this object changed since the last good run: its verdict stands.
      const open = openByKey.get(key);
      results.set(key, open ? ({ type: open.type, changes: open.changes as unknown as Change[], ignored: {} } as ObjectDrift) : IN_SYNC);
      return;
    }
    const desiredObj = state.desired.get(key)?.object ?? (carried.has(key) ? (carriedBodies.get(carried.get(key)?.blobHash ?? "") as KubeObject | undefined) : undefined) ?? null;
    const live = state.live.get(key);
    if (live && !live.drift && !live.object) throw new Error(`live object ${key} was neither compared nor kept`);
    // Live objects were compared as they arrived, unless their desired state is carried (read just above).
    const drift = live?.drift ?? compareObject(desiredObj, live?.object ?? null, appOf(key).compareContext);
    results.set(key, drift);
    observations.set(key, { drift, inDesired: desiredObj !== null, inLive: live !== undefined });
  };
  if (delta) {
    // The changed keys, and the open items' standing verdicts; every other verdict stands, in sync, and counts for nothing.
    for (const key of delta) if (inRun(key)) compareKey(key);
    for (const open of openItems) if (!delta.has(open.key) && inRun(open.key)) compareKey(open.key);
  } else {
    // Every key once, without gathering them all first (an environment may hold 100,000).
    for (const key of state.desired.keys()) compareKey(key);
    for (const key of carried.keys()) if (!state.desired.has(key)) compareKey(key);
    for (const key of state.live.keys()) if (!state.desired.has(key) && !carried.has(key)) compareKey(key);
  }
  // Open items whose object is now gone from both sides.
  for (const open of openItems) {
    if (inRun(open.key) || frozen(open.key) || (open.applicationId && skippedIds.has(open.applicationId))) continue;
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
  /** An open item belongs to the application that now has its object, else to the one it was opened in. */
  const itemApp = (i: OpenItem) => appById.get(state.ownerOf.get(i.key) ?? i.applicationId ?? primary.id) ?? primary;

  // Each application's share of the comparison, split once (hundreds of applications, tens of thousands of objects).
  const resultsOf = partition(results, (key) => appOf(key).id, apps.length === 1 ? primary.id : null);
  // An observation goes with its open item's application, so that item is updated or resolved, never opened twice.
  const observationsOf = partition(observations, (key) => (openByKey.has(key) ? itemApp(openByKey.get(key)!).id : appOf(key).id), apps.length === 1 ? primary.id : null);
  const push = <T>(m: Map<string, T[]>, owner: string, v: T) => (m.get(owner) ?? m.set(owner, []).get(owner)!).push(v);
  const openOf = new Map<string, OpenItem[]>();
  for (const i of openItems) push(openOf, itemApp(i).id, i);
  const desiredChangedOf = new Map<string, string[]>();
  for (const key of desiredChanged) push(desiredChangedOf, appOf(key).id, key);

  // Each application's applied revision, from its own objects' results.
  const applied = new Map<string, AppliedRevisionOf>();
  for (const app of apps) applied.set(app.id, await app.resolveApplied(resultsOf.get(app.id) ?? new Map()));
  const events: ObservedEvent[] = [];
  const multi = apps.length > 1 || state.skipped.length > 0;
  /** Events name their application once an environment has more than one. */
  const tagged = (app: ApplicationState, after: Record<string, unknown>) => (multi ? { ...after, application: app.spec.name } : after);
  /**
   * An item's events name the application it is now with, else the one it was opened in, even when that
   * one is gone (its drift ends under its own name, not under whichever application took its observation).
   */
  const storedName = new Map(applicationRows.map((r) => [r.id, r.name]));
  const itemTagged = (i: OpenItem, after: Record<string, unknown>) => {
    const current = appById.get(state.ownerOf.get(i.key) ?? i.applicationId ?? "");
    if (current) return tagged(current, after);
    const name = i.applicationId ? storedName.get(i.applicationId) : undefined;
    return name && (multi || applicationRows.length > 1) ? { ...after, application: name } : tagged(primary, after);
  };

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

  // Rollout health as stored: counts and a bounded list (summariseRollout). Whole, it was 20,000 entries at 100,000
  // objects, several megabytes rewritten twice by every run in which one workload moved: most of a watch-triggered run.
  const rolloutJson = JSON.stringify(summariseRollout(state.rollout));
  // One application holding every workload (its share is sorted like the whole): its rollout is the environment's,
  // serialised and sent once; the environment's column copies it.
  const soleShare = apps.length === 1 && primary.rollout.length === state.rollout.length;
  const rolloutJsonOf = (app: ApplicationState) => (soleShare ? rolloutJson : JSON.stringify(summariseRollout(app.rollout)));
  const objects = objectsByApplication(state, delta, remembered?.objects ?? null, (key) => appOf(key).id, (row) => (appById.get(storedOwner(row)) ?? primary).id);
  const controllerJson = JSON.stringify(primary.controller ?? null);
  const written: CurrentRows["applications"] = { registered: new Map(), summaries: new Map() };
  await db.$transaction(
    async (tx) => {
      await holdEnvironment(tx, envId, state.runId, state.previous.lastGoodRunId);
      // Applications first: the rows below refer to them.
      written.registered = await upsertApplications(tx, envId, state, remembered?.applications.registered ?? null, now);
      stats.blobsWritten = await writeBlobs(tx, blobs);
      await upsertLiveRows(tx, envId, liveUpserts, now);
      await touchResourceVersions(tx, envId, rvTouches);
      await reassignRows(tx, "LiveObject", envId, liveMoved);
      await deleteRows(tx, "LiveObject", envId, liveDeleted);
      await appendVersions(tx, envId, state.runId, "live", liveVersions, now);
      await upsertDesiredRows(tx, envId, desiredUpserts, now);
      for (const [sha, keys] of desiredMoved) await moveDesiredRevision(tx, envId, keys, sha);
      await moveDesiredSourcePaths(tx, envId, desiredRenamed);
      await reassignRows(tx, "DesiredObject", envId, desiredReassigned);
      await deleteRows(tx, "DesiredObject", envId, desiredDeleted);
      await appendVersions(tx, envId, state.runId, "desired", desiredVersions, now);

      // ── Drift lifecycle, per application (its approved revision and comparison) ──
      const stillSeen = openItems.filter((i) => !observations.has(i.key) && !frozen(i.key)).map((i) => i.id);
      const updates: Array<ReturnType<typeof planDriftLifecycle>["update"][number]> = [];
      const resolutions: Array<ReturnType<typeof planDriftLifecycle>["resolve"][number]> = [];
      const opened: NewDriftRow[] = [];
      for (const app of apps) {
        const plan = planDriftLifecycle({
          now,
          open: (openOf.get(app.id) ?? []).map((i) => ({ id: i.id, key: i.key, type: i.type, changes: i.changes as unknown as Change[], openedAt: i.openedAt.toISOString() })),
          results: observationsOf.get(app.id) ?? new Map(),
          desiredChanges: new Map((desiredChangedOf.get(app.id) ?? []).map((k) => [k, app.compareSha])),
          approvedSha: app.approvedSha,
          context: app.compareContext,
          previousResolutions,
        });
        updates.push(...plan.update);
        resolutions.push(...plan.resolve);
        for (const n of plan.open) {
          const parts = parseObjectKey(n.key);
          const obj = state.live.get(n.key) ?? state.desired.get(n.key)?.object;
          const episodes = recentEpisodes.get(n.key) ?? [];
          const reopen = detectReopenConflicts(
            [...episodes, { key: n.key, openedAt: n.openedAt, resolvedAt: null, resolution: null, managers: [n.attribution?.manager ?? null], paths: n.changes.map((c) => c.display) }],
            { controllerManager: app.compareOptions.controllerManagers?.[0] ?? "controller" },
          )[0];
          const conflict = nextConflict(null, n.changes, reopen ? { path: reopen.path, managers: reopen.managers, flips: reopen.flips } : null);
          const id = randomUUID();
          opened.push({ id, applicationId: app.id, key: n.key, apiVersion: obj?.apiVersion ?? "", kind: parts.kind, namespace: parts.namespace, name: parts.name, item: n, conflict });
          events.push({ action: "drift.opened", targetId: id, key: n.key, after: tagged(app, { type: n.type, fields: n.changes.map((c) => c.display), manager: n.attribution?.manager ?? null }) });
        }
      }
      // Seen again, unchanged: one statement for all of them, and only for items
      // last stamped LAST_SEEN_STEP_MS ago, so every run does not rewrite every
      // open item (MVCC keeps each rewrite until vacuum).
      const stale = new Date(now.getTime() - LAST_SEEN_STEP_MS);
      const lastSeen = new Map(openItems.map((i) => [i.id, i.lastSeenAt]));
      const seen = [...stillSeen, ...updates.filter((u) => !u.contentChanged).map((u) => u.id)].filter((id) => (lastSeen.get(id) ?? now) < stale);
      if (seen.length > 0) {
        await tx.driftItem.updateMany({ where: { id: { in: seen }, lastSeenAt: { lt: new Date(now.getTime() - LAST_SEEN_STEP_MS) } }, data: { lastSeenAt: now } });
      }
      const changed = updates.filter((u) => u.contentChanged).map((u) => ({ u, conflict: nextConflict(openByKey.get(u.key)?.conflict as StoredConflict | null, u.changes) }));
      await updateDriftContent(tx, changed, now);
      // Resolutions that end the same way are written (and their claims closed) together.
      const resolvedBy = new Map<string, { reason: (typeof resolutions)[number]["reason"]; sha: string | null; ids: string[] }>();
      for (const r of resolutions) {
        const how = `${r.reason}\0${r.sha ?? ""}`;
        const group = resolvedBy.get(how) ?? { reason: r.reason, sha: r.sha ?? null, ids: [] };
        group.ids.push(r.id);
        resolvedBy.set(how, group);
        const item = openByKey.get(r.key);
        const after = { resolution: r.reason, sha: r.sha, durationMs: r.durationMs };
        events.push({ action: "drift.resolved", targetId: r.id, key: r.key, before: { type: item?.type }, after: item ? itemTagged(item, after) : after });
      }
      for (const g of resolvedBy.values()) {
        await tx.driftItem.updateMany({ where: { id: { in: g.ids } }, data: { resolvedAt: now, resolution: g.reason, resolutionSha: g.sha, lastSeenAt: now } });
      }
      // A claimed divergence ends by itself when its drift does, recording how.
      for (const g of resolvedBy.values()) await closeClaimsForResolvedDrift(tx, g.ids, { resolution: g.reason, sha: g.sha }, now);
      await insertDriftItems(tx, envId, opened, now);
      // Items that moved with their object to another application follow it.
      const movedItems = openItems.filter((i) => state.ownerOf.has(i.key) && i.applicationId !== state.ownerOf.get(i.key));
      for (const i of movedItems) await tx.driftItem.update({ where: { id: i.id }, data: { applicationId: state.ownerOf.get(i.key) } });

      // ── Lineage, per application ─────────────────────────────────────────
      const appliedSince = new Map<string, Date>();
      const withApplied = apps.flatMap((app) => {
        const a = applied.get(app.id);
        return a?.sha ? [{ id: app.id, sha: a.sha, source: a.source }] : [];
      });
      // Still the same applied revision (nearly every run, for nearly every application): one statement for all
      // of them stamps it and says since when, however many applications the environment holds.
      const still = withApplied.length === 0 ? [] : await tx.$queryRaw<Array<{ applicationId: string; firstSeenAt: Date }>>`
        WITH v AS (SELECT * FROM unnest(${withApplied.map((a) => a.id)}::uuid[], ${withApplied.map((a) => a.sha)}::text[], ${withApplied.map((a) => a.source)}::text[]) AS v(app, sha, source)),
        current AS (
          SELECT DISTINCT ON (r."applicationId") r.id, r."applicationId", r.sha
          FROM "AppliedRevision" r JOIN v ON r."applicationId" = v.app
          WHERE r."endedAt" IS NULL
          ORDER BY r."applicationId", r."firstSeenAt" DESC)
        UPDATE "AppliedRevision" ar SET "lastSeenAt" = ${now}, source = v.source
        FROM current JOIN v ON v.app = current."applicationId"
        WHERE ar.id = current.id AND current.sha = v.sha
        RETURNING ar."applicationId", ar."firstSeenAt"`;
      for (const row of still) appliedSince.set(row.applicationId, row.firstSeenAt);
      // A newly applied revision: when the branch moved and live renders the same, every application's at once.
      // Two statements for all of them (the current row of each ended, the new ones inserted), not three per application.
      const moved = withApplied.filter((a) => !appliedSince.has(a.id));
      const endedRows =
        moved.length === 0
          ? []
          : await tx.$queryRaw<Array<{ applicationId: string; sha: string }>>`
        WITH current AS (
          SELECT DISTINCT ON (r."applicationId") r.id, r."applicationId", r.sha
          FROM "AppliedRevision" r
          WHERE r."applicationId" = ANY(${moved.map((a) => a.id)}::uuid[]) AND r."endedAt" IS NULL
          ORDER BY r."applicationId", r."firstSeenAt" DESC)
        UPDATE "AppliedRevision" ar SET "endedAt" = ${now}
        FROM current WHERE ar.id = current.id
        RETURNING current."applicationId", current.sha`;
      const endedSha = new Map(endedRows.map((r) => [r.applicationId, r.sha]));
      if (moved.length > 0) {
        await tx.appliedRevision.createMany({ data: moved.map((a) => ({ environmentId: envId, applicationId: a.id, sha: a.sha, source: a.source, firstSeenAt: now, lastSeenAt: now })) });
      }
      for (const app of apps) {
        const a = applied.get(app.id);
        if (!a?.sha || appliedSince.has(app.id)) continue;
        appliedSince.set(app.id, now);
        events.push({ action: "revision.applied", targetId: a.sha, key: null, before: { sha: endedSha.get(app.id) ?? null }, after: tagged(app, { sha: a.sha, source: a.source }) });
      }
      for (const app of apps) {
        // One application's approved revision is the environment's (as before applications).
        const before = apps.length === 1 && state.skipped.length === 0 ? lastGood.approvedSha : (applicationRows.find((r) => r.id === app.id)?.approvedSha ?? null);
        if (before !== app.approvedSha) {
          events.push({ action: "revision.approved", targetId: app.approvedSha, key: null, before: { sha: before }, after: tagged(app, { sha: app.approvedSha }) });
        }
      }
      written.summaries = await writeApplicationSummaries(tx, state, applied, appliedSince, objects, rolloutJsonOf, remembered?.applications.summaries ?? null, now);
      const rollup = await rollupOf(tx, envId, now, state.staleAfterMs);
      const primaryApplied = applied.get(primary.id) ?? { sha: null, source: "inferred" as const };
      // The environment's summary and the run's stats in one statement. The
      // rollout summary (one entry per workload) and the controller status are
      // written only when they changed: each rewrite is a new copy until vacuum.
      const controllerChanged = primary.controller !== null && remembered?.controller !== controllerJson;
      const rolloutChanged = remembered?.rollout !== rolloutJson;
      await tx.$executeRaw`
        WITH run AS (UPDATE "CollectionRun" SET stats = ${JSON.stringify({ ...stats, optionsHash, pausesHash, applications: apps.length + state.skipped.length })}::jsonb WHERE id = ${state.runId})
        UPDATE "Environment" SET
          "approvedSha" = ${primary.approvedSha},
          "approvedAt" = COALESCE(${primary.approvedAt}::timestamptz, (SELECT "committedAt" FROM "Revision" WHERE sha = ${primary.approvedSha} LIMIT 1)),
          "appliedSha" = ${primaryApplied.sha},
          "appliedSource" = ${primaryApplied.sha ? primaryApplied.source : null},
          "appliedSince" = COALESCE(${appliedSince.get(primary.id) ?? null}::timestamptz, "appliedSince"),
          "objectCount" = ${stats.live},
          "lastRunId" = ${state.runId},
          "lastGoodRunId" = ${state.runId},
          "lastCollectedAt" = ${now},
          "lastGoodCollectedAt" = ${now},
          "lastError" = NULL,
          "applicationsTotal" = ${rollup.total},
          "applicationsInSync" = ${rollup.inSync},
          "applicationsDrifted" = ${rollup.drifted},
          "applicationsStale" = ${rollup.stale},
          "applicationsPaused" = ${rollup.paused},
          "applicationsFailing" = ${rollup.failing},
          "updatedAt" = ${new Date()}
          ${controllerChanged ? Prisma.sql`, controller = ${controllerJson}::jsonb` : Prisma.empty}
          ${rolloutChanged ? (soleShare ? Prisma.sql`, rollout = (SELECT rollout FROM "Application" WHERE id = ${primary.id}::uuid)` : Prisma.sql`, rollout = ${rolloutJson}::jsonb`) : Prisma.empty}
        WHERE id = ${envId}::uuid`;
      await recordEvents(tx, lastGood.name, events, now);
    },
    { timeout: 120_000, maxWait: 30_000 },
  ).finally(() => {
    // Prisma's pg adapter keeps its last 100 statements with their parameters (@prisma/debug's history, kept
    // even with debug off): after a first run that is every blob it wrote, held into the next run. Not needed.
    clearPrismaDebugHistory();
  });

  // What Postgres now holds, kept for this environment's next run in this process.
  for (const r of liveUpserts) prevLive.set(r.key, storedRow(r));
  for (const t of rvTouches) {
    const row = prevLive.get(t.key);
    if (row) prevLive.set(t.key, { ...row, resourceVersion: t.resourceVersion });
  }
  for (const m of liveMoved) {
    const row = prevLive.get(m.key);
    if (row) prevLive.set(m.key, { ...row, applicationId: m.applicationId });
  }
  for (const key of liveDeleted) prevLive.delete(key);
  for (const r of desiredUpserts) prevDesired.set(r.key, storedRow(r));
  for (const [sha, keys] of desiredMoved) {
    for (const key of keys) {
      const row = prevDesired.get(key);
      if (row) prevDesired.set(key, { ...row, revisionSha: sha });
    }
  }
  for (const m of desiredRenamed) {
    const row = prevDesired.get(m.key);
    if (row) prevDesired.set(m.key, { ...row, sourcePath: m.sourcePath });
  }
  for (const m of desiredReassigned) {
    const row = prevDesired.get(m.key);
    if (row) prevDesired.set(m.key, { ...row, applicationId: m.applicationId });
  }
  for (const key of desiredDeleted) prevDesired.delete(key);
  if (state.intake) settle(state.intake.live, delta);
  rememberRows(envId, { runId: state.runId, live: prevLive, desired: prevDesired, rollout: rolloutJson, controller: controllerJson, applications: written, objects, ...(state.intake ? { intake: state.intake } : {}) });
  // Carried or frozen rows kept beside the set make the sizes differ, and the next run goes through them.
  desiredWritten.set(prevDesired, state.desired);
  return { stats, appliedSha: applied.get(primary.id)?.sha ?? null };
}

const json = (v: unknown): string => JSON.stringify(v ?? null);

/**
 * Live objects per application: counted over every key, or, for a run that took in only `delta`, the last good
 * run's counts moved by those keys (each counted where it was written, then where it is now).
 */
function objectsByApplication(
  state: Pick<CollectedState, "live" | "previous">,
  delta: ReadonlySet<string> | null,
  before: ReadonlyMap<string, number> | null,
  applicationOf: (key: string) => string,
  writtenTo: (row: StoredRow) => string,
): Map<string, number> {
  const add = (m: Map<string, number>, id: string, n: number) => m.set(id, (m.get(id) ?? 0) + n);
  if (delta && before) {
    const out = new Map(before);
    for (const key of delta) {
      const row = state.previous.prevLive.get(key);
      if (row) add(out, writtenTo(row), -1);
      if (state.live.has(key)) add(out, applicationOf(key), 1);
    }
    return out;
  }
  const out = new Map<string, number>();
  for (const key of state.live.keys()) add(out, applicationOf(key), 1);
  return out;
}

/** Splits a map by owner in one pass; with `only` set (one application) the map itself is its share. */
function partition<V>(map: Map<string, V>, ownerOf: (key: string) => string, only: string | null): Map<string, Map<string, V>> {
  if (only !== null) return new Map([[only, map]]);
  const out = new Map<string, Map<string, V>>();
  for (const [key, value] of map) {
    const owner = ownerOf(key);
    let part = out.get(owner);
    if (!part) out.set(owner, (part = new Map()));
    part.set(key, value);
  }
  return out;
}

/**
 * The run's applications as rows: each collected or skipped one upserted with
 * its current definition (a removed one that is back is no longer removed),
 * every other application of the environment marked removed, its rows and
 * history kept.
 */
async function upsertApplications(tx: Tx, envId: string, state: CollectedState, written: ReadonlyMap<string, string> | null, now: Date): Promise<Map<string, string>> {
  const all = [...state.applications.map((a) => ({ id: a.id, spec: a.spec })), ...state.skipped.map((a) => ({ id: a.id, spec: a.spec }))];
  const registration = new Map(all.map((a) => [a.id, json([a.spec.name, a.spec.kind, a.spec.promotionKey, a.spec.controller, a.spec.sources, a.spec])]));
  // A row this process wrote in the last good run, from the same spec, is as it was: only its lastSeenAt moves, and only
  // once per LAST_SEEN_STEP_MS (rewriting hundreds of rows with their specs every run was a fifth of a steady run).
  const changed = written ? all.filter((a) => written.get(a.id) !== registration.get(a.id)) : all;
  const unchanged = written ? all.filter((a) => written.get(a.id) === registration.get(a.id)).map((a) => a.id) : [];
  // One statement however many applications: values as parallel arrays.
  if (changed.length > 0) {
    await tx.$executeRaw`
      INSERT INTO "Application" (id, "environmentId", name, kind, "promotionKey", "controllerRef", sources, spec, "firstSeenAt", "lastSeenAt", "updatedAt")
      SELECT v.id, ${envId}::uuid, v.name, v.kind, v.key, v.controller::jsonb, v.sources::jsonb, v.spec::jsonb, ${now}, ${now}, ${now}
      FROM unnest(
        ${changed.map((a) => a.id)}::uuid[],
        ${changed.map((a) => a.spec.name)}::text[],
        ${changed.map((a) => a.spec.kind)}::text[],
        ${changed.map((a) => a.spec.promotionKey)}::text[],
        ${changed.map((a) => json(a.spec.controller))}::text[],
        ${changed.map((a) => json(a.spec.sources))}::text[],
        ${changed.map((a) => json(a.spec))}::text[]
      ) AS v(id, name, kind, key, controller, sources, spec)
      ON CONFLICT ("environmentId", name) DO UPDATE SET kind = EXCLUDED.kind, "promotionKey" = EXCLUDED."promotionKey", "controllerRef" = EXCLUDED."controllerRef",
        sources = EXCLUDED.sources, spec = EXCLUDED.spec, "lastSeenAt" = EXCLUDED."lastSeenAt", "removedAt" = NULL, "updatedAt" = EXCLUDED."updatedAt"`;
  }
  if (unchanged.length > 0) {
    await tx.$executeRaw`
      UPDATE "Application" SET "lastSeenAt" = ${now}
      WHERE id = ANY(${unchanged}::uuid[]) AND "lastSeenAt" < ${new Date(now.getTime() - LAST_SEEN_STEP_MS)}`;
  }
  await tx.application.updateMany({ where: { environmentId: envId, removedAt: null, id: { notIn: all.map((a) => a.id) } }, data: { removedAt: now } });
  return registration;
}

/**
 * How many of an application's declared changes are kept, newest first. A run reads only the declaring file's newest commits (declared-by.ts
 * CHANGE_DEPTH), so its list is added to the stored one: a report over an older window still credits the child, and its answer does not
 * change from day to day as later commits to a shared file push the change out of what a run reads. The oldest beyond this are dropped.
 */
const DECLARED_CHANGES_KEPT = 200;
/** How many of the files that declared an application are kept: where its stored declared changes were made, after a move or rename. */
const DECLARING_FILES_KEPT = 20;

/**
 * SQL: the JSON list `found` (newest first) followed by those of the `stored` array not in it, the first `limit` of them; `found` NULL
 * (this run could not tell) keeps `stored` as it is.
 */
function accumulated(found: Prisma.Sql, stored: Prisma.Sql, limit: number): Prisma.Sql {
  return Prisma.sql`CASE WHEN ${found} IS NULL THEN ${stored} ELSE ARRAY(
    SELECT item FROM (
      SELECT DISTINCT ON (item) item, stale, n FROM (
        SELECT item, false AS stale, n FROM jsonb_array_elements_text(${found}::jsonb) WITH ORDINALITY AS f(item, n)
        UNION ALL SELECT item, true, n FROM unnest(${stored}) WITH ORDINALITY AS s(item, n)
      ) AS both_lists ORDER BY item, stale, n
    ) AS merged ORDER BY stale, n LIMIT ${limit}
  ) END`;
}

/**
 * What each collected application now is: revisions, controller, rollout, objects, open drift; skipped ones keep
 * theirs and show why. Returns each application's summary as written, as text: a row whose text is the same next
 * run is not written again (hundreds of rows with their rollouts, every run), only its open drift count checked.
 */
async function writeApplicationSummaries(
  tx: Tx,
  state: CollectedState,
  applied: Map<string, AppliedRevisionOf>,
  appliedSince: Map<string, Date>,
  objects: ReadonlyMap<string, number>,
  rolloutJsonOf: (app: ApplicationState) => string,
  written: ReadonlyMap<string, string> | null,
  now: Date,
): Promise<Map<string, string>> {
  const summaries = new Map<string, string>();
  if (state.applications.length === 0) return summaries;
  const rows = state.applications.map((app) => {
    const revision = applied.get(app.id);
    const row = {
      id: app.id,
      approved: app.approvedSha,
      approvedAt: app.approvedAt?.toISOString() ?? null,
      applied: revision?.sha ?? null,
      source: revision?.sha ? revision.source : null,
      since: appliedSince.get(app.id)?.toISOString() ?? null,
      behind: revision?.behind ?? false,
      declared: app.declaredChanges && json(app.declaredChanges),
      declaring: app.declaredChanges && json(app.declaringFiles),
      controller: json(app.controller),
      rollout: rolloutJsonOf(app),
      objects: objects.get(app.id) ?? 0,
    };
    return { row, text: json(row) };
  });
  const changed = rows.filter((r) => written?.get(r.row.id) !== r.text).map((r) => r.row);
  const unchanged = rows.filter((r) => written?.get(r.row.id) === r.text).map((r) => r.row.id);
  const column = <T>(f: (row: (typeof changed)[number]) => T) => changed.map(f);
  // One statement for every changed application (an environment may hold hundreds): values as parallel arrays.
  const settled =
    changed.length === 0
      ? []
      : await tx.$queryRaw<Array<{ id: string; settled: boolean }>>`
    UPDATE "Application" AS a SET
      "approvedSha" = v.approved,
      "approvedAt" = COALESCE(v.approved_at, (SELECT "committedAt" FROM "Revision" WHERE sha = v.approved LIMIT 1)),
      "appliedSha" = v.applied,
      "appliedSource" = v.source,
      "appliedSince" = COALESCE(v.since, a."appliedSince"),
      "appliedBehind" = v.behind,
      "declaredChanges" = ${accumulated(Prisma.sql`v.declared`, Prisma.sql`a."declaredChanges"`, DECLARED_CHANGES_KEPT)},
      "declaringFiles" = ${accumulated(Prisma.sql`v.declaring`, Prisma.sql`a."declaringFiles"`, DECLARING_FILES_KEPT)},
      controller = v.controller::jsonb,
      rollout = v.rollout::jsonb,
      "objectCount" = v.objects,
      "driftCount" = COALESCE(open.n, 0),
      "lastError" = NULL,
      "updatedAt" = ${now}
    FROM unnest(
      ${column((r) => r.id)}::uuid[],
      ${column((r) => r.approved)}::text[],
      ${column((r) => r.approvedAt)}::timestamptz[],
      ${column((r) => r.applied)}::text[],
      ${column((r) => r.source)}::text[],
      ${column((r) => r.since)}::timestamptz[],
      ${column((r) => r.behind)}::boolean[],
      ${column((r) => r.declared)}::text[],
      ${column((r) => r.declaring)}::text[],
      ${column((r) => r.controller)}::text[],
      ${column((r) => r.rollout)}::text[],
      ${column((r) => r.objects)}::int[]
    ) AS v(id, approved, approved_at, applied, source, since, behind, declared, declaring, controller, rollout, objects)
    LEFT JOIN (
      SELECT "applicationId" AS id, count(*)::int AS n FROM "DriftItem"
      WHERE "environmentId" = ${state.environmentId}::uuid AND "resolvedAt" IS NULL GROUP BY 1
    ) open ON open.id = v.id
    WHERE a.id = v.id
    RETURNING a.id::text AS id, (a."approvedAt" IS NOT NULL OR a."approvedSha" IS NULL) AS settled`;
  if (unchanged.length > 0) {
    // The same summary as last run: only its open drift count may have moved (this run opened or resolved items).
    await tx.$executeRaw`
      UPDATE "Application" AS a SET "driftCount" = COALESCE(open.n, 0), "updatedAt" = ${now}
      FROM unnest(${unchanged}::uuid[]) AS v(id)
      LEFT JOIN (
        SELECT "applicationId" AS id, count(*)::int AS n FROM "DriftItem"
        WHERE "environmentId" = ${state.environmentId}::uuid AND "resolvedAt" IS NULL GROUP BY 1
      ) open ON open.id = v.id
      WHERE a.id = v.id AND a."driftCount" IS DISTINCT FROM COALESCE(open.n, 0)`;
  }
  const text = new Map(rows.map((r) => [r.row.id, r.text]));
  for (const id of unchanged) summaries.set(id, text.get(id)!);
  // A commit time not known yet (its Revision row not ingested) is looked up again next run.
  for (const r of settled) if (r.settled) summaries.set(r.id, text.get(r.id)!);
  for (const s of state.skipped) {
    await tx.application.update({ where: { id: s.id }, data: { lastError: { ...s.error, at: now.toISOString() }, updatedAt: now } });
  }
  return summaries;
}

/**
 * The first statement of a run's write: locks the environment's row until the
 * write commits, and checks that the environment is still this run's to write.
 * Everything the run writes is a delta against the last good run's rows as it
 * read them (`lastGoodRunId`), by its lease. A worker that stalled past its
 * lease (a long GC pause, a frozen VM) finds, when it resumes, its run closed
 * as lost and maybe the retry's run written since: written over those rows,
 * its deltas would leave them neither its state nor the retry's (an object
 * edited back in between kept as the retry saw it, and remembered so), so it
 * writes nothing (RunSuperseded). Runs of one environment never overlap
 * otherwise: a run is leased only while none runs. The lock is the one an
 * UPDATE takes (NO KEY UPDATE), not FOR UPDATE: rows referring to the
 * environment (a queued run, an alert, a pause) are still inserted while a
 * write holds it, instead of waiting for the write, and deadlocking against
 * it over the audit lock.
 */
export async function holdEnvironment(tx: Tx, envId: string, runId: number, lastGoodRunId: number | null): Promise<void> {
  const [held] = await tx.$queryRaw<Array<{ lastGoodRunId: number | null; status: string | null }>>`
    SELECT e."lastGoodRunId", (SELECT r.status::text FROM "CollectionRun" r WHERE r.id = ${runId}) AS status
    FROM "Environment" e WHERE e.id = ${envId}::uuid FOR NO KEY UPDATE`;
  if (!held) throw new Error(`environment ${envId} does not exist`);
  const overtaken = held.lastGoodRunId !== lastGoodRunId ? `run ${held.lastGoodRunId} of the environment was written after it read run ${lastGoodRunId ?? "none"}'s rows` : null;
  if (held.status !== "running") throw new RunSuperseded([`its lease ran out before it wrote (the environment was queued again)`, overtaken].filter(Boolean).join("; "));
  if (overtaken) throw new RunSuperseded(overtaken);
}

/** The environment's rollup over its applications as now stored (pauses included). */
export async function rollupOf(tx: Tx, envId: string, now: Date, staleAfterMs: number) {
  const [rows, pauses] = await Promise.all([
    tx.application.findMany({ where: { environmentId: envId }, select: { id: true, removedAt: true, driftCount: true, approvedSha: true, approvedAt: true, appliedSha: true, appliedBehind: true, controller: true, lastError: true } }),
    tx.pause.findMany({ where: { environmentId: envId, endedAt: null, startedAt: { lte: now } }, select: { applicationId: true, startedAt: true } }),
  ]);
  return rollupApplications([...rollupInputs(rows, pauses, now).values()], now, staleAfterMs);
}
