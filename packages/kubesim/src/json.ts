// Plain-JSON helpers shared by the imitation. Objects are kept as parsed JSON
// (the same shape the real API server serialises), never as classes.

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function asObj(v: unknown): Obj | undefined {
  return isObj(v) ? v : undefined;
}

export function asStr(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

export function asNum(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

export function clone<T>(v: T): T {
  return v === undefined ? v : (structuredClone(v) as T);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (isObj(a)) {
    if (!isObj(b)) return false;
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    if (ka.length !== kb.length) return false;
    for (const k of ka) if (!deepEqual(a[k], b[k])) return false;
    return true;
  }
  return false;
}

/** Child object at `key`, created when missing (or when not an object). */
export function child(o: Obj, key: string): Obj {
  const v = o[key];
  if (isObj(v)) return v;
  const n: Obj = {};
  o[key] = n;
  return n;
}

export function getIn(o: unknown, path: readonly string[]): unknown {
  let cur: unknown = o;
  for (const p of path) {
    if (!isObj(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

export function meta(o: Obj): Obj {
  return child(o, "metadata");
}

export function metaOf(o: Obj): Obj {
  return asObj(o.metadata) ?? {};
}

let clock: () => Date = () => new Date();

/**
 * Replaces the clock behind every timestamp the imitation writes (creationTimestamp,
 * managedFields times, conditions), process-wide; null restores the system clock.
 */
export function setKubeSimClock(fn: (() => Date) | null): void {
  clock = fn ?? (() => new Date());
}

export function now(): Date {
  return clock();
}

export function nowRfc3339(d: Date = clock()): string {
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Go's %q-ish quoting as used in apiserver messages (JSON string quoting is the same for printable text). */
export function q(s: string): string {
  return JSON.stringify(s);
}

/** Returns a copy of `o` with keys in the given order first, the rest after in their current order. */
export function orderKeys(o: Obj, first: readonly string[]): Obj {
  const out: Obj = {};
  for (const k of first) if (o[k] !== undefined) out[k] = o[k];
  for (const k of Object.keys(o)) if (!(k in out) && o[k] !== undefined) out[k] = o[k];
  return out;
}

/** Recursively sorts map keys, as Go's encoding/json does for map[string]interface{} (custom resources). */
export function sortKeysDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeysDeep);
  if (isObj(v)) {
    const out: Obj = {};
    for (const k of Object.keys(v).sort()) if (v[k] !== undefined) out[k] = sortKeysDeep(v[k]);
    return out;
  }
  return v;
}
