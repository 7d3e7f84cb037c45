import { describe, expect, it } from "vitest";
import { compareAll, compareObject } from "./compare";
import { createCompareContext } from "./context";
import { hashSecretValues } from "./secrets";
import {
  b64,
  clone,
  desiredDeployment,
  desiredService,
  dropOwnership,
  liveDeployment,
  liveService,
  managedFieldsOf,
  secret,
} from "./test-fixtures";
import type { Change, CompareOptions, KubeObject, ManagedFieldsEntry, ObjectDrift } from "./types";

const FLUX: CompareOptions = { controllerManagers: ["kustomize-controller"], controllerManaged: true };
type Obj = Record<string, unknown>;

function container(obj: KubeObject, name = "api"): Obj {
  const spec = (obj.spec as Obj).template as Obj;
  const containers = (spec.spec as Obj).containers as Obj[];
  const c = containers.find((x) => x.name === name);
  if (!c) throw new Error(`no container ${name}`);
  return c;
}

function entry(manager: string, fieldsV1: Obj, extra: Partial<ManagedFieldsEntry> = {}): ManagedFieldsEntry {
  return { manager, operation: "Update", apiVersion: "apps/v1", time: "2024-05-02T09:30:00Z", fieldsType: "FieldsV1", fieldsV1, ...extra };
}

const apiContainerFields = (inner: Obj): Obj => ({
  "f:spec": { "f:template": { "f:spec": { "f:containers": { 'k:{"name":"api"}': inner } } } },
});

interface Case {
  name: string;
  desired: () => KubeObject | null;
  live: () => KubeObject | null;
  options?: CompareOptions;
  expect: (r: ObjectDrift) => void;
}

function changesOf(r: ObjectDrift): Change[] {
  if (r.type !== "Modified") throw new Error(`expected Modified, got ${r.type}: ${JSON.stringify(r)}`);
  return r.changes;
}

