// Canonical JSON: object keys sorted, no whitespace, undefined dropped. The
// same event always hashes the same, whatever order Postgres's jsonb gives
// its keys back in.

export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonicalise(value));
}

function canonicalise(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : canonicalise(v)));
  if (typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = canonicalise(v);
    }
    return out;
  }
  if (typeof value === "number" && !Number.isFinite(value)) return null;
  return value;
}

// Postgres text and jsonb refuse NUL and unpaired surrogates; an audit write
// must never fail on hostile input, so both are replaced before hashing and storing.
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function storable<T>(value: T): T {
  if (typeof value === "string") return value.replace(UNSTORABLE, "\uFFFD") as T;
  if (value === null || typeof value !== "object" || value instanceof Date) return value;
  if (Array.isArray(value)) return value.map((v: unknown) => storable(v)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[storable(k)] = storable(v);
  return out as T;
}
