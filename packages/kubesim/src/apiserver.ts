// The request semantics of kube-apiserver for one resource type at a time:
// create, read, list, update, patch (four content types), server-side apply,
// status and scale subresources, delete with finalizers and garbage
// collection. HTTP concerns live in server.ts.
import { randomUUID } from "node:crypto";
import YAML from "yaml";
import { OBJECT_META, SCALE } from "./builtin-schemas";
import { applyDefaults, pruneUnknown, validateAgainstSchema } from "./custom-resources";
import { defaultBuiltin, emptyShape } from "./defaults";
import {
  alreadyExists,
  badRequest,
  conflict,
  expired,
  forbidden,
  invalid,
  notFound,
  StatusError,
  timeoutError,
  unsupportedMediaType,
  type FieldError,
  type GR,
} from "./errors";
import { FieldSet } from "./fieldpath";
import { asNum, asObj, asStr, clone, deepEqual, isObj, nowRfc3339, type Obj } from "./json";
import {
  baseManagers,
  decodeManagers,
  encodeManagers,
  trackApply,
  trackUpdate,
  type ManagerEntry,
  type Managers,
} from "./managed-fields";
import { canonicalize, listItemJson, served } from "./objects";
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch } from "./patch";
import { apiVersionOf, type Registry, type ResourceType } from "./registry";
import { exactName, fieldsMatch, labelsMatch, parseFieldSelector, parseLabelSelector } from "./selectors";
import { decodeTypeError, pruneUnknownTyped } from "./schema";
import { lowerBound, objectKey, type Store, type StoredObject } from "./store";
import { validateBuiltin, validateObjectMeta } from "./validation";

export type FieldValidation = "Strict" | "Warn" | "Ignore";

export interface WriteOptions {
  /** fieldManager query parameter, when given. */
  fieldManager?: string;
  /** Manager to record when no fieldManager was given (User-Agent prefix). */
  userAgentManager: string;
  dryRun: boolean;
  fieldValidation: FieldValidation;
  warnings: string[];
  force?: boolean;
}

export interface DeleteOptions {
  propagationPolicy?: string;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun: boolean;
  gracePeriodSeconds?: number;
}

export interface ListQuery {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continueToken?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface ListResult {
  rv: string;
  continueToken?: string;
  remaining?: number;
  /** Items as served, plus a lazily cached list-item JSON. */
  items: Array<{ obj: Obj; json: () => string }>;
}

export const PATCH_TYPES_BUILTIN = [
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
];
export const PATCH_TYPES_CUSTOM = ["application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"];

const NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";

function randomSuffix(n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)];
  return s;
}

export function gr(rt: ResourceType): GR {
  return { group: rt.group, resource: rt.resource };
}

function grKey(rt: ResourceType): string {
  return `${rt.group}/${rt.resource}`;
}

const TIME_KEYS = new Set(["creationTimestamp", "deletionTimestamp", "lastTransitionTime", "lastUpdateTime", "lastProbeTime", "lastHeartbeatTime", "lastScheduleTime", "lastSuccessfulTime", "startedAt", "finishedAt", "startTime", "completionTime"]);
const FREE_MAPS = new Set(["data", "binaryData", "stringData", "labels", "annotations", "selector", "matchLabels", "nodeSelector"]);

/** metav1.Time fields round-trip through Go at second precision. */
function secondPrecision(v: unknown): unknown {
  if (typeof v !== "string" || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/.test(v)) return v;
  const t = Date.parse(v);
  return Number.isNaN(t) ? v : nowRfc3339(new Date(Math.floor(t / 1000) * 1000));
}

function normaliseTimes(v: unknown, typed: boolean): void {
  if (Array.isArray(v)) {
    for (const x of v) normaliseTimes(x, typed);
    return;
  }
  if (!isObj(v)) return;
  for (const [k, x] of Object.entries(v)) {
    if (FREE_MAPS.has(k)) continue;
    if (k === "managedFields" && Array.isArray(x)) {
      for (const e of x) if (isObj(e)) e.time = secondPrecision(e.time);
      continue;
    }
    if (typed && TIME_KEYS.has(k)) v[k] = secondPrecision(x);
    else if (typed || k === "metadata") normaliseTimes(x, typed || k === "metadata");
  }
}

