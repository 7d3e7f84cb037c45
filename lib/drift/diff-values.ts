// Value tests of the field-level differ (diff.ts): what the API server treats
// as absent or zero, and how list items are matched by key.
import { childSchema, type SchemaNode } from "./kube-schema";
import type { Scalar } from "./path";
import { quantityEquals } from "./quantity";

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** null, absent, {} and [] mean the same to the API server. */
export function absent(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (typeof v !== "object") return false;
  if (Array.isArray(v)) return v.length === 0;
  for (const _ in v) return false;
  return true;
}

export function isScalarValue(v: unknown): boolean {
  return v === null || (typeof v !== "object" && typeof v !== "function");
}

export function keyValue(item: unknown, key: string, defaults: Readonly<Record<string, Scalar>> | undefined): unknown {
  const v = (item as Obj)[key];
  return v === undefined || v === null ? defaults?.[key] : v;
}

export function allKeyed(list: readonly unknown[], keys: readonly string[], defaults: Readonly<Record<string, Scalar>> | undefined): boolean {
  const single = keys.length === 1 && defaults === undefined ? (keys[0] as string) : null;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (typeof item !== "object" || item === null || Array.isArray(item)) return false;
    if (single !== null) {
      const t = typeof (item as Obj)[single];
      if (t !== "string" && t !== "number") return false;
      continue;
    }
    for (const k of keys) {
      const v = keyValue(item, k, defaults);
      if (v === undefined || (typeof v === "object" && v !== null)) return false;
    }
  }
  return true;
}

export function isUsed(mask: number, arr: boolean[] | null, x: number): boolean {
  return arr === null ? (mask & (1 << x)) !== 0 : arr[x] === true;
}

export function sameKey(a: unknown, b: unknown, keys: readonly string[], defaults: Readonly<Record<string, Scalar>> | undefined): boolean {
  for (const k of keys) if (keyValue(a, k, defaults) !== keyValue(b, k, defaults)) return false;
  return true;
}

export function scalarListsEqual(d: readonly unknown[], l: readonly unknown[], quantity: boolean): boolean {
  if (d.length !== l.length) return false;
  for (let i = 0; i < d.length; i++) {
    if (d[i] !== l[i] && !(quantity && quantityEquals(d[i], l[i]))) return false;
  }
  return true;
}

/**
 * Kubernetes omits zero values ("", 0, false) of plain struct fields, so Git
 * spelling them out equals live leaving them out; in data maps they are values.
 */
export function zeroOnly(d: unknown, node: SchemaNode, free: boolean): boolean {
  if (d === undefined || d === null) return true;
  if (typeof d !== "object") return !free && (d === "" || d === false || d === 0);
  if (Array.isArray(d)) return d.length === 0;
  const childFree = node.free === true;
  for (const k in d as Obj) if (!zeroOnly((d as Obj)[k], childSchema(node, k), childFree)) return false;
  return true;
}
