// metadata.managedFields bookkeeping, following the field manager of
// k8s.io/apimachinery/pkg/util/managedfields: Update operations take
// ownership of what they change, Apply operations own what they specify and
// conflict with other owners, entries are keyed by manager + operation +
// subresource (+ apiVersion for updates) and sorted like the real encoder.
import { conflictStatus } from "./managed-conflict";
import { compareObjects, dropNulls, ensureNamedFieldsAreMembers, FieldSet, mergeApply, removeItems, toFieldSet, type Path } from "./fieldpath";
import { clone, isObj, nowRfc3339, type Obj } from "./json";
import type { Schema } from "./schema";

export interface ManagerEntry {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion: string;
  time?: string;
  subresource?: string;
  set: FieldSet;
}

export type Managers = Map<string, ManagerEntry>;

export function managerKey(e: { manager: string; operation: string; apiVersion: string; subresource?: string }): string {
  // BuildManagerIdentifier: appliers are identified without their apiVersion.
  const k: Obj = { manager: e.manager, operation: e.operation };
  if (e.operation !== "Apply") k.apiVersion = e.apiVersion;
  if (e.subresource) k.subresource = e.subresource;
  return JSON.stringify(k);
}

export function decodeManagers(obj: Obj): Managers {
  const out: Managers = new Map();
  const md = isObj(obj.metadata) ? obj.metadata : {};
  const list = Array.isArray(md.managedFields) ? md.managedFields : [];
  for (const raw of list) {
    if (!isObj(raw)) continue;
    const e: ManagerEntry = {
      manager: typeof raw.manager === "string" ? raw.manager : "",
      operation: raw.operation === "Apply" ? "Apply" : "Update",
      apiVersion: typeof raw.apiVersion === "string" ? raw.apiVersion : "",
      time: typeof raw.time === "string" ? raw.time : undefined,
      subresource: typeof raw.subresource === "string" && raw.subresource ? raw.subresource : undefined,
      set: FieldSet.fromFieldsV1(raw.fieldsV1),
    };
    out.set(managerKey(e), e);
  }
  return out;
}

export function encodeManagers(m: Managers): Obj[] {
  const entries = [...m.values()].filter((e) => !e.set.isEmpty());
  const secs = (t?: string) => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  entries.sort((p, q) => {
    if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
    const dt = secs(p.time) - secs(q.time);
    if (dt !== 0) return dt;
    if (p.manager !== q.manager) return p.manager < q.manager ? -1 : 1;
    if (p.apiVersion !== q.apiVersion) return p.apiVersion < q.apiVersion ? -1 : 1;
    const ps = p.subresource ?? "";
    const qs = q.subresource ?? "";
    return ps < qs ? -1 : ps > qs ? 1 : 0;
  });
  return entries.map((e) => {
    const o: Obj = { manager: e.manager, operation: e.operation, apiVersion: e.apiVersion };
    if (e.time) o.time = e.time;
    o.fieldsType = "FieldsV1";
    o.fieldsV1 = e.set.toFieldsV1();
    if (e.subresource) o.subresource = e.subresource;
    return o;
  });
}

const STRIPPED_META = ["name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation", "managedFields", "resourceVersion"];

/** stripMetaManager: these fields are never tracked. */
export function stripForTracking(obj: unknown): Obj {
  if (!isObj(obj)) return {};
  const out: Obj = { ...obj };
  delete out.apiVersion;
  delete out.kind;
  if (isObj(out.metadata)) {
    const md: Obj = { ...out.metadata };
    for (const k of STRIPPED_META) delete md[k];
    out.metadata = md;
  }
  return out;
}

function stripSet(set: FieldSet): FieldSet {
  set.children.delete("f:apiVersion");
  set.children.delete("f:kind");
  const md = set.children.get("f:metadata");
  if (md) {
    md.self = false;
    for (const k of STRIPPED_META) md.children.delete(`f:${k}`);
    if (md.isEmpty()) set.children.delete("f:metadata");
  }
  return set;
}

