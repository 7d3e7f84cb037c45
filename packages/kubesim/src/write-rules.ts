// What a kind's registry strategy decides on every write: validation,
// generation bumps, the status a new object starts with, what a status
// write may change, when finalizers are done, the version stored.
import { validateAgainstSchema } from "./custom-resources";
import { invalid, type FieldError } from "./errors";
import { asNum, asObj, asStr, clone, deepEqual, type Obj } from "./json";
import { builtinKindSupport } from "./kinds";
import type { ResourceType } from "./registry";
import { validateBuiltin, validateObjectMeta } from "./validation";
import { md } from "./write-options";

export function validate(rt: ResourceType, obj: Obj, old: Obj | undefined): void {
  const errs: FieldError[] = [];
  validateObjectMeta(obj, rt, errs);
  if (rt.builtin) {
    errs.push(...validateBuiltin(rt, obj, old));
    builtinKindSupport(rt.kind)?.validate?.(obj, old, errs);
  } else validateAgainstSchema(obj, rt.openAPISchema, "", errs, true);
  if (errs.length > 0) throw invalid(rt.group, rt.kind, asStr(md(obj).name) ?? "", errs);
}

export function bumpGeneration(rt: ResourceType, next: Obj, old: Obj): void {
  const nm = md(next);
  const om = asObj(old.metadata) ?? {};
  if (rt.generation === "none") {
    delete nm.generation;
    return;
  }
  const gen = asNum(om.generation) ?? 1;
  let changed = false;
  if (rt.generation === "spec" || rt.generation === "specAnnotations") {
    changed = !deepEqual(next.spec, old.spec);
    if (rt.generation === "specAnnotations" && !deepEqual(nm.annotations ?? {}, om.annotations ?? {})) changed = true;
  } else {
    const strip = (o: Obj) => {
      const { metadata: _m, status, ...rest } = o;
      return rt.status ? rest : { ...rest, status };
    };
    changed = !deepEqual(strip(next), strip(old));
  }
  nm.generation = changed ? gen + 1 : gen;
}

export function resetStatusOnCreate(rt: ResourceType, obj: Obj): void {
  if (!rt.status) return;
  if (!rt.builtin) {
    delete obj.status;
    return;
  }
  const support = builtinKindSupport(rt.kind);
  if (support?.statusOnCreate) {
    obj.status = support.statusOnCreate(obj);
    return;
  }
  switch (rt.kind) {
    case "Namespace":
      obj.status = { phase: "Active" };
      break;
    case "StatefulSet":
      obj.status = { replicas: 0, availableReplicas: 0 };
      break;
    case "Service":
    case "Ingress":
      obj.status = { loadBalancer: {} };
      break;
    case "HorizontalPodAutoscaler":
      obj.status = { currentMetrics: null, desiredReplicas: 0 };
      break;
    case "CustomResourceDefinition": {
      // PrepareForCreate records the storage version right away; the names are accepted later.
      const versions = asObj(obj.spec)?.versions;
      const storage = Array.isArray(versions) ? asStr(versions.map(asObj).find((v) => v?.storage === true)?.name) : undefined;
      obj.status = { acceptedNames: { plural: "", kind: "" }, storedVersions: storage ? [storage] : [] };
      break;
    }
    default:
      obj.status = {};
  }
}

/** What a status-subresource write changes: the status (and, for built-ins, metadata the status strategy keeps). */
export function statusView(rt: ResourceType, old: Obj, req: Obj): Obj {
  const next = clone(old);
  if (req.status !== undefined) next.status = clone(req.status);
  else delete next.status;
  if (rt.builtin) {
    const nm = clone(asObj(req.metadata) ?? {});
    const om = asObj(old.metadata) ?? {};
    if (rt.kind === "Deployment" || rt.kind === "StatefulSet") {
      if (om.labels !== undefined) nm.labels = clone(om.labels);
      else delete nm.labels;
    }
    nm.managedFields = om.managedFields;
    next.metadata = nm;
  }
  return next;
}

export function finalizersDone(rt: ResourceType, obj: Obj): boolean {
  const fin = asObj(obj.metadata)?.finalizers;
  if (Array.isArray(fin) && fin.length > 0) return false;
  if (rt.kind === "Namespace") {
    const sf = asObj(obj.spec)?.finalizers;
    if (Array.isArray(sf) && sf.length > 0) return false;
  }
  return true;
}

export function toStorage(rt: ResourceType, obj: Obj): Obj {
  if (rt.builtin || rt.version === rt.storageVersion) return obj;
  return { ...obj, apiVersion: rt.group ? `${rt.group}/${rt.storageVersion}` : rt.storageVersion };
}
