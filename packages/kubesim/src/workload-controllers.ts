// What kube-controller-manager, the scheduler and a kubelet would do with
// workloads, with no containers run: Deployments roll out through
// ReplicaSets (pod-template-hash, revision annotations, scaling old sets
// down), ReplicaSets, StatefulSets, DaemonSets and Jobs create Pods that
// report Running (or Succeeded for Jobs) at once, and each step writes the
// Event a real cluster writes. `kubectl rollout status/undo/history`,
// `describe` and `get events` read the same objects they read on a cluster.
import { createHash, randomBytes } from "node:crypto";
import type { ApiCore } from "./apiserver";
import { StatusError } from "./errors";
import { podQOS } from "./kinds/workloads";
import { asNum, asObj, asStr, clone, deepEqual, isObj, nowRfc3339, sortKeysDeep, type Obj } from "./json";
import type { Registry, ResourceType } from "./registry";
import type { StoreEvent } from "./store";

const KCM = "kube-controller-manager";
const KUBELET = "kubelet";
const NODE = "kubesim-node";
const HASH_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
const REVISION = "deployment.kubernetes.io/revision";
const TEMPLATE_HASH = "pod-template-hash";
const EVENT_TTL_MS = 60 * 60 * 1000;
/** Deployment annotations the controller does not copy onto its ReplicaSets (annotationsToSkip). */
const NOT_COPIED = new Set([
  "kubectl.kubernetes.io/last-applied-configuration",
  REVISION,
  "deployment.kubernetes.io/revision-history",
  "deployment.kubernetes.io/desired-replicas",
  "deployment.kubernetes.io/max-replicas",
  "deprecated.deployment.rollback.to",
]);

function safeEncode(bytes: Buffer, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += HASH_ALPHABET[(bytes[i] ?? 0) % HASH_ALPHABET.length];
  return s;
}

/** A stable pod-template-hash: same template (key order aside), same hash. */
export function podTemplateHash(template: unknown, collisionCount = 0): string {
  return safeEncode(createHash("sha256").update(JSON.stringify(sortKeysDeep(template ?? {}))).update(String(collisionCount)).digest(), 10);
}

function randomSuffix(): string {
  return safeEncode(randomBytes(5), 5);
}

function meta(o: Obj): Obj {
  return asObj(o.metadata) ?? {};
}

function withoutHashLabel(template: unknown): Obj {
  const t = clone(asObj(template) ?? {});
  const labels = asObj(asObj(t.metadata)?.labels);
  if (labels) {
    delete labels[TEMPLATE_HASH];
    if (Object.keys(labels).length === 0) delete (t.metadata as Obj).labels;
  }
  return t;
}

function ownerRef(kind: string, apiVersion: string, owner: Obj): Obj {
  const m = meta(owner);
  return { apiVersion, kind, name: m.name, uid: m.uid, controller: true, blockOwnerDeletion: true };
}

function controlledBy(o: Obj, uid: unknown): boolean {
  const refs = meta(o).ownerReferences;
  return Array.isArray(refs) && refs.some((r) => asObj(r)?.uid === uid && asObj(r)?.controller === true);
}

