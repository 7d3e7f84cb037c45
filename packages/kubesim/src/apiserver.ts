// The request semantics of kube-apiserver for one resource type at a time:
// create, read, update and patch with their managed-fields bookkeeping live
// here; the other responsibilities are in their own modules — decoding
// (decode.ts), per-kind write rules (write-rules.ts), lists (list.ts),
// server-side apply (apply.ts), the scale subresource (scale.ts), deletion
// and garbage collection (deletion.ts), Service address allocation
// (service-allocation.ts). HTTP concerns live in server.ts.
import { randomUUID } from "node:crypto";
import { applyObject } from "./apply";
import { applyDefaults } from "./custom-resources";
import { decode, decodePatched, emptyTyped } from "./decode";
import { deleteCollection, deleteObject, removeNow, successStatus } from "./deletion";
import { builtinKindSupport } from "./kinds";
import { alreadyExists, badRequest, conflict, forbidden, invalid, notFound, unsupportedMediaType } from "./errors";
import { asObj, asStr, clone, deepEqual, nowRfc3339, type Obj } from "./json";
import { listObjects, type ListQuery, type ListResult } from "./list";
import { baseManagers, encodeManagers, trackUpdate, type Managers } from "./managed-fields";
import { canonicalize, served } from "./objects";
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from "./patch";
import { apiVersionOf, type Registry, type ResourceType } from "./registry";
import { getScale, patchScale, scaleOf, updateScale } from "./scale";
import { ServiceAllocator } from "./service-allocation";
import { objectKey, type Store, type StoredObject } from "./store";
import { bumpGeneration, finalizersDone, resetStatusOnCreate, statusView, toStorage, validate } from "./write-rules";
import {
  CONFLICT_MSG,
  gr,
  grKey,
  md,
  PATCH_TYPES_BUILTIN,
  PATCH_TYPES_CUSTOM,
  type DeleteOptions,
  type WriteOptions,
} from "./write-options";

const NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";

function randomSuffix(n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)];
  return s;
}

export interface CoreHooks {
  /** Called after a CRD is written or removed, so the registry can serve its kinds. */
  crdChanged?(crd: Obj | undefined, name: string): void;
  /** Namespace or CRD marked for deletion: the controllers finish the job. */
  deletionRequested?(rt: ResourceType, obj: Obj): void;
}

// Methods without a verb of their own (checkNamespace, commitCreate,
// commitUpdate, trackingOptions, withManagers) are shared with the write
// modules of this package; nothing outside it calls them.
export class ApiCore {
  private services = new ServiceAllocator();

  constructor(
    readonly registry: Registry,
    readonly store: Store,
    readonly hooks: CoreHooks = {},
  ) {}

  // ---------------------------------------------------------------- reads

  keyFor(rt: ResourceType, namespace: string | undefined, name: string): string {
    return objectKey(rt.namespaced ? namespace : undefined, name);
  }

  getStored(rt: ResourceType, namespace: string | undefined, name: string): StoredObject | undefined {
    return this.store.get(grKey(rt), this.keyFor(rt, namespace, name));
  }

  get(rt: ResourceType, namespace: string | undefined, name: string): Obj {
    const s = this.getStored(rt, namespace, name);
    if (!s) throw notFound(gr(rt), name);
    return served(rt, s.obj);
  }

  list(rt: ResourceType, namespace: string | undefined, q: ListQuery): ListResult {
    return listObjects(this, rt, namespace, q);
  }

  // ---------------------------------------------------------------- helpers

  private manager(o: WriteOptions): string {
    return o.fieldManager || o.userAgentManager;
  }


  /** NamespaceLifecycle admission. */
  checkNamespace(rt: ResourceType, namespace: string | undefined, name: string): void {
    if (!rt.namespaced || !namespace) return;
    const ns = this.store.get("/namespaces", namespace);
    if (!ns) throw notFound({ group: "", resource: "namespaces" }, namespace);
    if (asObj(ns.obj.metadata)?.deletionTimestamp) {
      throw forbidden(gr(rt), name, `unable to create new content in namespace ${namespace} because it is being terminated`);
    }
  }


