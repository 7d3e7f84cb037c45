// The in-process controllers a cluster runs that Driftwatch can observe:
// deployment and statefulset status (kube-controller-manager), namespace
// default objects and deletion, CRD establishment and cleanup (kube-apiserver),
// and foreground deletion.
// Over 400 lines on purpose: one work queue and the small controllers that
// share it; the workload controllers (ReplicaSets, Pods, Events) and the
// quota controller have their own files.
import { createHash } from "node:crypto";
import type { ApiCore } from "./apiserver";
import { splitGR } from "./write-options";
import { StatusError } from "./errors";
import { asNum, asObj, asStr, clone, deepEqual, isObj, nowRfc3339, type Obj } from "./json";
import { canonicalize } from "./objects";
import type { Registry, ResourceType } from "./registry";
import type { StoreEvent } from "./store";
import { quotaNamespace, reconcileQuotas } from "./quota-controller";
import { WorkloadControllers } from "./workload-controllers";

const KCM = "kube-controller-manager";
const APISERVER = "kube-apiserver";
const PVC_PROTECTION = "kubernetes.io/pvc-protection";
const HASH_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

const ROOT_CA_DESCRIPTION =
  "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";

/** A pod-template-hash style string (rand.SafeEncodeString of an FNV hash). */
export function templateHash(template: unknown): string {
  const digest = createHash("sha256").update(JSON.stringify(template ?? {})).digest();
  let n = digest.readUInt32BE(0);
  let s = "";
  for (let i = 0; i < 10; i++) {
    s += HASH_ALPHABET[n % HASH_ALPHABET.length];
    n = Math.floor(n / HASH_ALPHABET.length) + (digest[i + 4] ?? 0) * 7;
  }
  return s;
}

function setCondition(conds: Obj[], c: Obj, now: string, withUpdateTime: boolean): Obj[] {
  const prev = conds.find((x) => x.type === c.type);
  const next: Obj = { type: c.type, status: c.status };
  if (withUpdateTime) {
    const same = prev && prev.status === c.status && prev.reason === c.reason && prev.message === c.message;
    next.lastUpdateTime = same ? prev.lastUpdateTime : now;
  }
  next.lastTransitionTime = prev && prev.status === c.status ? prev.lastTransitionTime : now;
  next.reason = c.reason;
  next.message = c.message;
  // SetDeploymentCondition filters the old entry out and appends the new one.
  if (prev && deepEqual({ ...prev }, next)) return conds;
  return [...conds.filter((x) => x.type !== c.type), next];
}

export interface ControllerOptions {
  enabled: boolean;
  caPem: string;
  /** Deployments, ReplicaSets, StatefulSets, DaemonSets and Jobs create their ReplicaSets and Pods, with Events. */
  workloads?: boolean;
  /** Delay before reconciling, so clients can observe the state before controllers act. */
  delayMs?: number;
}

export class Controllers {
  private queue = new Map<string, () => void>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribers: Array<() => void> = [];
  private revisions = new Map<string, { byHash: Map<string, number>; max: number }>();
  private stopped = false;

  constructor(
    private readonly core: ApiCore,
    private readonly registry: Registry,
    private readonly opts: ControllerOptions,
  ) {}

