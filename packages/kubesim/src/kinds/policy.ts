// Storage, quota and policy kinds, and core/v1 Events: PersistentVolumeClaim,
// ResourceQuota, LimitRange (core/v1), NetworkPolicy (networking.k8s.io/v1),
// PodDisruptionBudget (policy/v1), Event (core/v1).
import { closed, CONDITIONS, LABEL_SELECTOR, RESOURCE_LIST, topLevel } from "../builtin-schemas";
import { canonicalResourceList, setIfAbsent } from "../defaults";
import type { FieldError } from "../errors";
import { asNum, asObj, asStr, child, deepEqual, getIn, isObj, type Obj } from "../json";
import { isValidQuantity } from "../quantity";
import { ATOMIC_LIST, atomicList, I32, OPEN, SCALAR, STR, struct } from "../schema";
import { AGE_DESC, ageCol, col, humanDuration, nameCol, type Column } from "../table-columns";
import type { KindSupport } from "./index";

const OBJECT_REFERENCE = closed("v1.ObjectReference", { kind: STR, namespace: STR, name: STR, uid: STR, apiVersion: STR, resourceVersion: STR, fieldPath: STR });

const PVC_SPEC = closed("v1.PersistentVolumeClaimSpec", {
  accessModes: atomicList(STR),
  selector: LABEL_SELECTOR,
  resources: closed("v1.VolumeResourceRequirements", { limits: RESOURCE_LIST, requests: RESOURCE_LIST }),
  volumeName: STR,
  storageClassName: STR,
  volumeMode: STR,
  dataSource: OPEN,
  dataSourceRef: OPEN,
  volumeAttributesClassName: STR,
});
const PERSISTENT_VOLUME_CLAIM = topLevel("v1.PersistentVolumeClaim", {
  spec: PVC_SPEC,
  status: struct({ phase: STR, accessModes: atomicList(STR), capacity: RESOURCE_LIST, allocatedResources: RESOURCE_LIST, conditions: CONDITIONS }),
});
const RESOURCE_QUOTA = topLevel("v1.ResourceQuota", {
  spec: closed("v1.ResourceQuotaSpec", { hard: RESOURCE_LIST, scopes: atomicList(STR), scopeSelector: OPEN }),
  status: struct({ hard: RESOURCE_LIST, used: RESOURCE_LIST }),
});
const LIMIT_RANGE_ITEM = closed("v1.LimitRangeItem", {
  type: STR,
  max: RESOURCE_LIST,
  min: RESOURCE_LIST,
  default: RESOURCE_LIST,
  defaultRequest: RESOURCE_LIST,
  maxLimitRequestRatio: RESOURCE_LIST,
});
const LIMIT_RANGE = topLevel("v1.LimitRange", { spec: closed("v1.LimitRangeSpec", { limits: atomicList(LIMIT_RANGE_ITEM) }) });
const NETWORK_POLICY = topLevel("v1.NetworkPolicy", {
  spec: closed("v1.NetworkPolicySpec", { podSelector: LABEL_SELECTOR, ingress: ATOMIC_LIST, egress: ATOMIC_LIST, policyTypes: atomicList(STR) }),
});
const POD_DISRUPTION_BUDGET = topLevel("v1.PodDisruptionBudget", {
  spec: closed("v1.PodDisruptionBudgetSpec", { minAvailable: SCALAR, maxUnavailable: SCALAR, selector: LABEL_SELECTOR, unhealthyPodEvictionPolicy: STR }),
  status: struct({ conditions: CONDITIONS }),
});
const EVENT = topLevel("v1.Event", {
  involvedObject: OBJECT_REFERENCE,
  reason: STR,
  message: STR,
  source: closed("v1.EventSource", { component: STR, host: STR }),
  firstTimestamp: SCALAR,
  lastTimestamp: SCALAR,
  count: I32,
  type: STR,
  eventTime: SCALAR,
  series: OPEN,
  action: STR,
  related: OBJECT_REFERENCE,
  reportingComponent: STR,
  reportingInstance: STR,
});

// ---- PersistentVolumeClaim

function defaultPVC(obj: Obj): void {
  const spec = child(obj, "spec");
  setIfAbsent(spec, "volumeMode", "Filesystem");
  const r = asObj(spec.resources);
  if (r) {
    canonicalResourceList(r.requests);
    canonicalResourceList(r.limits);
  }
  setIfAbsent(child(obj, "status"), "phase", "Pending");
}