  /** Records addresses of loaded/seeded services so allocation does not reuse them. */
  noteAllocated(obj: Obj): void {
    this.services.noteAllocated(obj);
  }

  withManagers(obj: Obj, managers: Managers): void {
    const enc = encodeManagers(managers);
    const m = md(obj);
    if (enc.length > 0) m.managedFields = enc;
    else delete m.managedFields;
  }

  trackingOptions(rt: ResourceType, manager: string, subresource?: string) {
    return {
      schema: rt.schema,
      manager,
      apiVersion: apiVersionOf(rt),
      subresource,
      reset: subresource === "status" ? rt.resetStatus : rt.resetMain,
    };
  }

  // ---------------------------------------------------------------- create

  create(rt: ResourceType, namespace: string | undefined, body: unknown, o: WriteOptions): Obj {
    const obj = decode(rt, body, namespace, undefined, o, "create");
    const m = md(obj);
    this.checkNamespace(rt, namespace, asStr(m.name) ?? "");
    if (m.resourceVersion !== undefined && m.resourceVersion !== "") throw badRequest("resourceVersion should not be set on objects to be created");
    if (!m.name && typeof m.generateName === "string" && m.generateName) m.name = `${m.generateName}${randomSuffix(5)}`;
    const managers = baseManagers(undefined, obj, false);
    trackUpdate(emptyTyped(rt, namespace, asStr(m.name) ?? ""), obj, managers, this.trackingOptions(rt, this.manager(o)));
    return this.commitCreate(rt, namespace, obj, managers, o);
  }

  commitCreate(rt: ResourceType, namespace: string | undefined, obj: Obj, managers: Managers, o: WriteOptions): Obj {
    const m = md(obj);
    const name = asStr(m.name) ?? "";
    resetStatusOnCreate(rt, obj);
    // Custom resources are also defaulted when read back from storage, so defaults of a
    // just-dropped status show up at once.
    if (!rt.builtin) applyDefaults(obj, rt.openAPISchema);
    if (rt.kind === "Namespace") {
      const spec = asObj(obj.spec) ?? {};
      spec.finalizers = ["kubernetes"];
      obj.spec = spec;
    }
    for (const k of ["uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink", "resourceVersion"]) delete m[k];
    if (rt.generation === "none") delete m.generation;
    else m.generation = 1;
    const uid = randomUUID();
    if (rt.builtin) builtinKindSupport(rt.kind)?.prepareForCreate?.(obj, uid);
    validate(rt, obj, undefined);
    const key = this.keyFor(rt, namespace, name);
    if (this.store.get(grKey(rt), key)) throw alreadyExists(gr(rt), name);
    if (rt.kind === "Service") this.services.allocateService(obj, undefined);
    m.uid = uid;
    // Reserve the key's place; the store fills in the value.
    m.resourceVersion = "";
    m.creationTimestamp = nowRfc3339();
    this.withManagers(obj, managers);
    const out = canonicalize(rt, toStorage(rt, obj));
    if (o.dryRun) {
      delete md(out).resourceVersion;
      return served(rt, out);
    }
    const stored = this.store.put(grKey(rt), key, out);
    if (rt.kind === "CustomResourceDefinition") this.hooks.crdChanged?.(stored.obj, name);
    return served(rt, stored.obj);
  }


  // ---------------------------------------------------------------- update

