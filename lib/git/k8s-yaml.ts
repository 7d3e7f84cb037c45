// YAML as Kubernetes reads it. kubectl and the API server decode YAML with
// go-yaml v2 (through sigs.k8s.io/yaml), which is YAML 1.1-flavoured: `0644`
// is octal (420), `yes`/`on`/`y` are booleans, `1e3` is a float. Reading
// manifests any other way would make modes and flags show up as drift.
// Where go-yaml v2 differs from the YAML 1.1 spec, go-yaml wins: no base-60
// numbers (`1:30` stays a string), and timestamps stay strings when decoded
// into untyped maps, which is what Kubernetes does.
import { NOT_RESOLVED, Schema, YAML11_SCHEMA, boolCoreTag, defineScalarTag, load } from "js-yaml";

const INT = /^[-+]?(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]+|[1-9][0-9]*|0)$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const INF = /^[-+]?\.(?:inf|Inf|INF)$/;
const NAN = /^\.(?:nan|NaN|NAN)$/;
const NUMBER_START = [..."0123456789-+."];

/** strconv.ParseInt(s, 0, 64) after go-yaml strips underscores. */
const goInt = defineScalarTag<number>("tag:yaml.org,2002:int", {
  implicit: true,
  implicitFirstChars: NUMBER_START,
  resolve(source) {
    const plain = source.replace(/_/g, "");
    if (!INT.test(plain)) return NOT_RESOLVED;
    const sign = plain.startsWith("-") ? -1 : 1;
    const digits = plain.replace(/^[-+]/, "");
    const radix = /^0[xX]/.test(digits) ? 16 : /^0[oO]/.test(digits) ? 8 : /^0[bB]/.test(digits) ? 2 : /^0[0-7]/.test(digits) ? 8 : 10;
    const body = radix === 10 ? digits : digits.replace(/^0[xXoObB]?/, "");
    return sign * Number.parseInt(body || "0", radix);
  },
  identify: () => false,
});

const goFloat = defineScalarTag<number>("tag:yaml.org,2002:float", {
  implicit: true,
  implicitFirstChars: NUMBER_START,
  resolve(source) {
    const plain = source.replace(/_/g, "");
    if (INF.test(plain)) return plain.startsWith("-") ? -Infinity : Infinity;
    if (NAN.test(plain)) return Number.NaN;
    if (!FLOAT.test(plain) || INT.test(plain)) return NOT_RESOLVED;
    return Number.parseFloat(plain);
  },
  identify: () => false,
});

export const KUBERNETES_YAML_SCHEMA = new Schema(YAML11_SCHEMA.tags.filter((t) => t.tagName !== "tag:yaml.org,2002:timestamp")).withTags(
  goInt,
  goFloat,
);

// go-yaml v3's timestamp forms: date only, date and time with a zone (T or t), date and time without one (space).
const DATE_ONLY = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const WITH_ZONE = /^(\d{4})-(\d{1,2})-(\d{1,2})[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/;
const NO_ZONE = /^(\d{4})-(\d{1,2})-(\d{1,2}) (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d+))?$/;

/**
 * A timestamp as kustomize writes it back: Go's time.Time in JSON (RFC 3339,
 * zero-padded, fraction without trailing zeros, `Z` for UTC). Anything Go's
 * time.Parse would refuse (month 13, hour 24) stays the string it was.
 */
const kustomizeTimestamp = defineScalarTag<string>("tag:yaml.org,2002:timestamp", {
  implicit: true,
  implicitFirstChars: [..."0123456789"],
  resolve(source) {
    const m = DATE_ONLY.exec(source) ?? WITH_ZONE.exec(source) ?? NO_ZONE.exec(source);
    if (!m) return NOT_RESOLVED;
    const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((v) => Number(v ?? 0));
    const date = new Date(Date.UTC(year!, month! - 1, day!, hour, minute, second));
    if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month! - 1 || date.getUTCDate() !== day || date.getUTCHours() !== hour || date.getUTCMinutes() !== minute || date.getUTCSeconds() !== second) return NOT_RESOLVED;
    const pad = (n: number, width = 2) => String(n).padStart(width, "0");
    const fraction = (m[7] ?? "").slice(0, 9).replace(/0+$/, "");
    const zone = m[8] === undefined || /^[+-]00:00$/.test(m[8]) ? "Z" : m[8];
    return `${pad(year!, 4)}-${pad(month!)}-${pad(day!)}T${pad(hour)}:${pad(minute)}:${pad(second)}${fraction ? `.${fraction}` : ""}${zone}`;
  },
  identify: () => false,
});

/**
 * YAML as kustomize reads and writes it (kyaml, on go-yaml v3): only
 * `true`/`false` are booleans, so `on`, `yes`, `y` stay strings (written back
 * quoted); dates and times come back in RFC 3339 (`2024-05-01` →
 * `2024-05-01T00:00:00Z`); numbers as go-yaml reads them. Flux builds every
 * Kustomization with kustomize and applies what it writes, so a file Flux reads
 * without a kustomization.yaml of its own must be read this way, not as kubectl would.
 */
export const KUSTOMIZE_YAML_SCHEMA = new Schema(
  YAML11_SCHEMA.tags.filter((t) => t.tagName !== "tag:yaml.org,2002:timestamp" && t.tagName !== "tag:yaml.org,2002:bool"),
).withTags(boolCoreTag, goInt, goFloat, kustomizeTimestamp);

