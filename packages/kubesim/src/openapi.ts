// OpenAPI v3 documents, enough for kubectl: it looks for each kind's PATCH
// operation and its `fieldValidation` parameter to decide to validate on the
// server (kubectl edit, apply, create, replace). openapi-v2.ts derives the
// Swagger 2.0 document from the same schemas.
import { createHash } from "node:crypto";
import { SERVER_VERSION } from "./discovery";
import { asObj, type Obj } from "./json";
import { PATCH_TYPES_BUILTIN, PATCH_TYPES_CUSTOM } from "./write-options";
import { gvString, type Registry, type ResourceType } from "./registry";
import type { Schema } from "./schema";

const BUILTIN_PKG: Record<string, string> = {
  "": "io.k8s.api.core.v1",
  apps: "io.k8s.api.apps.v1",
  autoscaling: "io.k8s.api.autoscaling.v2",
  "networking.k8s.io": "io.k8s.api.networking.v1",
  batch: "io.k8s.api.batch.v1",
  policy: "io.k8s.api.policy.v1",
  "rbac.authorization.k8s.io": "io.k8s.api.rbac.v1",
  "apiextensions.k8s.io": "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1",
};

function schemaName(rt: ResourceType): string {
  if (rt.builtin) return `${BUILTIN_PKG[rt.group] ?? "io.k8s.api"}.${rt.kind}`;
  return `${rt.group.split(".").reverse().join(".")}.${rt.version}.${rt.kind}`;
}

function toOpenAPI(s: Schema): Obj {
  switch (s.k) {
    case "scalar":
      if (s.quantity || s.t === "string") return { type: "string" };
      if (s.t === "int32" || s.t === "int64") return { type: "integer", format: s.t };
      if (s.t === "bool") return { type: "boolean" };
      return {};
    case "deduced":
      return { type: "object", "x-kubernetes-preserve-unknown-fields": true };
    case "list": {
      const o: Obj = { type: "array", items: toOpenAPI(s.items) };
      if (s.type !== "atomic") o["x-kubernetes-list-type"] = s.type;
      if (s.keys) o["x-kubernetes-list-map-keys"] = s.keys;
      if (s.smp === "merge") o["x-kubernetes-patch-strategy"] = s.smpRetainKeys ? "merge,retainKeys" : "merge";
      if (s.smpKey) o["x-kubernetes-patch-merge-key"] = s.smpKey;
      return o;
    }
    case "struct": {
      const o: Obj = { type: "object" };
      const props: Obj = {};
      for (const [k, v] of Object.entries(s.fields)) props[k] = toOpenAPI(v);
      if (Object.keys(props).length > 0) o.properties = props;
      if (s.rest && s.rest !== "open") o.additionalProperties = toOpenAPI(s.rest);
      if (s.atomic) o["x-kubernetes-map-type"] = "atomic";
      if (s.retainKeys) o["x-kubernetes-patch-strategy"] = "retainKeys";
      return o;
    }
  }
}

function param(name: string, type: string, description: string): Obj {
  return { name, in: "query", description, schema: { type, uniqueItems: true } };
}

const DRY_RUN = param("dryRun", "string", "When present, indicates that modifications should not be persisted.");
const FIELD_MANAGER = param("fieldManager", "string", "fieldManager is a name associated with the actor or entity that is making these changes.");
const FIELD_VALIDATION = param("fieldValidation", "string", "fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields.");
const FORCE = param("force", "boolean", "Force is going to \"force\" Apply requests.");

function op(rt: ResourceType, action: string, verbName: string, ref: string, extra: Obj = {}): Obj {
  const gvk = { group: rt.group, kind: rt.kind, version: rt.version };
  return {
    tags: [`${rt.group ? rt.group.replace(/\./g, "_") + "_" : "core_"}${rt.version}`],
    description: `${verbName} ${rt.kind}`,
    operationId: `${action}${rt.kind}`,
    responses: { "200": { description: "OK", content: { "application/json": { schema: { $ref: ref } } } }, "401": { description: "Unauthorized" } },
    "x-kubernetes-action": action,
    "x-kubernetes-group-version-kind": gvk,
    ...extra,
  };
}

