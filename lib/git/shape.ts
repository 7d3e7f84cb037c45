// Reading settings out of objects the API server or a repository file handed
// over: anything of the wrong shape is left out, as a schema would not have let
// it in. Shared by the controller-object readers and the repository overrides.
import type { FluxSelector } from "./flux-generate";

export type Obj = Record<string, unknown>;

export function rec(v: unknown): Obj | undefined {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined;
}
export function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}
export function strMap(v: unknown): Record<string, string> | undefined {
  const r = rec(v);
  if (!r) return undefined;
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(r)) if (typeof val === "string") out[k] = val;
  return out;
}
export function strList(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : undefined;
}
export function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function selectorOf(v: unknown): FluxSelector | undefined {
  const r = rec(v);
  if (!r) return undefined;
  return dropUndefined({
    group: str(r.group),
    version: str(r.version),
    kind: str(r.kind),
    name: str(r.name),
    namespace: str(r.namespace),
    labelSelector: str(r.labelSelector),
    annotationSelector: str(r.annotationSelector),
  });
}