function validatePVC(obj: Obj, old: Obj | undefined, errs: FieldError[]): void {
  const spec = asObj(obj.spec) ?? {};
  if (!Array.isArray(spec.accessModes) || spec.accessModes.length === 0) {
    errs.push({ type: "Required", field: "spec.accessModes", detail: "at least 1 access mode is required" });
  }
  const modes = ["ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"];
  for (const m of Array.isArray(spec.accessModes) ? spec.accessModes : []) {
    if (!modes.includes(String(m))) errs.push({ type: "NotSupported", field: "spec.accessModes", value: m, detail: modes.map((x) => JSON.stringify(x)).join(", ").replace(/^/, "supported values: ") });
  }
  const storage = getIn(spec, ["resources", "requests", "storage"]);
  if (storage === undefined) errs.push({ type: "Required", field: "spec.resources[storage]" });
  else if (!isValidQuantity(storage)) errs.push({ type: "Invalid", field: "spec.resources.requests[storage]", value: storage, detail: "must be a valid quantity" });
  if (old) {
    const strip = (s: unknown) => {
      const c = structuredClone(asObj(s) ?? {});
      delete asObj(c.resources)?.requests;
      if (isObj(c.resources) && Object.keys(c.resources).length === 0) delete c.resources;
      delete c.volumeAttributesClassName;
      delete c.volumeName;
      return c;
    };
    if (!deepEqual(strip(old.spec), strip(obj.spec))) {
      errs.push({ type: "Forbidden", field: "spec", detail: "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims" });
    }
  }
}

const pvcColumns = (): Column[] => [
  nameCol,
  col("Status", "string", "The phase of the claim.", (o) => asStr(getIn(o, ["status", "phase"])) ?? ""),
  col("Volume", "string", "The volume bound to the claim.", (o) => asStr(getIn(o, ["spec", "volumeName"])) ?? ""),
  col("Capacity", "string", "The capacity of the bound volume.", (o) => asStr(getIn(o, ["status", "capacity", "storage"])) ?? ""),
  col("Access Modes", "string", "The access modes of the bound volume.", (o) => accessModesText(getIn(o, ["status", "accessModes"]))),
  col("StorageClass", "string", "The storage class of the claim.", (o) => asStr(getIn(o, ["spec", "storageClassName"])) ?? "<unset>"),
  col("VolumeAttributesClass", "string", "The volume attributes class of the claim.", (o) => asStr(getIn(o, ["spec", "volumeAttributesClassName"])) ?? "<unset>"),
  ageCol,
  col("VolumeMode", "string", "The volume mode of the claim.", (o) => asStr(getIn(o, ["spec", "volumeMode"])) ?? "<unset>", 1),
];

function accessModesText(modes: unknown): string {
  const short: Record<string, string> = { ReadWriteOnce: "RWO", ReadOnlyMany: "ROX", ReadWriteMany: "RWX", ReadWriteOncePod: "RWOP" };
  return (Array.isArray(modes) ? modes : []).map((m) => short[String(m)] ?? String(m)).join(",");
}

// ---- ResourceQuota, LimitRange

function validateResourceList(rl: unknown, path: string, errs: FieldError[]): void {
  for (const [k, v] of Object.entries(asObj(rl) ?? {})) {
    if (!isValidQuantity(v)) errs.push({ type: "Invalid", field: `${path}[${k}]`, value: v, detail: "must be a valid quantity" });
  }
}

function quotaText(o: Obj, prefix: "requests" | "limits"): string {
  const hard = asObj(getIn(o, ["status", "hard"])) ?? {};
  const used = asObj(getIn(o, ["status", "used"])) ?? {};
  return Object.keys(hard)
    .filter((k) => (prefix === "limits" ? k.startsWith("limits.") : !k.startsWith("limits.")))
    .sort()
    .map((k) => `${k}: ${String(used[k] ?? "0")}/${String(hard[k])}`)
    .join(", ");
}