  update(rt: ResourceType, namespace: string | undefined, name: string, body: unknown, o: WriteOptions, subresource?: "status"): Obj {
    const existing = this.getStored(rt, namespace, name);
    if (!existing) throw notFound(gr(rt), name);
    const obj = decode(rt, body, namespace, name, o, "update");
    const m = md(obj);
    const rv = asStr(m.resourceVersion);
    const old = served(rt, existing.obj);
    if (rv !== undefined && rv !== "" && rv !== asStr(asObj(old.metadata)?.resourceVersion)) throw conflict(gr(rt), name, CONFLICT_MSG);
    if ((rv === undefined || rv === "") && !rt.builtin) {
      throw invalid(rt.group, rt.kind, name, [{ type: "Invalid", field: "metadata.resourceVersion", value: "0x0", detail: "must be specified for an update" }]);
    }
    if (m.uid !== undefined && m.uid !== "" && m.uid !== asObj(old.metadata)?.uid) {
      throw conflict(gr(rt), name, `Precondition failed: UID in precondition: ${String(m.uid)}, UID in object meta: ${String(asObj(old.metadata)?.uid)}`);
    }
    const next = subresource === "status" ? statusView(rt, old, obj) : obj;
    const managers = baseManagers(old, obj, subresource !== undefined);
    trackUpdate(old, next, managers, this.trackingOptions(rt, this.manager(o), subresource));
    return this.commitUpdate(rt, existing, next, managers, o, subresource === "status" ? "status" : "main");
  }


  commitUpdate(rt: ResourceType, existing: StoredObject, nextIn: Obj, managers: Managers, o: WriteOptions, mode: "main" | "status"): Obj {
    const old = served(rt, existing.obj);
    const next = clone(nextIn);
    const om = asObj(old.metadata) ?? {};
    const nm = md(next);
    for (const k of ["name", "namespace", "uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"]) {
      if (om[k] !== undefined) nm[k] = om[k];
      else delete nm[k];
    }
    if (mode === "main" && rt.status) {
      if (old.status !== undefined) next.status = clone(old.status);
      else delete next.status;
    }
    if (mode === "status") {
      next.spec = clone(old.spec);
      if (old.spec === undefined) delete next.spec;
    }
    if (rt.kind === "Namespace" && mode === "main") {
      next.spec = clone(old.spec);
    }
    // BeforeUpdate keeps the old generation; only the main resource's strategy bumps it.
    if (mode === "main") bumpGeneration(rt, next, old);
    else if (asObj(old.metadata)?.generation !== undefined) nm.generation = asObj(old.metadata)?.generation;
    if (mode === "main" && rt.builtin) builtinKindSupport(rt.kind)?.prepareForUpdate?.(next, old);
    if (rt.kind === "Service") this.services.allocateService(next, old);
    if (mode === "main") validate(rt, next, old);
    this.withManagers(next, managers);
    nm.resourceVersion = om.resourceVersion;
    const out = canonicalize(rt, toStorage(rt, next));
    const name = asStr(om.name) ?? "";
    const storageOld = existing.obj;
    if (deepEqual(out, storageOld)) return served(rt, storageOld);
    if (nm.deletionTimestamp && finalizersDone(rt, out)) {
      if (o.dryRun) return served(rt, out);
      this.removeNow(rt, asStr(om.namespace), name, "Background");
      return served(rt, out);
    }
    if (o.dryRun) return served(rt, out);
    const stored = this.store.put(grKey(rt), this.keyFor(rt, asStr(om.namespace), name), out);
    if (rt.kind === "CustomResourceDefinition") this.hooks.crdChanged?.(stored.obj, name);
    return served(rt, stored.obj);
  }

  // ---------------------------------------------------------------- patch

