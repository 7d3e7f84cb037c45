// The /scale subresource: an autoscaling/v1 Scale view of a parent object,
// and writes through it, with managed fields mapped between the Scale and
// the parent the way the real ScaleHandler does.
import type { ApiCore } from "./apiserver";
import { SCALE } from "./builtin-schemas";
import { conflict, invalid, notFound, unsupportedMediaType } from "./errors";
import { FieldSet } from "./fieldpath";
import { asNum, asObj, asStr, clone, isObj, type Obj } from "./json";
import { decodeManagers, trackApply, trackUpdate, type Managers } from "./managed-fields";
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from "./patch";
import { apiVersionOf, type ResourceType } from "./registry";
import { parseApplyBody } from "./decode";
import { CONFLICT_MSG, gr, PATCH_TYPES_BUILTIN, type WriteOptions } from "./write-options";

/** metav1.LabelSelectorAsSelector(...).String() */
export function selectorString(sel: unknown): string {
  const s = asObj(sel);
  if (!s) return "";
  const reqs: Array<{ key: string; text: string }> = [];
  for (const [k, v] of Object.entries(asObj(s.matchLabels) ?? {})) reqs.push({ key: k, text: `${k}=${String(v)}` });
  for (const e of Array.isArray(s.matchExpressions) ? s.matchExpressions : []) {
    const ex = asObj(e) ?? {};
    const key = asStr(ex.key) ?? "";
    const vals = (Array.isArray(ex.values) ? ex.values.map(String) : []).sort();
    switch (ex.operator) {
      case "In":
        reqs.push({ key, text: `${key} in (${vals.join(",")})` });
        break;
      case "NotIn":
        reqs.push({ key, text: `${key} notin (${vals.join(",")})` });
        break;
      case "Exists":
        reqs.push({ key, text: key });
        break;
      case "DoesNotExist":
        reqs.push({ key, text: `!${key}` });
        break;
    }
  }
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return reqs.map((r) => r.text).join(",");
}

export function scaleOf(rt: ResourceType, parent: Obj): Obj {
  const spec = rt.scale ?? { specReplicasPath: ["spec", "replicas"], statusReplicasPath: ["status", "replicas"] };
  const pm = asObj(parent.metadata) ?? {};
  const get = (path: string[]) => {
    let cur: unknown = parent;
    for (const p of path) cur = asObj(cur)?.[p];
    return cur;
  };
  let selector = "";
  if (rt.builtin) selector = selectorString(asObj(parent.spec)?.selector);
  else if (spec.labelSelectorPath) selector = asStr(get(spec.labelSelectorPath)) ?? "";
  const status: Obj = { replicas: asNum(get(spec.statusReplicasPath)) ?? 0 };
  if (selector) status.selector = selector;
  const meta: Obj = { name: pm.name };
  if (pm.namespace !== undefined) meta.namespace = pm.namespace;
  meta.uid = pm.uid;
  meta.resourceVersion = pm.resourceVersion;
  meta.creationTimestamp = pm.creationTimestamp;
  const specOut: Obj = {};
  const r = asNum(get(spec.specReplicasPath));
  if (r !== undefined) specOut.replicas = r;
  return { kind: "Scale", apiVersion: "autoscaling/v1", metadata: meta, spec: specOut, status };
}

export function getScale(core: ApiCore, rt: ResourceType, namespace: string | undefined, name: string): Obj {
  return scaleOf(rt, core.get(rt, namespace, name));
}

export function updateScale(core: ApiCore, rt: ResourceType, namespace: string | undefined, name: string, body: unknown, o: WriteOptions): Obj {
  const parent = core.get(rt, namespace, name);
  return writeScale(core, rt, parent, isObj(body) ? body : {}, o, "update");
}

