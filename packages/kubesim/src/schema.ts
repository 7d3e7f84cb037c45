// A small structural schema, enough to reproduce how the real server treats
// each field for server-side apply (structured-merge-diff) and strategic merge
// patch: which objects are structs (named fields) and which are maps (free
// keys), which lists are atomic, sets, or maps keyed by some fields.
import { isObj, type Obj } from "./json";

export type ScalarType = "string" | "int32" | "int64" | "bool";

export type Schema =
  | { k: "scalar"; quantity?: boolean; t?: ScalarType }
  | {
      k: "struct";
      fields: Record<string, Schema>;
      /** Keys not in `fields`: "open" = more named fields (typed Go struct we only partly describe); a schema = map values. */
      rest?: Schema | "open";
      atomic?: boolean;
      /** SMP: patchStrategy retainKeys on this struct. */
      retainKeys?: boolean;
      /** Go type name (e.g. "v1.DeploymentSpec"), for decode error messages. */
      go?: string;
    }
  | {
      k: "list";
      items: Schema;
      type: "atomic" | "set" | "map";
      keys?: string[];
      /** Defaults for key fields (e.g. protocol TCP), as structured-merge-diff uses when a key is missing. */
      keyDefaults?: Obj;
      /** SMP: merge key; absent with smp "merge" = merge of primitives. */
      smpKey?: string;
      smp?: "merge" | "replace";
      smpRetainKeys?: boolean;
    }
  | { k: "deduced" };

export const SCALAR: Schema = { k: "scalar" };
export const QUANTITY: Schema = { k: "scalar", quantity: true };
export const DEDUCED: Schema = { k: "deduced" };
export const OPEN: Schema = { k: "struct", fields: {}, rest: "open" };
export const ATOMIC_OPEN: Schema = { k: "struct", fields: {}, rest: "open", atomic: true };
export const ATOMIC_LIST: Schema = { k: "list", items: OPEN, type: "atomic" };

export function struct(fields: Record<string, Schema>, opts: { atomic?: boolean; retainKeys?: boolean; closed?: boolean; go?: string } = {}): Schema {
  return { k: "struct", fields, rest: opts.closed ? undefined : "open", atomic: opts.atomic, retainKeys: opts.retainKeys, go: opts.go };
}

export const STR: Schema = { k: "scalar", t: "string" };
export const I32: Schema = { k: "scalar", t: "int32" };
export const I64: Schema = { k: "scalar", t: "int64" };
export const BOOL: Schema = { k: "scalar", t: "bool" };

export function mapOf(values: Schema, atomic = false): Schema {
  return { k: "struct", fields: {}, rest: values, atomic };
}

export function atomicList(items: Schema = OPEN): Schema {
  return { k: "list", items, type: "atomic" };
}

export function setList(smpMerge = false): Schema {
  return { k: "list", items: SCALAR, type: "set", smp: smpMerge ? "merge" : undefined };
}

export function mapList(keys: string[], items: Schema, opts: { smpKey?: string; retainKeys?: boolean; keyDefaults?: Obj; noSmp?: boolean } = {}): Schema {
  return {
    k: "list",
    items,
    type: "map",
    keys,
    keyDefaults: opts.keyDefaults,
    smpKey: opts.noSmp ? undefined : (opts.smpKey ?? keys[0]),
    smp: opts.noSmp ? undefined : "merge",
    smpRetainKeys: opts.retainKeys,
  };
}

/** Schema guessed from a value, for fields of a typed object that we do not describe in detail. */
export function inferOpen(v: unknown): Schema {
  if (Array.isArray(v)) return ATOMIC_LIST;
  if (isObj(v)) return OPEN;
  return SCALAR;
}

/** The schema of `value` found at `key` of an object described by `s`. */
export function fieldSchema(s: Schema, key: string, value: unknown): Schema {
  if (s.k === "struct") {
    const f = s.fields[key];
    if (f) return f;
    if (s.rest === "open") return inferOpen(value);
    return s.rest ?? DEDUCED;
  }
  return DEDUCED;
}

/** Whether `key` is a named (struct) field — named fields are not set members on their own. */
export function isNamedField(s: Schema, key: string): boolean {
  if (s.k !== "struct") return false;
  return key in s.fields || s.rest === "open";
}

