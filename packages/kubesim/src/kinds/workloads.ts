// Workload kinds beyond Deployment and StatefulSet: Pod, ReplicaSet and
// DaemonSet (apps/v1); Job and CronJob are in batch.ts. Defaults follow
// SetDefaults_* of k8s.io/kubernetes pkg/apis/{core,apps}/v1 and the
// admission plugins a default cluster runs (Priority, DefaultTolerationSeconds).
import { closed, CONDITIONS, LABEL_SELECTOR, POD_SPEC, POD_TEMPLATE_SPEC, topLevel } from "../builtin-schemas";
import { defaultPodSpec, defaultPodTemplate, setIfAbsent } from "../defaults";
import type { FieldError } from "../errors";
import { asNum, asObj, asStr, child, deepEqual, getIn, isObj, type Obj } from "../json";
import { ATOMIC_LIST, I32, SCALAR, STR, struct } from "../schema";
import { ageCol, col, nameCol, type Column } from "../table-columns";
import { goMap, selectorMatchesLabels, validateContainers, validateLabels } from "../validation";
import type { KindSupport } from "./index";
import { formatLabelSelector } from "./policy";

const POD = topLevel("v1.Pod", {
  spec: POD_SPEC,
  status: struct({ conditions: CONDITIONS, containerStatuses: ATOMIC_LIST, initContainerStatuses: ATOMIC_LIST, podIPs: ATOMIC_LIST, hostIPs: ATOMIC_LIST }),
});
const REPLICA_SET = topLevel("v1.ReplicaSet", {
  spec: closed("v1.ReplicaSetSpec", { replicas: I32, minReadySeconds: I32, selector: LABEL_SELECTOR, template: POD_TEMPLATE_SPEC }),
  status: struct({ conditions: CONDITIONS }),
});
const DAEMON_SET = topLevel("v1.DaemonSet", {
  spec: closed("v1.DaemonSetSpec", {
    selector: LABEL_SELECTOR,
    template: POD_TEMPLATE_SPEC,
    updateStrategy: closed("v1.DaemonSetUpdateStrategy", { type: STR, rollingUpdate: closed("v1.RollingUpdateDaemonSet", { maxUnavailable: SCALAR, maxSurge: SCALAR }) }),
    minReadySeconds: I32,
    revisionHistoryLimit: I32,
  }),
  status: struct({ conditions: CONDITIONS }),
});
/** The template metadata a Go round trip writes for an empty ObjectMeta value, as defaultPodTemplate writes it. */
export function zeroTemplateMeta(md: Obj): void {
  const probe: Obj = {};
  defaultPodTemplate(probe);
  for (const [k, v] of Object.entries(asObj(probe.metadata) ?? {})) if (md[k] === undefined) md[k] = v;
}

function templateOf(o: Obj, path: string[] = ["spec", "template"]): Obj {
  return asObj(getIn(o, path)) ?? {};
}

function containersOf(o: Obj, path: string[] = ["spec", "template"]): Obj[] {
  const c = getIn(templateOf(o, path), ["spec", "containers"]);
  return Array.isArray(c) ? c.filter(isObj) : [];
}

export const containerCols = (path?: string[]): Column[] => [
  col("Containers", "string", "Names of each container in the template.", (o) => containersOf(o, path).map((c) => String(c.name)).join(","), 1),
  col("Images", "string", "Images referenced by each container in the template.", (o) => containersOf(o, path).map((c) => String(c.image)).join(","), 1),
];