export function patchScale(core: ApiCore, rt: ResourceType, namespace: string | undefined, name: string, contentType: string, body: string, o: WriteOptions): Obj {
  if (!PATCH_TYPES_BUILTIN.includes(contentType)) throw unsupportedMediaType(PATCH_TYPES_BUILTIN);
  const parent = core.get(rt, namespace, name);
  const oldScale = scaleOf(rt, parent);
  if (contentType === "application/apply-patch+yaml") {
    if (!o.fieldManager) {
      throw invalid("meta.k8s.io", "PatchOptions", "", [{ type: "Required", field: "fieldManager", detail: "is required for apply patch" }]);
    }
    return writeScale(core, rt, parent, parseApplyBody(body), o, "apply");
  }
  let next: Obj;
  if (contentType === "application/json-patch+json") next = applyJsonPatch(oldScale, body);
  else if (contentType === "application/merge-patch+json") next = applyMergePatch(oldScale, body);
  else next = applyStrategicMergePatch(oldScale, body, SCALE);
  return writeScale(core, rt, parent, next, o, "update");
}

function writeScale(core: ApiCore, rt: ResourceType, parent: Obj, req: Obj, o: WriteOptions, op: "update" | "apply"): Obj {
  const pm = asObj(parent.metadata) ?? {};
  const name = asStr(pm.name) ?? "";
  const oldScale = scaleOf(rt, parent);
  const rm = asObj(req.metadata) ?? {};
  const reqRV = asStr(rm.resourceVersion);
  if (op === "update" && reqRV && reqRV !== pm.resourceVersion) throw conflict(gr(rt), name, CONFLICT_MSG);
  const replicas = op === "apply" ? (asNum(asObj(req.spec)?.replicas) ?? asNum(asObj(oldScale.spec)?.replicas)) : asNum(asObj(req.spec)?.replicas);
  if (replicas === undefined || replicas < 0 || !Number.isInteger(replicas)) {
    throw invalid("autoscaling", "Scale", name, [{ type: "Invalid", field: "spec.replicas", value: replicas ?? 0, detail: "must be greater than or equal to 0" }]);
  }
  const newScale = clone(oldScale);
  (newScale.spec as Obj).replicas = replicas;
  // Managed fields: the parent's owners of the replicas path seen as Scale owners, then mapped back (ScaleHandler).
  const parentAV = apiVersionOf(rt);
  const specPath = (rt.scale?.specReplicasPath ?? ["spec", "replicas"]).map((p) => `f:${p}`);
  const parentManagers = decodeManagers(parent);
  const scaleManagers: Managers = new Map();
  for (const [k, e] of parentManagers) {
    if (e.apiVersion !== parentAV || !e.set.has(specPath)) continue;
    const s = new FieldSet();
    s.insert(["f:spec", "f:replicas"]);
    scaleManagers.set(k, { ...e, apiVersion: "autoscaling/v1", set: s });
  }
  const opts = { schema: SCALE, manager: o.fieldManager || o.userAgentManager, apiVersion: "autoscaling/v1", subresource: "scale", reset: [] };
  if (op === "apply") trackApply(oldScale, { ...req, metadata: { ...rm, name } }, scaleManagers, o.force === true, opts);
  else trackUpdate(oldScale, newScale, scaleManagers, opts);
  const out: Managers = new Map();
  for (const [k, e] of parentManagers) {
    if (e.apiVersion !== parentAV || !e.set.has(specPath)) {
      out.set(k, e);
      continue;
    }
    if (!scaleManagers.has(k)) {
      const rest = e.set.difference(pathSet(specPath));
      if (!rest.isEmpty()) out.set(k, { ...e, set: rest });
    } else {
      out.set(k, e);
      scaleManagers.delete(k);
    }
  }
  for (const [k, e] of scaleManagers) {
    if (!e.set.has(["f:spec", "f:replicas"])) continue;
    out.set(k, { ...e, apiVersion: parentAV, set: pathSet(specPath), time: parentManagers.get(k)?.time });
  }
  const next = clone(parent);
  let cur: Obj = next;
  const sp = rt.scale?.specReplicasPath ?? ["spec", "replicas"];
  for (let i = 0; i < sp.length - 1; i++) {
    const k = sp[i] as string;
    if (!isObj(cur[k])) cur[k] = {};
    cur = cur[k] as Obj;
  }
  cur[sp[sp.length - 1] as string] = replicas;
  const existing = core.getStored(rt, asStr(pm.namespace), name);
  if (!existing) throw notFound(gr(rt), name);
  const updated = core.commitUpdate(rt, existing, next, out, o, "main");
  return scaleOf(rt, updated);
}

function pathSet(path: string[]): FieldSet {
  const s = new FieldSet();
  s.insert(path);
  return s;
}