  start(): void {
    const sub = (gr: string, fn: (e: StoreEvent) => void) => this.unsubscribers.push(this.core.store.subscribe({ gr, onEvent: fn }));
    if (this.opts.enabled) {
      if (this.opts.workloads) new WorkloadControllers(this.core, this.registry, (id, fn) => this.enqueue(id, fn)).start(sub);
      else sub("apps/deployments", (e) => this.enqueue(`d|${e.key}`, () => this.reconcileDeployment(e.key)));
      sub("apps/statefulsets", (e) => this.enqueue(`s|${e.key}`, () => this.reconcileStatefulSet(e.key)));
      for (const gr of ["/resourcequotas", "/pods", "/services", "/configmaps", "/secrets", "/persistentvolumeclaims"]) {
        sub(gr, (e) => {
          const ns = quotaNamespace(e.obj);
          if (ns && this.core.store.keys("/resourcequotas", ns).length > 0) this.enqueue(`q|${ns}`, () => reconcileQuotas(this.core, this.registry, ns));
        });
      }
      sub("/namespaces", (e) => {
        if (e.type === "ADDED") this.enqueue(`n|${e.key}`, () => this.namespaceDefaults(e.key));
      });
      sub("autoscaling/horizontalpodautoscalers", (e) => {
        if (e.type !== "DELETED") this.enqueue(`h|${e.key}`, () => this.reconcileHPA(e.key));
      });
      // The HPA controller resyncs every 15 s; reacting to its target's changes gets there sooner.
      const retarget = (kind: string) => (e: StoreEvent) => {
        const ns = asStr(asObj(e.obj.metadata)?.namespace);
        const name = asStr(asObj(e.obj.metadata)?.name);
        for (const key of this.core.store.keys("autoscaling/horizontalpodautoscalers", ns)) {
          const ref = asObj(asObj(this.core.store.get("autoscaling/horizontalpodautoscalers", key)?.obj.spec)?.scaleTargetRef);
          if (ref?.kind === kind && ref.name === name) this.enqueue(`h|${key}`, () => this.reconcileHPA(key));
        }
      };
      sub("apps/deployments", retarget("Deployment"));
      sub("apps/statefulsets", retarget("StatefulSet"));
    }
    // The pvc-protection controller lifts its finalizer once no pod uses the claim; no pod mounts anything here.
    sub("/persistentvolumeclaims", (e) => {
      const m = asObj(e.obj.metadata);
      if (e.type !== "DELETED" && m?.deletionTimestamp && Array.isArray(m.finalizers) && m.finalizers.includes(PVC_PROTECTION)) {
        this.enqueue(`pvc|${e.key}`, () => this.releaseClaim(e.key));
      }
    });
    sub("apiextensions.k8s.io/customresourcedefinitions", (e) => {
      if (e.type !== "DELETED") this.enqueue(`c|${e.key}`, () => this.establishCRD(e.key));
    });
  }

  stop(): void {
    this.stopped = true;
    for (const u of this.unsubscribers) u();
    this.unsubscribers = [];
    if (this.timer) clearTimeout(this.timer);
    this.queue.clear();
  }

  /** Finish deleting an object that was only marked for deletion. */
  deletionRequested(rt: ResourceType, obj: Obj): void {
    const m = asObj(obj.metadata) ?? {};
    const key = `${asStr(m.namespace) ?? ""}/${asStr(m.name) ?? ""}`;
    this.enqueue(`del|${rt.group}/${rt.resource}|${key}`, () => this.finishDeletion(rt, asStr(m.namespace), asStr(m.name) ?? ""));
  }

  private enqueue(id: string, fn: () => void): void {
    if (this.stopped) return;
    this.queue.set(id, fn);
    if (this.timer) return;
    this.timer = setTimeout(() => this.drain(), this.opts.delayMs ?? 0);
    this.timer.unref?.();
  }

  private drain(): void {
    this.timer = undefined;
    const jobs = [...this.queue.values()];
    this.queue.clear();
    for (const job of jobs) {
      try {
        job();
      } catch (e) {
        // Controllers retry on conflicts like the real ones; other errors are dropped.
        if (e instanceof StatusError && e.code === 409) continue;
        if (!(e instanceof StatusError)) console.error("kubesim controller error", e);
      }
    }
  }

  private type(group: string, resource: string): ResourceType | undefined {
    return this.registry.storageType(group, resource);
  }

