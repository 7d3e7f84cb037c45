// Label and field selectors with the grammar of k8s.io/apimachinery/pkg/labels
// and pkg/fields.
import { badRequest } from "./errors";
import { getIn, isObj, type Obj } from "./json";

type LabelReq =
  | { op: "exists" | "!"; key: string }
  | { op: "=" | "!="; key: string; value: string }
  | { op: "in" | "notin"; key: string; values: string[] }
  | { op: "gt" | "lt"; key: string; value: number };

export interface LabelSelector {
  reqs: LabelReq[];
  empty: boolean;
}

function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of s) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

const KEY_RE = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const VALUE_RE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function checkKey(key: string): void {
  if (!KEY_RE.test(key) || key.length > 316) {
    throw badRequest(
      `unable to parse requirement: values[0][${key}]: Invalid value: ${JSON.stringify(key)}: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    );
  }
}

function checkValue(key: string, value: string): void {
  if (!VALUE_RE.test(value) || value.length > 63) {
    throw badRequest(
      `unable to parse requirement: values[0][${key}]: Invalid value: ${JSON.stringify(value)}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    );
  }
}

export function parseLabelSelector(input: string | null | undefined): LabelSelector {
  const s = (input ?? "").trim();
  if (!s) return { reqs: [], empty: true };
  const reqs: LabelReq[] = [];
  for (const rawPart of splitTopLevel(s)) {
    const part = rawPart.trim();
    if (!part) throw badRequest(`found '', expected: !, identifier, or 'end of string'`);
    let m: RegExpExecArray | null;
    if ((m = /^!\s*(\S+)$/.exec(part))) {
      checkKey(m[1] as string);
      reqs.push({ op: "!", key: m[1] as string });
    } else if ((m = /^(\S+?)\s+(in|notin)\s*\(([^)]*)\)$/.exec(part))) {
      const key = m[1] as string;
      checkKey(key);
      const values = (m[3] as string).split(",").map((v) => v.trim());
      for (const v of values) checkValue(key, v);
      reqs.push({ op: m[2] === "in" ? "in" : "notin", key, values });
    } else if ((m = /^([^=!<>\s]+)\s*(==|=|!=)\s*([^=!<>\s]*)$/.exec(part))) {
      const key = m[1] as string;
      checkKey(key);
      checkValue(key, m[3] as string);
      reqs.push({ op: m[2] === "!=" ? "!=" : "=", key, value: m[3] as string });
    } else if ((m = /^([^=!<>\s]+)\s*([<>])\s*(-?\d+)$/.exec(part))) {
      checkKey(m[1] as string);
      reqs.push({ op: m[2] === ">" ? "gt" : "lt", key: m[1] as string, value: Number(m[3]) });
    } else if ((m = /^([^=!<>\s(),]+)$/.exec(part))) {
      checkKey(m[1] as string);
      reqs.push({ op: "exists", key: m[1] as string });
    } else {
      throw badRequest(`unable to parse requirement: found '${part}', expected: in, notin, =, ==, !=, gt, lt`);
    }
  }
  return { reqs, empty: false };
}

export function labelsMatch(sel: LabelSelector, labels: unknown): boolean {
  if (sel.empty) return true;
  const l: Obj = isObj(labels) ? labels : {};
  for (const r of sel.reqs) {
    const has = typeof l[r.key] === "string";
    const v = l[r.key] as string | undefined;
    switch (r.op) {
      case "exists":
        if (!has) return false;
        break;
      case "!":
        if (has) return false;
        break;
      case "=":
        if (v !== r.value) return false;
        break;
      case "!=":
        if (v === r.value) return false;
        break;
      case "in":
        if (!has || !r.values.includes(v as string)) return false;
        break;
      case "notin":
        if (has && r.values.includes(v as string)) return false;
        break;
      case "gt":
      case "lt": {
        if (!has) return false;
        const n = Number(v);
        if (!Number.isInteger(n)) return false;
        if (r.op === "gt" ? !(n > r.value) : !(n < r.value)) return false;
        break;
      }
    }
  }
  return true;
}

export interface FieldSelector {
  terms: Array<{ field: string; op: "=" | "!="; value: string }>;
  empty: boolean;
}

export interface FieldSelectorRules {
  extra: string[];
  /** Kinds with their own field-label conversion report unsupported labels differently. */
  customConversion: boolean;
}

function unescapeField(v: string): string {
  return v.replace(/\\(.)/g, "$1");
}

export function parseFieldSelector(input: string | null | undefined, rules: FieldSelectorRules): FieldSelector {
  const s = (input ?? "").trim();
  if (!s) return { terms: [], empty: true };
  const terms: FieldSelector["terms"] = [];
  for (const part of s.split(/(?<!\\),/)) {
    const m = /^([^=!]+?)(==|=|!=)(.*)$/.exec(part.trim());
    if (!m) throw badRequest(`invalid selector: '${s}'; can't understand '${part}'`);
    const field = (m[1] as string).trim();
    if (field !== "metadata.name" && field !== "metadata.namespace" && !rules.extra.includes(field)) {
      if (rules.customConversion) throw badRequest(`field label not supported: ${field}`);
      throw badRequest(`"${field}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
    }
    terms.push({ field, op: m[2] === "!=" ? "!=" : "=", value: unescapeField(m[3] as string) });
  }
  return { terms, empty: false };
}

export function fieldsMatch(sel: FieldSelector, obj: Obj): boolean {
  if (sel.empty) return true;
  for (const t of sel.terms) {
    const raw = getIn(obj, t.field.split("."));
    const v = raw === undefined || raw === null ? "" : typeof raw === "string" ? raw : String(raw);
    if (t.op === "=" ? v !== t.value : v === t.value) return false;
  }
  return true;
}

/** The value a selector pins metadata.name to, if any. */
export function exactName(sel: FieldSelector): string | undefined {
  return sel.terms.find((t) => t.field === "metadata.name" && t.op === "=")?.value;
}
