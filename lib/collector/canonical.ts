// Content addresses for object bodies: SHA-256 over a canonical JSON form
// (object keys sorted), so the same object always gets the same hash no
// matter how the API ordered its fields.
import crypto from "node:crypto";

/** The reference form: recursive, one string per level. Exact for every input. */
export function canonicalJsonReference(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJsonReference).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJsonReference(obj[k])}`).join(",")}}`;
}

const NOT_SORTABLE = new Error("not sortable by copy");
// V8 enumerates array-index-like keys first, in numeric order, whatever the
// insertion order, and `__proto__` is not an ordinary key: objects with such
// keys take the reference path.
const INDEX_LIKE = /^(?:0|[1-9][0-9]*)$/;

function sortedCopy(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(sortedCopy);
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    if (k === "__proto__" || INDEX_LIKE.test(k)) throw NOT_SORTABLE;
    const v = obj[k];
    if (v !== undefined) out[k] = sortedCopy(v);
  }
  return out;
}

/**
 * Keys sorted, undefined fields dropped, no whitespace: the same text as the
 * reference form (stored hashes depend on it), built as a sorted copy that
 * JSON.stringify serialises once. Joining strings level by level makes
 * garbage in proportion to size × depth, which is what sets a 50,000-object
 * first run's peak memory.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  try {
    return JSON.stringify(sortedCopy(value));
  } catch (e) {
    if (e === NOT_SORTABLE) return canonicalJsonReference(value);
    throw e;
  }
}

export function contentHash(value: unknown): { hash: string; text: string } {
  const text = canonicalJson(value);
  return { hash: crypto.createHash("sha256").update(text).digest("hex"), text };
}
