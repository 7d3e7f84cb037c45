// Paths inside an object, in three spellings that must agree:
// - segments (structured, used for matching ignore rules),
// - display strings (`spec.template.spec.containers[name=api].image`),
// - managedFields FieldsV1 keys (`f:spec`, `k:{"name":"api"}`, `v:"x"`, `i:0`).

export type Scalar = string | number | boolean | null;

/** A map field, or one list item identified by its merge-key values, by value (sets), or by index. */
export type Segment =
  | { t: "field"; name: string }
  | { t: "item"; index: number; keys: ReadonlyArray<readonly [string, Scalar]> | null; item?: unknown }
  | { t: "value"; value: Scalar };

const PLAIN_FIELD = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

function renderScalar(v: Scalar): string {
  if (typeof v === "string" && /^[^\][,="]*$/.test(v) && v !== "") return v;
  return JSON.stringify(v);
}

export function renderSegment(seg: Segment, first: boolean): string {
  switch (seg.t) {
    case "field":
      if (PLAIN_FIELD.test(seg.name)) return first ? seg.name : `.${seg.name}`;
      return `[${JSON.stringify(seg.name)}]`;
    case "item":
      if (seg.keys && seg.keys.length > 0) return `[${seg.keys.map(([k, v]) => `${k}=${renderScalar(v)}`).join(",")}]`;
      return `[${seg.index}]`;
    case "value":
      return `[=${renderScalar(seg.value)}]`;
  }
}

export function renderPath(segs: readonly Segment[]): string {
  let out = "";
  for (let i = 0; i < segs.length; i++) out += renderSegment(segs[i] as Segment, i === 0);
  return out;
}

/** Index-based path (as in JSON pointers). */
export function plainPath(segs: readonly Segment[]): (string | number)[] {
  return segs.map((s) => (s.t === "field" ? s.name : s.t === "item" ? s.index : String(s.value)));
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
}

/** The FieldsV1 key for one segment; `k:` and `v:` JSON is canonical (sorted keys, compact). */
export function fieldsV1Key(seg: Segment): string {
  switch (seg.t) {
    case "field":
      return `f:${seg.name}`;
    case "item":
      if (seg.keys && seg.keys.length > 0) {
        const sorted = [...seg.keys].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
        return `k:{${sorted.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`;
      }
      return `i:${seg.index}`;
    case "value":
      return `v:${JSON.stringify(seg.value)}`;
  }
}

/** Parses a FieldsV1 key into a segment; null for `.` and malformed keys. */
export function segmentFromFieldsV1Key(key: string): Segment | null {
  const prefix = key.slice(0, 2);
  const rest = key.slice(2);
  try {
    switch (prefix) {
      case "f:":
        return { t: "field", name: rest };
      case "k:": {
        const parsed: unknown = JSON.parse(rest);
        if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return null;
        const keys = Object.entries(parsed as Record<string, unknown>)
          .filter((e): e is [string, Scalar] => isScalar(e[1]))
          .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
        return { t: "item", index: -1, keys };
      }
      case "v:": {
        const parsed: unknown = JSON.parse(rest);
        return isScalar(parsed) ? { t: "value", value: parsed } : { t: "value", value: canonicalJson(parsed) };
      }
      case "i:": {
        const n = Number(rest);
        return Number.isInteger(n) ? { t: "item", index: n, keys: null } : null;
      }
      default:
        return null;
    }
  } catch {
    return null;
  }
}

/** Canonical form of a FieldsV1 key (so `k:{"b":1,"a":2}` and `k:{"a":2,"b":1}` meet). */
export function canonicalFieldsV1Key(key: string): string | null {
  if (key.startsWith("f:")) return key;
  const seg = segmentFromFieldsV1Key(key);
  return seg ? fieldsV1Key(seg) : null;
}

export function isScalar(v: unknown): v is Scalar {
  return v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean";
}

// ---------------------------------------------------------------------------
// Path patterns (ignore rules): `a.b[name=x].c`, `[3]`, `[*]`, `["dotted.key"]`, `[=value]`.

export type PatternSegment =
  | { t: "field"; name: string }
  | { t: "select"; pairs: ReadonlyArray<readonly [string, string]> }
  | { t: "index"; index: number }
  | { t: "any" }
  | { t: "value"; value: string };

export class PathSyntaxError extends Error {}

function readQuoted(src: string, start: number): [string, number] {
  // JSON string literal starting at src[start] === '"'.
  let i = start + 1;
  while (i < src.length) {
    const c = src[i];
    if (c === "\\") i += 2;
    else if (c === '"') break;
    else i++;
  }
  if (i >= src.length) throw new PathSyntaxError(`unterminated string in path ${JSON.stringify(src)}`);
  return [JSON.parse(src.slice(start, i + 1)) as string, i + 1];
}

function readBracketValue(src: string, start: number): [string, number] {
  if (src[start] === '"') return readQuoted(src, start);
  let i = start;
  while (i < src.length && src[i] !== "," && src[i] !== "]") i++;
  return [src.slice(start, i).trim(), i];
}

export function parsePathPattern(src: string): PatternSegment[] {
  const segs: PatternSegment[] = [];
  let i = 0;
  const text = src.trim();
  if (text === "") throw new PathSyntaxError("empty path");
  while (i < text.length) {
    const c = text[i];
    if (c === ".") {
      if (i === 0 || text[i + 1] === "." || i === text.length - 1) throw new PathSyntaxError(`misplaced "." in ${JSON.stringify(src)}`);
      i++;
      continue;
    }
    if (c === "[") {
      i++;
      if (text[i] === '"') {
        const [name, next] = readQuoted(text, i);
        if (text[next] !== "]") throw new PathSyntaxError(`expected "]" in ${JSON.stringify(src)}`);
        segs.push({ t: "field", name });
        i = next + 1;
        continue;
      }
      if (text[i] === "=") {
        const [value, next] = readBracketValue(text, i + 1);
        if (text[next] !== "]") throw new PathSyntaxError(`expected "]" in ${JSON.stringify(src)}`);
        segs.push({ t: "value", value });
        i = next + 1;
        continue;
      }
      const close = text.indexOf("]", i);
      const inner = close < 0 ? "" : text.slice(i, close).trim();
      if (close < 0) throw new PathSyntaxError(`unterminated "[" in ${JSON.stringify(src)}`);
      if (inner === "*" || inner === "") {
        segs.push({ t: "any" });
        i = close + 1;
        continue;
      }
      if (/^\d+$/.test(inner)) {
        segs.push({ t: "index", index: Number(inner) });
        i = close + 1;
        continue;
      }
      const pairs: [string, string][] = [];
      for (;;) {
        const eq = text.indexOf("=", i);
        if (eq < 0) throw new PathSyntaxError(`expected key=value in ${JSON.stringify(src)}`);
        const key = text.slice(i, eq).trim();
        if (!key) throw new PathSyntaxError(`empty selector key in ${JSON.stringify(src)}`);
        const [value, next] = readBracketValue(text, eq + 1);
        pairs.push([key, value]);
        if (text[next] === ",") {
          i = next + 1;
          continue;
        }
        if (text[next] !== "]") throw new PathSyntaxError(`expected "]" in ${JSON.stringify(src)}`);
        i = next + 1;
        break;
      }
      segs.push({ t: "select", pairs });
      continue;
    }
    let j = i;
    while (j < text.length && text[j] !== "." && text[j] !== "[") j++;
    segs.push({ t: "field", name: text.slice(i, j) });
    i = j;
  }
  return segs;
}

function scalarText(v: unknown): string | undefined {
  return v === undefined ? undefined : typeof v === "string" ? v : JSON.stringify(v);
}

/** Whether the pattern is a prefix of (or equal to) the concrete path. */
export function patternMatches(pattern: readonly PatternSegment[], segs: readonly Segment[]): boolean {
  if (pattern.length > segs.length) return false;
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as PatternSegment;
    const s = segs[i] as Segment;
    switch (p.t) {
      case "field":
        if (s.t !== "field" || s.name !== p.name) return false;
        break;
      case "any":
        if (s.t === "field") return false;
        break;
      case "index":
        if (s.t !== "item" || s.index !== p.index) return false;
        break;
      case "value":
        if (s.t !== "value" || scalarText(s.value) !== p.value) return false;
        break;
      case "select": {
        if (s.t !== "item") return false;
        for (const [k, v] of p.pairs) {
          let actual: unknown = undefined;
          const fromKeys = s.keys?.find((e) => e[0] === k);
          if (fromKeys) actual = fromKeys[1];
          else if (s.item && typeof s.item === "object") actual = (s.item as Record<string, unknown>)[k];
          if (scalarText(actual) !== v) return false;
        }
        break;
      }
    }
  }
  return true;
}

/** RFC 6901 pointer → unescaped tokens. */
export function parseJsonPointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new PathSyntaxError(`JSON pointer must start with "/": ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

export function pointerMatches(tokens: readonly string[], path: readonly (string | number)[]): boolean {
  if (tokens.length > path.length) return false;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t !== "*" && t !== String(path[i])) return false;
  }
  return true;
}
