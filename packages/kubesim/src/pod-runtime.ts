// What the scheduler, a kubelet and client-go's event recorder would do for
// Pods, with nothing run: bind to the one node, report containers started
// (Running and Ready, or Succeeded for run-to-completion pods), stop them on
// delete, and write the core/v1 Events each step writes on a cluster.
import { createHash, randomBytes } from "node:crypto";
import type { ApiCore } from "./apiserver";
import { StatusError } from "./errors";
import { podQOS } from "./kinds/workloads";
import { asObj, asStr, clone, isObj, nowRfc3339, type Obj } from "./json";
import type { Registry, ResourceType } from "./registry";
import { controlledBy, EVENT_TTL_MS, KCM, KUBELET, meta, NODE, ownerRef, podIP } from "./workload-support";

export class PodRuntime {
  private eventSeq = 0;
  private eventsSinceSweep = 0;

  constructor(
    private readonly core: ApiCore,
    private readonly registry: Registry,
  ) {}

  rt(group: string, resource: string): ResourceType {
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

  ownedPods(owner: Obj): Obj[] {
    const uid = meta(owner).uid;
    if (typeof uid !== "string") return [];
    return this.core.store
      .dependentsOf(uid)
      .filter((d) => d.gr === "/pods" && controlledBy(d.stored.obj, uid))
      .map((d) => d.stored.obj);
  }

  /** Creates a pod from a template and reports it started, as scheduler and kubelet would. */
  createPod(owner: Obj, ownerKind: string, template: Obj, name: string, extraLabels: Obj, outcome: "Running" | "Succeeded"): Obj | undefined {
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

  scheduleBarePod(key: string): void {
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

  deletePod(owner: Obj, ownerKind: string, pod: Obj): void {
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
}
