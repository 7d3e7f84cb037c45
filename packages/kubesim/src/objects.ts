// Canonical shapes of stored and served objects: key order as the real
// server's encoders write it, served apiVersion, list-item form.
import { isObj, orderKeys, sortKeysDeep, type Obj } from "./json";
import { apiVersionOf, type ResourceType } from "./registry";

const META_ORDER = [
  "name",
  "generateName",
  "namespace",
  "selfLink",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "labels",
  "annotations",
  "ownerReferences",
  "finalizers",
  "managedFields",
];

const TOP_ORDER: Record<string, string[]> = {
  ConfigMap: ["immutable", "data", "binaryData"],
  Secret: ["immutable", "data", "type"],
  ServiceAccount: ["secrets", "imagePullSecrets", "automountServiceAccountToken"],
};

export function canonicalize(rt: ResourceType, obj: Obj): Obj {
  if (!rt.builtin) return sortKeysDeep(obj) as Obj;
  const md = isObj(obj.metadata) ? orderKeys(obj.metadata, META_ORDER) : {};
  const out = orderKeys({ ...obj, metadata: md }, ["kind", "apiVersion", "metadata", ...(TOP_ORDER[rt.kind] ?? ["spec", "status"])]);
  return out;
}

/** The object as served at the requested version (custom resources convert with strategy None). */
export function served(rt: ResourceType, obj: Obj): Obj {
  const av = apiVersionOf(rt);
  if (obj.apiVersion === av && obj.kind === rt.kind) return obj;
  const out: Obj = rt.builtin ? { kind: rt.kind, apiVersion: av } : {};
  for (const [k, v] of Object.entries(obj)) if (k !== "kind" && k !== "apiVersion") out[k] = v;
  if (!rt.builtin) {
    out.apiVersion = av;
    out.kind = rt.kind;
    return sortKeysDeep(out) as Obj;
  }
  return out;
}

export function listItemJson(rt: ResourceType, obj: Obj): string {
  if (!rt.builtin) return JSON.stringify(served(rt, obj));
  const { kind: _k, apiVersion: _a, ...rest } = obj;
  return JSON.stringify(rest);
}