/** Removes every path under the given prefixes (the strategy's reset fields). */
export function filterReset(set: FieldSet, reset: readonly Path[]): FieldSet {
  for (const p of reset) {
    let cur: FieldSet | undefined = set;
    for (let i = 0; i < p.length - 1 && cur; i++) cur = cur.children.get(p[i] as string);
    if (cur) cur.children.delete(p[p.length - 1] as string);
  }
  return set;
}

export interface TrackOptions {
  schema: Schema;
  manager: string;
  apiVersion: string;
  subresource?: string;
  reset: readonly Path[];
  now?: string;
}

/** Managers to start from: the request's own managedFields when it sets them, else the live object's. */
export function baseManagers(live: Obj | undefined, next: Obj, ignoreRequest: boolean): Managers {
  const liveM = live ? decodeManagers(live) : new Map<string, ManagerEntry>();
  if (ignoreRequest) return liveM;
  const md = isObj(next.metadata) ? next.metadata : {};
  const mf = md.managedFields;
  if (Array.isArray(mf)) {
    if (mf.length === 1 && isObj(mf[0]) && Object.keys(mf[0]).length === 0) return new Map();
    if (mf.length > 0) {
      const m = decodeManagers(next);
      if (m.size > 0) return m;
    }
  }
  return liveM;
}

/** Field manager for Update operations (create, PUT, non-apply PATCH). Mutates and returns `managers`. */
export function trackUpdate(liveTracked: Obj, next: Obj, managers: Managers, o: TrackOptions): Managers {
  const cmp = compareObjects(stripForTracking(liveTracked), stripForTracking(next), o.schema);
  const added = filterReset(stripSet(cmp.added), o.reset);
  const modified = filterReset(stripSet(cmp.modified), o.reset);
  const removed = filterReset(stripSet(cmp.removed), o.reset);
  const changed = modified.union(added);
  for (const [k, e] of managers) {
    e.set = e.set.difference(changed).difference(removed);
    if (e.set.isEmpty()) managers.delete(k);
  }
  if (!changed.isEmpty()) {
    const key = managerKey({ manager: o.manager, operation: "Update", apiVersion: o.apiVersion, subresource: o.subresource });
    const prev = managers.get(key);
    managers.set(key, {
      manager: o.manager,
      operation: "Update",
      apiVersion: o.apiVersion,
      subresource: o.subresource,
      time: o.now ?? nowRfc3339(),
      set: prev ? changed.union(prev.set) : changed,
    });
  }
  return capManagers(managers);
}

export interface ApplyResult {
  object: Obj;
  managers: Managers;
}

/** Field manager for server-side apply. Throws a 409 Status on conflicts unless `force`. */
export function trackApply(live: Obj, config: Obj, managers: Managers, force: boolean, o: TrackOptions): ApplyResult {
  const merged = mergeApply(live, config, o.schema);
  const key = managerKey({ manager: o.manager, operation: "Apply", apiVersion: o.apiVersion, subresource: o.subresource });
  const newSet = filterReset(stripSet(toFieldSet(stripForTracking(config), o.schema)), o.reset);
  const last = managers.get(key);
  const lastSet = last?.set;
  const prevTime = last?.time;
  managers.set(key, { manager: o.manager, operation: "Apply", apiVersion: o.apiVersion, subresource: o.subresource, set: newSet, time: prevTime });
  let pruned = isObj(merged) ? merged : {};
  if (lastSet && !lastSet.isEmpty()) pruned = prune(pruned, managers, lastSet, o.schema);

  const cmp = compareObjects(stripForTracking(live), stripForTracking(pruned), o.schema);
  const added = filterReset(stripSet(cmp.added), o.reset);
  const modified = filterReset(stripSet(cmp.modified), o.reset);
  const removed = filterReset(stripSet(cmp.removed), o.reset);
  const changed = modified.union(added);
  const conflicts: Array<{ manager: ManagerEntry; path: Path }> = [];
  for (const [k, e] of managers) {
    if (k === key) continue;
    const c = e.set.intersection(changed);
    for (const p of c.paths()) conflicts.push({ manager: e, path: p });
  }
  if (conflicts.length > 0 && !force) throw conflictStatus(conflicts);
  for (const [k, e] of managers) {
    if (k === key) continue;
    e.set = e.set.difference(changed).difference(removed);
    if (e.set.isEmpty()) managers.delete(k);
  }
  const entry = managers.get(key);
  const objectChanged = !cmp.added.isEmpty() || !cmp.modified.isEmpty() || !cmp.removed.isEmpty();
  if (entry && (objectChanged || !entry.time)) entry.time = o.now ?? nowRfc3339();
  return { object: pruned, managers: capManagers(managers) };
}

