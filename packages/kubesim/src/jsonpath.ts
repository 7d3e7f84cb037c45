// The JSONPath subset CRD additionalPrinterColumns use, evaluated as
// client-go's jsonpath does for kube-apiserver's table convertor: fields
// (`.a.b`, `['a.b']`), indexes and slices of one (`[0]`, `[-1]`), wildcards
// (`[*]`, `.*`) and filters (`[?(@.type=="Ready")]`, `[?(@.x)]`, `!=`, `<`, `>`).
import { isObj } from "./json";

type Step =
  | { k: "field"; name: string }
  | { k: "index"; i: number }
  | { k: "wild" }
  | { k: "filter"; path: string[]; op?: string; value?: unknown };

function parseLiteral(s: string): unknown {
  const t = s.trim();
  if ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'"))) return t.slice(1, -1);
  if (t === "true" || t === "false") return t === "true";
  const n = Number(t);
  return Number.isNaN(n) ? t : n;
}

function parse(path: string): Step[] {
  let p = path.trim();
  if (p.startsWith("{") && p.endsWith("}")) p = p.slice(1, -1).trim();
  if (p.startsWith("$")) p = p.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < p.length) {
    const c = p[i];
    if (c === ".") {
      i++;
      if (p[i] === "*") {
        steps.push({ k: "wild" });
        i++;
        continue;
      }
      let name = "";
      while (i < p.length && p[i] !== "." && p[i] !== "[") {
        if (p[i] === "\\" && i + 1 < p.length) i++;
        name += p[i];
        i++;
      }
      if (name) steps.push({ k: "field", name });
      continue;
    }
    if (c === "[") {
      const end = findClose(p, i);
      const inner = p.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === "*") steps.push({ k: "wild" });
      else if (/^-?\d+$/.test(inner)) steps.push({ k: "index", i: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ k: "field", name: inner.slice(1, -1) });
      else if (inner.startsWith("?(") && inner.endsWith(")")) {
        const expr = inner.slice(2, -1).trim();
        const m = /^@((?:\.[^.=!<>\s]+)*)\s*(==|!=|<=|>=|<|>)?\s*(.*)$/.exec(expr);
        if (!m) throw new Error(`unsupported filter ${expr}`);
        const fpath = (m[1] ?? "").split(".").filter(Boolean);
        steps.push(m[2] ? { k: "filter", path: fpath, op: m[2], value: parseLiteral(m[3] ?? "") } : { k: "filter", path: fpath });
      } else throw new Error(`unsupported subscript [${inner}]`);
      continue;
    }
    // A leading bare field name ("status.phase").
    let name = "";
    while (i < p.length && p[i] !== "." && p[i] !== "[") name += p[i++];
    if (name) steps.push({ k: "field", name });
  }
  return steps;
}

function findClose(p: string, open: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let j = open; j < p.length; j++) {
    const ch = p[j];
    if (quote) {
      if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === "[") depth++;
    else if (ch === "]" && --depth === 0) return j;
  }
  throw new Error(`unclosed [ in ${p}`);
}

function compare(a: unknown, op: string, b: unknown): boolean {
  switch (op) {
    case "==":
      return a === b || (a !== undefined && String(a) === String(b));
    case "!=":
      return !(a === b || (a !== undefined && String(a) === String(b)));
    case "<":
      return Number(a) < Number(b);
    case ">":
      return Number(a) > Number(b);
    case "<=":
      return Number(a) <= Number(b);
    case ">=":
      return Number(a) >= Number(b);
    default:
      return false;
  }
}

/** Every value the path selects, in document order; [] when it selects nothing. */
export function jsonPathResults(obj: unknown, path: string): unknown[] {
  let cur: unknown[] = [obj];
  for (const s of parse(path)) {
    const next: unknown[] = [];
    for (const v of cur) {
      if (s.k === "field") {
        if (isObj(v) && v[s.name] !== undefined) next.push(v[s.name]);
      } else if (s.k === "index") {
        if (Array.isArray(v)) {
          const x = v[s.i < 0 ? v.length + s.i : s.i];
          if (x !== undefined) next.push(x);
        }
      } else if (s.k === "wild") {
        if (Array.isArray(v)) next.push(...v);
        else if (isObj(v)) next.push(...Object.values(v));
      } else {
        const items = Array.isArray(v) ? v : isObj(v) ? Object.values(v) : [];
        for (const it of items) {
          let x: unknown = it;
          for (const f of s.path) x = isObj(x) ? x[f] : undefined;
          if (s.op === undefined ? x !== undefined && x !== null && x !== false : compare(x, s.op, s.value)) next.push(it);
        }
      }
    }
    cur = next;
  }
  return cur;
}