function intOrPercent(v: unknown, total: number, roundUp: boolean): number {
  if (typeof v === "number") return v;
  const m = /^(\d+)%$/.exec(String(v ?? ""));
  if (!m) return 0;
  const x = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

function podIP(): string {
  const b = randomBytes(2);
  return `10.244.0.${1 + ((b[0] ?? 0) % 253)}`;
}

export class WorkloadControllers {
  private eventSeq = 0;
  private eventsSinceSweep = 0;

  constructor(
    private readonly core: ApiCore,
    private readonly registry: Registry,
    private readonly enqueue: (id: string, fn: () => void) => void,
  ) {}

  start(sub: (gr: string, fn: (e: StoreEvent) => void) => void): void {
    const byKey = (prefix: string, fn: (key: string) => void) => (e: StoreEvent) => {
      if (e.type !== "DELETED") this.enqueue(`${prefix}|${e.key}`, () => fn(e.key));
    };
    sub("apps/deployments", byKey("wd", (k) => this.reconcileDeployment(k)));
    sub("apps/replicasets", byKey("wrs", (k) => this.reconcileReplicaSet(k)));
    sub("apps/statefulsets", byKey("wss", (k) => this.reconcileStatefulSet(k)));
    sub("apps/daemonsets", byKey("wds", (k) => this.reconcileDaemonSet(k)));
    sub("batch/jobs", byKey("wj", (k) => this.reconcileJob(k)));
    // A ReplicaSet's status follows its pods; a Deployment's follows its ReplicaSets.
    sub("/pods", (e) => this.requeueOwner(e.obj));
    // Pods made by hand (kubectl run, a bare manifest) are scheduled and started too.
    sub("/pods", (e) => {
      if (e.type === "ADDED" && !asObj(e.obj.spec)?.nodeName) this.enqueue(`wp|${e.key}`, () => this.scheduleBarePod(e.key));
    });
    sub("apps/replicasets", (e) => this.requeueOwner(e.obj));
  }

  private requeueOwner(obj: Obj): void {
    const m = meta(obj);
    const ref = (Array.isArray(m.ownerReferences) ? m.ownerReferences : []).map(asObj).find((r) => r?.controller === true);
    if (!ref) return;
    const key = `${asStr(m.namespace) ?? ""}/${asStr(ref.name) ?? ""}`;
    if (ref.kind === "ReplicaSet") this.enqueue(`wrs|${key}`, () => this.reconcileReplicaSet(key));
    else if (ref.kind === "Deployment") this.enqueue(`wd|${key}`, () => this.reconcileDeployment(key));
  }

  private rt(group: string, resource: string): ResourceType {
    const t = this.registry.storageType(group, resource);
    if (!t) throw new Error(`kubesim: ${resource} not served`);
    return t;
  }

  // ---------------------------------------------------------------- events

  /** A core/v1 Event as client-go's legacy EventRecorder writes it. */
  event(involved: Obj, type: "Normal" | "Warning", reason: string, message: string, component: string, apiVersion: string, kind: string): void {
    const m = meta(involved);
    const ns = asStr(m.namespace) ?? "default";
    const now = nowRfc3339();
    // Like client-go's recorder the suffix grows with time (microseconds here, within a double's
    // exact integers), so an object's events list in the order they happened.
    this.eventSeq = Math.max(this.eventSeq + 1, Date.parse(now) * 1000);
    const name = `${asStr(m.name) ?? ""}.${this.eventSeq.toString(16)}`;
    try {
      this.core.createAs(
        this.rt("", "events"),
        {
          apiVersion: "v1",
          kind: "Event",
          metadata: { name, namespace: ns },
          involvedObject: { apiVersion, kind, name: m.name, namespace: ns, uid: m.uid, resourceVersion: m.resourceVersion },
          reason,
          message,
          source: component === KUBELET ? { component, host: NODE } : { component },
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
          type,
          eventTime: null,
          reportingComponent: component,
          reportingInstance: component === KUBELET ? NODE : "",
        },
        component,
      );
    } catch (e) {
      // A namespace being deleted refuses new events; the real recorder drops them too.
      if (!(e instanceof StatusError)) throw e;
    }
    if (++this.eventsSinceSweep >= 100) this.expireEvents();
  }

  /** kube-apiserver keeps events for --event-ttl (1 h by default). */
  private expireEvents(): void {
    this.eventsSinceSweep = 0;
    const cutoff = Date.parse(nowRfc3339()) - EVENT_TTL_MS;
    const rt = this.rt("", "events");
    for (const key of this.core.store.keys("/events")) {
      const ev = this.core.store.get("/events", key)?.obj;
      const last = Date.parse(asStr(ev?.lastTimestamp) ?? asStr(asObj(ev?.metadata)?.creationTimestamp) ?? "");
      if (!ev || !(last < cutoff)) continue;
      this.core.removeNow(rt, asStr(asObj(ev.metadata)?.namespace), asStr(asObj(ev.metadata)?.name) ?? "", "Background");
    }
  }

  // ---------------------------------------------------------------- pods

  private ownedPods(owner: Obj): Obj[] {
    const uid = meta(owner).uid;
    if (typeof uid !== "string") return [];
    return this.core.store
      .dependentsOf(uid)
      .filter((d) => d.gr === "/pods" && controlledBy(d.stored.obj, uid))
      .map((d) => d.stored.obj);
  }

  /** Creates a pod from a template and reports it started, as scheduler and kubelet would. */
  private createPod(owner: Obj, ownerKind: string, template: Obj, name: string, extraLabels: Obj, outcome: "Running" | "Succeeded"): Obj | undefined {
    const om = meta(owner);
    const ns = asStr(om.namespace) ?? "default";
    const tm = asObj(template.metadata) ?? {};
    const pod: Obj = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name,
        namespace: ns,
        labels: { ...(asObj(tm.labels) ?? {}), ...extraLabels },
        ...(isObj(tm.annotations) ? { annotations: clone(tm.annotations) } : {}),
        ownerReferences: [ownerRef(ownerKind, ownerKind === "Job" ? "batch/v1" : "apps/v1", owner)],
      },
      spec: { ...clone(asObj(template.spec) ?? {}), nodeName: NODE },
    };
    let created: Obj;
    try {
      created = this.core.createAs(this.rt("", "pods"), pod, KCM);
    } catch (e) {
      if (e instanceof StatusError && (e.code === 409 || e.code === 403 || e.code === 404)) return undefined;
      throw e;
    }
    this.event(created, "Normal", "Scheduled", `Successfully assigned ${ns}/${name} to ${NODE}`, "default-scheduler", "v1", "Pod");
    this.startPod(created, outcome);
    return created;
  }

  private startPod(pod: Obj, outcome: "Running" | "Succeeded"): void {
    const spec = asObj(pod.spec) ?? {};
    const now = nowRfc3339();
    const containers = (Array.isArray(spec.containers) ? spec.containers : []).filter(isObj);
    for (const c of containers) {
      const image = String(c.image ?? "");
      this.event(pod, "Normal", "Pulled", `Container image "${image}" already present on machine`, KUBELET, "v1", "Pod");
      this.event(pod, "Normal", "Created", `Created container: ${String(c.name)}`, KUBELET, "v1", "Pod");
      this.event(pod, "Normal", "Started", `Started container ${String(c.name)}`, KUBELET, "v1", "Pod");
    }
    const running = outcome === "Running";
    const ip = podIP();
    const cond = (type: string, status: boolean, reason?: string): Obj => ({ type, status: status ? "True" : "False", lastProbeTime: null, lastTransitionTime: now, ...(reason ? { reason } : {}) });
    const status: Obj = {
      phase: outcome,
      conditions: [
        cond("PodReadyToStartContainers", running),
        cond("Initialized", true, running ? undefined : "PodCompleted"),
        cond("Ready", running, running ? undefined : "PodCompleted"),
        cond("ContainersReady", running, running ? undefined : "PodCompleted"),
        cond("PodScheduled", true),
      ],
      hostIP: "172.18.0.2",
      hostIPs: [{ ip: "172.18.0.2" }],
      podIP: ip,
      podIPs: [{ ip }],
      startTime: now,
      qosClass: podQOS(spec),
      containerStatuses: containers.map((c) => ({
        name: c.name,
        image: c.image,
        imageID: `${String(c.image).includes("/") ? "" : "docker.io/library/"}${String(c.image).split(":")[0]}@sha256:${createHash("sha256").update(String(c.image)).digest("hex")}`,
        containerID: `containerd://${randomBytes(32).toString("hex")}`,
        ready: running,
        started: running,
        restartCount: 0,
        state: running ? { running: { startedAt: now } } : { terminated: { exitCode: 0, reason: "Completed", startedAt: now, finishedAt: now, containerID: "" } },
        lastState: {},
      })),
    };
    const next = clone(pod);
    next.status = status;
    try {
      this.core.updateAs(this.rt("", "pods"), next, KUBELET, "status");
    } catch (e) {
      if (!(e instanceof StatusError)) throw e;
    }
  }

  private scheduleBarePod(key: string): void {
    const stored = this.core.store.get("/pods", key);
    if (!stored || meta(stored.obj).deletionTimestamp || asObj(stored.obj.spec)?.nodeName) return;
    const next = clone(stored.obj);
    (next.spec as Obj).nodeName = NODE;
    let bound: Obj;
    try {
      bound = this.core.updateAs(this.rt("", "pods"), next, "kube-scheduler");
    } catch (e) {
      if (e instanceof StatusError) return;
      throw e;
    }
    const m = meta(bound);
    this.event(bound, "Normal", "Scheduled", `Successfully assigned ${String(m.namespace)}/${String(m.name)} to ${NODE}`, "default-scheduler", "v1", "Pod");
    const restart = asStr(asObj(bound.spec)?.restartPolicy);
    this.startPod(bound, restart === "Never" || restart === "OnFailure" ? "Succeeded" : "Running");
  }

  private deletePod(owner: Obj, ownerKind: string, pod: Obj): void {
    const m = meta(pod);
    try {
      this.core.delete(this.rt("", "pods"), asStr(m.namespace), asStr(m.name) ?? "", { dryRun: false, propagationPolicy: "Background" });
    } catch (e) {
      if (!(e instanceof StatusError)) throw e;
      return;
    }
    this.event(pod, "Normal", "Killing", `Stopping container ${String(asObj((asObj(pod.spec)?.containers as unknown[] | undefined)?.[0])?.name ?? "")}`, KUBELET, "v1", "Pod");
    this.event(owner, "Normal", "SuccessfulDelete", `Deleted pod: ${String(m.name)}`, ownerKind === "ReplicaSet" ? "replicaset-controller" : `${ownerKind.toLowerCase()}-controller`, ownerKind === "Job" ? "batch/v1" : "apps/v1", ownerKind);
  }

  // ---------------------------------------------------------------- ReplicaSet

  private reconcileReplicaSet(key: string): void {
    const rt = this.rt("apps", "replicasets");
    const stored = this.core.store.get("apps/replicasets", key);
    if (!stored || meta(stored.obj).deletionTimestamp) return;
    const rs = stored.obj;
    const spec = asObj(rs.spec) ?? {};
    const want = asNum(spec.replicas) ?? 1;
    let pods = this.ownedPods(rs).filter((p) => !meta(p).deletionTimestamp);
    const base = asStr(meta(rs).name) ?? "";
    for (let i = pods.length; i < want; i++) {
      const name = `${base}-${randomSuffix()}`;
      const pod = this.createPod(rs, "ReplicaSet", asObj(spec.template) ?? {}, name, {}, "Running");
      if (pod) this.event(rs, "Normal", "SuccessfulCreate", `Created pod: ${name}`, "replicaset-controller", "apps/v1", "ReplicaSet");
    }
    if (pods.length > want) {
      // Newest first, as the real controller prefers deleting younger pods.
      const extra = [...pods].sort((a, b) => String(meta(b).creationTimestamp).localeCompare(String(meta(a).creationTimestamp)) || String(meta(b).name).localeCompare(String(meta(a).name))).slice(0, pods.length - want);
      for (const p of extra) this.deletePod(rs, "ReplicaSet", p);
    }
    pods = this.ownedPods(rs).filter((p) => !meta(p).deletionTimestamp);
    const ready = pods.filter((p) => asObj(p.status)?.phase === "Running").length;
    const status: Obj = { replicas: pods.length, fullyLabeledReplicas: pods.length, readyReplicas: ready, availableReplicas: ready, observedGeneration: asNum(meta(rs).generation) ?? 1 };
    if (pods.length === 0) {
      delete status.fullyLabeledReplicas;
      delete status.readyReplicas;
      delete status.availableReplicas;
    }
    const fresh = this.core.store.get("apps/replicasets", key);
    if (!fresh || deepEqual(fresh.obj.status, status)) return;
    const next = clone(fresh.obj);
    next.status = status;
    this.core.updateAs(rt, next, KCM, "status");
  }

  // ---------------------------------------------------------------- Deployment

  private ownedReplicaSets(d: Obj): Obj[] {
    const uid = meta(d).uid;
    if (typeof uid !== "string") return [];
    return this.core.store
      .dependentsOf(uid)
      .filter((x) => x.gr === "apps/replicasets" && controlledBy(x.stored.obj, uid))
      .map((x) => x.stored.obj);
  }

  private scaleReplicaSet(d: Obj, rs: Obj, replicas: number, annotations: Obj): void {
    const cur = asNum(asObj(rs.spec)?.replicas) ?? 0;
    const m = meta(rs);
    const next = clone(rs);
    (next.spec as Obj).replicas = replicas;
    (next.metadata as Obj).annotations = { ...(asObj(m.annotations) ?? {}), ...annotations };
    if (cur === replicas && deepEqual(next.metadata, rs.metadata)) return;
    this.core.updateAs(this.rt("apps", "replicasets"), next, KCM);
    if (cur !== replicas) {
      const verb = replicas > cur ? "up" : "down";
      this.event(d, "Normal", "ScalingReplicaSet", `Scaled ${verb} replica set ${String(m.name)} from ${cur} to ${replicas}`, "deployment-controller", "apps/v1", "Deployment");
    }
  }

  private reconcileDeployment(key: string): void {
    const rt = this.rt("apps", "deployments");
    const stored = this.core.store.get("apps/deployments", key);
    if (!stored || meta(stored.obj).deletionTimestamp) return;
    const d = stored.obj;
    const dm = meta(d);
    const spec = asObj(d.spec) ?? {};
    const name = asStr(dm.name) ?? "";
    const ns = asStr(dm.namespace) ?? "default";
    const replicas = asNum(spec.replicas) ?? 1;
    const template = asObj(spec.template) ?? {};
    const all = this.ownedReplicaSets(d);
    const revisionOf = (rs: Obj) => Number(asObj(meta(rs).annotations)?.[REVISION] ?? 0) || 0;
    let newRS = all.find((rs) => deepEqual(withoutHashLabel(asObj(rs.spec)?.template), withoutHashLabel(template)));
    const old = all.filter((rs) => rs !== newRS);
    const maxOld = old.reduce((n, rs) => Math.max(n, revisionOf(rs)), 0);
    const copied: Obj = {};
    for (const [k, v] of Object.entries(asObj(dm.annotations) ?? {})) if (!NOT_COPIED.has(k)) copied[k] = v;
    const strategy = asObj(spec.strategy) ?? {};
    const surge = strategy.type === "Recreate" ? 0 : intOrPercent(asObj(strategy.rollingUpdate)?.maxSurge ?? "25%", replicas, true);
    const rsAnnotations = (revision: number): Obj => ({
      ...copied,
      "deployment.kubernetes.io/desired-replicas": String(replicas),
      "deployment.kubernetes.io/max-replicas": String(replicas + surge),
      [REVISION]: String(revision),
    });
    if (spec.paused === true) {
      this.writeDeploymentStatus(rt, key, all, newRS, replicas, undefined);
      return;
    }
    if (!newRS) {
      const hash = podTemplateHash(template);
      const rsTemplate = clone(template);
      const tmeta = (rsTemplate.metadata = asObj(rsTemplate.metadata) ?? {});
      tmeta.labels = { ...(asObj(tmeta.labels) ?? {}), [TEMPLATE_HASH]: hash };
      const selector = clone(asObj(spec.selector) ?? {});
      selector.matchLabels = { ...(asObj(selector.matchLabels) ?? {}), [TEMPLATE_HASH]: hash };
      const rsName = `${name}-${hash}`;
      const body: Obj = {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        metadata: { name: rsName, namespace: ns, labels: tmeta.labels, annotations: rsAnnotations(maxOld + 1), ownerReferences: [ownerRef("Deployment", "apps/v1", d)] },
        spec: { replicas, minReadySeconds: asNum(spec.minReadySeconds) ?? 0, selector, template: rsTemplate },
      };
      try {
        newRS = this.core.createAs(this.rt("apps", "replicasets"), body, KCM);
      } catch (e) {
        if (e instanceof StatusError && e.code === 409) return;
        throw e;
      }
      this.event(d, "Normal", "ScalingReplicaSet", `Scaled up replica set ${rsName} from 0 to ${replicas}`, "deployment-controller", "apps/v1", "Deployment");
    } else {
      // A rollback (or a template that returned to an older one) makes that set the newest revision again.
      const rev = revisionOf(newRS) > maxOld ? revisionOf(newRS) : maxOld + 1;
      this.scaleReplicaSet(d, newRS, replicas, rsAnnotations(rev));
    }
    for (const rs of old) if ((asNum(asObj(rs.spec)?.replicas) ?? 0) !== 0) this.scaleReplicaSet(d, rs, 0, {});
    // Old sets beyond revisionHistoryLimit go, oldest first.
    const limit = asNum(spec.revisionHistoryLimit) ?? 10;
    const idle = old.filter((rs) => (asNum(asObj(rs.spec)?.replicas) ?? 0) === 0).sort((a, b) => revisionOf(a) - revisionOf(b));
    for (const rs of idle.slice(0, Math.max(0, idle.length - limit))) {
      const m = meta(rs);
      try {
        this.core.delete(this.rt("apps", "replicasets"), asStr(m.namespace), asStr(m.name) ?? "", { dryRun: false, propagationPolicy: "Background" });
      } catch (e) {
        if (!(e instanceof StatusError)) throw e;
      }
    }
    this.writeDeploymentStatus(rt, key, this.ownedReplicaSets(d), this.ownedReplicaSets(d).find((rs) => deepEqual(withoutHashLabel(asObj(rs.spec)?.template), withoutHashLabel(template))), replicas, newRS);
  }

  private writeDeploymentStatus(rt: ResourceType, key: string, sets: Obj[], newRS: Obj | undefined, replicas: number, created: Obj | undefined): void {
    const fresh = this.core.store.get("apps/deployments", key);
    if (!fresh) return;
    const d = fresh.obj;
    const dm = meta(d);
    const spec = asObj(d.spec) ?? {};
    const sum = (f: string, list: Obj[]) => list.reduce((n, rs) => n + (asNum(asObj(rs.status)?.[f]) ?? 0), 0);
    const total = sum("replicas", sets);
    const updated = newRS ? (asNum(asObj(newRS.status)?.replicas) ?? 0) : 0;
    const ready = sum("readyReplicas", sets);
    const available = sum("availableReplicas", sets);
    const now = nowRfc3339();
    const old = asObj(d.status) ?? {};
    const conds = (Array.isArray(old.conditions) ? old.conditions.filter(isObj) : []).map((c) => ({ ...c }));
    const put = (type: string, status: string, reason: string, message: string) => {
      const prev = conds.find((c) => c.type === type);
      const same = prev && prev.status === status && prev.reason === reason && prev.message === message;
      const next: Obj = { type, status, lastUpdateTime: same ? prev.lastUpdateTime : now, lastTransitionTime: prev && prev.status === status ? prev.lastTransitionTime : now, reason, message };
      const i = conds.findIndex((c) => c.type === type);
      if (same) return;
      if (i >= 0) conds.splice(i, 1);
      conds.push(next);
    };
    const minAvailable = replicas - intOrPercent(asObj(asObj(spec.strategy)?.rollingUpdate)?.maxUnavailable ?? "25%", replicas, false);
    if (available >= minAvailable) put("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.");
    else put("Available", "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability.");
    const rsName = String(meta(newRS ?? created ?? {}).name ?? "");
    const complete = updated === replicas && total === replicas && available === replicas;
    if (spec.paused === true) put("Progressing", "Unknown", "DeploymentPaused", "Deployment is paused");
    else if (complete) put("Progressing", "True", "NewReplicaSetAvailable", `ReplicaSet "${rsName}" has successfully progressed.`);
    else if (created) put("Progressing", "True", "NewReplicaSetCreated", `Created new replica set "${rsName}"`);
    else put("Progressing", "True", "ReplicaSetUpdated", `ReplicaSet "${rsName}" is progressing.`);
    const status: Obj = { observedGeneration: asNum(dm.generation) ?? 1 };
    if (total > 0) status.replicas = total;
    if (updated > 0) status.updatedReplicas = updated;
    if (ready > 0) status.readyReplicas = ready;
    if (available > 0) status.availableReplicas = available;
    if (total - available > 0) status.unavailableReplicas = total - available;
    status.conditions = conds;
    const revision = newRS ? asStr(asObj(meta(newRS).annotations)?.[REVISION]) : undefined;
    const annotations = { ...(asObj(dm.annotations) ?? {}) };
    if (revision) annotations[REVISION] = revision;
    if (deepEqual(status, old) && deepEqual(annotations, dm.annotations ?? {})) return;
    const next = clone(d);
    (next.metadata as Obj).annotations = annotations;
    next.status = status;
    // The real controller writes the revision annotation through UpdateStatus too.
    this.core.updateAs(rt, next, KCM, "status");
  }

  // ---------------------------------------------------------------- StatefulSet, DaemonSet, Job

  private reconcileStatefulSet(key: string): void {
    const stored = this.core.store.get("apps/statefulsets", key);
    if (!stored || meta(stored.obj).deletionTimestamp) return;
    const ss = stored.obj;
    const spec = asObj(ss.spec) ?? {};
    const name = asStr(meta(ss).name) ?? "";
    const want = asNum(spec.replicas) ?? 1;
    const revision = `${name}-${podTemplateHash(spec.template)}`;
    const pods = this.ownedPods(ss).filter((p) => !meta(p).deletionTimestamp);
    const byName = new Map(pods.map((p) => [String(meta(p).name), p]));
    for (const p of pods) {
      const idx = Number(String(meta(p).name).slice(name.length + 1));
      const stale = asObj(meta(p).labels)?.["controller-revision-hash"] !== revision;
      if (idx >= want || stale) {
        this.deletePod(ss, "StatefulSet", p);
        byName.delete(String(meta(p).name));
      }
    }
    for (let i = 0; i < want; i++) {
      const podName = `${name}-${i}`;
      if (byName.has(podName)) continue;
      const pod = this.createPod(ss, "StatefulSet", asObj(spec.template) ?? {}, podName, { "controller-revision-hash": revision, "statefulset.kubernetes.io/pod-name": podName, "apps.kubernetes.io/pod-index": String(i) }, "Running");
      if (pod) this.event(ss, "Normal", "SuccessfulCreate", `create Pod ${podName} in StatefulSet ${name} successful`, "statefulset-controller", "apps/v1", "StatefulSet");
    }
  }

  private reconcileDaemonSet(key: string): void {
    const rt = this.rt("apps", "daemonsets");
    const stored = this.core.store.get("apps/daemonsets", key);
    if (!stored || meta(stored.obj).deletionTimestamp) return;
    const ds = stored.obj;
    const spec = asObj(ds.spec) ?? {};
    const name = asStr(meta(ds).name) ?? "";
    const hash = podTemplateHash(spec.template);
    const generation = String(asObj(meta(ds).annotations)?.["deprecated.daemonset.template.generation"] ?? "1");
    let pods = this.ownedPods(ds).filter((p) => !meta(p).deletionTimestamp);
    for (const p of pods) if (asObj(meta(p).labels)?.["controller-revision-hash"] !== hash) this.deletePod(ds, "DaemonSet", p);
    pods = this.ownedPods(ds).filter((p) => !meta(p).deletionTimestamp);
    if (pods.length === 0) {
      const podName = `${name}-${randomSuffix()}`;
      const pod = this.createPod(ds, "DaemonSet", asObj(spec.template) ?? {}, podName, { "controller-revision-hash": hash, "pod-template-generation": generation }, "Running");
      if (pod) this.event(ds, "Normal", "SuccessfulCreate", `Created pod: ${podName}`, "daemonset-controller", "apps/v1", "DaemonSet");
    }
    const status: Obj = {
      currentNumberScheduled: 1,
      numberMisscheduled: 0,
      desiredNumberScheduled: 1,
      numberReady: 1,
      observedGeneration: asNum(meta(ds).generation) ?? 1,
      updatedNumberScheduled: 1,
      numberAvailable: 1,
    };
    const fresh = this.core.store.get("apps/daemonsets", key);
    if (!fresh || deepEqual(fresh.obj.status, status)) return;
    const next = clone(fresh.obj);
    next.status = status;
    this.core.updateAs(rt, next, KCM, "status");
  }

  private reconcileJob(key: string): void {
    const rt = this.rt("batch", "jobs");
    const stored = this.core.store.get("batch/jobs", key);
    if (!stored || meta(stored.obj).deletionTimestamp) return;
    const job = stored.obj;
    const spec = asObj(job.spec) ?? {};
    const st = asObj(job.status) ?? {};
    if (spec.suspend === true || (Array.isArray(st.conditions) && st.conditions.some((c) => asObj(c)?.type === "Complete"))) return;
    const completions = asNum(spec.completions) ?? 1;
    const name = asStr(meta(job).name) ?? "";
    const start = nowRfc3339();
    const existing = this.ownedPods(job).length;
    for (let i = existing; i < completions; i++) {
      const podName = `${name}-${randomSuffix()}`;
      const pod = this.createPod(job, "Job", asObj(spec.template) ?? {}, podName, {}, "Succeeded");
      if (pod) this.event(job, "Normal", "SuccessfulCreate", `Created pod: ${podName}`, "job-controller", "batch/v1", "Job");
    }
    const now = nowRfc3339();
    const cond = (type: string, reason: string, message: string): Obj => ({ type, status: "True", lastProbeTime: now, lastTransitionTime: now, reason, message });
    const next = clone(job);
    next.status = {
      conditions: [cond("SuccessCriteriaMet", "CompletionsReached", "Reached expected number of succeeded pods"), cond("Complete", "CompletionsReached", "Reached expected number of succeeded pods")],
      startTime: asStr(st.startTime) ?? start,
      completionTime: now,
      succeeded: completions,
      terminating: 0,
      ready: 0,
      uncountedTerminatedPods: {},
    };
    this.core.updateAs(rt, next, KCM, "status");
    this.event(job, "Normal", "Completed", "Job completed", "job-controller", "batch/v1", "Job");
  }
}