function prune(merged: Obj, managers: Managers, lastSet: FieldSet, schema: Schema): Obj {
  // Updater.prune: drop what this applier stopped specifying, unless someone else still owns it.
  // Inside the real updater the applier also owns metadata.name (stripped only when stored),
  // which keeps metadata itself from being pruned.
  const sMerged = stripForTracking(merged);
  const ens = (s: FieldSet, v: unknown) => ensureNamedFieldsAreMembers(s, schema, v);
  const owned = new FieldSet();
  owned.insert(["f:metadata", "f:name"]);
  let ownedAll = owned;
  for (const e of managers.values()) ownedAll = ownedAll.union(e.set);
  const last = ens(lastSet, sMerged);
  const pruned1 = asObj(removeItems(sMerged, last, schema));
  const mergedSet = ens(toFieldSet(sMerged, schema), sMerged);
  const pruned1Set = ens(toFieldSet(pruned1, schema), pruned1);
  const pruned2 = asObj(removeItems(sMerged, mergedSet.difference(pruned1Set.union(ens(ownedAll, sMerged))), schema));
  const pruned2Set = ens(toFieldSet(pruned2, schema), pruned2);
  const final = asObj(dropNulls(removeItems(sMerged, mergedSet.difference(pruned2Set).intersection(last), schema)));
  const out: Obj = {};
  if (merged.apiVersion !== undefined) out.apiVersion = merged.apiVersion;
  if (merged.kind !== undefined) out.kind = merged.kind;
  const md: Obj = { ...(isObj(final.metadata) ? final.metadata : {}) };
  const mm = isObj(merged.metadata) ? merged.metadata : {};
  for (const k of STRIPPED_META) if (mm[k] !== undefined) md[k] = mm[k];
  out.metadata = md;
  for (const [k, v] of Object.entries(final)) if (k !== "metadata") out[k] = v;
  return out;
}

function asObj(v: unknown): Obj {
  return isObj(v) ? v : {};
}

const MAX_UPDATE_MANAGERS = 10;

/** capManagers: beyond ten Update entries, the oldest are folded into "ancient-changes". */
function capManagers(m: Managers): Managers {
  const updates = [...m.entries()].filter(([, e]) => e.operation === "Update");
  if (updates.length <= MAX_UPDATE_MANAGERS) return m;
  updates.sort(([, a], [, b]) => (a.time ?? "").localeCompare(b.time ?? ""));
  const excess = updates.length - MAX_UPDATE_MANAGERS + 1;
  for (const [k, e] of updates.slice(0, excess)) {
    m.delete(k);
    const key = managerKey({ manager: "ancient-changes", operation: "Update", apiVersion: e.apiVersion });
    const prev = m.get(key);
    m.set(key, {
      manager: "ancient-changes",
      operation: "Update",
      apiVersion: e.apiVersion,
      time: e.time,
      set: prev ? prev.set.union(e.set) : e.set.clone(),
    });
  }
  return m;
}

export function withManagedFields(obj: Obj, managers: Managers): Obj {
  const out = clone(obj);
  const md = isObj(out.metadata) ? out.metadata : {};
  const enc = encodeManagers(managers);
  if (enc.length > 0) md.managedFields = enc;
  else delete md.managedFields;
  out.metadata = md;
  return out;
}