  private reconcileDeployment(key: string): void {
    const rt = this.type("apps", "deployments");
    const stored = this.core.store.get("apps/deployments", key);
    if (!rt || !stored) return;
    const obj = stored.obj;
    const m = asObj(obj.metadata) ?? {};
    if (m.deletionTimestamp) return;
    const uid = asStr(m.uid) ?? key;
    const spec = asObj(obj.spec) ?? {};
    const tpl = spec.template;
    const hash = templateHash(tpl);
    let rev = this.revisions.get(uid);
    if (!rev) {
      const existing = Number(asObj(m.annotations)?.["deployment.kubernetes.io/revision"] ?? 0);
      rev = { byHash: new Map(), max: 0 };
      if (existing > 0) {
        rev.byHash.set(hash, existing);
        rev.max = existing;
      }
      this.revisions.set(uid, rev);
    }
    let revision = rev.byHash.get(hash);
    if (revision === undefined || revision !== rev.max) {
      revision = rev.max + 1;
      rev.max = revision;
      rev.byHash.set(hash, revision);
    }
    const replicas = asNum(spec.replicas) ?? 1;
    const name = asStr(m.name) ?? "";
    const now = nowRfc3339();
    const old = asObj(obj.status) ?? {};
    let conds = Array.isArray(old.conditions) ? old.conditions.filter(isObj) : [];
    conds = setCondition(conds, { type: "Available", status: "True", reason: "MinimumReplicasAvailable", message: "Deployment has minimum availability." }, now, true);
    if (spec.paused === true) {
      conds = setCondition(conds, { type: "Progressing", status: "Unknown", reason: "DeploymentPaused", message: "Deployment is paused" }, now, true);
    } else {
      conds = setCondition(
        conds,
        { type: "Progressing", status: "True", reason: "NewReplicaSetAvailable", message: `ReplicaSet "${name}-${hash}" has successfully progressed.` },
        now,
        true,
      );
    }
    const status: Obj = { observedGeneration: asNum(m.generation) ?? 1 };
    if (replicas > 0) {
      status.replicas = replicas;
      status.updatedReplicas = replicas;
      status.readyReplicas = replicas;
      status.availableReplicas = replicas;
    }
    status.conditions = conds;
    const annotations = { ...(asObj(m.annotations) ?? {}), "deployment.kubernetes.io/revision": String(revision) };
    if (deepEqual(status, old) && deepEqual(annotations, m.annotations)) return;
    const next = clone(obj);
    (next.metadata as Obj).annotations = annotations;
    next.status = status;
    // The real controller writes the revision annotation through UpdateStatus too.
    this.core.updateAs(rt, next, KCM, "status");
  }

  private reconcileStatefulSet(key: string): void {
    const rt = this.type("apps", "statefulsets");
    const stored = this.core.store.get("apps/statefulsets", key);
    if (!rt || !stored) return;
    const obj = stored.obj;
    const m = asObj(obj.metadata) ?? {};
    if (m.deletionTimestamp) return;
    const spec = asObj(obj.spec) ?? {};
    const replicas = asNum(spec.replicas) ?? 1;
    const revision = `${asStr(m.name) ?? ""}-${templateHash(spec.template)}`;
    const old = asObj(obj.status) ?? {};
    const status: Obj = { observedGeneration: asNum(m.generation) ?? 1, replicas, availableReplicas: replicas };
    if (replicas > 0) {
      status.readyReplicas = replicas;
      status.currentReplicas = replicas;
      status.updatedReplicas = replicas;
    }
    status.currentRevision = revision;
    status.updateRevision = revision;
    status.collisionCount = 0;
    if (deepEqual(status, old)) return;
    const next = clone(obj);
    next.status = status;
    this.core.updateAs(rt, next, KCM, "status");
  }