  patch(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    contentType: string,
    body: string,
    o: WriteOptions,
    subresource?: "status",
  ): Obj {
    const allowed = rt.smp ? PATCH_TYPES_BUILTIN : PATCH_TYPES_CUSTOM;
    if (!allowed.includes(contentType)) throw unsupportedMediaType(allowed);
    if (contentType === "application/apply-patch+yaml") return this.apply(rt, namespace, name, body, o, subresource);
    const existing = this.getStored(rt, namespace, name);
    if (!existing) throw notFound(gr(rt), name);
    const current = served(rt, existing.obj);
    let patched: Obj;
    if (contentType === "application/json-patch+json") patched = applyJsonPatch(current, body);
    else if (contentType === "application/merge-patch+json") patched = applyMergePatch(current, body);
    else patched = applyStrategicMergePatch(current, body, rt.schema);
    const pm = asObj(patched.metadata) ?? {};
    if (pm.name !== undefined && pm.name !== name) {
      throw badRequest(`the name of the object (${String(pm.name)}) does not match the name on the URL (${name})`);
    }
    const rv = asStr(pm.resourceVersion);
    if (rv !== undefined && rv !== asStr(asObj(current.metadata)?.resourceVersion)) throw conflict(gr(rt), name, CONFLICT_MSG);
    const obj = decodePatched(rt, patched, namespace, name, o);
    const next = subresource === "status" ? statusView(rt, current, obj) : obj;
    const managers = baseManagers(current, obj, subresource !== undefined);
    trackUpdate(current, next, managers, this.trackingOptions(rt, this.manager(o), subresource));
    return this.commitUpdate(rt, existing, next, managers, o, subresource === "status" ? "status" : "main");
  }


  apply(rt: ResourceType, namespace: string | undefined, name: string, body: string | Obj, o: WriteOptions, subresource?: "status"): Obj {
    return applyObject(this, rt, namespace, name, body, o, subresource);
  }

  // ---------------------------------------------------------------- scale

  scaleOf(rt: ResourceType, parent: Obj): Obj {
    return scaleOf(rt, parent);
  }

  getScale(rt: ResourceType, namespace: string | undefined, name: string): Obj {
    return getScale(this, rt, namespace, name);
  }

  updateScale(rt: ResourceType, namespace: string | undefined, name: string, body: unknown, o: WriteOptions): Obj {
    return updateScale(this, rt, namespace, name, body, o);
  }

  patchScale(rt: ResourceType, namespace: string | undefined, name: string, contentType: string, body: string, o: WriteOptions): Obj {
    return patchScale(this, rt, namespace, name, contentType, body, o);
  }

  // ---------------------------------------------------------------- delete

  delete(rt: ResourceType, namespace: string | undefined, name: string, opts: DeleteOptions): { code: number; body: Obj } {
    return deleteObject(this, rt, namespace, name, opts);
  }

  successStatus(rt: ResourceType, name: string, uid: string | undefined): Obj {
    return successStatus(rt, name, uid);
  }

  /** Removes an object now, then garbage-collects its dependents. */
  removeNow(rt: ResourceType, namespace: string | undefined, name: string, propagation: string): Obj | undefined {
    return removeNow(this, rt, namespace, name, propagation);
  }

  deleteCollection(rt: ResourceType, namespace: string | undefined, q: ListQuery, opts: DeleteOptions): Obj {
    return deleteCollection(this, rt, namespace, q, opts);
  }

  // ---------------------------------------------------------------- internal writes (controllers, seeding)

  /** Server-side apply on behalf of an in-process actor. */
  applyAs(rt: ResourceType, obj: Obj, manager: string, force = true, subresource?: "status"): Obj {
    const m = asObj(obj.metadata) ?? {};
    return this.apply(rt, asStr(m.namespace), asStr(m.name) ?? "", obj, {
      fieldManager: manager,
      userAgentManager: manager,
      dryRun: false,
      fieldValidation: "Ignore",
      warnings: [],
      force,
    }, subresource);
  }

  /** An Update (PUT) on behalf of an in-process actor, e.g. a controller writing status. */
  updateAs(rt: ResourceType, obj: Obj, manager: string, subresource?: "status"): Obj {
    const m = asObj(obj.metadata) ?? {};
    return this.update(rt, asStr(m.namespace), asStr(m.name) ?? "", obj, { userAgentManager: manager, dryRun: false, fieldValidation: "Ignore", warnings: [] }, subresource);
  }

  createAs(rt: ResourceType, obj: Obj, manager: string): Obj {
    const m = asObj(obj.metadata) ?? {};
    return this.create(rt, asStr(m.namespace), obj, { userAgentManager: manager, dryRun: false, fieldValidation: "Ignore", warnings: [] });
  }
}
