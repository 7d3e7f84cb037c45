// The part of client-go's JSONPath that CRD printer columns use: fields,
// indexes, wildcards and filters such as
// `.status.conditions[?(@.type=="Ready")].status`. Like the apiextensions
// table convertor, a column shows the first value found.
import { isObj } from "./json";

type Step = { field: string } | { index: number } | { all: true } | { filter: { path: string[]; op: "==" | "!="; value: string } | { path: string[]; op: "exists" } };

function parse(path: string): Step[] | undefined {
  let rest = path.trim().replace(/^\{(.*)\}$/, "$1").replace(/^\$/, "");
  const steps: Step[] = [];
  while (rest.length > 0) {
    let m: RegExpExecArray | null;
    if ((m = /^\.\.?([A-Za-z0-9_\-/]+)/.exec(rest))) steps.push({ field: m[1] as string });
    else if ((m = /^\[(-?\d+)\]/.exec(rest))) steps.push({ index: Number(m[1]) });
    else if ((m = /^(\.\*|\[\*\])/.exec(rest))) steps.push({ all: true });
    else if ((m = /^\[['"]([^'"]+)['"]\]/.exec(rest))) steps.push({ field: m[1] as string });
    else if ((m = /^\[\?\(@((?:\.[A-Za-z0-9_\-/]+)+)\s*(==|!=)\s*(?:"([^"]*)"|'([^']*)'|([^)\s]+))\s*\)\]/.exec(rest))) {
      steps.push({ filter: { path: (m[1] as string).split(".").filter(Boolean), op: m[2] as "==" | "!=", value: m[3] ?? m[4] ?? m[5] ?? "" } });
    } else if ((m = /^\[\?\(@((?:\.[A-Za-z0-9_\-/]+)+)\)\]/.exec(rest))) {
      steps.push({ filter: { path: (m[1] as string).split(".").filter(Boolean), op: "exists" } });
    } else if ((m = /^\./.exec(rest))) {
      // a lone dot: the current object
    } else return undefined;
    rest = rest.slice(m[0].length);
  }
  return steps;
}

function get(v: unknown, path: string[]): unknown {
  let cur = v;
  for (const p of path) cur = isObj(cur) ? cur[p] : undefined;
  return cur;
}

function scalarText(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** Every value the path finds, in document order. */
export function jsonPathValues(root: unknown, path: string): unknown[] {
  const steps = parse(path);
  if (!steps) return [];
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if ("field" in step) {
        if (isObj(v) && v[step.field] !== undefined) next.push(v[step.field]);
      } else if ("index" in step) {
        if (Array.isArray(v)) {
          const item = v[step.index < 0 ? v.length + step.index : step.index];
          if (item !== undefined) next.push(item);
        }
      } else if ("all" in step) {
        if (Array.isArray(v)) next.push(...v);
        else if (isObj(v)) next.push(...Object.values(v));
      } else {
        const f = step.filter;
        for (const item of Array.isArray(v) ? v : []) {
          const got = get(item, f.path);
          if (f.op === "exists" ? got !== undefined : (got !== undefined && scalarText(got) === f.value) === (f.op === "==")) next.push(item);
        }
      }
    }
    current = next;
  }
  return current;
}

export function jsonPathFirst(root: unknown, path: string): unknown {
  return jsonPathValues(root, path)[0];
}