export function validateSelector(obj: Obj, old: Obj | undefined, errs: FieldError[], kindWord: string): void {
  const spec = asObj(obj.spec) ?? {};
  const tpl = asObj(spec.template) ?? {};
  if (!isObj(spec.selector)) {
    errs.push({ type: "Required", field: "spec.selector" });
    return;
  }
  const s = spec.selector;
  if (Object.keys(asObj(s.matchLabels) ?? {}).length === 0 && !(Array.isArray(s.matchExpressions) && s.matchExpressions.length > 0)) {
    errs.push({ type: "Invalid", field: "spec.selector", value: "", detail: `empty selector is invalid for ${kindWord}` });
  } else if (!selectorMatchesLabels(s, asObj(tpl.metadata)?.labels)) {
    errs.push({ type: "Invalid", field: "spec.template.metadata.labels", value: goMap(asObj(tpl.metadata)?.labels), detail: "`selector` does not match template `labels`" });
  }
  if (old && !deepEqual(asObj(old.spec)?.selector, spec.selector)) errs.push({ type: "Invalid", field: "spec.selector", value: spec.selector, detail: "field is immutable" });
}

export function validateTemplate(tpl: unknown, path: string, errs: FieldError[], restartPolicies: string[]): void {
  const t = asObj(tpl) ?? {};
  validateLabels(asObj(t.metadata)?.labels, `${path}.metadata.labels`, errs);
  const spec = asObj(t.spec) ?? {};
  validateContainers(spec.containers, `${path}.spec.containers`, errs, true);
  validateContainers(spec.initContainers, `${path}.spec.initContainers`, errs, false);
  const rp = asStr(spec.restartPolicy) ?? "";
  if (!restartPolicies.includes(rp)) {
    if (restartPolicies.includes("Always")) errs.push({ type: "NotSupported", field: `${path}.spec.restartPolicy`, value: rp, detail: 'supported values: "Always"' });
    else errs.push({ type: "Required", field: `${path}.spec.restartPolicy`, detail: `valid values: ${restartPolicies.map((p) => JSON.stringify(p)).join(", ")}` });
  }
}

// ---- Pod