const cases: Case[] = [
  {
    name: "a live Deployment with every server default, status, managedFields and the revision annotation is in sync",
    desired: () => desiredDeployment(),
    live: () => liveDeployment(),
    expect: (r) => expect(r).toEqual({ type: "InSync", ignored: {} }),
  },
  {
    name: "a Service with allocated clusterIP(s), ipFamilies, policies and defaulted targetPort is in sync",
    desired: () => desiredService(),
    live: () => liveService(),
    expect: (r) => expect(r).toEqual({ type: "InSync", ignored: {} }),
  },
  {
    name: "quantities in another notation are in sync (0.25 = 250m, 268435456 = 256Mi, 0.5Gi = 512Mi)",
    desired: () => desiredDeployment({ cpuRequest: 0.25, memoryRequest: 268435456, memoryLimit: "0.5Gi" }),
    live: () => liveDeployment(),
    expect: (r) => expect(r).toEqual({ type: "InSync", ignored: {} }),
  },
  {
    name: "cpu given as the string \"1\" equals 1000m",
    desired: () => desiredDeployment({ cpuRequest: "1" }),
    live: () => {
      const l = liveDeployment();
      ((container(l).resources as Obj).requests as Obj).cpu = "1000m";
      return l;
    },
    expect: (r) => expect(r.type).toBe("InSync"),
  },
  {
    name: "a different quantity is a change",
    desired: () => desiredDeployment({ cpuRequest: "500m" }),
    live: () => liveDeployment(),
    expect: (r) => {
      const [c] = changesOf(r);
      expect(c).toMatchObject({ kind: "changed", display: "spec.template.spec.containers[name=api].resources.requests.cpu", desired: "500m", live: "250m" });
    },
  },
  {
    name: "replicas changed through /scale by kubectl → one change at spec.replicas attributed to kubectl, subresource scale",
    desired: () => desiredDeployment({ replicas: 3 }),
    live: () => {
      const l = liveDeployment({ replicas: 5 });
      ((l.spec as Obj) as Obj).replicas = 5;
      // The server moved ownership of replicas from the applier to the updater.
      dropOwnership(l, "kustomize-controller", ["f:spec", "f:replicas"]);
      managedFieldsOf(l).push(entry("kubectl", { "f:spec": { "f:replicas": {} } }, { subresource: "scale", time: "2024-05-02T09:31:12Z" }));
      ((l.status as Obj).replicas as number) = 5;
      return l;
    },
    expect: (r) => {
      const changes = changesOf(r);
      expect(changes).toHaveLength(1);
      expect(changes[0]).toEqual({
        path: ["spec", "replicas"],
        display: "spec.replicas",
        kind: "changed",
        desired: 3,
        live: 5,
        attribution: { manager: "kubectl", operation: "Update", subresource: "scale", time: "2024-05-02T09:31:12Z", class: "human" },
      });
    },
  },
  {
    name: "an image changed by kubectl-edit is attributed at spec.template.spec.containers[name=api].image",
    desired: () => desiredDeployment(),
    live: () => {
      const l = liveDeployment();
      container(l).image = "registry.example.com/shop/api:1.4.3-hotfix";
      dropOwnership(l, "kustomize-controller", ["f:spec", "f:template", "f:spec", "f:containers", 'k:{"name":"api"}', "f:image"]);
      managedFieldsOf(l).push(entry("kubectl-edit", apiContainerFields({ "f:image": {} })));
      return l;
    },
    expect: (r) => {
      const changes = changesOf(r);
      expect(changes).toHaveLength(1);
      expect(changes[0]).toMatchObject({
        display: "spec.template.spec.containers[name=api].image",
        path: ["spec", "template", "spec", "containers", 0, "image"],
        kind: "changed",
        desired: "registry.example.com/shop/api:1.4.2",
        live: "registry.example.com/shop/api:1.4.3-hotfix",
        attribution: { manager: "kubectl-edit", operation: "Update", class: "human" },
      });
    },
  },
  {
    name: "an env var added by kubectl-edit and not in Git → added, human",
    desired: () => desiredDeployment(),
    live: () => {
      const l = liveDeployment();
      (container(l).env as Obj[]).push({ name: "DEBUG", value: "true" });
      managedFieldsOf(l).push(entry("kubectl-edit", apiContainerFields({ "f:env": { 'k:{"name":"DEBUG"}': { ".": {}, "f:name": {}, "f:value": {} } } })));
      return l;
    },
    expect: (r) => {
      const changes = changesOf(r);
      expect(changes).toHaveLength(1);
      expect(changes[0]).toMatchObject({
        display: "spec.template.spec.containers[name=api].env[name=DEBUG]",
        kind: "added",
        live: { name: "DEBUG", value: "true" },
        attribution: { manager: "kubectl-edit", class: "human" },
      });
      expect(changes[0]?.desired).toBeUndefined();
    },
  },
  {
    name: "a label added by kube-controller-manager is not drift",
    desired: () => desiredDeployment(),
    live: () => {
      const l = liveDeployment();
      (l.metadata.labels as Obj)["pod-template-hash"] = "7d9c8b6f5";
      managedFieldsOf(l).push(entry("kube-controller-manager", { "f:metadata": { "f:labels": { "f:pod-template-hash": {} } } }));
      return l;
    },
    expect: (r) => expect(r).toEqual({ type: "InSync", ignored: {} }),
  },
  {
    name: "a label added by kubectl-label is drift",
    desired: () => desiredDeployment(),
    live: () => {
      const l = liveDeployment();
      (l.metadata.labels as Obj).oncall = "alice";
      managedFieldsOf(l).push(entry("kubectl-label", { "f:metadata": { "f:labels": { "f:oncall": {} } } }));
      return l;
    },
    expect: (r) => {
      expect(changesOf(r)).toMatchObject([{ display: "metadata.labels.oncall", kind: "added", live: "alice", attribution: { manager: "kubectl-label", class: "human" } }]);
    },
  },
  {
    name: "the same /scale change hidden by an ignore rule → in sync with an ignored count",
    desired: () => desiredDeployment({ replicas: 3 }),
    live: () => {
      const l = liveDeployment({ replicas: 5 });
      dropOwnership(l, "kustomize-controller", ["f:spec", "f:replicas"]);
      managedFieldsOf(l).push(entry("kubectl", { "f:spec": { "f:replicas": {} } }, { subresource: "scale" }));
      return l;
    },
    options: { ...FLUX, ignoreRules: [{ name: "hpa-replicas", kinds: ["Deployment"], paths: ["spec.replicas"] }] },
    expect: (r) => expect(r).toEqual({ type: "InSync", ignored: { "hpa-replicas": 1 } }),
  },
  {
    name: "an ignore rule by JSON pointer hides a change inside a named list item",
    desired: () => desiredDeployment(),
    live: () => {
      const l = liveDeployment();
      container(l).image = "registry.example.com/shop/api:canary";
      return l;
    },
    options: { ...FLUX, ignoreRules: [{ name: "canary-image", jsonPointers: ["/spec/template/spec/containers/0/image"] }] },
    expect: (r) => expect(r).toEqual({ type: "InSync", ignored: { "canary-image": 1 } }),
  },
  {
    name: "an ignore rule by manager hides what that manager wrote, and only that",
    desired: () => desiredDeployment({ replicas: 3 }),
    live: () => {
      const l = liveDeployment({ replicas: 6 });
      dropOwnership(l, "kustomize-controller", ["f:spec", "f:replicas"]);
      managedFieldsOf(l).push(entry("kube-controller-manager", { "f:spec": { "f:replicas": {} } }, { subresource: "scale" }));
      container(l).image = "registry.example.com/shop/api:1.4.3";
      managedFieldsOf(l).push(entry("kubectl-set", apiContainerFields({ "f:image": {} })));
      return l;
    },
    options: { ...FLUX, ignoreRules: [{ name: "autoscaler", managers: ["kube-controller-manager"] }] },
    expect: (r) => {
      expect(r.ignored).toEqual({ autoscaler: 1 });
      expect(changesOf(r).map((c) => [c.display, c.attribution.manager])).toEqual([["spec.template.spec.containers[name=api].image", "kubectl-set"]]);
    },
  },
  {
    name: "an ignore rule for another kind or name does not apply",
    desired: () => desiredDeployment({ replicas: 3 }),
    live: () => liveDeployment({ replicas: 4 }),
    options: { ...FLUX, ignoreRules: [{ name: "other", kinds: ["StatefulSet"], paths: ["spec.replicas"] }, { name: "web-only", names: ["web-*"], paths: ["spec.replicas"] }] },
    expect: (r) => {
      expect(r.ignored).toEqual({});
      expect(changesOf(r).map((c) => c.display)).toEqual(["spec.replicas"]);
    },
  },
  {
    name: "in Git, not live → Missing",
    desired: () => desiredDeployment(),
    live: () => null,
    expect: (r) => expect(r).toEqual({ type: "Missing", ignored: {} }),
  },
  {
    name: "live, in the Flux inventory, not in Git → Extra",
    desired: () => null,
    live: () => liveDeployment({ name: "legacy-worker" }),
    options: { ...FLUX, extraTracking: { fluxInventory: ["shop_legacy-worker_apps_Deployment", "shop_api_apps_Deployment"] } },
    expect: (r) => expect(r).toEqual({ type: "Extra", ignored: {} }),
  },
  {
    name: "live, not in the Flux inventory, not in Git → none of the environment's business",
    desired: () => null,
    live: () => liveDeployment({ name: "someone-elses" }),
    options: { ...FLUX, extraTracking: { fluxInventory: ["shop_api_apps_Deployment"] } },
    expect: (r) => expect(r).toEqual({ type: "InSync", ignored: {} }),
  },
  {
    name: "live with an Argo CD tracking id naming that very object → Extra",
    desired: () => null,
    live: () => {
      const l = liveDeployment({ name: "legacy-worker" });
      l.metadata.annotations = { ...l.metadata.annotations, "argocd.argoproj.io/tracking-id": "shop:apps/Deployment:shop/legacy-worker" };
      return l;
    },
    options: { controllerManagers: ["argocd-controller"], extraTracking: { argoApp: "shop" } },
    expect: (r) => expect(r.type).toBe("Extra"),
  },
  {
    name: "a tracking id naming another object (a copy) → not Extra",
    desired: () => null,
    live: () => {
      const l = liveDeployment({ name: "api-copy" });
      l.metadata.annotations = { ...l.metadata.annotations, "argocd.argoproj.io/tracking-id": "shop:apps/Deployment:shop/api" };
      return l;
    },
    options: { controllerManagers: ["argocd-controller"], extraTracking: { argoApp: "shop" } },
    expect: (r) => expect(r.type).toBe("InSync"),
  },
  {
    name: "a tracking id of another Argo CD application → not Extra",
    desired: () => null,
    live: () => {
      const l = liveDeployment({ name: "legacy-worker" });
      l.metadata.annotations = { "argocd.argoproj.io/tracking-id": "billing:apps/Deployment:shop/legacy-worker" };
      return l;
    },
    options: { controllerManagers: ["argocd-controller"], extraTracking: { argoApp: "shop" } },
    expect: (r) => expect(r.type).toBe("InSync"),
  },
  {
    name: "live with the configured tracking label → Extra",
    desired: () => null,
    live: () => {
      const l = liveService();
      (l.metadata.labels as Obj)["driftwatch.io/env"] = "prod";
      return l;
    },
    options: { extraTracking: { label: "driftwatch.io/env=prod" } },
    expect: (r) => expect(r.type).toBe("Extra"),
  },
  {
    name: "an Extra object covered by a whole-object ignore rule is counted, not shown",
    desired: () => null,
    live: () => liveDeployment({ name: "legacy-worker" }),
    options: { ...FLUX, extraTracking: { fluxInventory: ["shop_legacy-worker_apps_Deployment"] }, ignoreRules: [{ name: "legacy", names: ["legacy-*"] }] },
    expect: (r) => expect(r).toEqual({ type: "InSync", ignored: { legacy: 1 } }),
  },
  {
    name: "managedFields without time → attribution names the manager with an unknown time",
    desired: () => desiredDeployment({ replicas: 3 }),
    live: () => {
      const l = liveDeployment({ replicas: 4 });
      dropOwnership(l, "kustomize-controller", ["f:spec", "f:replicas"]);
      const e = entry("kubectl", { "f:spec": { "f:replicas": {} } }, { subresource: "scale" });
      delete e.time;
      managedFieldsOf(l).push(e);
      return l;
    },
    expect: (r) => {
      expect(changesOf(r)[0]?.attribution).toEqual({ manager: "kubectl", operation: "Update", subresource: "scale", time: null, class: "human" });
    },
  },
  {
    name: "a field owned by ancient-changes → unknown, never a named user",
    desired: () => desiredDeployment(),
    live: () => {
      const l = liveDeployment();
      (l.metadata.annotations as Obj)["team"] = "payments";
      managedFieldsOf(l).push(entry("ancient-changes", { "f:metadata": { "f:annotations": { "f:team": {} } } }));
      return l;
    },
    expect: (r) => {
      expect(changesOf(r)).toMatchObject([
        { display: "metadata.annotations.team", kind: "added", attribution: { manager: null, operation: null, subresource: null, time: null, class: "unknown" } },
      ]);
    },
  },
  {
    name: "a changed field nobody owns → unknown attribution",
    desired: () => desiredDeployment(),
    live: () => {
      const l = liveDeployment();
      l.metadata.managedFields = [];
      container(l).image = "x:2";
      return l;
    },
    expect: (r) => expect(changesOf(r)[0]?.attribution).toEqual({ manager: null, operation: null, subresource: null, time: null, class: "unknown" }),
  },
  {
    name: "garbage managedFields never crash and never invent a manager",
    desired: () => desiredDeployment(),
    live: () => {
      const l = liveDeployment();
      (l.metadata as Obj).managedFields = [null, 42, { manager: "x", fieldsV1: "nope" }, { fieldsV1: { "f:spec": { "f:replicas": {} } } }, { manager: "kubectl-edit", fieldsV1: { "k:not json": {} } }];
      (l.spec as Obj).replicas = 9;
      return l;
    },
    expect: (r) => expect(changesOf(r)).toMatchObject([{ display: "spec.replicas", attribution: { manager: null, class: "unknown" } }]),
  },
  {
    name: "a field in Git that live lost → removed",
    desired: () => desiredDeployment(),
    live: () => {
      const l = liveDeployment();
      container(l).env = [{ name: "LOG_LEVEL", value: "info" }];
      return l;
    },
    expect: (r) => {
      expect(changesOf(r)).toMatchObject([
        { display: "spec.template.spec.containers[name=api].env[name=POD_IP]", kind: "removed", desired: { name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } } },
      ]);
    },
  },
  {
    name: "a field Git dropped that the controller's last apply still owns → unpruned (should be removed)",
    desired: () => {
      const d = desiredDeployment();
      delete container(d).readinessProbe;
      return d;
    },
    live: () => liveDeployment(),
    options: FLUX,
    expect: (r) => {
      expect(changesOf(r)).toMatchObject([
        { display: "spec.template.spec.containers[name=api].readinessProbe.httpGet.path", kind: "unpruned", live: "/healthz", attribution: { manager: "kustomize-controller", operation: "Apply", class: "controller" } },
        { display: "spec.template.spec.containers[name=api].readinessProbe.httpGet.port", kind: "unpruned", live: "http" },
      ]);
    },
  },
  {
    name: "a field Git dropped that is still in last-applied-configuration → unpruned",
    desired: () => {
      const d = desiredDeployment();
      delete (d.metadata.labels as Obj)["app.kubernetes.io/part-of"];
      return d;
    },
    live: () => {
      const l = liveDeployment();
      const applied = desiredDeployment();
      l.metadata.managedFields = [entry("argocd-controller", { "f:metadata": { "f:labels": { "f:app": {}, "f:app.kubernetes.io/part-of": {} } } })];
      (l.metadata.annotations as Obj)["kubectl.kubernetes.io/last-applied-configuration"] = JSON.stringify(applied);
      return l;
    },
    options: { controllerManagers: ["argocd-controller"] },
    expect: (r) => {
      expect(changesOf(r)).toMatchObject([{ display: 'metadata.labels["app.kubernetes.io/part-of"]', kind: "unpruned", live: "shop", attribution: { manager: "argocd-controller", class: "controller" } }]);
    },
  },
  {
    name: "labels and annotations a controller injects at apply time are not drift",
    desired: () => desiredDeployment(),
    live: () => {
      const l = liveDeployment();
      l.metadata.labels = { ...l.metadata.labels, "app.kubernetes.io/instance": "shop" };
      l.metadata.annotations = { ...l.metadata.annotations, "argocd.argoproj.io/tracking-id": "shop:apps/Deployment:shop/api" };
      l.metadata.managedFields = [
        entry("argocd-controller", { "f:metadata": { "f:labels": { "f:app.kubernetes.io/instance": {} }, "f:annotations": { "f:argocd.argoproj.io/tracking-id": {} } } }),
      ];
      const applied = { ...desiredDeployment(), metadata: { ...desiredDeployment().metadata, labels: { ...desiredDeployment().metadata.labels, "app.kubernetes.io/instance": "shop" } } };
      (l.metadata.annotations as Obj)["kubectl.kubernetes.io/last-applied-configuration"] = JSON.stringify(applied);
      return l;
    },
    options: { controllerManagers: ["argocd-controller"] },
    expect: (r) => expect(r.type).toBe("InSync"),
  },
  {
    name: "containers in another order are matched by name, not index",
    desired: () => {
      const d = desiredDeployment();
      const spec = ((d.spec as Obj).template as Obj).spec as Obj;
      spec.containers = [...(spec.containers as Obj[])].reverse();
      return d;
    },
    live: () => liveDeployment(),
    expect: (r) => expect(r.type).toBe("InSync"),
  },
  {
    name: "defaults owned by a human creator (kubectl create) are still not drift",
    desired: () => desiredDeployment(),
    live: () => {
      const l = liveDeployment();
      managedFieldsOf(l).push(
        entry(
          "kubectl-client-side-apply",
          {
            "f:spec": {
              "f:progressDeadlineSeconds": {},
              "f:revisionHistoryLimit": {},
              "f:strategy": { "f:rollingUpdate": { ".": {}, "f:maxSurge": {}, "f:maxUnavailable": {} }, "f:type": {} },
              "f:template": { "f:spec": { "f:dnsPolicy": {}, "f:restartPolicy": {}, "f:schedulerName": {}, "f:securityContext": {}, "f:terminationGracePeriodSeconds": {} } },
            },
          },
          { time: "2024-04-02T08:15:00Z" },
        ),
      );
      return l;
    },
    options: FLUX,
    expect: (r) => expect(r.type).toBe("InSync"),
  },
  {
    name: "kubectl-client-side-apply is a person when a controller owns the environment",
    desired: () => desiredDeployment(),
    live: () => {
      const l = liveDeployment();
      (l.metadata.annotations as Obj)["note"] = "hand-applied";
      managedFieldsOf(l).push(entry("kubectl-client-side-apply", { "f:metadata": { "f:annotations": { "f:note": {} } } }));
      return l;
    },
    options: FLUX,
    expect: (r) => expect(changesOf(r)).toMatchObject([{ display: "metadata.annotations.note", kind: "added", attribution: { class: "human" } }]),
  },
  {
    name: "kubectl-client-side-apply is the deploy tool when no controller owns the environment",
    desired: () => desiredDeployment(),
    live: () => {
      const l = liveDeployment();
      (l.metadata.annotations as Obj)["note"] = "hand-applied";
      managedFieldsOf(l).push(entry("kubectl-client-side-apply", { "f:metadata": { "f:annotations": { "f:note": {} } } }));
      return l;
    },
    options: {},
    expect: (r) => expect(r.type).toBe("InSync"),
  },
  {
    name: "an unknown manager writing a field Git lacks is shown (class unknown)",
    desired: () => desiredDeployment(),
    live: () => {
      const l = liveDeployment();
      ((((l.spec as Obj).template as Obj).metadata as Obj) as Obj).annotations = { "sidecar.istio.io/inject": "true" };
      managedFieldsOf(l).push(entry("my-operator", { "f:spec": { "f:template": { "f:metadata": { "f:annotations": { ".": {}, "f:sidecar.istio.io/inject": {} } } } } }));
      return l;
    },
    options: FLUX,
    expect: (r) =>
      expect(changesOf(r)).toMatchObject([{ display: 'spec.template.metadata.annotations["sidecar.istio.io/inject"]', kind: "added", attribution: { manager: "my-operator", class: "unknown" } }]),
  },
  {
    name: "a kubectl rollout restart shows as an added template annotation by kubectl-rollout",
    desired: () => desiredDeployment(),
    live: () => {
      const l = liveDeployment();
      (((l.spec as Obj).template as Obj).metadata as Obj).annotations = { "kubectl.kubernetes.io/restartedAt": "2024-05-02T09:40:00Z" };
      managedFieldsOf(l).push(
        entry("kubectl-rollout", { "f:spec": { "f:template": { "f:metadata": { "f:annotations": { ".": {}, "f:kubectl.kubernetes.io/restartedAt": {} } } } } }),
      );
      return l;
    },
    expect: (r) => expect(changesOf(r)).toMatchObject([{ kind: "added", attribution: { manager: "kubectl-rollout", class: "human" } }]),
  },
  {
    name: "a toleration added by hand to an atomic list is attributed through the list owner",
    desired: () => desiredDeployment(),
    live: () => {
      const l = liveDeployment();
      (((l.spec as Obj).template as Obj).spec as Obj).tolerations = [{ key: "dedicated", operator: "Equal", value: "shop", effect: "NoSchedule" }];
      managedFieldsOf(l).push(entry("kubectl-patch", { "f:spec": { "f:template": { "f:spec": { "f:tolerations": {} } } } }));
      return l;
    },
    expect: (r) => expect(changesOf(r)).toMatchObject([{ display: "spec.template.spec.tolerations", kind: "added", attribution: { manager: "kubectl-patch" } }]),
  },
  {
    name: "an explicit non-default pull policy on :latest set by hand is drift",
    desired: () => desiredDeployment(),
    live: () => {
      const l = liveDeployment();
      container(l, "log-shipper").imagePullPolicy = "IfNotPresent";
      managedFieldsOf(l).push(entry("kubectl-edit", { "f:spec": { "f:template": { "f:spec": { "f:containers": { 'k:{"name":"log-shipper"}': { "f:imagePullPolicy": {} } } } } } }));
      return l;
    },
    expect: (r) =>
      expect(changesOf(r)).toMatchObject([{ display: "spec.template.spec.containers[name=log-shipper].imagePullPolicy", kind: "added", live: "IfNotPresent" }]),
  },
  {
    name: "a Service port changed by hand is matched by port+protocol",
    desired: () => desiredService(),
    live: () => {
      const l = liveService();
      const ports = (l.spec as Obj).ports as Obj[];
      (ports[1] as Obj).targetPort = 9191;
      l.metadata.managedFields?.push(entry("kubectl-edit", { "f:spec": { "f:ports": { 'k:{"port":9090,"protocol":"TCP"}': { "f:targetPort": {} } } } }, { apiVersion: "v1" }));
      return l;
    },
    expect: (r) =>
      expect(changesOf(r)).toMatchObject([{ display: "spec.ports[port=9090,protocol=TCP].targetPort", kind: "added", live: 9191, attribution: { manager: "kubectl-edit" } }]),
  },
  {
    name: "null, empty map and absent are the same; zero values of struct fields equal absent",
    desired: () => {
      const d = desiredDeployment();
      const spec = ((d.spec as Obj).template as Obj).spec as Obj;
      spec.hostNetwork = false;
      spec.nodeSelector = null;
      spec.affinity = {};
      container(d).args = [];
      (((d.spec as Obj).template as Obj).metadata as Obj).creationTimestamp = null;
      return d;
    },
    live: () => liveDeployment(),
    expect: (r) => expect(r.type).toBe("InSync"),
  },
  {
    name: "an empty string in a ConfigMap is a value, not absence",
    desired: () => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "shop" }, data: { FEATURE: "" } }),
    live: () => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "shop" }, data: {} }),
    expect: (r) => expect(changesOf(r)).toMatchObject([{ display: "data.FEATURE", kind: "removed", desired: "" }]),
  },
  {
    name: "custom resources: lists of named objects merge by name",
    desired: () => ({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "shop" }, spec: { parts: [{ name: "a", size: 1 }, { name: "b", size: 2 }] } }),
    live: () => ({
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w", namespace: "shop", uid: "u" },
      spec: { parts: [{ name: "b", size: 3 }, { name: "a", size: 1 }] },
      status: { ready: true },
    }),
    expect: (r) => expect(changesOf(r)).toMatchObject([{ display: "spec.parts[name=b].size", path: ["spec", "parts", 0, "size"], desired: 2, live: 3 }]),
  },
  {
    name: "long named lists (more than 31 items) still match by name",
    desired: () => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", namespace: "shop" },
      data: { x: "1" },
      items: Array.from({ length: 40 }, (_, i) => ({ name: `n${i}`, v: i })),
    }),
    live: () => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", namespace: "shop" },
      data: { x: "1" },
      items: Array.from({ length: 40 }, (_, i) => ({ name: `n${39 - i}`, v: 39 - i === 35 ? 99 : 39 - i })),
    }),
    expect: (r) => expect(changesOf(r)).toMatchObject([{ display: "items[name=n35].v", path: ["items", 4, "v"], desired: 35, live: 99 }]),
  },
  {
    name: "a system finalizer only live is not drift",
    desired: () => ({ apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "data", namespace: "shop" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10Gi" } } } }),
    live: () => ({
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: "data", namespace: "shop", finalizers: ["kubernetes.io/pvc-protection"] },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10737418240" } }, storageClassName: "standard", volumeMode: "Filesystem", volumeName: "pvc-123" },
      status: { phase: "Bound" },
    }),
    expect: (r) => expect(r.type).toBe("InSync"),
  },
];

