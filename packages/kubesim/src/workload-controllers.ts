// What kube-controller-manager, the scheduler and a kubelet would do with
// workloads, with no containers run: Deployments roll out through
// ReplicaSets (pod-template-hash, revision annotations, scaling old sets
// down), ReplicaSets, StatefulSets, DaemonSets and Jobs create Pods that
// report Running (or Succeeded for Jobs) at once, and each step writes the
// Event a real cluster writes. `kubectl rollout status/undo/history`,
// `describe` and `get events` read the same objects they read on a cluster.
import type { ApiCore } from "./apiserver";
import { DeploymentController } from "./deployment-controller";
import { asNum, asObj, asStr, clone, deepEqual, nowRfc3339, type Obj } from "./json";
import { PodRuntime } from "./pod-runtime";
import type { Registry } from "./registry";
import type { StoreEvent } from "./store";
import { KCM, meta, podTemplateHash, randomSuffix } from "./workload-support";


export class WorkloadControllers {
  private readonly pods: PodRuntime;
  private readonly deployments: DeploymentController;

  constructor(
    private readonly core: ApiCore,
    registry: Registry,
    private readonly enqueue: (id: string, fn: () => void) => void,
  ) {
    this.pods = new PodRuntime(core, registry);
    this.deployments = new DeploymentController(core, this.pods);
  }

  start(sub: (gr: string, fn: (e: StoreEvent) => void) => void): void {
    const byKey = (prefix: string, fn: (key: string) => void) => (e: StoreEvent) => {
      if (e.type !== "DELETED") this.enqueue(`${prefix}|${e.key}`, () => fn(e.key));
    };
    sub("apps/deployments", byKey("wd", (k) => this.deployments.reconcile(k)));
    sub("apps/replicasets", byKey("wrs", (k) => this.reconcileReplicaSet(k)));
    sub("apps/statefulsets", byKey("wss", (k) => this.reconcileStatefulSet(k)));
    sub("apps/daemonsets", byKey("wds", (k) => this.reconcileDaemonSet(k)));
    sub("batch/jobs", byKey("wj", (k) => this.reconcileJob(k)));
    // A ReplicaSet's status follows its pods; a Deployment's follows its ReplicaSets.
    sub("/pods", (e) => this.requeueOwner(e.obj));
    // Pods made by hand (kubectl run, a bare manifest) are scheduled and started too.
    sub("/pods", (e) => {
      if (e.type === "ADDED" && !asObj(e.obj.spec)?.nodeName) this.enqueue(`wp|${e.key}`, () => this.pods.scheduleBarePod(e.key));
    });
    sub("apps/replicasets", (e) => this.requeueOwner(e.obj));
  }

  private requeueOwner(obj: Obj): void {
    const m = meta(obj);
    const ref = (Array.isArray(m.ownerReferences) ? m.ownerReferences : []).map(asObj).find((r) => r?.controller === true);
    if (!ref) return;
    const key = `${asStr(m.namespace) ?? ""}/${asStr(ref.name) ?? ""}`;
    if (ref.kind === "ReplicaSet") this.enqueue(`wrs|${key}`, () => this.reconcileReplicaSet(key));
    else if (ref.kind === "Deployment") this.enqueue(`wd|${key}`, () => this.deployments.reconcile(key));
  }

  // ---------------------------------------------------------------- ReplicaSet