/** SetDefaults_LimitRangeItem: a Container limit defaults from max, its request from the limit, then from min. */
function defaultLimitRange(obj: Obj): void {
  for (const item of Array.isArray(getIn(obj, ["spec", "limits"])) ? (getIn(obj, ["spec", "limits"]) as unknown[]) : []) {
    if (!isObj(item)) continue;
    for (const k of ["max", "min", "default", "defaultRequest", "maxLimitRequestRatio"]) canonicalResourceList(item[k]);
    if (item.type !== "Container") continue;
    const def: Obj = asObj(item.default) ?? {};
    const req: Obj = asObj(item.defaultRequest) ?? {};
    for (const [k, v] of Object.entries(asObj(item.max) ?? {})) if (def[k] === undefined) def[k] = v;
    for (const [k, v] of Object.entries(def)) if (req[k] === undefined) req[k] = v;
    for (const [k, v] of Object.entries(asObj(item.min) ?? {})) if (req[k] === undefined) req[k] = v;
    if (Object.keys(def).length > 0) item.default = def;
    if (Object.keys(req).length > 0) item.defaultRequest = req;
  }
}

// ---- NetworkPolicy

function defaultNetworkPolicy(obj: Obj): void {
  const spec = child(obj, "spec");
  if (!isObj(spec.podSelector)) spec.podSelector = {};
  for (const dir of ["ingress", "egress"]) {
    for (const rule of Array.isArray(spec[dir]) ? (spec[dir] as unknown[]) : []) {
      for (const p of Array.isArray(asObj(rule)?.ports) ? (asObj(rule)?.ports as unknown[]) : []) if (isObj(p) && !p.protocol) p.protocol = "TCP";
    }
  }
  if (!Array.isArray(spec.policyTypes) || spec.policyTypes.length === 0) {
    spec.policyTypes = Array.isArray(spec.egress) && spec.egress.length > 0 ? ["Ingress", "Egress"] : ["Ingress"];
  }
}

function validateNetworkPolicy(obj: Obj, errs: FieldError[]): void {
  const types = getIn(obj, ["spec", "policyTypes"]);
  (Array.isArray(types) ? types : []).forEach((t, i) => {
    if (t !== "Ingress" && t !== "Egress") errs.push({ type: "NotSupported", field: `spec.policyTypes[${i}]`, value: t, detail: 'supported values: "Ingress", "Egress"' });
  });
  for (const dir of ["ingress", "egress"]) {
    const rules = getIn(obj, ["spec", dir]);
    (Array.isArray(rules) ? rules : []).forEach((r, i) => {
      const ports = asObj(r)?.ports;
      (Array.isArray(ports) ? ports : []).forEach((p, j) => {
        const proto = asObj(p)?.protocol;
        if (proto !== undefined && !["TCP", "UDP", "SCTP"].includes(String(proto))) {
          errs.push({ type: "NotSupported", field: `spec.${dir}[${i}].ports[${j}].protocol`, value: proto, detail: 'supported values: "SCTP", "TCP", "UDP"' });
        }
      });
    });
  }
}

/** metav1.FormatLabelSelector */
export function formatLabelSelector(sel: unknown): string {
  const s = asObj(sel);
  if (!s) return "<none>";
  const parts: string[] = [];
  for (const k of Object.keys(asObj(s.matchLabels) ?? {}).sort()) parts.push(`${k}=${String((s.matchLabels as Obj)[k])}`);
  for (const e of Array.isArray(s.matchExpressions) ? s.matchExpressions : []) {
    const ex = asObj(e) ?? {};
    const vals = Array.isArray(ex.values) ? ex.values.map(String).join(",") : "";
    if (ex.operator === "In") parts.push(`${String(ex.key)} in (${vals})`);
    else if (ex.operator === "NotIn") parts.push(`${String(ex.key)} notin (${vals})`);
    else if (ex.operator === "Exists") parts.push(String(ex.key));
    else if (ex.operator === "DoesNotExist") parts.push(`!${String(ex.key)}`);
  }
  const out = parts.join(",");
  return out === "" ? "<none>" : out;
}

// ---- PodDisruptionBudget

function validatePDB(obj: Obj, errs: FieldError[]): void {
  const spec = asObj(obj.spec) ?? {};
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
    errs.push({ type: "Invalid", field: "spec", value: spec, detail: "minAvailable and maxUnavailable cannot be both set" });
  }
  for (const k of ["minAvailable", "maxUnavailable"]) {
    const v = spec[k];
    if (typeof v === "number" && v < 0) errs.push({ type: "Invalid", field: `spec.${k}`, value: v, detail: "must be greater than or equal to 0" });
    if (typeof v === "string" && !/^\d+%$/.test(v)) errs.push({ type: "Invalid", field: `spec.${k}`, value: v, detail: 'a valid percent string must be a numeric string followed by an ending \'%\' (e.g. \'1%\',  or \'93%\', regex used for validation is \'[0-9]+%\')' });
  }
}