function pathsFor(rt: ResourceType, kindRef: string, patchTypes: string[]): Obj {
  const base = rt.group ? `/apis/${rt.group}/${rt.version}` : `/api/${rt.version}`;
  const coll = rt.namespaced ? `${base}/namespaces/{namespace}/${rt.resource}` : `${base}/${rt.resource}`;
  const item = `${coll}/{name}`;
  const body = (types: string[]) => ({ content: Object.fromEntries(types.map((t) => [t, { schema: { $ref: kindRef } }])), required: true });
  const patchOp = op(rt, "patch", "partially update the specified", kindRef, {
    parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION, FORCE],
    requestBody: body(patchTypes),
  });
  const out: Obj = {
    [coll]: {
      get: op(rt, "list", "list or watch objects of kind", kindRef),
      post: op(rt, "post", "create a", kindRef, { parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION], requestBody: body(["*/*"]) }),
    },
    [item]: {
      get: op(rt, "get", "read the specified", kindRef),
      put: op(rt, "put", "replace the specified", kindRef, { parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION], requestBody: body(["*/*"]) }),
      patch: patchOp,
      delete: op(rt, "delete", "delete a", kindRef),
    },
  };
  if (rt.namespaced) out[`${base}/${rt.resource}`] = { get: op(rt, "list", "list or watch objects of kind", kindRef) };
  if (rt.status) {
    out[`${item}/status`] = {
      get: op(rt, "get", "read status of the specified", kindRef),
      put: op(rt, "put", "replace status of the specified", kindRef, { parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION], requestBody: body(["*/*"]) }),
      patch: op(rt, "patch", "partially update status of the specified", kindRef, {
        parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION, FORCE],
        requestBody: body(patchTypes),
      }),
    };
  }
  return out;
}

export function openAPIv3Document(registry: Registry, group: string, version: string): Obj | undefined {
  const types = registry.all().filter((t) => t.group === group && t.version === version);
  if (types.length === 0) return undefined;
  const paths: Obj = {};
  const schemas: Obj = {};
  for (const rt of types) {
    const name = schemaName(rt);
    const ref = `#/components/schemas/${name}`;
    Object.assign(paths, pathsFor(rt, ref, rt.smp ? PATCH_TYPES_BUILTIN : PATCH_TYPES_CUSTOM));
    // The group-version-kind extension is how kubectl explain and client-side validation find a kind's schema.
    if (rt.builtin) schemas[name] = { ...toOpenAPI(rt.schema), "x-kubernetes-group-version-kind": [{ group: rt.group, kind: rt.kind, version: rt.version }] };
    else {
      schemas[name] = {
        ...(asObj(rt.openAPISchema) ?? { type: "object" }),
        "x-kubernetes-group-version-kind": [{ group: rt.group, kind: rt.kind, version: rt.version }],
      };
    }
  }
  return { openapi: "3.0.0", info: { title: "Kubernetes", version: SERVER_VERSION.gitVersion }, paths, components: { schemas } };
}

export function docHash(doc: Obj): string {
  return createHash("sha512").update(JSON.stringify(doc)).digest("hex").slice(0, 128).toUpperCase();
}

export function openAPIv3Root(registry: Registry): Obj {
  const paths: Obj = {};
  const gvs = new Set<string>();
  for (const t of registry.all()) gvs.add(gvString(t.group, t.version));
  for (const gv of [...gvs].sort()) {
    const [group, version] = gv.includes("/") ? (gv.split("/") as [string, string]) : ["", gv];
    const doc = openAPIv3Document(registry, group, version);
    if (!doc) continue;
    const p = group ? `apis/${group}/${version}` : `api/${version}`;
    paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${docHash(doc)}` };
  }
  return { paths };
}
