// Structural-schema behaviour for custom resources: pruning of unknown fields,
// defaulting from `default:` and OpenAPI validation, as apiextensions-apiserver does.
import type { FieldError } from "./errors";
import { asObj, asStr, clone, isObj, type Obj } from "./json";

function props(s: Obj): Obj | undefined {
  return asObj(s.properties);
}

/** Removes fields the schema does not declare; returns their paths (for strict field validation). */
export function pruneUnknown(value: unknown, schema: Obj | undefined, path: string, unknown: string[], root = false): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    const items = asObj(schema.items);
    value.forEach((v, i) => pruneUnknown(v, items, `${path}[${i}]`, unknown));
    return;
  }
  if (!isObj(value)) return;
  const preserve = schema["x-kubernetes-preserve-unknown-fields"] === true;
  const p = props(schema);
  const ap = schema.additionalProperties;
  const embedded = schema["x-kubernetes-embedded-resource"] === true;
  for (const key of Object.keys(value)) {
    const child = value[key];
    const childPath = path ? `${path}.${key}` : key;
    if ((root || embedded) && (key === "apiVersion" || key === "kind" || key === "metadata")) {
      if (key === "metadata" && embedded && isObj(child)) {
        for (const mk of Object.keys(child)) {
          if (!["name", "namespace", "labels", "annotations", "finalizers", "generateName"].includes(mk)) delete child[mk];
        }
      }
      continue;
    }
    const ps = p ? asObj(p[key]) : undefined;
    if (ps) {
      pruneUnknown(child, ps, childPath, unknown);
    } else if (isObj(ap)) {
      pruneUnknown(child, ap, childPath, unknown);
    } else if (ap === true || preserve) {
      continue;
    } else {
      unknown.push(childPath);
      delete value[key];
    }
  }
}

export function applyDefaults(value: unknown, schema: Obj | undefined): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    const items = asObj(schema.items);
    for (const v of value) applyDefaults(v, items);
    return;
  }
  if (!isObj(value)) return;
  const p = props(schema);
  if (p) {
    for (const [k, s] of Object.entries(p)) {
      const ps = asObj(s);
      if (!ps) continue;
      if ((value[k] === undefined || (value[k] === null && ps.nullable !== true)) && ps.default !== undefined) value[k] = clone(ps.default);
      if (value[k] !== undefined) applyDefaults(value[k], ps);
    }
  }
  const ap = asObj(schema.additionalProperties);
  if (ap) for (const k of Object.keys(value)) if (!p || !(k in p)) applyDefaults(value[k], ap);
}

function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

export function validateAgainstSchema(value: unknown, schema: Obj | undefined, path: string, errs: FieldError[], root = false): void {
  if (!schema) return;
  if (value === null) {
    if (schema.nullable === true) return;
  }
  const type = asStr(schema.type);
  const intOrString = schema["x-kubernetes-int-or-string"] === true;
  const actual = jsonType(value);
  if (intOrString) {
    if (actual !== "integer" && actual !== "string") {
      errs.push({ type: "TypeInvalid", field: path, value: actual, detail: `${path} in body must be of type integer,string: ${JSON.stringify(actual)}` });
    }
  } else if (type && !root) {
    const ok = type === actual || (type === "number" && actual === "integer");
    if (!ok) {
      errs.push({ type: "TypeInvalid", field: path, value: actual, detail: `${path} in body must be of type ${type}: ${JSON.stringify(actual)}` });
      return;
    }
  }
  if (Array.isArray(schema.enum) && value !== undefined && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    errs.push({
      type: "NotSupported",
      field: path,
      value,
      detail: `supported values: ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}`,
    });
  }
  if (typeof value === "string") {
    if (typeof schema.maxLength === "number" && value.length > schema.maxLength) {
      errs.push({ type: "TooLong", field: path, value, detail: `may not be more than ${schema.maxLength} bytes` });
    }
    if (typeof schema.minLength === "number" && value.length < schema.minLength) {
      errs.push({ type: "Invalid", field: path, value, detail: `${path} in body should be at least ${schema.minLength} chars long` });
    }
    if (typeof schema.pattern === "string") {
      try {
        if (!new RegExp(schema.pattern, "u").test(value)) {
          errs.push({ type: "Invalid", field: path, value, detail: `${path} in body should match '${schema.pattern}'` });
        }
      } catch {
        // Patterns in ECMA-262 dialects that JS cannot compile are not enforced.
      }
    }
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) {
      errs.push({ type: "Invalid", field: path, value, detail: `${path} in body should be greater than or equal to ${schema.minimum}` });
    }
    if (typeof schema.maximum === "number" && value > schema.maximum) {
      errs.push({ type: "Invalid", field: path, value, detail: `${path} in body should be less than or equal to ${schema.maximum}` });
    }
  }
  if (Array.isArray(value)) {
    const items = asObj(schema.items);
    value.forEach((v, i) => validateAgainstSchema(v, items, `${path}[${i}]`, errs));
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) {
      errs.push({ type: "TooMany", field: path, value: value.length, detail: `must have at most ${schema.maxItems} items` });
    }
    return;
  }
  if (isObj(value)) {
    const p = props(schema) ?? {};
    if (Array.isArray(schema.required)) {
      for (const r of schema.required) {
        if (typeof r === "string" && value[r] === undefined) errs.push({ type: "Required", field: path ? `${path}.${r}` : r });
      }
    }
    for (const [k, v] of Object.entries(value)) {
      if (root && (k === "apiVersion" || k === "kind" || k === "metadata")) continue;
      const ps = asObj(p[k]) ?? asObj(schema.additionalProperties);
      if (ps) validateAgainstSchema(v, ps, path ? `${path}.${k}` : k, errs);
    }
  }
}

function hasValidationRules(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(hasValidationRules);
  if (!isObj(schema)) return false;
  if (Array.isArray(schema["x-kubernetes-validations"]) && schema["x-kubernetes-validations"].length > 0) return true;
  return Object.values(schema).some(hasValidationRules);
}

const rulesBySchema = new WeakMap<Obj, boolean>();

/**
 * A custom resource against its CRD's schema. kubesim does not evaluate CEL rules; like the
 * real server, it says they were skipped when the schema already failed.
 */
export function validateCustomResource(obj: Obj, schema: Obj | undefined, errs: FieldError[]): void {
  const before = errs.length;
  validateAgainstSchema(obj, schema, "", errs, true);
  if (!schema || errs.length === before) return;
  let rules = rulesBySchema.get(schema);
  if (rules === undefined) rulesBySchema.set(schema, (rules = hasValidationRules(schema)));
  if (rules) errs.push({ type: "Invalid", field: "<nil>", value: null, detail: "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation" });
}
