// Live objects as they arrive, page by page: each one is masked (by the
// caller), hashed and compared with its desired state at once, and only a
// compact entry is kept — its identity, its hash, the text of its stored
// form when that differs from the stored row (the blob the run writes), its
// verdict and its rollout. A 50,000-object run never holds its live objects
// together: what the write phase needs of them is known before the lists
// start (the stored rows of the last good run, read first).
import type { CompareContext, KubeObject, ObjectDrift } from "@/lib/drift";
import { compareObject } from "@/lib/drift";
import type { RolloutStatus } from "@/lib/domain/types";
import { rolloutOf } from "@/lib/kube/rollout";
import { contentHash } from "./canonical";
import { desiredHash } from "./run-memo";
import { readBlobs, type StoredRow, type Tx } from "./store";

export interface LiveEntry {
  key: string;
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  resourceVersion: string | null;
  /** Hash of the stored form; absent when the resource version says the object is untouched since the last good run. */
  hash?: string;
  /** The stored form, only when it differs from the stored row: the blob this run writes. */
  text?: string;
  /** Its comparison with desired, made as it arrived; absent when the last verdict stands. */
  drift?: ObjectDrift;
  /** The object itself, kept only when its desired state is not in memory (carried over from the last good run). */
  object?: KubeObject;
  rollout?: RolloutStatus;
}

export interface DesiredLike {
  object: KubeObject;
}

/** What the intake compares against: the last good run's rows and this run's desired state. */
export interface IntakePlan {
  prevLive: ReadonlyMap<string, StoredRow>;
  prevDesired: ReadonlyMap<string, StoredRow>;
  /** The comparison settings (and pauses held) are those of the last good run, else the object is compared again (persist's sameComparison). */
  sameComparison(key: string): boolean;
  desired: ReadonlyMap<string, DesiredLike>;
  /** `desired` is the very set the last good run's rows were written from (persist's isDesiredAsStored): no key's desired side changed. */
  desiredAsStored: boolean;
  /** Keys whose desired state is carried from the last good run (read from Postgres by the write phase). */
  carriedKeys: ReadonlySet<string>;
  compareContextOf(key: string): CompareContext;
}

/** Same as the stored form persist writes: no status, no managed fields, no resource version. */
export function storedForm(obj: KubeObject): KubeObject {
  const { status: _s, ...rest } = obj;
  const { managedFields: _m, resourceVersion: _r, ...metadata } = obj.metadata;
  return { ...rest, metadata } as KubeObject;
}

/** A desired object's stored-form hash (once per rendered object). */
export function desiredBlobHash(obj: KubeObject): string {
  return desiredHash(obj, () => contentHash(storedForm(obj)).hash);
}

/** Whether the desired side of a key differs from its stored row (new, changed or gone). */
function desiredChanged(plan: IntakePlan, key: string): boolean {
  // A watch-triggered run of 100,000 objects hashed (looked up) every desired object here to learn that none changed.
  if (plan.desiredAsStored) return false;
  const d = plan.desired.get(key);
  const prev = plan.prevDesired.get(key);
  if (!d) return prev !== undefined;
  return prev?.blobHash !== desiredBlobHash(d.object);
}

/** The compact entry of one (masked) live object. */
export function liveEntry(plan: IntakePlan, key: string, obj: KubeObject): LiveEntry {
  const rv = (obj.metadata.resourceVersion as string | undefined) ?? null;
  const entry: LiveEntry = { key, apiVersion: obj.apiVersion, kind: obj.kind, namespace: obj.metadata.namespace ?? "", name: obj.metadata.name, resourceVersion: rv };
  const rollout = rolloutOf(key, obj);
  if (rollout) entry.rollout = rollout;
  const prev = plan.prevLive.get(key);
  let liveChanged = false;
  if (!(prev && rv !== null && prev.resourceVersion === rv)) {
    const { hash, text } = contentHash(storedForm(obj));
    entry.hash = hash;
    if (prev?.blobHash !== hash) {
      entry.text = text;
      liveChanged = true;
    }
  }
  // The same test as the write phase's "its verdict stands", made wider, never narrower: a verdict made here and not needed costs only time.
  const stands = plan.sameComparison(key) && !liveChanged && !desiredChanged(plan, key) && (prev !== undefined || plan.prevDesired.has(key));
  if (stands) return entry;
  if (plan.carriedKeys.has(key) && !plan.desired.has(key)) entry.object = obj;
  else entry.drift = shared(compareObject(plan.desired.get(key)?.object ?? null, obj, plan.compareContextOf(key)));
  return entry;
}

const IN_SYNC: ObjectDrift = Object.freeze({ type: "InSync", ignored: Object.freeze({}) }) as ObjectDrift;

/** Nearly every verdict of a first run is "in sync, nothing ignored": one shared object for all of them. */
function shared(drift: ObjectDrift): ObjectDrift {
  return drift.type === "InSync" && Object.keys(drift.ignored).length === 0 ? IN_SYNC : drift;
}

/**
 * Live objects by key as this run saw them, for the few callers that need
 * whole objects after the lists (inferring the applied revision): changed
 * ones from the text this run holds, unchanged ones from their stored blob.
 * Stored forms: no status, no managed fields.
 */
export async function liveObjectsOf(db: Tx, live: ReadonlyMap<string, LiveEntry>, prevLive: ReadonlyMap<string, StoredRow>, keys: Iterable<string>): Promise<Map<string, KubeObject>> {
  const out = new Map<string, KubeObject>();
  const stored = new Map<string, string>();
  for (const key of keys) {
    const e = live.get(key);
    if (!e) continue;
    if (e.object) out.set(key, e.object);
    else if (e.text !== undefined) out.set(key, JSON.parse(e.text) as KubeObject);
    else {
      const hash = e.hash ?? prevLive.get(key)?.blobHash;
      if (hash) stored.set(key, hash);
    }
  }
  if (stored.size > 0) {
    const bodies = await readBlobs(db, [...stored.values()]);
    for (const [key, hash] of stored) {
      const body = bodies.get(hash);
      if (body) out.set(key, body as KubeObject);
    }
  }
  return out;
}