const NOT_READY_TOLERATIONS = [
  { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
  { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
];

/** v1qos.GetPodQOS for the common cases: no requests/limits, all equal, otherwise Burstable. */
export function podQOS(spec: Obj): string {
  const containers = [...(Array.isArray(spec.containers) ? spec.containers : []), ...(Array.isArray(spec.initContainers) ? spec.initContainers : [])].filter(isObj);
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const req = asObj(asObj(c.resources)?.requests) ?? {};
    const lim = asObj(asObj(c.resources)?.limits) ?? {};
    if (Object.keys(req).length > 0 || Object.keys(lim).length > 0) any = true;
    for (const r of ["cpu", "memory"]) {
      if (lim[r] === undefined) guaranteed = false;
      else if (req[r] !== undefined && req[r] !== lim[r]) guaranteed = false;
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

function defaultPod(obj: Obj): void {
  const spec = child(obj, "spec");
  defaultPodSpec(spec);
  setIfAbsent(spec, "enableServiceLinks", true);
  // Admission: Priority and DefaultTolerationSeconds.
  setIfAbsent(spec, "priority", 0);
  setIfAbsent(spec, "preemptionPolicy", "PreemptLowerPriority");
  const tol = Array.isArray(spec.tolerations) ? spec.tolerations.filter(isObj) : [];
  for (const t of NOT_READY_TOLERATIONS) if (!tol.some((x) => x.key === t.key && x.effect === t.effect)) tol.push({ ...t });
  spec.tolerations = tol;
}

function podStatusText(o: Obj): string {
  if (getIn(o, ["metadata", "deletionTimestamp"])) return "Terminating";
  const statuses = getIn(o, ["status", "containerStatuses"]);
  for (const cs of Array.isArray(statuses) ? statuses : []) {
    const waiting = asStr(getIn(cs, ["state", "waiting", "reason"]));
    if (waiting) return waiting;
    const terminated = asStr(getIn(cs, ["state", "terminated", "reason"]));
    if (terminated) return terminated;
  }
  return asStr(getIn(o, ["status", "reason"])) ?? asStr(getIn(o, ["status", "phase"])) ?? "";
}

const podColumns = (): Column[] => [
  nameCol,
  col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic.", (o) => {
    const cs = getIn(o, ["status", "containerStatuses"]);
    const total = Array.isArray(getIn(o, ["spec", "containers"])) ? (getIn(o, ["spec", "containers"]) as unknown[]).length : 0;
    const ready = Array.isArray(cs) ? cs.filter((c) => asObj(c)?.ready === true).length : 0;
    return `${ready}/${total}`;
  }),
  col("Status", "string", "The aggregate status of the containers in this pod.", podStatusText),
  col("Restarts", "string", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.", (o) => {
    const cs = getIn(o, ["status", "containerStatuses"]);
    return String((Array.isArray(cs) ? cs : []).reduce((n: number, c) => n + (asNum(asObj(c)?.restartCount) ?? 0), 0));
  }),
  ageCol,
  col("IP", "string", "IP address allocated to the pod.", (o) => asStr(getIn(o, ["status", "podIP"])) ?? "<none>", 1),
  col("Node", "string", "Name of the Node this pod is assigned to.", (o) => asStr(getIn(o, ["spec", "nodeName"])) ?? "<none>", 1),
  col("Nominated Node", "string", "Name of the node nominated for this pod.", (o) => asStr(getIn(o, ["status", "nominatedNodeName"])) ?? "<none>", 1),
  col("Readiness Gates", "string", "The readiness gates of this pod.", (o) => (Array.isArray(getIn(o, ["spec", "readinessGates"])) ? "" : "<none>"), 1),
];

// ---- ReplicaSet, DaemonSet

const replicaSetColumns = (): Column[] => [
  nameCol,
  col("Desired", "integer", "Number of desired pods.", (o) => asNum(getIn(o, ["spec", "replicas"])) ?? 0),
  col("Current", "integer", "Number of actual replicas.", (o) => asNum(getIn(o, ["status", "replicas"])) ?? 0),
  col("Ready", "integer", "The number of ready replicas.", (o) => asNum(getIn(o, ["status", "readyReplicas"])) ?? 0),
  ageCol,
  ...containerCols(),
  col("Selector", "string", "The label selector of the ReplicaSet.", (o) => formatLabelSelector(getIn(o, ["spec", "selector"])), 1),
];

const daemonSetColumns = (): Column[] => [
  nameCol,
  col("Desired", "integer", "The total number of nodes that should be running the daemon pod.", (o) => asNum(getIn(o, ["status", "desiredNumberScheduled"])) ?? 0),
  col("Current", "integer", "The number of nodes that are running at least 1 daemon pod.", (o) => asNum(getIn(o, ["status", "currentNumberScheduled"])) ?? 0),
  col("Ready", "integer", "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.", (o) => asNum(getIn(o, ["status", "numberReady"])) ?? 0),
  col("Up-to-date", "integer", "The total number of nodes that are running updated daemon pod.", (o) => asNum(getIn(o, ["status", "updatedNumberScheduled"])) ?? 0),
  col("Available", "integer", "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.", (o) => asNum(getIn(o, ["status", "numberAvailable"])) ?? 0),
  col("Node Selector", "string", "NodeSelector is a selector which must be true for the pod to fit on a node.", (o) => {
    const ns = asObj(getIn(o, ["spec", "template", "spec", "nodeSelector"]));
    return ns && Object.keys(ns).length > 0 ? Object.keys(ns).sort().map((k) => `${k}=${String(ns[k])}`).join(",") : "<none>";
  }),
  ageCol,
  ...containerCols(),
  col("Selector", "string", "A label query over pods that are managed by the daemon set.", (o) => formatLabelSelector(getIn(o, ["spec", "selector"])), 1),
];

const DS_TEMPLATE_GENERATION = "deprecated.daemonset.template.generation";

export const WORKLOAD_KINDS: KindSupport[] = [
  {
    type: {
      group: "",
      version: "v1",
      resource: "pods",
      kind: "Pod",
      namespaced: true,
      schema: POD,
      shortNames: ["po"],
      categories: ["all"],
      status: true,
      generation: "spec",
      extraFieldSelectors: ["spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"],
    },
    defaults: defaultPod,
    emptyShape: () => ({ metadata: { creationTimestamp: null }, spec: { containers: null }, status: {} }),
    statusOnCreate: (obj) => ({ phase: "Pending", qosClass: podQOS(asObj(obj.spec) ?? {}) }),
    validate: (obj, _old, errs) => {
      const spec = asObj(obj.spec) ?? {};
      validateContainers(spec.containers, "spec.containers", errs, true);
      validateContainers(spec.initContainers, "spec.initContainers", errs, false);
    },
    columns: podColumns,
  },
  {
    type: { group: "apps", version: "v1", resource: "replicasets", kind: "ReplicaSet", namespaced: true, schema: REPLICA_SET, shortNames: ["rs"], categories: ["all"], status: true, scale: true, generation: "spec" },
    defaults: (obj) => {
      const spec = child(obj, "spec");
      setIfAbsent(spec, "replicas", 1);
      if (spec.selector === undefined) spec.selector = null;
      defaultPodTemplate(child(spec, "template"));
      if (!isObj(obj.status)) obj.status = { replicas: 0 };
    },
    emptyShape: () => ({ metadata: { creationTimestamp: null }, spec: { selector: null, template: { metadata: { creationTimestamp: null }, spec: { containers: null } } }, status: { replicas: 0 } }),
    statusOnCreate: () => ({ replicas: 0 }),
    validate: (obj, old, errs) => {
      validateSelector(obj, old, errs, "replicaset");
      const r = getIn(obj, ["spec", "replicas"]);
      if (typeof r === "number" && r < 0) errs.push({ type: "Invalid", field: "spec.replicas", value: r, detail: "must be greater than or equal to 0" });
      validateTemplate(getIn(obj, ["spec", "template"]), "spec.template", errs, ["Always"]);
    },
    columns: replicaSetColumns,
  },
  {
    type: { group: "apps", version: "v1", resource: "daemonsets", kind: "DaemonSet", namespaced: true, schema: DAEMON_SET, shortNames: ["ds"], categories: ["all"], status: true, generation: "spec" },
    defaults: (obj) => {
      const spec = child(obj, "spec");
      const us = child(spec, "updateStrategy");
      if (!us.type) us.type = "RollingUpdate";
      if (us.type === "RollingUpdate") {
        const ru = child(us, "rollingUpdate");
        setIfAbsent(ru, "maxUnavailable", 1);
        setIfAbsent(ru, "maxSurge", 0);
      }
      setIfAbsent(spec, "revisionHistoryLimit", 10);
      if (spec.selector === undefined) spec.selector = null;
      defaultPodTemplate(child(spec, "template"));
    },
    emptyShape: () => ({
      metadata: { creationTimestamp: null },
      spec: { selector: null, template: { metadata: { creationTimestamp: null }, spec: { containers: null } }, updateStrategy: {} },
      status: { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
    }),
    decodeForCreate: (obj) => {
      child(child(obj, "metadata"), "annotations")[DS_TEMPLATE_GENERATION] = "1";
    },
    prepareForUpdate: (next, old) => {
      // The annotation mirrors the internal TemplateGeneration, which an update that leaves it out keeps.
      const prev = Number(asObj(getIn(old, ["metadata", "annotations"]))?.[DS_TEMPLATE_GENERATION] ?? 0) || 0;
      const changed = !deepEqual(getIn(next, ["spec", "template"]), getIn(old, ["spec", "template"]));
      child(child(next, "metadata"), "annotations")[DS_TEMPLATE_GENERATION] = String(changed ? prev + 1 : prev);
    },
    statusOnCreate: () => ({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }),
    validate: (obj, old, errs) => {
      validateSelector(obj, old, errs, "daemonset");
      validateTemplate(getIn(obj, ["spec", "template"]), "spec.template", errs, ["Always"]);
      const t = getIn(obj, ["spec", "updateStrategy", "type"]);
      if (t !== "RollingUpdate" && t !== "OnDelete") errs.push({ type: "NotSupported", field: "spec.updateStrategy.type", value: t ?? "", detail: 'supported values: "OnDelete", "RollingUpdate"' });
    },
    columns: daemonSetColumns,
  },
];
