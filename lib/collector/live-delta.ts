// A watch-triggered run that takes in only what changed. A run from the watch
// cache used to go through every cached object (100,000 in a large
// environment) to learn that a hundred had moved, and persist went through
// every key again: most of a run, whatever it carried. Now the live entries a
// good run made from the cache are kept with the rows it wrote (run-memo's
// remembered rows, so they are dropped whenever someone else writes), and the
// next run, when nothing but the live objects can have moved, starts from them
// and takes in only the objects the cache's change log names.
//
// The entries are kept as an untouched object reads (liveEntry's form when
// its resource version is the stored one): identity, resource version and
// rollout, nothing to write and no verdict to make.
import type { CacheChange } from "./run-context";
import type { LiveEntry } from "./live-intake";

/** What the live entries of a good run from the cache were made with, kept for the next run. */
export interface IntakeMemory {
  /** The cache epoch and change log position they reflect. */
  epoch: number;
  cursor: number;
  /**
   * What taking an object in depended on besides the object. The desired set and its owners are compared by
   * identity (a render that did not move is the same set); `inputs` names the applications, kinds, namespace
   * scopes and Secret-sourced values; `inventories` are the controllers' (which decide which Extra is tracked).
   */
  desired: ReadonlyMap<string, unknown>;
  owners: ReadonlyMap<string, string>;
  inputs: string;
  inventories: ReadonlyArray<readonly string[] | null>;
  /** Every live entry, untouched form. */
  live: Map<string, LiveEntry>;
  /** Owners this run gave tracked live objects Git lacks (RunOwners' additions). */
  tracked: ReadonlyMap<string, string>;
}

/** An entry as the next run reads it when its object has not changed: nothing to hash, write or compare. */
export function untouched(e: LiveEntry): LiveEntry {
  if (e.hash === undefined && e.text === undefined && e.drift === undefined && e.object === undefined) return e;
  const out: LiveEntry = { key: e.key, apiVersion: e.apiVersion, kind: e.kind, namespace: e.namespace, name: e.name, resourceVersion: e.resourceVersion };
  if (e.rollout) out.rollout = e.rollout;
  return out;
}

/** After a good write: the entries of `keys` (all when null) in their untouched form, in place. */
export function settle(live: Map<string, LiveEntry>, keys: Iterable<string> | null): void {
  if (keys === null) {
    for (const [key, e] of live) {
      const u = untouched(e);
      if (u !== e) live.set(key, u);
    }
    return;
  }
  for (const key of keys) {
    const e = live.get(key);
    if (e) live.set(key, untouched(e));
  }
}

export function sameInventories(a: ReadonlyArray<readonly string[] | null>, b: ReadonlyArray<readonly string[] | null>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (x === null || y === null || x.length !== y.length) return false;
    for (let j = 0; j < x.length; j++) if (x[j] !== y[j]) return false;
  }
  return true;
}

/**
 * The changes taken into `live` (kept entries): each changed key's entry
 * dropped, and made again by `takeIn` (into the map it is given) from the
 * object the cache holds now; gone objects stay dropped. Returns what puts
 * `live` back as it was, for a run that fails before it writes: the kept
 * entries are the last good run's until a run writes.
 */
export function takeChanges(live: Map<string, LiveEntry>, changes: readonly CacheChange[], takeIn: (change: CacheChange, into: Map<string, LiveEntry>) => void): () => void {
  const fresh = new Map<string, LiveEntry>();
  for (const c of changes) if (c.object) takeIn(c, fresh);
  const before = new Map<string, LiveEntry | undefined>();
  for (const key of [...changes.map((c) => c.key), ...fresh.keys()]) if (!before.has(key)) before.set(key, live.get(key));
  for (const c of changes) live.delete(c.key);
  for (const [key, e] of fresh) live.set(key, e);
  return () => {
    for (const [key, e] of before) {
      if (e) live.set(key, e);
      else live.delete(key);
    }
  };
}
