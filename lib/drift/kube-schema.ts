// What the drift engine knows about built-in kinds: which lists merge by
// which key, which fields hold quantities, which maps are free-form, and
// which values the API server fills in by itself (defaults). Unknown kinds
// and unknown fields fall back to generic rules (lists of named objects merge
// by `name`; `requests`/`limits`/`hard`/… maps hold quantities).
//
// The node shape lives in kube-schema-node.ts, the built-in kinds in
// kube-schema-kinds.ts; this module is what the engine imports.

import { FREE_MAP, GENERIC, QUANTITY, QUANTITY_MAP, type SchemaNode } from "./kube-schema-node";
import { GENERIC_ROOT, KIND_SCHEMAS } from "./kube-schema-kinds";

export { GENERIC, type SchemaNode } from "./kube-schema-node";
export { defaultPullPolicy } from "./kube-schema-kinds";

// Generic knowledge used for fields no typed schema describes (CRDs included).
const GENERIC_QUANTITY_MAPS = new Set([
  "requests",
  "limits",
  "hard",
  "capacity",
  "allocatable",
  "overhead",
  "default",
  "defaultRequest",
  "max",
  "min",
  "maxLimitRequestRatio",
]);
const GENERIC_FREE_MAPS = new Set(["labels", "annotations", "data", "stringData", "binaryData", "matchLabels", "nodeSelector", "selector"]);

export function childSchema(node: SchemaNode, key: string): SchemaNode {
  const f = node.fields?.[key];
  if (f) return f;
  if (node.any) return node.any;
  if (GENERIC_QUANTITY_MAPS.has(key)) return QUANTITY_MAP;
  if (GENERIC_FREE_MAPS.has(key)) return FREE_MAP;
  if (key === "sizeLimit" || key === "storage") return QUANTITY;
  return GENERIC;
}

export function itemSchema(node: SchemaNode): SchemaNode {
  return node.items ?? GENERIC;
}

/** Schema for `group/kind` (group "" for core); unknown kinds get generic rules. */
export function kindSchema(group: string, kind: string): SchemaNode {
  return KIND_SCHEMAS[`${group}/${kind}`] ?? GENERIC_ROOT;
}

/** Whether a value present only live is, as a whole, what the server fills in. */
export function isDefaultTree(node: SchemaNode, value: unknown, parent: Record<string, unknown> | null): boolean {
  if (node.skip) return true;
  if (node.isDefault) return node.isDefault(value, parent);
  if (value === null || value === undefined) return true;
  if (typeof value !== "object") return false;
  if (Array.isArray(value)) {
    if (value.length === 0) return true;
    if (!node.set || !node.items?.isDefault) return false;
    const items = node.items;
    return value.every((v) => items.isDefault?.(v, null) === true);
  }
  const obj = value as Record<string, unknown>;
  for (const k in obj) {
    const v = obj[k];
    if (v === null || v === undefined) continue;
    if (node.defaultKeys?.has(k) || node.skipKeys?.has(k)) continue;
    const c = node.fields?.[k];
    if (!c || !isDefaultTree(c, v, obj)) {
      if (typeof v === "object" && isEmptyValue(v)) continue;
      return false;
    }
  }
  return true;
}

export function isEmptyValue(v: object): boolean {
  if (Array.isArray(v)) return v.length === 0;
  for (const _ in v) return false;
  return true;
}