/** The effective kind of node for a value, tolerating values whose type disagrees with the schema. */
export function effective(s: Schema, v: unknown): Schema {
  if (s.k === "deduced") {
    if (Array.isArray(v)) return { k: "list", items: DEDUCED, type: "atomic" };
    if (isObj(v)) return { k: "struct", fields: {}, rest: DEDUCED };
    return SCALAR;
  }
  if (s.k === "struct" && Array.isArray(v)) return { k: "list", items: DEDUCED, type: "atomic" };
  if (s.k === "list" && isObj(v)) return { k: "struct", fields: {}, rest: DEDUCED };
  return s;
}

/**
 * Drops fields a typed decode would not know (closed structs), recording their paths as the
 * strict decoder prints them ("spec.template.spec.containers[0].imagee").
 */
export function pruneUnknownTyped(value: unknown, s: Schema, path: string, unknown: string[]): void {
  if (Array.isArray(value)) {
    if (s.k === "list") value.forEach((v, i) => pruneUnknownTyped(v, s.items, `${path}[${i}]`, unknown));
    return;
  }
  if (!isObj(value) || s.k !== "struct") return;
  for (const key of Object.keys(value)) {
    const childPath = path ? `${path}.${key}` : key;
    const f = s.fields[key];
    if (f) pruneUnknownTyped(value[key], f, childPath, unknown);
    else if (s.rest === undefined) {
      unknown.push(childPath);
      delete value[key];
    } else if (s.rest !== "open") pruneUnknownTyped(value[key], s.rest, childPath, unknown);
  }
}

const QUANTITY_MESSAGE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const QUANTITY_RE = /^[+-]?(\d+\.?\d*|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (isObj(v)) return "object";
  if (typeof v === "number") return "number";
  if (typeof v === "boolean") return "bool";
  return "string";
}

function goTypeOf(s: Schema): string {
  if (s.k === "scalar") return s.t ?? "string";
  if (s.k === "list") return `[]${s.items.k === "struct" ? (s.items.go ?? "interface {}") : s.items.k === "scalar" ? (s.items.t ?? "string") : "interface {}"}`;
  if (s.k === "struct") {
    if (s.go) return s.go;
    if (s.rest && s.rest !== "open" && s.rest.k === "scalar") return `map[string]${s.rest.t ?? "string"}`;
  }
  return "interface {}";
}

/**
 * The error Go's JSON decoding of a typed object reports for a value of the wrong type
 * ("json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"),
 * or undefined when the object decodes.
 */
export function decodeTypeError(value: unknown, s: Schema, path: string[] = [], parent = ""): string | undefined {
  if (value === null || value === undefined) return undefined;
  const fail = (kind: string, type: string) => `json: cannot unmarshal ${kind} into Go struct field ${parent}.${path.join(".")} of type ${type}`;
  if (s.k === "scalar") {
    if (s.quantity) {
      if (typeof value === "number") return undefined;
      if (typeof value !== "string" || !QUANTITY_RE.test(value.trim())) return QUANTITY_MESSAGE;
      return undefined;
    }
    switch (s.t) {
      case "string":
        return typeof value === "string" ? undefined : fail(jsonKind(value), "string");
      case "bool":
        return typeof value === "boolean" ? undefined : fail(jsonKind(value), "bool");
      case "int32":
      case "int64":
        if (typeof value !== "number") return fail(jsonKind(value), s.t);
        return Number.isInteger(value) ? undefined : fail(`number ${value}`, s.t);
      default:
        return undefined;
    }
  }
  if (s.k === "list") {
    if (!Array.isArray(value)) return parent ? fail(jsonKind(value), goTypeOf(s)) : undefined;
    for (const item of value) {
      const e = decodeTypeError(item, s.items, path, parent);
      if (e) return e;
    }
    return undefined;
  }
  if (s.k === "struct") {
    if (!isObj(value)) return parent || s.go ? fail(jsonKind(value), goTypeOf(s)) : undefined;
    const here = s.go ? s.go.replace(/^[\w.]*\./, "") : parent;
    for (const [k, v] of Object.entries(value)) {
      const f = s.fields[k];
      if (f) {
        const e = decodeTypeError(v, f, [...path, k], here || parent);
        if (e) return e;
      } else if (s.rest && s.rest !== "open") {
        const e = decodeTypeError(v, s.rest, path, parent);
        if (e) return e;
      }
    }
  }
  return undefined;
}