  private reconcileHPA(key: string): void {
    const rt = this.type("autoscaling", "horizontalpodautoscalers");
    const stored = this.core.store.get("autoscaling/horizontalpodautoscalers", key);
    if (!rt || !stored) return;
    const hpa = stored.obj;
    const m = asObj(hpa.metadata) ?? {};
    if (m.deletionTimestamp) return;
    const spec = asObj(hpa.spec) ?? {};
    const ref = asObj(spec.scaleTargetRef) ?? {};
    const ns = asStr(m.namespace);
    const now = nowRfc3339();
    const old = asObj(hpa.status) ?? {};
    let conds = Array.isArray(old.conditions) ? old.conditions.filter(isObj) : [];
    const put = (type: string, status: string, reason: string, message: string) => {
      const prev = conds.find((c) => c.type === type);
      const next: Obj = { type, status, lastTransitionTime: prev && prev.status === status ? prev.lastTransitionTime : now, reason, message };
      conds = prev ? conds.map((c) => (c.type === type ? next : c)) : [...conds, next];
    };
    const targetRT = this.registry.all().find((t) => t.kind === ref.kind && (!ref.apiVersion || `${t.group ? `${t.group}/` : ""}${t.version}` === ref.apiVersion) && t.scale);
    const target = targetRT ? this.core.getStored(targetRT, ns, asStr(ref.name) ?? "") : undefined;
    const status: Obj = {};
    if (old.lastScaleTime) status.lastScaleTime = old.lastScaleTime;
    if (!targetRT || !target) {
      const what = targetRT ? `${targetRT.resource}${targetRT.group ? `.${targetRT.group}` : ""}` : String(ref.kind ?? "");
      put("AbleToScale", "False", "FailedGetScale", `the HPA controller was unable to get the target's current scale: ${what} "${String(ref.name ?? "")}" not found`);
      status.currentMetrics = null;
      status.desiredReplicas = asNum(old.desiredReplicas) ?? 0;
    } else {
      const current = asNum(asObj(this.core.scaleOf(targetRT, target.obj).spec)?.replicas) ?? 0;
      const min = asNum(spec.minReplicas) ?? 1;
      const max = asNum(spec.maxReplicas) ?? current;
      let desired = current;
      if (current === 0 && min !== 0) {
        put("ScalingActive", "False", "ScalingDisabled", "scaling is disabled since the replica count of the target is zero");
      } else if (current > max || current < min) {
        desired = current > max ? max : min;
        const scale = this.core.scaleOf(targetRT, target.obj);
        (scale.spec as Obj).replicas = desired;
        // The real controller writes through the scale subresource, so the replicas' owner becomes kube-controller-manager.
        this.core.updateScale(targetRT, ns, asStr(ref.name) ?? "", scale, { userAgentManager: KCM, dryRun: false, fieldValidation: "Ignore", warnings: [] });
        status.lastScaleTime = now;
        put("AbleToScale", "True", "SucceededRescale", `the HPA controller was able to update the target scale to ${desired}`);
      } else {
        put("AbleToScale", "True", "SucceededGetScale", "the HPA controller was able to get the target's current scale");
        put(
          "ScalingActive",
          "False",
          "FailedGetResourceMetric",
          "the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API",
        );
      }
      if (current > 0) status.currentReplicas = current;
      status.desiredReplicas = desired;
      status.currentMetrics = null;
    }
    status.conditions = conds;
    if (deepEqual(status, old)) return;
    const next = clone(hpa);
    next.status = status;
    this.core.updateAs(rt, next, KCM, "status");
  }

  private namespaceDefaults(nsName: string): void {
    const ns = this.core.store.get("/namespaces", nsName);
    if (!ns || asObj(ns.obj.metadata)?.deletionTimestamp) return;
    const sa = this.type("", "serviceaccounts");
    const cm = this.type("", "configmaps");
    if (sa && !this.core.store.get("/serviceaccounts", `${nsName}/default`)) {
      this.core.createAs(sa, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default", namespace: nsName } }, KCM);
    }
    if (cm && !this.core.store.get("/configmaps", `${nsName}/kube-root-ca.crt`)) {
      this.core.createAs(
        cm,
        {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "kube-root-ca.crt", namespace: nsName, annotations: { "kubernetes.io/description": ROOT_CA_DESCRIPTION } },
          data: { "ca.crt": this.opts.caPem },
        },
        KCM,
      );
    }
  }

