// helm-controller's config digest: what it writes to a HelmRelease's
// status.history[].configDigest and compares the values it composes with, to
// decide whether an upgrade is due. fluxcd/pkg chartutil.DigestValues:
// the values as YAML — keys sorted at every level, encoded by go-yaml v2 —
// hashed with SHA-256, "sha256:<hex>"; no values (or none) hash the empty input.
//
// Equal digests therefore need byte-equal YAML, so this reproduces go-yaml
// v2's emitter for what JSON values can hold: its quoting (a string that
// would read back as another type is double-quoted, one a plain scalar cannot
// hold is single-quoted), literal blocks for multi-line strings, indentless
// sequences inside mappings, and folding of long plain lines past column 80.
// Checked against the Go code on a table of cases (config-digest.test.ts).
import { createHash } from "node:crypto";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const BEST_WIDTH = 80;

/** helm-controller's digest of a release's values ("sha256:<hex>"). */
export function helmConfigDigest(values: Record<string, unknown> | null | undefined): string {
  const yaml = values && Object.keys(values).length > 0 ? encodeValuesYaml(values) : "";
  return `sha256:${createHash("sha256").update(yaml, "utf8").digest("hex")}`;
}

/** The YAML go-yaml v2 writes for the values with their keys sorted. */
export function encodeValuesYaml(values: Record<string, unknown>): string {
  const out = new Writer();
  out.mapping(values as Record<string, Json>, 0);
  return `${out.text}\n`;
}

class Writer {
  text = "";
  private column = 0;

  private put(s: string): void {
    this.text += s;
    const nl = s.lastIndexOf("\n");
    this.column = nl === -1 ? this.column + s.length : s.length - nl - 1;
  }

  private newline(indent: number): void {
    this.put(`\n${" ".repeat(indent)}`);
  }

  /** A block mapping whose keys start at `indent`; the caller has put the cursor there. */
  mapping(map: Record<string, Json>, indent: number, first = true): void {
    const keys = Object.keys(map).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    keys.forEach((key, i) => {
      if (i > 0 || !first) this.line(indent);
      this.scalar(key, indent, true);
      this.put(":");
      this.value(map[key] as Json, indent, true);
    });
  }

  private line(indent: number): void {
    if (this.text.length > 0) this.put("\n");
    this.put(" ".repeat(indent));
  }

  private sequence(items: Json[], indent: number, first: boolean): void {
    items.forEach((item, i) => {
      if (i > 0 || !first) this.line(indent);
      this.put("-");
      this.value(item, indent, false);
    });
  }

  /** A value after "key:" (inMapping) or "-", whose collection's entries are at `indent`. */
  private value(v: Json, indent: number, inMapping: boolean): void {
    if (Array.isArray(v)) {
      if (v.length === 0) return this.put(" []");
      // go-yaml v2 does not indent a block sequence inside a mapping.
      if (inMapping) return this.sequence(v, indent, false);
      this.put(" ");
      return this.sequence(v, indent + 2, true);
    }
    if (v && typeof v === "object") {
      if (Object.keys(v).length === 0) return this.put(" {}");
      if (inMapping) {
        this.newline(indent + 2);
        return this.mapping(v, indent + 2, true);
      }
      this.put(" ");
      return this.mapping(v, indent + 2, true);
    }
    this.put(" ");
    this.scalar(v, indent, false);
  }

  private scalar(v: Exclude<Json, Json[] | { [key: string]: Json }>, indent: number, simpleKey: boolean): void {
    if (v === null) return this.put("null");
    if (typeof v === "boolean") return this.put(v ? "true" : "false");
    if (typeof v === "number") return this.put(formatNumber(v));
    const s = v;
    // The emitter indents a scalar's continuation lines one step past its collection.
    const scalarIndent = indent + 2;
    const a = analyse(s);
    let style: "plain" | "single" | "double" | "literal" = s.includes("\n") ? "literal" : resolvesAsString(s) ? "plain" : "double";
    if (simpleKey && a.multiline) style = "double";
    if (style === "plain" && !a.blockPlainAllowed) style = "single";
    if (style === "plain" && s.length === 0 && simpleKey) style = "single";
    if (style === "single" && !a.singleQuotedAllowed) style = "double";
    if (style === "literal" && (!a.blockAllowed || simpleKey)) style = "double";
    if (style === "plain") return this.folded(s, scalarIndent, !simpleKey, false);
    if (style === "single") return this.folded(s, scalarIndent, !simpleKey, true);
    if (style === "literal") return this.literal(s, scalarIndent);
    this.put(doubleQuoted(s));
  }

  /** Plain or single-quoted text, folded at a space once past column 80 (go-yaml's write_plain/single_quoted_scalar). */
  private folded(s: string, indent: number, allowBreaks: boolean, quoted: boolean): void {
    if (quoted) this.put("'");
    let spaces = false;
    for (let i = 0; i < s.length; i++) {
      const c = s[i] as string;
      if (c === " ") {
        const next = s[i + 1];
        const edgeOk = !quoted || (i > 0 && i < s.length - 1);
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && edgeOk && next !== " ") this.newline(indent);
        else this.put(c);
        spaces = true;
      } else {
        this.put(quoted && c === "'" ? "''" : c);
        spaces = false;
      }
    }
    if (quoted) this.put("'");
  }

  private literal(s: string, indent: number): void {
    let header = "|";
    if (s[0] === " " || s[0] === "\n") header += "2";
    if (!s.endsWith("\n")) header += "-";
    else if (s.length === 1 || s.endsWith("\n\n")) header += "+";
    this.put(header);
    for (const line of s.replace(/\n$/, "").split("\n")) this.put(line === "" ? "\n" : `\n${" ".repeat(indent)}${line}`);
  }
}

