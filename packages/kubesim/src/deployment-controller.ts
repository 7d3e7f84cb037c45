// The deployment controller: a Deployment rolls out through ReplicaSets named
// after its pod template's hash, with revision annotations (a rollback makes
// an older set the newest revision again), scales old sets to zero, prunes
// them beyond revisionHistoryLimit, and reports status and conditions.
import type { ApiCore } from "./apiserver";
import { StatusError } from "./errors";
import { asNum, asObj, asStr, clone, deepEqual, isObj, nowRfc3339, type Obj } from "./json";
import type { PodRuntime } from "./pod-runtime";
import type { ResourceType } from "./registry";
import { controlledBy, intOrPercent, KCM, meta, NOT_COPIED, ownerRef, podTemplateHash, REVISION, TEMPLATE_HASH, withoutHashLabel } from "./workload-support";

export class DeploymentController {
  constructor(
    private readonly core: ApiCore,
    private readonly pods: PodRuntime,
  ) {}

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
    this.core.updateAs(this.pods.rt("apps", "replicasets"), next, KCM);
    if (cur !== replicas) {
      const verb = replicas > cur ? "up" : "down";
      this.pods.event(d, "Normal", "ScalingReplicaSet", `Scaled ${verb} replica set ${String(m.name)} from ${cur} to ${replicas}`, "deployment-controller", "apps/v1", "Deployment");
    }
  }

  reconcile(key: string): void {
    const rt = this.pods.rt("apps", "deployments");
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
        newRS = this.core.createAs(this.pods.rt("apps", "replicasets"), body, KCM);
      } catch (e) {
        if (e instanceof StatusError && e.code === 409) return;
        throw e;
      }
      this.pods.event(d, "Normal", "ScalingReplicaSet", `Scaled up replica set ${rsName} from 0 to ${replicas}`, "deployment-controller", "apps/v1", "Deployment");
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
        this.core.delete(this.pods.rt("apps", "replicasets"), asStr(m.namespace), asStr(m.name) ?? "", { dryRun: false, propagationPolicy: "Background" });
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
}