describe("compareObject", () => {
  it.each(cases)("$name", (c) => {
    const r = compareObject(c.desired(), c.live(), createCompareContext(c.options ?? FLUX));
    c.expect(r);
  });

  it("accepts plain options and compiles them once per options object", () => {
    const opts: CompareOptions = { ...FLUX, ignoreRules: [{ name: "r", paths: ["spec.replicas"] }] };
    const a = compareObject(desiredDeployment({ replicas: 1 }), liveDeployment({ replicas: 2 }), opts);
    const b = compareObject(desiredDeployment({ replicas: 1 }), liveDeployment({ replicas: 3 }), opts);
    expect(a).toEqual({ type: "InSync", ignored: { r: 1 } });
    expect(b).toEqual({ type: "InSync", ignored: { r: 1 } });
  });

  it("does not mutate its inputs", () => {
    const d = desiredDeployment();
    const l = liveDeployment({ replicas: 7 });
    const [dc, lc] = [clone(d), clone(l)];
    compareObject(d, l, createCompareContext(FLUX));
    expect(d).toEqual(dc);
    expect(l).toEqual(lc);
  });
});

describe("Secrets", () => {
  const key = "collector-key";
  const ctx = createCompareContext({ ...FLUX, secretKey: key });
  const liveMf = [entry("kustomize-controller", { "f:data": { "f:password": {}, "f:username": {} }, "f:type": {} }, { operation: "Apply", apiVersion: "v1" })];

  const secretCases: { name: string; desired: KubeObject; live: KubeObject; expect: (r: ObjectDrift) => void }[] = [
    {
      name: "a changed value → masked change, no value or base64 anywhere in the result",
      desired: hashSecretValues(secret({ username: b64("shop"), password: b64("s3cret-old") }), key),
      live: hashSecretValues(secret({ username: b64("shop"), password: b64("s3cret-new") }, undefined, liveMf), key),
      expect: (r) => {
        expect(changesOf(r)).toEqual([
          {
            path: ["data", "password"],
            display: "data.password",
            kind: "changed",
            desired: "(changed)",
            live: "(changed)",
            masked: true,
            attribution: { manager: "kustomize-controller", operation: "Apply", subresource: null, time: "2024-05-02T09:30:00Z", class: "controller" },
          },
        ]);
      },
    },
    {
      name: "even unhashed Secrets never leak a value",
      desired: secret({ username: b64("shop"), password: b64("s3cret-old") }),
      live: secret({ username: b64("shop"), password: b64("s3cret-new"), token: b64("tok-123") }, undefined, [
        ...liveMf,
        entry("kubectl-edit", { "f:data": { "f:token": {} } }, { apiVersion: "v1" }),
      ]),
      expect: (r) => {
        const text = JSON.stringify(r);
        for (const leaked of ["s3cret", b64("s3cret-old"), b64("s3cret-new"), "tok-123", b64("tok-123")]) expect(text).not.toContain(leaked);
        expect(changesOf(r).map((c) => [c.display, c.kind, c.desired, c.live])).toEqual([
          ["data.password", "changed", "(changed)", "(changed)"],
          ["data.token", "added", undefined, "(added)"],
        ]);
      },
    },
    {
      name: "a key removed live → (removed)",
      desired: secret({ username: b64("shop"), password: b64("pw") }),
      live: secret({ username: b64("shop") }, undefined, liveMf),
      expect: (r) => expect(changesOf(r).map((c) => [c.display, c.kind, c.desired, c.live])).toEqual([["data.password", "removed", "(removed)", undefined]]),
    },
    {
      name: "stringData in Git equal to live data → in sync (raw on both sides)",
      desired: secret(undefined, { username: "shop", password: "pw" }),
      live: secret({ username: b64("shop"), password: b64("pw") }, undefined, liveMf),
      expect: (r) => expect(r).toEqual({ type: "InSync", ignored: {} }),
    },
    {
      name: "stringData in Git equal to live data → in sync (hashed at ingestion)",
      desired: hashSecretValues(secret({ username: b64("shop") }, { password: "pw" }), key),
      live: hashSecretValues(secret({ username: b64("shop"), password: b64("pw") }, undefined, liveMf), key),
      expect: (r) => expect(r).toEqual({ type: "InSync", ignored: {} }),
    },
    {
      name: "raw Git against hashed live compares through the key",
      desired: secret(undefined, { username: "shop", password: "pw" }),
      live: hashSecretValues(secret({ username: b64("shop"), password: b64("pw") }, undefined, liveMf), key),
      expect: (r) => expect(r.type).toBe("InSync"),
    },
  ];

  it.each(secretCases)("$name", (c) => c.expect(compareObject(c.desired, c.live, ctx)));

  it("a last-applied annotation on a Secret (raw values inside) never reaches the result", () => {
    const d = secret({ password: b64("pw-1") });
    const l = secret({ password: b64("pw-2"), extra: b64("old") });
    l.metadata.annotations = { "kubectl.kubernetes.io/last-applied-configuration": JSON.stringify({ ...secret({ password: b64("pw-0"), extra: b64("old") }) }) };
    const r = compareObject(d, l, createCompareContext({}));
    const text = JSON.stringify(r);
    for (const leaked of ["pw-0", "pw-1", "pw-2", b64("pw-0"), b64("pw-1"), b64("pw-2"), b64("old")]) expect(text).not.toContain(leaked);
    expect(changesOf(r).map((c) => [c.display, c.kind])).toEqual([
      ["data.password", "changed"],
      ["data.extra", "unpruned"],
    ]);
  });
});

describe("compareAll", () => {
  it("keys every object of either side and decides each", () => {
    const ctx = createCompareContext({ ...FLUX, extraTracking: { fluxInventory: ["shop_old_apps_Deployment"] } });
    const r = compareAll(
      [desiredDeployment(), desiredService(), desiredDeployment({ name: "new" })],
      [liveDeployment({ replicas: 4 }), liveService(), liveDeployment({ name: "old" }), liveDeployment({ name: "foreign" })],
      ctx,
    );
    expect(Object.fromEntries([...r].map(([k, v]) => [k, v.type]))).toEqual({
      "apps/Deployment/shop/api": "Modified",
      "/Service/shop/api": "InSync",
      "apps/Deployment/shop/new": "Missing",
      "apps/Deployment/shop/old": "Extra",
      "apps/Deployment/shop/foreign": "InSync",
    });
  });
});