// ---- Event

function eventTime(o: Obj, key: "lastTimestamp" | "firstTimestamp", now: number): string {
  const ts = asStr(o[key]) ?? asStr(o.eventTime);
  return ts ? humanDuration(now - Date.parse(ts)) : "<unknown>";
}

const eventColumns = (): Column[] => [
  col("Last Seen", "string", "The time at which the most recent occurrence of this event was recorded.", (o, now) => eventTime(o, "lastTimestamp", now)),
  col("Type", "string", "Type of this event (Normal, Warning), new types could be added in the future.", (o) => asStr(o.type) ?? ""),
  col("Reason", "string", "This should be a short, machine understandable string that gives the reason for this event being generated.", (o) => asStr(o.reason) ?? ""),
  col("Object", "string", "The object this Event is about.", (o) => `${(asStr(getIn(o, ["involvedObject", "kind"])) ?? "").toLowerCase()}/${asStr(getIn(o, ["involvedObject", "name"])) ?? ""}`),
  col("Subobject", "string", "The subobject this Event is about.", (o) => asStr(getIn(o, ["involvedObject", "fieldPath"])) ?? "", 1),
  col("Source", "string", "The component reporting this event.", (o) => {
    const comp = asStr(getIn(o, ["source", "component"])) ?? asStr(o.reportingComponent) ?? "";
    const host = asStr(getIn(o, ["source", "host"]));
    return host ? `${comp}, ${host}` : comp;
  }, 1),
  col("Message", "string", "A human-readable description of the status of this operation.", (o) => asStr(o.message) ?? ""),
  col("First Seen", "string", "The time at which the event was first recorded.", (o, now) => eventTime(o, "firstTimestamp", now), 1),
  col("Count", "string", "The number of times this event has occurred.", (o) => asNum(o.count) ?? 1, 1),
  col("Name", "string", "Name of the event.", (o) => asStr(getIn(o, ["metadata", "name"])) ?? "", 1),
];