  private establishCRD(key: string): void {
    const rt = this.type("apiextensions.k8s.io", "customresourcedefinitions");
    const stored = this.core.store.get("apiextensions.k8s.io/customresourcedefinitions", key);
    if (!rt || !stored) return;
    const obj = stored.obj;
    if (asObj(obj.metadata)?.deletionTimestamp) return;
    const spec = asObj(obj.spec) ?? {};
    const old = asObj(obj.status) ?? {};
    const now = nowRfc3339();
    let conds = Array.isArray(old.conditions) ? old.conditions.filter(isObj) : [];
    const put = (c: Obj) => {
      const prev = conds.find((x) => x.type === c.type);
      const next: Obj = { type: c.type, status: c.status, lastTransitionTime: prev && prev.status === c.status ? prev.lastTransitionTime : now, reason: c.reason, message: c.message };
      conds = prev ? conds.map((x) => (x.type === c.type ? next : x)) : [...conds, next];
    };
    put({ type: "NamesAccepted", status: "True", reason: "NoConflicts", message: "no conflicts found" });
    put({ type: "Established", status: "True", reason: "InitialNamesAccepted", message: "the initial names have been accepted" });
    const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObj) : [];
    const storage = asStr(versions.find((v) => v.storage === true)?.name);
    const stored0 = Array.isArray(old.storedVersions) ? old.storedVersions.filter((x): x is string => typeof x === "string") : [];
    const storedVersions = storage && !stored0.includes(storage) ? [...stored0, storage] : stored0;
    const status: Obj = { acceptedNames: clone(spec.names), conditions: conds, storedVersions };
    if (deepEqual(status, old)) return;
    const next = clone(obj);
    next.status = status;
    this.core.updateAs(rt, next, APISERVER, "status");
  }

  private finishDeletion(rt: ResourceType, namespace: string | undefined, name: string): void {
    const stored = this.core.getStored(rt, namespace, name);
    if (!stored) return;
    const obj = stored.obj;
    const m = asObj(obj.metadata) ?? {};
    if (rt.kind === "Namespace") {
      for (const { gr, key } of this.core.store.all()) {
        if (!key.startsWith(`${name}/`)) continue;
        const [group, resource] = splitGR(gr);
        const t = this.registry.storageType(group, resource);
        if (!t || !t.namespaced) continue;
        const child = this.core.store.get(gr, key);
        const cm = asObj(child?.obj.metadata) ?? {};
        if (Array.isArray(cm.finalizers) && cm.finalizers.length > 0) {
          this.core.delete(t, name, asStr(cm.name) ?? "", { dryRun: false, propagationPolicy: "Background" });
        } else {
          this.core.removeNow(t, name, asStr(cm.name) ?? "", "Background");
        }
      }
      // The namespace controller finalizes once the namespace is empty.
      if (this.core.store.all().some(({ key }) => key.startsWith(`${name}/`))) {
        setTimeout(() => this.deletionRequested(rt, obj), 50).unref?.();
        return;
      }
      const fresh = this.core.getStored(rt, undefined, name);
      if (!fresh) return;
      const fm = asObj(fresh.obj.metadata) ?? {};
      if (Array.isArray(fm.finalizers) && fm.finalizers.length > 0) {
        // Finalize (spec.finalizers → []) and wait for whoever owns metadata.finalizers.
        const next = clone(fresh.obj);
        next.spec = {};
        this.core.store.put("/namespaces", name, canonicalize(rt, next));
      } else {
        this.core.removeNow(rt, undefined, name, "Background");
      }
      return;
    }
    if (rt.kind === "CustomResourceDefinition") {
      const spec = asObj(obj.spec) ?? {};
      const group = asStr(spec.group) ?? "";
      const plural = asStr(asObj(spec.names)?.plural) ?? "";
      const crt = this.registry.storageType(group, plural);
      if (crt) {
        for (const { gr, key } of this.core.store.all()) {
          if (gr !== `${group}/${plural}`) continue;
          const [ns, n] = key.includes("/") ? (key.split("/") as [string, string]) : [undefined, key];
          this.core.removeNow(crt, ns, n, "Background");
        }
      }
      this.removeFinalizer(rt, obj, "customresourcecleanup.apiextensions.k8s.io", APISERVER);
      return;
    }
    const fin = Array.isArray(m.finalizers) ? m.finalizers : [];
    if (fin.includes("foregroundDeletion")) {
      const uid = asStr(m.uid) ?? "";
      for (const { gr, stored: s } of this.core.store.dependentsOf(uid)) {
        const [group, resource] = splitGR(gr);
        const t = this.registry.storageType(group, resource);
        const dm = asObj(s.obj.metadata) ?? {};
        if (t) this.core.delete(t, asStr(dm.namespace), asStr(dm.name) ?? "", { dryRun: false, propagationPolicy: "Foreground" });
      }
      this.removeFinalizer(rt, obj, "foregroundDeletion", KCM);
    }
  }

  private releaseClaim(key: string): void {
    const rt = this.type("", "persistentvolumeclaims");
    const stored = this.core.store.get("/persistentvolumeclaims", key);
    const fin = asObj(stored?.obj.metadata)?.finalizers;
    if (!rt || !stored || !Array.isArray(fin) || !fin.includes(PVC_PROTECTION)) return;
    this.removeFinalizer(rt, stored.obj, PVC_PROTECTION, KCM);
  }

  private removeFinalizer(rt: ResourceType, obj: Obj, finalizer: string, manager: string): void {
    const next = clone(obj);
    const m = next.metadata as Obj;
    const fin = (Array.isArray(m.finalizers) ? m.finalizers : []).filter((f) => f !== finalizer);
    if (fin.length > 0) m.finalizers = fin;
    else delete m.finalizers;
    this.core.updateAs(rt, next, manager);
  }
}