function formatNumber(n: number): string {
  if (Number.isNaN(n)) return ".nan";
  if (n === Infinity) return ".inf";
  if (n === -Infinity) return "-.inf";
  // Whole numbers reach the encoder as int64 (sigs.k8s.io/yaml's JSON conversion); others as Go's shortest 'g' float.
  if (Number.isInteger(n) && Math.abs(n) < 2 ** 63) return BigInt(n).toString();
  const s = String(n);
  // JavaScript writes 1e21 and 1.5e-7; Go's 'g' writes 1e+21 and 1.5e-07.
  return s.replace(/e([+-])(\d)$/, "e$10$2").replace(/e(\d)/, "e+$1");
}

const RESOLVES_OTHERWISE = new Set([
  "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON",
  "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF",
  "", "~", "null", "Null", "NULL",
  ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", "<<",
]);
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const GO_INT_BASE0 = /^[-+]?(0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[1-9][0-9]*|0)$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const TIMESTAMP = /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]| )[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]{1,9})?(?:Z|[+-][0-9]{2}:[0-9]{2})?)?$/;

/** Whether go-yaml v2 would read the string back as a string if written plain (its resolve + isBase60Float). */
function resolvesAsString(s: string): boolean {
  if (RESOLVES_OTHERWISE.has(s)) return false;
  const first = s[0] ?? "";
  if (first === ".") return !/^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(s);
  if (/[-+0-9]/.test(first)) {
    if (TIMESTAMP.test(s) && validDate(s)) return false;
    const plain = s.replace(/_/g, "");
    if (GO_INT_BASE0.test(plain) || YAML_STYLE_FLOAT.test(plain) || /^-0[bB][01]+$/.test(plain)) return false;
    if (BASE60_FLOAT.test(s)) return false;
  }
  return true;
}

function validDate(s: string): boolean {
  const [y, m, d] = s.slice(0, 10).split(/[-Tt ]/).map(Number) as [number, number, number];
  if (m < 1 || m > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= days;
}

interface Analysis {
  multiline: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

const isPrintable = (cp: number) =>
  cp === 0x0a || (cp >= 0x20 && cp <= 0x7e) || cp === 0x85 || (cp >= 0xa0 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff) || (cp >= 0x10000 && cp <= 0x10ffff);

/** go-yaml v2's yaml_emitter_analyze_scalar, for block context. */
function analyse(s: string): Analysis {
  if (s.length === 0) return { multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  let blockIndicators = s.startsWith("---") || s.startsWith("...");
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  let precededByWhitespace = true;
  const chars = [...s];
  chars.forEach((c, i) => {
    const next = chars[i + 1];
    const followedByWhitespace = next === undefined || next === " " || next === "\t" || next === "\n" || next === "\r";
    if (i === 0) {
      if ("#,[]{}&*!|>'\"%@`".includes(c)) blockIndicators = true;
      else if ((c === "?" || c === ":" || c === "-") && followedByWhitespace) blockIndicators = true;
    } else if ((c === ":" && followedByWhitespace) || (c === "#" && precededByWhitespace)) blockIndicators = true;
    if (!isPrintable(c.codePointAt(0) ?? 0)) special = true;
    const last = i === chars.length - 1;
    if (c === " ") {
      if (i === 0) leadingSpace = true;
      if (last) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (c === "\n" || c === "\r" || c === "\u0085" || c === "\u2028" || c === "\u2029") {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (last) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = c === " " || c === "\t" || c === "\n" || c === "\r";
  });
  let blockPlainAllowed = true;
  let singleQuotedAllowed = true;
  let blockAllowed = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) blockPlainAllowed = false;
  if (trailingSpace) blockAllowed = false;
  if (breakSpace) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
  }
  if (spaceBreak || special) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
    blockAllowed = false;
  }
  if (lineBreaks) blockPlainAllowed = false;
  if (blockIndicators) blockPlainAllowed = false;
  return { multiline: lineBreaks, blockPlainAllowed, singleQuotedAllowed, blockAllowed };
}

const ESCAPES: Record<string, string> = {
  "\0": "\\0", "\x07": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\x0b": "\\v", "\f": "\\f", "\r": "\\r", "\x1b": "\\e",
  '"': '\\"', "\\": "\\\\", "\u0085": "\\N", "\u00a0": "\\_", "\u2028": "\\L", "\u2029": "\\P",
};

/** go-yaml v2's double-quoted style (unicode output on, so printable non-ASCII stays as it is). */
function doubleQuoted(s: string): string {
  let out = '"';
  for (const c of s) {
    const cp = c.codePointAt(0) ?? 0;
    const escape = ESCAPES[c];
    if (escape) out += escape;
    else if (!isPrintable(cp) || cp === 0xfeff) {
      const hex = cp.toString(16).toUpperCase();
      out += cp <= 0xff ? `\\x${hex.padStart(2, "0")}` : cp <= 0xffff ? `\\u${hex.padStart(4, "0")}` : `\\U${hex.padStart(8, "0")}`;
    } else out += c;
  }
  return `${out}"`;
}

export type { Json as HelmValuesJson };