export const POLICY_KINDS: KindSupport[] = [
  {
    type: { group: "", version: "v1", resource: "persistentvolumeclaims", kind: "PersistentVolumeClaim", namespaced: true, schema: PERSISTENT_VOLUME_CLAIM, shortNames: ["pvc"], status: true },
    defaults: defaultPVC,
    emptyShape: () => ({ metadata: { creationTimestamp: null }, spec: { resources: {} }, status: {} }),
    // The StorageObjectInUseProtection admission plugin; the claim's finalizer is lifted on delete since no pod can use it here.
    prepareForCreate: (obj) => {
      const md = child(obj, "metadata");
      const fin = Array.isArray(md.finalizers) ? md.finalizers : [];
      if (!fin.includes("kubernetes.io/pvc-protection")) md.finalizers = [...fin, "kubernetes.io/pvc-protection"];
    },
    statusOnCreate: () => ({ phase: "Pending" }),
    validate: validatePVC,
    columns: pvcColumns,
  },
  {
    type: { group: "", version: "v1", resource: "resourcequotas", kind: "ResourceQuota", namespaced: true, schema: RESOURCE_QUOTA, shortNames: ["quota"], status: true },
    defaults: (obj) => {
      canonicalResourceList(getIn(obj, ["spec", "hard"]));
      child(obj, "spec");
      child(obj, "status");
    },
    emptyShape: () => ({ metadata: { creationTimestamp: null }, spec: {}, status: {} }),
    statusOnCreate: () => ({}),
    validate: (obj, _old, errs) => validateResourceList(getIn(obj, ["spec", "hard"]), "spec.hard", errs),
    columns: () => [
      nameCol,
      ageCol,
      col("Request", "string", "Request represents a minimum amount of cpu/memory that a container may consume.", (o) => quotaText(o, "requests")),
      col("Limit", "string", "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.", (o) => quotaText(o, "limits")),
    ],
  },
  {
    type: { group: "", version: "v1", resource: "limitranges", kind: "LimitRange", namespaced: true, schema: LIMIT_RANGE, shortNames: ["limits"] },
    defaults: (obj) => {
      child(obj, "spec");
      defaultLimitRange(obj);
    },
    emptyShape: () => ({ metadata: { creationTimestamp: null }, spec: { limits: null } }),
    validate: (obj, _old, errs) => {
      const limits = getIn(obj, ["spec", "limits"]);
      (Array.isArray(limits) ? limits : []).forEach((l, i) => {
        if (!asStr(asObj(l)?.type)) errs.push({ type: "Required", field: `spec.limits[${i}].type` });
        for (const k of ["max", "min", "default", "defaultRequest", "maxLimitRequestRatio"]) validateResourceList(asObj(l)?.[k], `spec.limits[${i}].${k}`, errs);
      });
    },
    columns: () => [nameCol, { name: "Created At", type: "date", description: AGE_DESC, priority: 0, cell: (o) => asStr(asObj(o.metadata)?.creationTimestamp) ?? "" }],
  },
  {
    type: { group: "networking.k8s.io", version: "v1", resource: "networkpolicies", kind: "NetworkPolicy", namespaced: true, schema: NETWORK_POLICY, shortNames: ["netpol"], generation: "spec" },
    defaults: defaultNetworkPolicy,
    emptyShape: () => ({ metadata: { creationTimestamp: null }, spec: { podSelector: {} } }),
    validate: (obj, _old, errs) => validateNetworkPolicy(obj, errs),
    columns: () => [nameCol, col("Pod-Selector", "string", "Selects the pods to which this NetworkPolicy object applies.", (o) => formatLabelSelector(getIn(o, ["spec", "podSelector"]))), ageCol],
  },
  {
    type: { group: "policy", version: "v1", resource: "poddisruptionbudgets", kind: "PodDisruptionBudget", namespaced: true, schema: POD_DISRUPTION_BUDGET, shortNames: ["pdb"], status: true, generation: "spec" },
    defaults: (obj) => {
      child(obj, "spec");
      if (!isObj(obj.status)) obj.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
    },
    emptyShape: () => ({ metadata: { creationTimestamp: null }, spec: {}, status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 } }),
    statusOnCreate: () => ({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }),
    validate: (obj, _old, errs) => validatePDB(obj, errs),
    columns: () => [
      nameCol,
      col("Min Available", "string", "The minimum number of pods that must be available.", (o) => (getIn(o, ["spec", "minAvailable"]) === undefined ? "N/A" : String(getIn(o, ["spec", "minAvailable"])))),
      col("Max Unavailable", "string", "The maximum number of pods that may be unavailable.", (o) => (getIn(o, ["spec", "maxUnavailable"]) === undefined ? "N/A" : String(getIn(o, ["spec", "maxUnavailable"])))),
      col("Allowed Disruptions", "integer", "Calculated number of pods that may be disrupted at this time.", (o) => asNum(getIn(o, ["status", "disruptionsAllowed"])) ?? 0),
      ageCol,
    ],
  },
  {
    type: {
      group: "",
      version: "v1",
      resource: "events",
      kind: "Event",
      namespaced: true,
      schema: EVENT,
      shortNames: ["ev"],
      extraFieldSelectors: [
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "involvedObject.resourceVersion",
        "involvedObject.fieldPath",
        "reason",
        "reportingComponent",
        "source",
        "type",
      ],
    },
    defaults: (obj) => {
      child(obj, "involvedObject");
      child(obj, "source");
      for (const k of ["firstTimestamp", "lastTimestamp", "eventTime"]) if (obj[k] === undefined) obj[k] = null;
      for (const k of ["reportingComponent", "reportingInstance"]) if (obj[k] === undefined) obj[k] = "";
    },
    emptyShape: () => ({ metadata: { creationTimestamp: null }, involvedObject: {}, source: {}, firstTimestamp: null, lastTimestamp: null, eventTime: null, reportingComponent: "", reportingInstance: "" }),
    validate: (obj, _old, errs) => {
      const ns = asStr(getIn(obj, ["metadata", "namespace"]));
      const ions = asStr(getIn(obj, ["involvedObject", "namespace"]));
      if (ions && ns && ions !== ns) errs.push({ type: "Invalid", field: "involvedObject.namespace", value: ions, detail: "does not match event.namespace" });
    },
    columns: eventColumns,
  },
];
