// Server-side apply of a whole object (PATCH application/apply-patch+yaml):
// the applied configuration is typed strictly, merged with the live object
// by the structured-merge-diff rules in managed-fields.ts, then decoded and
// committed like any other write.
import type { ApiCore } from "./apiserver";
import { pruneUnknown } from "./custom-resources";
import { badRequest, invalid, notFound } from "./errors";
import { asObj, clone, type Obj } from "./json";
import { decodeManagers, trackApply, type ManagerEntry } from "./managed-fields";
import { served } from "./objects";
import { apiVersionOf, type ResourceType } from "./registry";
import { pruneUnknownTyped } from "./schema";
import { decode, decodeSecret, emptyTyped, parseApplyBody } from "./decode";
import { statusView } from "./write-rules";
import { gr, md, type WriteOptions } from "./write-options";

export function applyObject(core: ApiCore, rt: ResourceType, namespace: string | undefined, name: string, body: string | Obj, o: WriteOptions, subresource?: "status"): Obj {
  if (!o.fieldManager) {
    throw invalid("meta.k8s.io", "PatchOptions", "", [{ type: "Required", field: "fieldManager", detail: "is required for apply patch" }]);
  }
  const config = typeof body === "string" ? parseApplyBody(body) : body;
  if (typeof config.kind !== "string" || !config.kind) throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(config).slice(0, 200)}'`);
  const av = apiVersionOf(rt);
  if (config.apiVersion !== av || config.kind !== rt.kind) {
    throw badRequest(`the API version in the data (${String(config.apiVersion)}) does not match the expected API version (${av})`);
  }
  const cm = asObj(config.metadata) ?? {};
  if (cm.managedFields !== undefined && cm.managedFields !== null) throw badRequest("metadata.managedFields must be nil");
  if (cm.name !== name) {
    throw badRequest(`the name of the object (${String(cm.name ?? "")}) does not match the name on the URL (${name})`);
  }
  if (rt.namespaced && cm.namespace !== undefined && cm.namespace !== namespace) {
    throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
  const existing = core.getStored(rt, namespace, name);
  if (!existing) {
    if (subresource) throw notFound(gr(rt), name);
    core.checkNamespace(rt, namespace, name);
  }
  const cfg = clone(config);
  if (rt.namespaced && namespace) md(cfg).namespace = namespace;
  // The applied configuration is converted to a typed value: undeclared fields fail, whatever fieldValidation says.
  const unknown: string[] = [];
  if (rt.builtin) pruneUnknownTyped(cfg, rt.schema, "", unknown);
  else pruneUnknown(cfg, rt.openAPISchema, "", unknown, true);
  if (unknown.length > 0) {
    throw badRequest(`failed to create typed patch object (${av}, Kind=${rt.kind}): .${unknown[0] as string}: field not declared in schema`);
  }
  if (rt.kind === "Secret") decodeSecret(cfg);
  const live = existing ? served(rt, existing.obj) : emptyTyped(rt, namespace, name);
  const managers = existing ? decodeManagers(live) : new Map<string, ManagerEntry>();
  const result = trackApply(live, cfg, managers, o.force === true, core.trackingOptions(rt, o.fieldManager, subresource));
  const merged = result.object;
  const next = decode(rt, merged, namespace, name, { ...o, fieldValidation: "Ignore" }, existing ? "update" : "create");
  if (!existing) {
    delete md(next).resourceVersion;
    return core.commitCreate(rt, namespace, next, result.managers, o);
  }
  md(next).resourceVersion = asObj(live.metadata)?.resourceVersion;
  const view = subresource === "status" ? statusView(rt, live, next) : next;
  return core.commitUpdate(rt, existing, view, result.managers, o, subresource === "status" ? "status" : "main");
}