function md(o: Obj): Obj {
  if (!isObj(o.metadata)) o.metadata = {};
  return o.metadata as Obj;
}

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

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv, start })).toString("base64url");
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const raw = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as unknown;
    const o = asObj(raw);
    if (!o || o.v !== "meta.k8s.io/v1" || typeof o.rv !== "number" || typeof o.start !== "string") throw new Error("bad");
    return { rv: o.rv, start: o.start };
  } catch {
    throw badRequest("continue key is not valid: illegal base64 data at input byte 0");
  }
}

class StrictDecodingError extends StatusError {
  constructor(
    readonly detail: string,
    base: StatusError,
  ) {
    super(base.code, base.reason, base.message, base.details);
  }
}

const CONFLICT_MSG = "the object has been modified; please apply your changes to the latest version and try again";

export interface CoreHooks {
  /** Called after a CRD is written or removed, so the registry can serve its kinds. */
  crdChanged?(crd: Obj | undefined, name: string): void;
  /** Namespace or CRD marked for deletion: the controllers finish the job. */
  deletionRequested?(rt: ResourceType, obj: Obj): void;
}

export class ApiCore {
  private usedIPs = new Set<string>();
  private usedNodePorts = new Set<number>();

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
    const labelSel = parseLabelSelector(q.labelSelector);
    const fieldSel = parseFieldSelector(q.fieldSelector, { extra: rt.extraFieldSelectors, customConversion: !rt.builtin || ["Namespace", "Secret", "Service"].includes(rt.kind) });
    const g = grKey(rt);
    const current = this.store.rv;
    let snapshotRV = current;
    let start = "";
    let historical: Map<string, Obj> | undefined;
    let limit = q.limit && q.limit > 0 ? q.limit : 0;
    const rvParam = q.resourceVersion ?? "";
    if (q.continueToken) {
      if (rvParam !== "") throw badRequest("specifying resource version is not allowed when using continue");
      const tok = decodeContinue(q.continueToken);
      start = tok.start;
      if (tok.rv > 0) {
        historical = this.store.snapshot(g, tok.rv);
        if (!historical) {
          throw expired(
            "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.",
            encodeContinue(-1, start),
          );
        }
        snapshotRV = tok.rv;
      }
    } else if (rvParam === "0") {
      // Served from the watch cache, which ignores limit in this version.
      limit = 0;
    } else if (rvParam !== "") {
      const n = Number(rvParam);
      if (!Number.isInteger(n) || n < 0) throw badRequest(`invalid resource version: ${rvParam}`);
      if (n > current) throw timeoutError(`Too large resource version: ${n}, current: ${current}`, 1);
      const exact = q.resourceVersionMatch === "Exact" || (q.resourceVersionMatch === undefined && limit > 0);
      if (exact) {
        historical = this.store.snapshot(g, n);
        if (!historical) throw expired("The resourceVersion for the provided list is too old.");
        snapshotRV = n;
      } else {
        limit = q.resourceVersionMatch === "NotOlderThan" ? limit : 0;
      }
    }
    const name = exactName(fieldSel);
    let keys: string[];
    if (historical) {
      const prefix = rt.namespaced && namespace ? `${namespace}/` : "";
      keys = [...historical.keys()].filter((k) => k.startsWith(prefix)).sort();
    } else {
      keys = this.store.keys(g, rt.namespaced ? namespace : undefined);
    }
    if (name !== undefined && !historical) {
      const k = this.keyFor(rt, namespace, name);
      keys = rt.namespaced && !namespace ? keys.filter((x) => x.endsWith(`/${name}`)) : keys.includes(k) ? [k] : [];
    }
    const items: ListResult["items"] = [];
    let i = start ? lowerBound(keys, start) : 0;
    let lastKey: string | undefined;
    for (; i < keys.length; i++) {
      if (limit > 0 && items.length >= limit) break;
      const key = keys[i] as string;
      let obj: Obj | undefined;
      let stored: StoredObject | undefined;
      if (historical) obj = historical.get(key);
      else {
        stored = this.store.get(g, key);
        obj = stored?.obj;
      }
      if (!obj) continue;
      lastKey = key;
      if (!labelSel.empty && !labelsMatch(labelSel, asObj(obj.metadata)?.labels)) continue;
      if (!fieldSel.empty && !fieldsMatch(fieldSel, obj)) continue;
      const o = obj;
      const st = stored;
      items.push({
        obj: served(rt, o),
        json: () => {
          if (st && st.obj === o && rt.version === rt.storageVersion) {
            st.itemJson ??= listItemJson(rt, o);
            return st.itemJson;
          }
          return listItemJson(rt, o);
        },
      });
    }
    const res: ListResult = { rv: String(snapshotRV), items };
    if (limit > 0 && i < keys.length && lastKey !== undefined) {
      res.continueToken = encodeContinue(snapshotRV, `${lastKey}\u0000`);
      if (labelSel.empty && fieldSel.empty) res.remaining = keys.length - i;
    }
    return res;
  }

  // ---------------------------------------------------------------- helpers

  private manager(o: WriteOptions): string {
    return o.fieldManager || o.userAgentManager;
  }

  /** NamespaceLifecycle admission. */
  private checkNamespace(rt: ResourceType, namespace: string | undefined, name: string): void {
    if (!rt.namespaced || !namespace) return;
    const ns = this.store.get("/namespaces", namespace);
    if (!ns) throw notFound({ group: "", resource: "namespaces" }, namespace);
    if (asObj(ns.obj.metadata)?.deletionTimestamp) {
      throw forbidden(gr(rt), name, `unable to create new content in namespace ${namespace} because it is being terminated`);
    }
  }

  /** Decode-time processing of an incoming object: identity checks, typed normalisation, defaulting. */
  private decode(rt: ResourceType, body: unknown, namespace: string | undefined, urlName: string | undefined, o: WriteOptions, verb: "create" | "update"): Obj {
    if (!isObj(body)) throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(body)}'`);
    const obj = clone(body);
    const av = apiVersionOf(rt);
    if (obj.apiVersion !== undefined && obj.apiVersion !== av) {
      throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${av})`);
    }
    if (obj.kind !== undefined && obj.kind !== rt.kind) {
      throw badRequest(`${String(obj.kind)} in version "${rt.version}" cannot be handled as a ${rt.kind}: no kind "${String(obj.kind)}" is registered for version "${av}" in scheme "pkg/runtime/scheme.go:100"`);
    }
    obj.apiVersion = av;
    obj.kind = rt.kind;
    normaliseTimes(obj, rt.builtin);
    const m = md(obj);
    if (rt.namespaced) {
      if (m.namespace !== undefined && m.namespace !== "" && m.namespace !== namespace) {
        throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
      }
      m.namespace = namespace;
    } else {
      delete m.namespace;
    }
    if (urlName !== undefined && m.name !== undefined && m.name !== urlName) {
      throw badRequest(`the name of the object (${String(m.name)}) does not match the name on the URL (${urlName})`);
    }
    if (urlName !== undefined && m.name === undefined) m.name = urlName;
    const unknown: string[] = [];
    if (rt.builtin) pruneUnknownTyped(obj, rt.schema, "", unknown);
    else pruneUnknown(obj, rt.openAPISchema, "", unknown, true);
    if (unknown.length > 0) {
        if (o.fieldValidation === "Strict") {
          const detail = `strict decoding error: ${unknown.map((u) => `unknown field ${JSON.stringify(u)}`).join(", ")}`;
          throw new StrictDecodingError(detail, badRequest(`${rt.kind} in version "${rt.version}" cannot be handled as a ${rt.kind}: ${detail}`));
        }
        if (o.fieldValidation === "Warn") for (const u of unknown) o.warnings.push(`unknown field ${JSON.stringify(u)}`);
    }
    if (rt.builtin) {
      const typeErr = decodeTypeError(obj, rt.schema);
      if (typeErr) throw new StrictDecodingError(typeErr, badRequest(`${rt.kind} in version "${rt.version}" cannot be handled as a ${rt.kind}: ${typeErr}`));
      if (rt.kind === "Secret") this.decodeSecret(obj);
      defaultBuiltin(rt.kind, obj);
    } else {
      applyDefaults(obj, rt.openAPISchema);
      this.dropCRMetaNulls(obj);
    }
    void verb;
    return obj;
  }

  private dropCRMetaNulls(obj: Obj): void {
    const m = md(obj);
    for (const k of Object.keys(m)) if (m[k] === null) delete m[k];
  }

  private decodeSecret(obj: Obj): void {
    const data: Obj = isObj(obj.data) ? { ...obj.data } : {};
    for (const [k, v] of Object.entries(data)) {
      if (v === null) {
        data[k] = "";
        continue;
      }
      if (typeof v !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(v) || v.length % 4 === 1) {
        throw badRequest(`Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte ${typeof v === "string" ? Math.max(0, v.search(/[^A-Za-z0-9+/=]/)) : 0}`);
      }
    }
    if (isObj(obj.stringData)) {
      for (const [k, v] of Object.entries(obj.stringData)) data[k] = Buffer.from(String(v ?? ""), "utf8").toString("base64");
    }
    delete obj.stringData;
    if (Object.keys(data).length > 0) obj.data = data;
    else delete obj.data;
  }

  private emptyTyped(rt: ResourceType, namespace: string | undefined, name: string): Obj {
    const o: Obj = rt.builtin ? emptyShape(rt.kind) : {};
    o.apiVersion = apiVersionOf(rt);
    o.kind = rt.kind;
    const m = md(o);
    m.name = name;
    if (rt.namespaced && namespace) m.namespace = namespace;
    return o;
  }

  private validate(rt: ResourceType, obj: Obj, old: Obj | undefined): void {
    const errs: FieldError[] = [];
    validateObjectMeta(obj, rt, errs);
    if (rt.builtin) errs.push(...validateBuiltin(rt, obj, old));
    else validateAgainstSchema(obj, rt.openAPISchema, "", errs, true);
    if (errs.length > 0) throw invalid(rt.group, rt.kind, asStr(md(obj).name) ?? "", errs);
  }

  private bumpGeneration(rt: ResourceType, next: Obj, old: Obj): void {
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

  private resetStatusOnCreate(rt: ResourceType, obj: Obj): void {
    if (!rt.status) return;
    if (!rt.builtin) {
      delete obj.status;
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

  private allocateService(obj: Obj, old: Obj | undefined): void {
    const spec = asObj(obj.spec) ?? {};
    const oldSpec = asObj(old?.spec);
    const type = asStr(spec.type) ?? "ClusterIP";
    if (type === "ExternalName") {
      for (const k of ["clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"]) if (!oldSpec) delete spec[k];
      return;
    }
    if (oldSpec) {
      for (const k of ["clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"]) if (spec[k] === undefined || spec[k] === "") spec[k] = clone(oldSpec[k]);
    }
    let ip = asStr(spec.clusterIP);
    if (!ip && Array.isArray(spec.clusterIPs) && typeof spec.clusterIPs[0] === "string") ip = spec.clusterIPs[0];
    if (!ip) {
      ip = this.allocateIP();
    } else if (ip !== "None" && !old) {
      if (this.usedIPs.has(ip)) {
        throw invalid("", "Service", asStr(md(obj).name) ?? "", [
          { type: "Invalid", field: "spec.clusterIPs", value: `[]string{${JSON.stringify(ip)}}`, detail: `failed to allocate IP ${ip}: provided IP is already allocated` },
        ]);
      }
      this.usedIPs.add(ip);
    }
    spec.clusterIP = ip;
    spec.clusterIPs = [ip];
    if (!Array.isArray(spec.ipFamilies) || spec.ipFamilies.length === 0) spec.ipFamilies = ["IPv4"];
    if (!spec.ipFamilyPolicy) spec.ipFamilyPolicy = "SingleStack";
    if (type === "NodePort" || type === "LoadBalancer") {
      const oldPorts = Array.isArray(oldSpec?.ports) ? oldSpec.ports : [];
      for (const p of Array.isArray(spec.ports) ? spec.ports : []) {
        if (!isObj(p) || p.nodePort) continue;
        const prev = oldPorts.find((x) => isObj(x) && x.port === p.port && (x.protocol ?? "TCP") === (p.protocol ?? "TCP"));
        p.nodePort = isObj(prev) && prev.nodePort ? prev.nodePort : this.allocateNodePort();
      }
    }
    obj.spec = spec;
  }

  private allocateIP(): string {
    // The conventional 10.96.0.0/12 service range; .1 belongs to the "kubernetes" service.
    for (;;) {
      const n = 2 + Math.floor(Math.random() * (1 << 20) - 2);
      const ip = `10.${96 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
      if (!this.usedIPs.has(ip) && (n & 255) !== 0 && (n & 255) !== 255) {
        this.usedIPs.add(ip);
        return ip;
      }
    }
  }

  private allocateNodePort(): number {
    for (;;) {
      const p = 30000 + Math.floor(Math.random() * 2768);
      if (!this.usedNodePorts.has(p)) {
        this.usedNodePorts.add(p);
        return p;
      }
    }
  }

  /** Records addresses of loaded/seeded services so allocation does not reuse them. */
  noteAllocated(obj: Obj): void {
    const spec = asObj(obj.spec);
    const ip = asStr(spec?.clusterIP);
    if (ip && ip !== "None") this.usedIPs.add(ip);
    for (const p of Array.isArray(spec?.ports) ? spec.ports : []) {
      const np = asNum(asObj(p)?.nodePort);
      if (np) this.usedNodePorts.add(np);
    }
  }

  private withManagers(obj: Obj, managers: Managers): void {
    const enc = encodeManagers(managers);
    const m = md(obj);
    if (enc.length > 0) m.managedFields = enc;
    else delete m.managedFields;
  }

  private trackingOptions(rt: ResourceType, manager: string, subresource?: string) {
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
    const obj = this.decode(rt, body, namespace, undefined, o, "create");
    const m = md(obj);
    this.checkNamespace(rt, namespace, asStr(m.name) ?? "");
    if (m.resourceVersion !== undefined && m.resourceVersion !== "") throw badRequest("resourceVersion should not be set on objects to be created");
    if (!m.name && typeof m.generateName === "string" && m.generateName) m.name = `${m.generateName}${randomSuffix(5)}`;
    const managers = baseManagers(undefined, obj, false);
    trackUpdate(this.emptyTyped(rt, namespace, asStr(m.name) ?? ""), obj, managers, this.trackingOptions(rt, this.manager(o)));
    return this.commitCreate(rt, namespace, obj, managers, o);
  }

  private commitCreate(rt: ResourceType, namespace: string | undefined, obj: Obj, managers: Managers, o: WriteOptions): Obj {
    const m = md(obj);
    const name = asStr(m.name) ?? "";
    this.resetStatusOnCreate(rt, obj);
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
    this.validate(rt, obj, undefined);
    const key = this.keyFor(rt, namespace, name);
    if (this.store.get(grKey(rt), key)) throw alreadyExists(gr(rt), name);
    if (rt.kind === "Service") this.allocateService(obj, undefined);
    m.uid = randomUUID();
    // Reserve the key's place; the store fills in the value.
    m.resourceVersion = "";
    m.creationTimestamp = nowRfc3339();
    this.withManagers(obj, managers);
    const out = canonicalize(rt, this.toStorage(rt, obj));
    if (o.dryRun) {
      delete md(out).resourceVersion;
      return served(rt, out);
    }
    const stored = this.store.put(grKey(rt), key, out);
    if (rt.kind === "CustomResourceDefinition") this.hooks.crdChanged?.(stored.obj, name);
    return served(rt, stored.obj);
  }

  private toStorage(rt: ResourceType, obj: Obj): Obj {
    if (rt.builtin || rt.version === rt.storageVersion) return obj;
    return { ...obj, apiVersion: rt.group ? `${rt.group}/${rt.storageVersion}` : rt.storageVersion };
  }

  // ---------------------------------------------------------------- update

  update(rt: ResourceType, namespace: string | undefined, name: string, body: unknown, o: WriteOptions, subresource?: "status"): Obj {
    const existing = this.getStored(rt, namespace, name);
    if (!existing) throw notFound(gr(rt), name);
    const obj = this.decode(rt, body, namespace, name, o, "update");
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
    const next = subresource === "status" ? this.statusView(rt, old, obj) : obj;
    const managers = baseManagers(old, obj, subresource !== undefined);
    trackUpdate(old, next, managers, this.trackingOptions(rt, this.manager(o), subresource));
    return this.commitUpdate(rt, existing, next, managers, o, subresource === "status" ? "status" : "main");
  }

  /** What a status-subresource write changes: the status (and, for built-ins, metadata the status strategy keeps). */
  private statusView(rt: ResourceType, old: Obj, req: Obj): Obj {
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

  private commitUpdate(rt: ResourceType, existing: StoredObject, nextIn: Obj, managers: Managers, o: WriteOptions, mode: "main" | "status"): Obj {
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
    if (mode === "main") this.bumpGeneration(rt, next, old);
    else if (asObj(old.metadata)?.generation !== undefined) nm.generation = asObj(old.metadata)?.generation;
    if (rt.kind === "Service") this.allocateService(next, old);
    if (mode === "main") this.validate(rt, next, old);
    this.withManagers(next, managers);
    nm.resourceVersion = om.resourceVersion;
    const out = canonicalize(rt, this.toStorage(rt, next));
    const name = asStr(om.name) ?? "";
    const storageOld = existing.obj;
    if (deepEqual(out, storageOld)) return served(rt, storageOld);
    if (nm.deletionTimestamp && this.finalizersDone(rt, out)) {
      if (o.dryRun) return served(rt, out);
      this.removeNow(rt, asStr(om.namespace), name, "Background");
      return served(rt, out);
    }
    if (o.dryRun) return served(rt, out);
    const stored = this.store.put(grKey(rt), this.keyFor(rt, asStr(om.namespace), name), out);
    if (rt.kind === "CustomResourceDefinition") this.hooks.crdChanged?.(stored.obj, name);
    return served(rt, stored.obj);
  }

  private finalizersDone(rt: ResourceType, obj: Obj): boolean {
    const fin = asObj(obj.metadata)?.finalizers;
    if (Array.isArray(fin) && fin.length > 0) return false;
    if (rt.kind === "Namespace") {
      const sf = asObj(obj.spec)?.finalizers;
      if (Array.isArray(sf) && sf.length > 0) return false;
    }
    return true;
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
    const obj = this.decodePatched(rt, patched, namespace, name, o);
    const next = subresource === "status" ? this.statusView(rt, current, obj) : obj;
    const managers = baseManagers(current, obj, subresource !== undefined);
    trackUpdate(current, next, managers, this.trackingOptions(rt, this.manager(o), subresource));
    return this.commitUpdate(rt, existing, next, managers, o, subresource === "status" ? "status" : "main");
  }

  private decodePatched(rt: ResourceType, patched: Obj, namespace: string | undefined, name: string, o: WriteOptions): Obj {
    try {
      return this.decode(rt, patched, namespace, name, o, "update");
    } catch (e) {
      // The patch handler reports strict decoding failures as a 422 on the field "patch".
      if (e instanceof StrictDecodingError) throw invalid("", "", "", [{ type: "Invalid", field: "patch", value: JSON.stringify(patched), detail: e.detail }]);
      throw e;
    }
  }

  private parseApplyBody(body: string): Obj {
    let doc: unknown;
    try {
      doc = YAML.parse(body, { intAsBigInt: false });
    } catch (e) {
      throw badRequest(`error decoding YAML: ${(e as Error).message}`);
    }
    if (!isObj(doc)) throw badRequest(`Object 'Kind' is missing in '${body.slice(0, 200)}'`);
    return doc;
  }

  apply(rt: ResourceType, namespace: string | undefined, name: string, body: string | Obj, o: WriteOptions, subresource?: "status"): Obj {
    if (!o.fieldManager) {
      throw invalid("meta.k8s.io", "PatchOptions", "", [{ type: "Required", field: "fieldManager", detail: "is required for apply patch" }]);
    }
    const config = typeof body === "string" ? this.parseApplyBody(body) : body;
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
    const existing = this.getStored(rt, namespace, name);
    if (!existing) {
      if (subresource) throw notFound(gr(rt), name);
      this.checkNamespace(rt, namespace, name);
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
    if (rt.kind === "Secret") this.decodeSecret(cfg);
    const live = existing ? served(rt, existing.obj) : this.emptyTyped(rt, namespace, name);
    const managers = existing ? decodeManagers(live) : new Map<string, ManagerEntry>();
    const result = trackApply(live, cfg, managers, o.force === true, this.trackingOptions(rt, o.fieldManager, subresource));
    const merged = result.object;
    const next = this.decode(rt, merged, namespace, name, { ...o, fieldValidation: "Ignore" }, existing ? "update" : "create");
    if (!existing) {
      delete md(next).resourceVersion;
      return this.commitCreate(rt, namespace, next, result.managers, o);
    }
    md(next).resourceVersion = asObj(live.metadata)?.resourceVersion;
    const view = subresource === "status" ? this.statusView(rt, live, next) : next;
    return this.commitUpdate(rt, existing, view, result.managers, o, subresource === "status" ? "status" : "main");
  }

  // ---------------------------------------------------------------- scale

  scaleOf(rt: ResourceType, parent: Obj): Obj {
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

  getScale(rt: ResourceType, namespace: string | undefined, name: string): Obj {
    return this.scaleOf(rt, this.get(rt, namespace, name));
  }

  updateScale(rt: ResourceType, namespace: string | undefined, name: string, body: unknown, o: WriteOptions): Obj {
    const parent = this.get(rt, namespace, name);
    return this.writeScale(rt, parent, isObj(body) ? body : {}, o, "update");
  }

  patchScale(rt: ResourceType, namespace: string | undefined, name: string, contentType: string, body: string, o: WriteOptions): Obj {
    if (!PATCH_TYPES_BUILTIN.includes(contentType)) throw unsupportedMediaType(PATCH_TYPES_BUILTIN);
    const parent = this.get(rt, namespace, name);
    const oldScale = this.scaleOf(rt, parent);
    if (contentType === "application/apply-patch+yaml") {
      if (!o.fieldManager) {
        throw invalid("meta.k8s.io", "PatchOptions", "", [{ type: "Required", field: "fieldManager", detail: "is required for apply patch" }]);
      }
      return this.writeScale(rt, parent, this.parseApplyBody(body), o, "apply");
    }
    let next: Obj;
    if (contentType === "application/json-patch+json") next = applyJsonPatch(oldScale, body);
    else if (contentType === "application/merge-patch+json") next = applyMergePatch(oldScale, body);
    else next = applyStrategicMergePatch(oldScale, body, SCALE);
    return this.writeScale(rt, parent, next, o, "update");
  }

  private writeScale(rt: ResourceType, parent: Obj, req: Obj, o: WriteOptions, op: "update" | "apply"): Obj {
    const pm = asObj(parent.metadata) ?? {};
    const name = asStr(pm.name) ?? "";
    const oldScale = this.scaleOf(rt, parent);
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
    const existing = this.getStored(rt, asStr(pm.namespace), name);
    if (!existing) throw notFound(gr(rt), name);
    const updated = this.commitUpdate(rt, existing, next, out, o, "main");
    return this.scaleOf(rt, updated);
  }

  // ---------------------------------------------------------------- delete

  delete(rt: ResourceType, namespace: string | undefined, name: string, opts: DeleteOptions): { code: number; body: Obj } {
    const existing = this.getStored(rt, namespace, name);
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
    const needsFinalizing = !this.finalizersDone(rt, obj) || rt.kind === "CustomResourceDefinition" || opts.propagationPolicy === "Foreground";
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
      const stored = this.store.put(grKey(rt), this.keyFor(rt, namespace, name), out);
      const servedObj = served(rt, stored.obj);
      if (rt.kind === "Namespace" || rt.kind === "CustomResourceDefinition" || opts.propagationPolicy === "Foreground") {
        this.hooks.deletionRequested?.(rt, servedObj);
      }
      return { code: 200, body: servedObj };
    }
    if (opts.dryRun) return { code: 200, body: rt.returnDeletedObject ? obj : this.successStatus(rt, name, asStr(m.uid)) };
    const deleted = this.removeNow(rt, namespace, name, opts.propagationPolicy ?? "Background");
    if (rt.returnDeletedObject && deleted) return { code: 200, body: served(rt, deleted) };
    return { code: 200, body: this.successStatus(rt, name, asStr(m.uid)) };
  }

  successStatus(rt: ResourceType, name: string, uid: string | undefined): Obj {
    const details: Obj = { name };
    if (rt.group) details.group = rt.group;
    details.kind = rt.resource;
    if (uid) details.uid = uid;
    return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details };
  }

  /** Removes an object now, then garbage-collects its dependents. */
  removeNow(rt: ResourceType, namespace: string | undefined, name: string, propagation: string): Obj | undefined {
    const deleted = this.store.remove(grKey(rt), this.keyFor(rt, namespace, name));
    if (!deleted) return undefined;
    if (rt.kind === "CustomResourceDefinition") this.hooks.crdChanged?.(undefined, name);
    const uid = asStr(asObj(deleted.metadata)?.uid);
    if (uid) this.collectDependents(uid, propagation);
    return deleted;
  }

  private collectDependents(ownerUid: string, propagation: string): void {
    for (const { gr: g, key, stored } of this.store.dependentsOf(ownerUid)) {
      const refs = asObj(stored.obj.metadata)?.ownerReferences;
      if (!Array.isArray(refs)) continue;
      const [group, resource] = splitGR(g);
      const rt = this.registry.storageType(group, resource);
      if (!rt) continue;
      const m = asObj(stored.obj.metadata) ?? {};
      if (propagation === "Orphan") {
        const next = clone(stored.obj);
        const nm = md(next);
        const remaining = refs.filter((r) => asObj(r)?.uid !== ownerUid);
        if (remaining.length > 0) nm.ownerReferences = remaining;
        else delete nm.ownerReferences;
        const managers = decodeManagers(stored.obj);
        trackUpdate(stored.obj, next, managers, this.trackingOptions(rt, "kube-controller-manager"));
        this.withManagers(next, managers);
        this.store.put(g, key, canonicalize(rt, next));
        continue;
      }
      const fin = m.finalizers;
      if (Array.isArray(fin) && fin.length > 0) {
        this.delete(rt, asStr(m.namespace), asStr(m.name) ?? "", { dryRun: false, propagationPolicy: "Background" });
      } else {
        this.removeNow(rt, asStr(m.namespace), asStr(m.name) ?? "", "Background");
      }
    }
  }

  deleteCollection(rt: ResourceType, namespace: string | undefined, q: ListQuery, opts: DeleteOptions): Obj {
    const listed = this.list(rt, namespace, { labelSelector: q.labelSelector, fieldSelector: q.fieldSelector });
    const items: Obj[] = [];
    for (const it of listed.items) {
      const m = asObj(it.obj.metadata) ?? {};
      try {
        const r = this.delete(rt, asStr(m.namespace), asStr(m.name) ?? "", opts);
        items.push(r.body.kind === "Status" ? it.obj : r.body);
      } catch (e) {
        if (!(e instanceof StatusError && e.code === 404)) throw e;
      }
    }
    const av = apiVersionOf(rt);
    return {
      kind: rt.listKind,
      apiVersion: av,
      metadata: { resourceVersion: String(this.store.rv) },
      items: rt.builtin ? items.map(({ kind: _k, apiVersion: _a, ...rest }) => rest) : items,
    };
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

function pathSet(path: string[]): FieldSet {
  const s = new FieldSet();
  s.insert(path);
  return s;
}

export function splitGR(g: string): [string, string] {
  const i = g.indexOf("/");
  return [g.slice(0, i), g.slice(i + 1)];
}

export { OBJECT_META };