export interface YamlDocument {
  value: unknown;
  /** 0-based position among the file's non-empty documents. */
  index: number;
  /** 1-based line of the document's first content. */
  line: number;
  /** Character offsets of the document (including its `---` line) in the text. */
  range: [number, number];
}

export type YamlResult = { ok: true; docs: YamlDocument[] } | { ok: false; line?: number; message: string };

const DOC_START = /^---(?:[ \t]|$)/;
const DOC_END = /^\.\.\.(?:[ \t]|$)/;
const NO_CONTENT = /^(?:[ \t]*(?:#.*)?|%.*|---[ \t]*(?:#.*)?|\.\.\.[ \t]*(?:#.*)?)$/;

interface Chunk {
  start: number;
  end: number;
  /** 1-based line of `start`. */
  line: number;
}

/**
 * Splits a stream at document markers. A `---` or `...` at the start of a
 * line is always a marker in YAML (no scalar may contain one there), so this
 * is exact, and lets each document be parsed — and freed — on its own.
 */
function chunks(src: string): Chunk[] {
  const out: Chunk[] = [];
  let start = 0;
  let startLine = 1;
  let pos = 0;
  let line = 1;
  while (pos < src.length) {
    const nl = src.indexOf("\n", pos);
    const next = nl < 0 ? src.length : nl + 1;
    const text = src.slice(pos, nl < 0 ? src.length : nl).replace(/\r$/, "");
    if (DOC_START.test(text) && pos > start) {
      out.push({ start, end: pos, line: startLine });
      start = pos;
      startLine = line;
    } else if (DOC_END.test(text)) {
      out.push({ start, end: next, line: startLine });
      start = next;
      startLine = line + 1;
    }
    pos = next;
    line++;
  }
  if (start < src.length) out.push({ start, end: src.length, line: startLine });
  return out;
}

/** Line (1-based, in the file) of a chunk's first content, or null when it has none. */
function contentLine(src: string, c: Chunk): number | null {
  let pos = c.start;
  let line = c.line;
  while (pos < c.end) {
    const nl = src.indexOf("\n", pos);
    const end = nl < 0 || nl >= c.end ? c.end : nl;
    const text = src.slice(pos, end).replace(/\r$/, "");
    if (!NO_CONTENT.test(text)) return line;
    // `--- value` puts content on the marker line itself.
    if (DOC_START.test(text) && !/^---[ \t]*(?:#.*)?$/.test(text)) return line;
    pos = end + 1;
    line++;
  }
  return null;
}

const MAX_EXPANDED_NODES = 1_000_000;

/**
 * Aliases make shared references, cheap to build but exponential to walk
 * (every later JSON.stringify would expand them). Refuse documents that would.
 */
function expandedTooLarge(value: unknown): boolean {
  let count = 0;
  const walk = (v: unknown): boolean => {
    if (++count > MAX_EXPANDED_NODES) return true;
    if (typeof v !== "object" || v === null) return false;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (walk(child)) return true;
    return false;
  };
  return walk(value);
}

interface YamlErrorShape {
  reason?: string;
  mark?: { line?: number };
}

/**
 * js-yaml's strings are slices of the text it read, and V8 keeps a slice's
 * whole parent alive: one label kept from a render would pin its whole
 * manifest file (renders are kept between runs). Strings long enough to be
 * slices (V8 copies shorter ones) are copied out, in place.
 */
function unpinStrings(value: unknown): unknown {
  if (typeof value === "string") return value.length >= 13 ? (" " + value).slice(1) : value;
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = unpinStrings(value[i]);
    return value;
  }
  const obj = value as Record<string, unknown>;
  for (const k of Object.keys(obj)) obj[k] = unpinStrings(obj[k]);
  return value;
}

export function parseKubernetesYaml(src: string, schema: Schema = KUBERNETES_YAML_SCHEMA): YamlResult {
  const docs: YamlDocument[] = [];
  let pendingDirectives: Chunk | null = null;
  for (const raw of chunks(src)) {
    const c: Chunk = pendingDirectives ? { start: pendingDirectives.start, end: raw.end, line: pendingDirectives.line } : raw;
    pendingDirectives = null;
    const text = src.slice(c.start, c.end);
    const first = contentLine(src, c);
    if (first === null) {
      // `%YAML`/`%TAG` directives belong to the document after them.
      if (/^%/m.test(text)) pendingDirectives = c;
      continue;
    }
    let value: unknown;
    try {
      value = load(text, { schema, maxDepth: 256 });
    } catch (e) {
      const err = e as YamlErrorShape;
      const at = typeof err.mark?.line === "number" ? c.line + err.mark.line : first;
      return { ok: false, line: at, message: `invalid YAML: ${err.reason ?? (e as Error).message}` };
    }
    if (value === null || value === undefined) continue;
    if (text.includes("*") && expandedTooLarge(value)) {
      return { ok: false, line: first, message: `invalid YAML: aliases expand this document beyond ${MAX_EXPANDED_NODES} values` };
    }
    docs.push({ value: unpinStrings(value), index: docs.length, line: first, range: [c.start, c.end] });
  }
  return { ok: true, docs };
}
