// The shape of the drift engine's schema knowledge (kube-schema.ts) and the
// nodes and default checks every kind's schema is built from.
import type { Scalar } from "./path";

export type DefaultCheck = (value: unknown, parent: Record<string, unknown> | null) => boolean;

export interface SchemaNode {
  fields?: Readonly<Record<string, SchemaNode>>;
  /** Schema of every value of a map whose keys are data (labels, resource names). */
  any?: SchemaNode;
  /** Schema of list items. */
  items?: SchemaNode;
  /** List items are matched by these fields instead of by position. */
  mergeKeys?: readonly string[];
  /** Values the server assumes for absent merge-key fields (ports: protocol TCP). */
  keyDefaults?: Readonly<Record<string, Scalar>>;
  /** Compared by position even when items look named. */
  atomic?: boolean;
  /** A list of scalars whose order does not matter (finalizers). */
  set?: boolean;
  /** Map keys are data: zero values ("" / 0 / false) are kept by the server and therefore meaningful. */
  free?: boolean;
  /** True when a value present only live is what the server fills in by itself. */
  isDefault?: DefaultCheck;
  /** Map keys that the server adds by itself (value irrelevant). */
  defaultKeys?: ReadonlySet<string>;
  /** Map keys never compared (server bookkeeping). */
  skipKeys?: ReadonlySet<string>;
  /** Labels/annotations: controllers inject keys with known prefixes at apply time. */
  injectable?: boolean;
  /** Never compared. */
  skip?: boolean;
  /** Scalar is a resource quantity. */
  quantity?: boolean;
}

export const eq =
  (expected: Scalar): DefaultCheck =>
  (v) =>
    v === expected;
export const anyValue: DefaultCheck = () => true;

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ak = Object.keys(a);
  const bo = b as Record<string, unknown>;
  if (ak.length !== Object.keys(bo).length) return false;
  return ak.every((k) => deepEqual((a as Record<string, unknown>)[k], bo[k]));
}
export const eqDeep =
  (expected: unknown): DefaultCheck =>
  (v) =>
    deepEqual(v, expected);

export const SKIP: SchemaNode = Object.freeze({ skip: true });
export const GENERIC: SchemaNode = Object.freeze({});
export const FREE_MAP: SchemaNode = Object.freeze({ free: true });
export const QUANTITY: SchemaNode = Object.freeze({ quantity: true });
export const QUANTITY_MAP: SchemaNode = Object.freeze({ free: true, any: QUANTITY });
export const ATOMIC: SchemaNode = { atomic: true };
