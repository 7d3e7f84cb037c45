// DELETE as kube-apiserver does it: preconditions, finalizers and graceful
// marking (deletionTimestamp), namespace termination, Foreground/Background/
// Orphan propagation through ownerReferences (the garbage collector's part),
// and deletecollection.
import type { ApiCore } from "./apiserver";
import { conflict, notFound, StatusError } from "./errors";
import { asObj, asStr, clone, nowRfc3339, type Obj } from "./json";
import { decodeManagers, trackUpdate } from "./managed-fields";
import { canonicalize, served } from "./objects";
import { apiVersionOf, type ResourceType } from "./registry";
import type { ListQuery } from "./list";
import { finalizersDone } from "./write-rules";
import { gr, grKey, md, splitGR, type DeleteOptions } from "./write-options";

export function deleteObject(core: ApiCore, rt: ResourceType, namespace: string | undefined, name: string, opts: DeleteOptions): { code: number; body: Obj } {
  const existing = core.getStored(rt, namespace, name);
  if (!existing) throw notFound(gr(rt), name);
  const obj = served(rt, existing.obj);
  const m = asObj(obj.metadata) ?? {};
  const pre = opts.preconditions;
  if (pre?.uid && pre.uid !== m.uid) {
    throw conflict(gr(rt), name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${String(m.uid)}`);
  }
  if (pre?.resourceVersion && pre.resourceVersion !== m.resourceVersion) {
    throw conflict(gr(rt), name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${String(m.resourceVersion)}`);
  }
  const needsFinalizing = !finalizersDone(rt, obj) || rt.kind === "CustomResourceDefinition" || opts.propagationPolicy === "Foreground";
  if (needsFinalizing) {
    if (m.deletionTimestamp) return { code: 200, body: obj };
    const next = clone(existing.obj);
    const nm = md(next);
    nm.deletionTimestamp = nowRfc3339();
    nm.deletionGracePeriodSeconds = 0;
    if (rt.kind === "Namespace") next.status = { ...(asObj(next.status) ?? {}), phase: "Terminating" };
    if (opts.propagationPolicy === "Foreground") {
      const fin = Array.isArray(nm.finalizers) ? [...nm.finalizers] : [];
      if (!fin.includes("foregroundDeletion")) fin.push("foregroundDeletion");
      nm.finalizers = fin;
    }
    if (rt.kind === "CustomResourceDefinition") {
      const fin = Array.isArray(nm.finalizers) ? [...nm.finalizers] : [];
      if (!fin.includes("customresourcecleanup.apiextensions.k8s.io")) fin.push("customresourcecleanup.apiextensions.k8s.io");
      nm.finalizers = fin;
    }
    const out = canonicalize(rt, next);
    if (opts.dryRun) return { code: 200, body: served(rt, out) };
    const stored = core.store.put(grKey(rt), core.keyFor(rt, namespace, name), out);
    const servedObj = served(rt, stored.obj);
    if (rt.kind === "Namespace" || rt.kind === "CustomResourceDefinition" || opts.propagationPolicy === "Foreground") {
      core.hooks.deletionRequested?.(rt, servedObj);
    }
    return { code: 200, body: servedObj };
  }
  if (opts.dryRun) return { code: 200, body: rt.returnDeletedObject ? obj : successStatus(rt, name, asStr(m.uid)) };
  const deleted = removeNow(core, rt, namespace, name, opts.propagationPolicy ?? "Background");
  if (rt.returnDeletedObject && deleted) return { code: 200, body: served(rt, deleted) };
  return { code: 200, body: successStatus(rt, name, asStr(m.uid)) };
}

export function successStatus(rt: ResourceType, name: string, uid: string | undefined): Obj {
  const details: Obj = { name };
  if (rt.group) details.group = rt.group;
  details.kind = rt.resource;
  if (uid) details.uid = uid;
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details };
}

/** Removes an object now, then garbage-collects its dependents. */
export function removeNow(core: ApiCore, rt: ResourceType, namespace: string | undefined, name: string, propagation: string): Obj | undefined {
  const deleted = core.store.remove(grKey(rt), core.keyFor(rt, namespace, name));
  if (!deleted) return undefined;
  if (rt.kind === "CustomResourceDefinition") core.hooks.crdChanged?.(undefined, name);
  const uid = asStr(asObj(deleted.metadata)?.uid);
  if (uid) collectDependents(core, uid, propagation);
  return deleted;
}

function collectDependents(core: ApiCore, ownerUid: string, propagation: string): void {
  for (const { gr: g, key, stored } of core.store.dependentsOf(ownerUid)) {
    const refs = asObj(stored.obj.metadata)?.ownerReferences;
    if (!Array.isArray(refs)) continue;
    const [group, resource] = splitGR(g);
    const rt = core.registry.storageType(group, resource);
    if (!rt) continue;
    const m = asObj(stored.obj.metadata) ?? {};
    if (propagation === "Orphan") {
      const next = clone(stored.obj);
      const nm = md(next);
      const remaining = refs.filter((r) => asObj(r)?.uid !== ownerUid);
      if (remaining.length > 0) nm.ownerReferences = remaining;
      else delete nm.ownerReferences;
      const managers = decodeManagers(stored.obj);
      trackUpdate(stored.obj, next, managers, core.trackingOptions(rt, "kube-controller-manager"));
      core.withManagers(next, managers);
      core.store.put(g, key, canonicalize(rt, next));
      continue;
    }
    const fin = m.finalizers;
    if (Array.isArray(fin) && fin.length > 0) {
      deleteObject(core, rt, asStr(m.namespace), asStr(m.name) ?? "", { dryRun: false, propagationPolicy: "Background" });
    } else {
      removeNow(core, rt, asStr(m.namespace), asStr(m.name) ?? "", "Background");
    }
  }
}

export function deleteCollection(core: ApiCore, rt: ResourceType, namespace: string | undefined, q: ListQuery, opts: DeleteOptions): Obj {
  const listed = core.list(rt, namespace, { labelSelector: q.labelSelector, fieldSelector: q.fieldSelector });
  const items: Obj[] = [];
  for (const it of listed.items) {
    const m = asObj(it.obj.metadata) ?? {};
    try {
      const r = deleteObject(core, rt, asStr(m.namespace), asStr(m.name) ?? "", opts);
      items.push(r.body.kind === "Status" ? it.obj : r.body);
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 404)) throw e;
    }
  }
  const av = apiVersionOf(rt);
  return {
    kind: rt.listKind,
    apiVersion: av,
    metadata: { resourceVersion: String(core.store.rv) },
    items: rt.builtin ? items.map(({ kind: _k, apiVersion: _a, ...rest }) => rest) : items,
  };
}