  private reconcileReplicaSet(key: string): void {
    const rt = this.pods.rt("apps", "replicasets");
    const stored = this.core.store.get("apps/replicasets", key);
    if (!stored || meta(stored.obj).deletionTimestamp) return;
    const rs = stored.obj;
    const spec = asObj(rs.spec) ?? {};
    const want = asNum(spec.replicas) ?? 1;
    let pods = this.pods.ownedPods(rs).filter((p) => !meta(p).deletionTimestamp);
    const base = asStr(meta(rs).name) ?? "";
    for (let i = pods.length; i < want; i++) {
      const name = `${base}-${randomSuffix()}`;
      const pod = this.pods.createPod(rs, "ReplicaSet", asObj(spec.template) ?? {}, name, {}, "Running");
      if (pod) this.pods.event(rs, "Normal", "SuccessfulCreate", `Created pod: ${name}`, "replicaset-controller", "apps/v1", "ReplicaSet");
    }
    if (pods.length > want) {
      // Newest first, as the real controller prefers deleting younger pods.
      const extra = [...pods].sort((a, b) => String(meta(b).creationTimestamp).localeCompare(String(meta(a).creationTimestamp)) || String(meta(b).name).localeCompare(String(meta(a).name))).slice(0, pods.length - want);
      for (const p of extra) this.pods.deletePod(rs, "ReplicaSet", p);
    }
    pods = this.pods.ownedPods(rs).filter((p) => !meta(p).deletionTimestamp);
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


  // ---------------------------------------------------------------- StatefulSet, DaemonSet, Job

  private reconcileStatefulSet(key: string): void {
    const stored = this.core.store.get("apps/statefulsets", key);
    if (!stored || meta(stored.obj).deletionTimestamp) return;
    const ss = stored.obj;
    const spec = asObj(ss.spec) ?? {};
    const name = asStr(meta(ss).name) ?? "";
    const want = asNum(spec.replicas) ?? 1;
    const revision = `${name}-${podTemplateHash(spec.template)}`;
    const pods = this.pods.ownedPods(ss).filter((p) => !meta(p).deletionTimestamp);
    const byName = new Map(pods.map((p) => [String(meta(p).name), p]));
    for (const p of pods) {
      const idx = Number(String(meta(p).name).slice(name.length + 1));
      const stale = asObj(meta(p).labels)?.["controller-revision-hash"] !== revision;
      if (idx >= want || stale) {
        this.pods.deletePod(ss, "StatefulSet", p);
        byName.delete(String(meta(p).name));
      }
    }
    for (let i = 0; i < want; i++) {
      const podName = `${name}-${i}`;
      if (byName.has(podName)) continue;
      const pod = this.pods.createPod(ss, "StatefulSet", asObj(spec.template) ?? {}, podName, { "controller-revision-hash": revision, "statefulset.kubernetes.io/pod-name": podName, "apps.kubernetes.io/pod-index": String(i) }, "Running");
      if (pod) this.pods.event(ss, "Normal", "SuccessfulCreate", `create Pod ${podName} in StatefulSet ${name} successful`, "statefulset-controller", "apps/v1", "StatefulSet");
    }
  }

  private reconcileDaemonSet(key: string): void {
    const rt = this.pods.rt("apps", "daemonsets");
    const stored = this.core.store.get("apps/daemonsets", key);
    if (!stored || meta(stored.obj).deletionTimestamp) return;
    const ds = stored.obj;
    const spec = asObj(ds.spec) ?? {};
    const name = asStr(meta(ds).name) ?? "";
    const hash = podTemplateHash(spec.template);
    const generation = String(asObj(meta(ds).annotations)?.["deprecated.daemonset.template.generation"] ?? "1");
    let pods = this.pods.ownedPods(ds).filter((p) => !meta(p).deletionTimestamp);
    for (const p of pods) if (asObj(meta(p).labels)?.["controller-revision-hash"] !== hash) this.pods.deletePod(ds, "DaemonSet", p);
    pods = this.pods.ownedPods(ds).filter((p) => !meta(p).deletionTimestamp);
    if (pods.length === 0) {
      const podName = `${name}-${randomSuffix()}`;
      const pod = this.pods.createPod(ds, "DaemonSet", asObj(spec.template) ?? {}, podName, { "controller-revision-hash": hash, "pod-template-generation": generation }, "Running");
      if (pod) this.pods.event(ds, "Normal", "SuccessfulCreate", `Created pod: ${podName}`, "daemonset-controller", "apps/v1", "DaemonSet");
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
    const rt = this.pods.rt("batch", "jobs");
    const stored = this.core.store.get("batch/jobs", key);
    if (!stored || meta(stored.obj).deletionTimestamp) return;
    const job = stored.obj;
    const spec = asObj(job.spec) ?? {};
    const st = asObj(job.status) ?? {};
    if (spec.suspend === true || (Array.isArray(st.conditions) && st.conditions.some((c) => asObj(c)?.type === "Complete"))) return;
    const completions = asNum(spec.completions) ?? 1;
    const name = asStr(meta(job).name) ?? "";
    const start = nowRfc3339();
    const existing = this.pods.ownedPods(job).length;
    for (let i = existing; i < completions; i++) {
      const podName = `${name}-${randomSuffix()}`;
      const pod = this.pods.createPod(job, "Job", asObj(spec.template) ?? {}, podName, {}, "Succeeded");
      if (pod) this.pods.event(job, "Normal", "SuccessfulCreate", `Created pod: ${podName}`, "job-controller", "batch/v1", "Job");
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
    this.pods.event(job, "Normal", "Completed", "Job completed", "job-controller", "batch/v1", "Job");
  }
}
