// Conformance of the imitation as seen through the real @kubernetes/client-node:
// typed APIs, KubernetesObjectApi, and the wire format underneath.
import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  type KubernetesObject,
  type V1ConfigMap,
  type V1Deployment,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GITOPS_CRDS } from "./fixtures/gitops-crds";
import { startKubeSim, type KubeSim } from "./index";
import { eventually, raw } from "./test-helpers";

let sim: KubeSim;
let core: CoreV1Api;
let apps: AppsV1Api;
let objects: KubernetesObjectApi;

type ManagedEntry = { manager: string; operation: string; subresource?: string; apiVersion?: string; time?: string; fieldsV1: Record<string, unknown> };

function managers(o: { metadata?: { managedFields?: unknown } }): ManagedEntry[] {
  return (o.metadata?.managedFields ?? []) as ManagedEntry[];
}

async function expectStatus(p: Promise<unknown>, code: number): Promise<Record<string, unknown>> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ApiException);
    const err = e as ApiException<string>;
    expect(err.code).toBe(code);
    return JSON.parse(err.body) as Record<string, unknown>;
  }
  throw new Error(`expected HTTP ${code}`);
}

function deployment(name: string, extra: Partial<V1Deployment["spec"]> = {}): V1Deployment {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, labels: { app: name } },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "app", image: "nginx:1.25" }] } },
      ...extra,
    },
  };
}

beforeAll(async () => {
  sim = await startKubeSim({ historyLimit: 50 });
  const kc = new KubeConfig();
  kc.loadFromFile(sim.kubeconfigPath);
  core = kc.makeApiClient(CoreV1Api);
  apps = kc.makeApiClient(AppsV1Api);
  objects = KubernetesObjectApi.makeApiClient(kc);
});

afterAll(async () => {
  await sim?.stop();
});

describe("discovery", () => {
  it("serves the version, resource lists with main resources before subresources, and aggregated discovery", async () => {
    const v = await raw(sim, "GET", "/version");
    expect(v.json).toMatchObject({ major: "1", minor: "34", gitVersion: expect.stringMatching(/^v1\.34\./) });

    const rl = (await raw(sim, "GET", "/apis/apps/v1")).json as { kind: string; resources: Array<{ name: string; kind: string; group?: string; verbs: string[]; shortNames?: string[] }> };
    expect(rl.kind).toBe("APIResourceList");
    const names = rl.resources.map((r) => r.name);
    expect(names.indexOf("deployments")).toBeLessThan(names.indexOf("deployments/scale"));
    expect(names.indexOf("deployments/scale")).toBeLessThan(names.indexOf("deployments/status"));
    expect(rl.resources.find((r) => r.name === "deployments")).toMatchObject({ shortNames: ["deploy"], verbs: expect.arrayContaining(["watch", "patch"]) });
    expect(rl.resources.find((r) => r.name === "deployments/scale")).toMatchObject({ group: "autoscaling", kind: "Scale", verbs: ["get", "patch", "update"] });

    const agg = await raw(sim, "GET", "/apis", { accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json" });
    expect(agg.headers["content-type"]).toBe("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
    expect((agg.json as { items: Array<{ metadata: { name: string } }> }).items.map((i) => i.metadata.name)).toContain("apps");
  });

  it("serves the OpenAPI v3 patch operations kubectl checks before validating on the server", async () => {
    const root = (await raw(sim, "GET", "/openapi/v3")).json as { paths: Record<string, { serverRelativeURL: string }> };
    const ref = root.paths["apis/apps/v1"]?.serverRelativeURL;
    expect(ref).toMatch(/^\/openapi\/v3\/apis\/apps\/v1\?hash=/);
    const doc = (await raw(sim, "GET", ref as string)).json as { paths: Record<string, { patch?: Record<string, unknown> }> };
    const patch = doc.paths["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]?.patch as { parameters: Array<{ name: string; in: string }>; "x-kubernetes-group-version-kind": unknown };
    expect(patch["x-kubernetes-group-version-kind"]).toEqual({ group: "apps", kind: "Deployment", version: "v1" });
    expect(patch.parameters).toContainEqual(expect.objectContaining({ name: "fieldValidation", in: "query" }));
  });
});

describe("authentication and errors", () => {
  it("answers an unknown token with a 401 Status and no token as system:anonymous, who may only read /version and the health checks", async () => {
    const r = await raw(sim, "GET", "/api/v1/namespaces/default/configmaps", { token: "not-a-token" });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "Unauthorized", reason: "Unauthorized", code: 401 });
    const anonymous = await raw(sim, "GET", "/api/v1/namespaces/default/configmaps", { token: null });
    expect(anonymous.status).toBe(403);
    expect((anonymous.json as { message: string }).message).toBe('configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "default"');
    expect((await raw(sim, "GET", "/version", { token: null })).status).toBe(200);
    expect((await raw(sim, "GET", "/readyz", { token: null })).status).toBe(200);
  });

  it("lets read-only tokens read and refuses their writes with the RBAC message", async () => {
    expect((await raw(sim, "GET", "/api/v1/namespaces/default/configmaps", { token: sim.tokens.readonly })).status).toBe(200);
    const r = await raw(sim, "POST", "/api/v1/namespaces/default/configmaps", { token: sim.tokens.readonly, body: { metadata: { name: "ro" } } });
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({
      reason: "Forbidden",
      code: 403,
      message: 'configmaps is forbidden: User "kubesim-readonly" cannot create resource "configmaps" in API group "" in the namespace "default"',
      details: { kind: "configmaps" },
    });
  });

  it("scopes tokens to namespaces", async () => {
    sim.addToken("team-a-token", { verbs: "write", namespaces: ["team-a"], user: "system:serviceaccount:team-a:deployer" });
    const other = await raw(sim, "GET", "/apis/apps/v1/namespaces/default/deployments", { token: "team-a-token" });
    expect(other.status).toBe(403);
    expect((other.json as { message: string }).message).toBe(
      'deployments.apps is forbidden: User "system:serviceaccount:team-a:deployer" cannot list resource "deployments" in API group "apps" in the namespace "default"',
    );
    const all = await raw(sim, "GET", "/api/v1/configmaps", { token: "team-a-token" });
    expect((all.json as { message: string }).message).toBe(
      'configmaps is forbidden: User "system:serviceaccount:team-a:deployer" cannot list resource "configmaps" in API group "" at the cluster scope',
    );
  });

  it("uses the real reasons and messages for 400, 404, 409, 415 and 422", async () => {
    const nf = await expectStatus(core.readNamespacedConfigMap({ name: "nope", namespace: "default" }), 404);
    expect(nf).toMatchObject({ reason: "NotFound", message: 'configmaps "nope" not found', details: { name: "nope", kind: "configmaps" } });

    const nfGroup = await expectStatus(apps.readNamespacedDeployment({ name: "nope", namespace: "default" }), 404);
    expect(nfGroup.message).toBe('deployments.apps "nope" not found');

    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "dup" } } });
    const dup = await expectStatus(core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "dup" } } }), 409);
    expect(dup).toMatchObject({ reason: "AlreadyExists", message: 'configmaps "dup" already exists' });

    const bad = await expectStatus(core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "Bad_Name" } } }), 422);
    expect(bad.reason).toBe("Invalid");
    expect(bad.message).toBe(
      `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    );
    expect(bad.details).toMatchObject({ kind: "ConfigMap", causes: [{ reason: "FieldValueInvalid", field: "metadata.name" }] });

    const fs = await raw(sim, "GET", "/api/v1/namespaces/default/configmaps?fieldSelector=data.x%3Dy");
    expect(fs.status).toBe(400);
    expect(fs.json).toMatchObject({ reason: "BadRequest", message: '"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"' });

    const ct = await raw(sim, "PATCH", "/api/v1/namespaces/default/configmaps/dup", { body: "{}", contentType: "text/plain" });
    expect(ct.status).toBe(415);
    // go-restful refuses it before the patch handler: a bare message and empty details.
    expect(ct.json).toMatchObject({ reason: "UnsupportedMediaType", message: "415: Unsupported Media Type", details: {} });

    const ns = await raw(sim, "POST", "/api/v1/namespaces/missing/configmaps", { body: { metadata: { name: "x" } } });
    expect(ns.json).toMatchObject({ code: 404, message: 'namespaces "missing" not found' });
  });
});

describe("objects and metadata", () => {
  it("writes uid, resourceVersion, creationTimestamp and a managedFields entry named after the User-Agent", async () => {
    const cm = await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "meta" }, data: { a: "1" } } });
    expect(cm.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(cm.metadata?.resourceVersion).toMatch(/^\d+$/);
    expect(cm.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(managers(cm)).toEqual([
      {
        manager: "kubernetes-client-javascript",
        operation: "Update",
        apiVersion: "v1",
        time: expect.any(Date),
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { ".": {}, "f:a": {} } },
      },
    ]);
    const rawCm = (await raw(sim, "GET", "/api/v1/namespaces/default/configmaps/meta")).json as { kind: string; metadata: { managedFields: Array<{ time: string }> } };
    expect(rawCm.kind).toBe("ConfigMap");
    expect(rawCm.metadata.managedFields[0]?.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const updated = await core.replaceNamespacedConfigMap({ name: "meta", namespace: "default", body: { ...cm, data: { a: "2" } }, fieldManager: "my-tool" });
    expect(Number(updated.metadata?.resourceVersion)).toBeGreaterThan(Number(cm.metadata?.resourceVersion));
    expect(managers(updated).map((m) => m.manager)).toEqual(["kubernetes-client-javascript", "my-tool"]);
    expect(managers(updated)[1]?.fieldsV1).toEqual({ "f:data": { "f:a": {} } });
    // The first manager lost the field the second one changed, keeping only the map it created.
    expect(managers(updated)[0]?.fieldsV1).toEqual({ "f:data": {} });

    const stale = await expectStatus(core.replaceNamespacedConfigMap({ name: "meta", namespace: "default", body: { ...cm, data: { a: "3" } } }), 409);
    expect(stale).toMatchObject({
      reason: "Conflict",
      message: 'Operation cannot be fulfilled on configmaps "meta": the object has been modified; please apply your changes to the latest version and try again',
    });

    const noop = await core.replaceNamespacedConfigMap({ name: "meta", namespace: "default", body: updated });
    expect(noop.metadata?.resourceVersion).toBe(updated.metadata?.resourceVersion);

    const del = (await raw(sim, "DELETE", "/api/v1/namespaces/default/configmaps/meta")).json;
    expect(del).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details: { name: "meta", kind: "configmaps", uid: cm.metadata?.uid } });
  });

  it("defaults Deployments, Services, Secrets and StatefulSets like the real server, quantities included", async () => {
    const d = await apps.createNamespacedDeployment({
      namespace: "default",
      body: {
        ...deployment("defaults"),
        spec: {
          selector: { matchLabels: { app: "defaults" } },
          template: {
            metadata: { labels: { app: "defaults" } },
            spec: {
              containers: [
                { name: "a", image: "nginx", ports: [{ containerPort: 80 }], resources: { limits: { cpu: "0.5", memory: "1024Mi" }, requests: { cpu: "1000m" } } },
                { name: "b", image: "nginx:1.25" },
                { name: "c", image: "registry.example.com:5000/app@sha256:abc" },
              ],
            },
          },
        },
      },
    });
    const r = (await raw(sim, "GET", "/apis/apps/v1/namespaces/default/deployments/defaults")).json as { spec: Record<string, unknown> };
    expect(r.spec).toMatchObject({
      replicas: 1,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } },
      template: {
        metadata: {},
        spec: { restartPolicy: "Always", terminationGracePeriodSeconds: 30, dnsPolicy: "ClusterFirst", securityContext: {}, schedulerName: "default-scheduler" },
      },
    });
    const containers = d.spec?.template.spec?.containers ?? [];
    expect(containers.map((c) => c.imagePullPolicy)).toEqual(["Always", "IfNotPresent", "IfNotPresent"]);
    expect(containers[0]).toMatchObject({
      terminationMessagePath: "/dev/termination-log",
      terminationMessagePolicy: "File",
      ports: [{ containerPort: 80, protocol: "TCP" }],
      resources: { limits: { cpu: "500m", memory: "1Gi" }, requests: { cpu: "1" } },
    });
    expect(containers[1]?.resources).toEqual({});

    const svc = await core.createNamespacedService({
      namespace: "default",
      body: { metadata: { name: "web" }, spec: { selector: { app: "web" }, ports: [{ port: 80 }] } },
    });
    expect(svc.spec).toMatchObject({
      type: "ClusterIP",
      sessionAffinity: "None",
      internalTrafficPolicy: "Cluster",
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      ports: [{ port: 80, protocol: "TCP", targetPort: 80 }],
    });
    expect(svc.spec?.clusterIP).toMatch(/^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    expect(svc.spec?.clusterIPs).toEqual([svc.spec?.clusterIP]);
    // Allocation happens after the field manager ran: the creator does not own the address.
    expect(JSON.stringify(managers(svc)[0]?.fieldsV1)).not.toContain("clusterIP");

    const secret = await core.createNamespacedSecret({ namespace: "default", body: { metadata: { name: "s" }, stringData: { password: "hunter2" } } });
    expect(secret.type).toBe("Opaque");
    expect(secret.data).toEqual({ password: Buffer.from("hunter2").toString("base64") });
    expect(secret.stringData).toBeUndefined();

    const sts = await apps.createNamespacedStatefulSet({
      namespace: "default",
      body: {
        metadata: { name: "db" },
        spec: {
          serviceName: "db",
          selector: { matchLabels: { app: "db" } },
          template: { metadata: { labels: { app: "db" } }, spec: { containers: [{ name: "db", image: "postgres:16" }] } },
          volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1024Mi" } } } }],
        },
      },
    });
    expect(sts.spec).toMatchObject({
      podManagementPolicy: "OrderedReady",
      replicas: 1,
      revisionHistoryLimit: 10,
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
    });
    expect(sts.spec?.volumeClaimTemplates?.[0]).toMatchObject({
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      spec: { volumeMode: "Filesystem", resources: { requests: { storage: "1Gi" } } },
      status: { phase: "Pending" },
    });
  });

  it("runs the deployment controller: status, observedGeneration, conditions and revision without bumping generation", async () => {
    await apps.createNamespacedDeployment({ namespace: "default", body: deployment("ctl", { replicas: 2 }) });
    const d = await eventually(async () => {
      const x = await apps.readNamespacedDeployment({ name: "ctl", namespace: "default" });
      return x.status?.observedGeneration === 1 ? x : undefined;
    });
    expect(d.metadata?.generation).toBe(1);
    expect(d.metadata?.annotations?.["deployment.kubernetes.io/revision"]).toBe("1");
    expect(d.status).toMatchObject({ replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 });
    expect(d.status?.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ["Available", "True", "MinimumReplicasAvailable"],
      ["Progressing", "True", "NewReplicaSetAvailable"],
    ]);
    const kcm = managers(d).find((m) => m.manager === "kube-controller-manager");
    expect(kcm).toMatchObject({ operation: "Update", subresource: "status" });
    expect(Object.keys(kcm?.fieldsV1 ?? {})).toEqual(["f:metadata", "f:status"]);

    // Label changes do not bump generation; annotation and spec changes do.
    const patch = (body: object) =>
      apps.patchNamespacedDeployment({ name: "ctl", namespace: "default", body }, setHeaderOptions("Content-Type", PatchStrategy.MergePatch));
    expect((await patch({ metadata: { labels: { tier: "web" } } })).metadata?.generation).toBe(1);
    expect((await patch({ metadata: { annotations: { note: "x" } } })).metadata?.generation).toBe(2);
    const changed = await patch({ spec: { template: { spec: { containers: [{ name: "app", image: "nginx:1.26" }] } } } });
    expect(changed.metadata?.generation).toBe(3);
    const after = await eventually(async () => {
      const x = await apps.readNamespacedDeployment({ name: "ctl", namespace: "default" });
      return x.status?.observedGeneration === 3 ? x : undefined;
    });
    expect(after.metadata?.annotations?.["deployment.kubernetes.io/revision"]).toBe("2");
    expect(after.metadata?.generation).toBe(3);

    const scale = await apps.readNamespacedDeploymentScale({ name: "ctl", namespace: "default" });
    expect(scale).toMatchObject({ kind: "Scale", apiVersion: "autoscaling/v1", spec: { replicas: 2 }, status: { replicas: 2, selector: "app=ctl" } });
    const scaled = await apps.replaceNamespacedDeploymentScale({ name: "ctl", namespace: "default", body: { ...scale, spec: { replicas: 4 } } });
    expect(scaled.spec?.replicas).toBe(4);
    const d4 = await apps.readNamespacedDeployment({ name: "ctl", namespace: "default" });
    expect(d4.spec?.replicas).toBe(4);
    expect(d4.metadata?.generation).toBe(4);
    expect(managers(d4).find((m) => m.subresource === "scale")).toMatchObject({ manager: "kubernetes-client-javascript", operation: "Update", fieldsV1: { "f:spec": { "f:replicas": {} } } });
    const stale = await expectStatus(apps.replaceNamespacedDeploymentScale({ name: "ctl", namespace: "default", body: { ...scale, spec: { replicas: 5 } } }), 409);
    expect(stale.message).toBe('Operation cannot be fulfilled on deployments.apps "ctl": the object has been modified; please apply your changes to the latest version and try again');
  });
});

describe("horizontal pod autoscalers", () => {
  it("defaults autoscaling/v2 HPAs and keeps the target within min/max through the scale subresource", async () => {
    await apps.createNamespacedDeployment({ namespace: "default", body: deployment("hpa-target", { replicas: 1 }) });
    const created = await raw(sim, "POST", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers", {
      body: {
        apiVersion: "autoscaling/v2",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "hpa-target" },
        spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "hpa-target" }, minReplicas: 3, maxReplicas: 5, behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } },
      },
    });
    expect(created.status).toBe(201);
    const hpa = created.json as { metadata: Record<string, unknown>; spec: Record<string, unknown>; status: Record<string, unknown> };
    expect(hpa.metadata).not.toHaveProperty("generation");
    expect(hpa.spec.metrics).toEqual([{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } }]);
    expect(hpa.spec.behavior).toEqual({
      scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: "Max", policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] },
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: "Max", policies: [{ type: "Pods", value: 4, periodSeconds: 15 }, { type: "Percent", value: 100, periodSeconds: 15 }] },
    });
    expect(hpa.status).toEqual({ currentMetrics: null, desiredReplicas: 0 });

    const scaled = await eventually(async () => {
      const d = await apps.readNamespacedDeployment({ name: "hpa-target", namespace: "default" });
      return d.spec?.replicas === 3 ? d : undefined;
    });
    expect(managers(scaled).find((m) => m.manager === "kube-controller-manager" && m.subresource === "scale")).toMatchObject({ operation: "Update", fieldsV1: { "f:spec": { "f:replicas": {} } } });
    const status = await eventually(async () => {
      const h = (await raw(sim, "GET", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/hpa-target")).json as typeof hpa;
      return h.status.currentReplicas === 3 ? h.status : undefined;
    });
    expect(status).toMatchObject({ desiredReplicas: 3, conditions: expect.arrayContaining([expect.objectContaining({ type: "ScalingActive", status: "False", reason: "FailedGetResourceMetric" })]) });

    const bad = await raw(sim, "POST", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers", {
      body: { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", metadata: { name: "bad" }, spec: { scaleTargetRef: { kind: "Deployment", name: "x" }, minReplicas: 4, maxReplicas: 2 } },
    });
    expect(bad.json).toMatchObject({ code: 422, message: 'HorizontalPodAutoscaler.autoscaling "bad" is invalid: spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`' });
  });
});

describe("patches", () => {
  it("applies JSON patch, merge patch and strategic merge patch with the list merge keys", async () => {
    await apps.createNamespacedDeployment({
      namespace: "default",
      body: {
        ...deployment("smp"),
        spec: {
          selector: { matchLabels: { app: "smp" } },
          template: {
            metadata: { labels: { app: "smp" } },
            spec: {
              volumes: [{ name: "cfg", configMap: { name: "cfg" } }],
              containers: [
                {
                  name: "app",
                  image: "app:1",
                  ports: [{ containerPort: 80, name: "http" }],
                  env: [{ name: "A", value: "1" }, { name: "B", value: "2" }],
                  volumeMounts: [{ name: "cfg", mountPath: "/etc/cfg" }],
                },
                { name: "sidecar", image: "side:1" },
              ],
            },
          },
        },
      },
    });
    const smp = await raw(sim, "PATCH", "/apis/apps/v1/namespaces/default/deployments/smp?fieldManager=smp-test", {
      contentType: "application/strategic-merge-patch+json",
      body: {
        spec: {
          template: {
            spec: {
              volumes: [{ name: "data", emptyDir: {} }],
              containers: [
                {
                  name: "app",
                  image: "app:2",
                  ports: [{ containerPort: 80, name: "web" }, { containerPort: 443 }],
                  env: [{ name: "B", value: "3" }, { name: "A", $patch: "delete" }],
                  volumeMounts: [{ name: "data", mountPath: "/data" }],
                },
              ],
            },
          },
        },
      },
    });
    expect(smp.status).toBe(200);
    const spec = (smp.json as V1Deployment).spec?.template.spec;
    expect(spec?.containers.map((c) => c.name)).toEqual(["app", "sidecar"]);
    const app = spec?.containers[0];
    expect(app?.image).toBe("app:2");
    expect(app?.ports).toEqual([
      { containerPort: 80, name: "web", protocol: "TCP" },
      { containerPort: 443, protocol: "TCP" },
    ]);
    expect(app?.env).toEqual([{ name: "B", value: "3" }]);
    // Items a strategic merge patch adds come before the server's own (normalizeElementOrder).
    expect(app?.volumeMounts?.map((m) => m.mountPath)).toEqual(["/data", "/etc/cfg"]);
    expect(spec?.volumes?.map((v) => v.name)).toEqual(["data", "cfg"]);

    const merge = await raw(sim, "PATCH", "/apis/apps/v1/namespaces/default/deployments/smp", {
      contentType: "application/merge-patch+json",
      body: { spec: { template: { spec: { containers: [{ name: "only", image: "x:1" }] } } } },
    });
    // Merge patch replaces lists wholesale.
    expect((merge.json as V1Deployment).spec?.template.spec?.containers.map((c) => c.name)).toEqual(["only"]);

    const jp = await raw(sim, "PATCH", "/apis/apps/v1/namespaces/default/deployments/smp", {
      contentType: "application/json-patch+json",
      body: [{ op: "replace", path: "/spec/replicas", value: 4 }, { op: "add", path: "/metadata/labels/extra", value: "y" }],
    });
    expect((jp.json as V1Deployment).spec?.replicas).toBe(4);
    const failed = await raw(sim, "PATCH", "/apis/apps/v1/namespaces/default/deployments/smp", {
      contentType: "application/json-patch+json",
      body: [{ op: "test", path: "/spec/replicas", value: 9 }],
    });
    expect(failed.json).toMatchObject({ code: 422, reason: "Invalid", message: "the server rejected our request due to an error in our request" });

    const mgrs = managers((await raw(sim, "GET", "/apis/apps/v1/namespaces/default/deployments/smp")).json as V1Deployment).map((m) => m.manager);
    expect(mgrs).toEqual(expect.arrayContaining(["smp-test", "kubernetes-client-javascript"]));
  });

  it("orders lists by $setElementOrder, as kubectl apply's three-way patches expect", async () => {
    await apps.createNamespacedDeployment({
      namespace: "default",
      body: {
        ...deployment("order"),
        spec: {
          selector: { matchLabels: { app: "order" } },
          template: { metadata: { labels: { app: "order" } }, spec: { containers: [{ name: "a", image: "a:1" }, { name: "b", image: "b:1" }] } },
        },
      },
    });
    const r = await raw(sim, "PATCH", "/apis/apps/v1/namespaces/default/deployments/order", {
      contentType: "application/strategic-merge-patch+json",
      body: { spec: { template: { spec: { "$setElementOrder/containers": [{ name: "b" }, { name: "a" }], containers: [{ name: "a", image: "a:2" }] } } } },
    });
    expect((r.json as V1Deployment).spec?.template.spec?.containers.map((c) => `${c.name}=${c.image}`)).toEqual(["b=b:1", "a=a:2"]);
  });

  it("drops unknown fields of built-in kinds, warns, or refuses them under fieldValidation=Strict", async () => {
    const body = { ...deployment("typo"), spec: { ...deployment("typo").spec, template: { metadata: { labels: { app: "typo" } }, spec: { containers: [{ name: "app", image: "x:1", imagee: "y" }] } } } };
    const strict = await raw(sim, "POST", "/apis/apps/v1/namespaces/default/deployments?fieldValidation=Strict", { body });
    expect(strict.json).toMatchObject({
      code: 400,
      reason: "BadRequest",
      message: 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].imagee"',
    });
    const warned = await raw(sim, "POST", "/apis/apps/v1/namespaces/default/deployments", { body });
    expect(warned.status).toBe(201);
    expect(warned.headers.warning).toBe('299 - "unknown field \\"spec.template.spec.containers[0].imagee\\""');
    expect((warned.json as V1Deployment).spec?.template.spec?.containers[0]).not.toHaveProperty("imagee");
    const applied = await raw(sim, "PATCH", "/api/v1/namespaces/default/configmaps/ssa-typo?fieldManager=x", {
      contentType: "application/apply-patch+yaml",
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ssa-typo" }, dta: { a: "b" } },
    });
    expect(applied.json).toMatchObject({ code: 500, message: "failed to create typed patch object (/ssa-typo; /v1, Kind=ConfigMap): .dta: field not declared in schema" });
  });

  it("refuses values of the wrong type with the decoder's message", async () => {
    const r = await raw(sim, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "typed", labels: { version: 2 } }, data: { a: "1" } } });
    expect(r.json).toMatchObject({
      code: 400,
      reason: "BadRequest",
      message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
    });
    const q = await raw(sim, "POST", "/apis/apps/v1/namespaces/default/deployments", {
      body: { ...deployment("qty"), spec: { ...deployment("qty").spec, replicas: "3" } },
    });
    expect((q.json as { message: string }).message).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
  });

  it("does not persist dryRun=All writes", async () => {
    const created = await raw(sim, "POST", "/api/v1/namespaces/default/configmaps?dryRun=All", { body: { metadata: { name: "dry" }, data: { a: "b" } } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ metadata: { name: "dry", uid: expect.any(String) } });
    expect((await raw(sim, "GET", "/api/v1/namespaces/default/configmaps/dry")).status).toBe(404);
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "dry" }, data: { a: "b" } } });
    const patched = await raw(sim, "PATCH", "/api/v1/namespaces/default/configmaps/dry?dryRun=All", { contentType: "application/merge-patch+json", body: { data: { a: "c" } } });
    expect((patched.json as V1ConfigMap).data?.a).toBe("c");
    expect((await core.readNamespacedConfigMap({ name: "dry", namespace: "default" })).data?.a).toBe("b");
  });
});

describe("server-side apply", () => {
  const cfg = (replicas: number, image = "nginx:1.25") =>
    JSON.stringify({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "ssa", labels: { app: "ssa" } },
      spec: {
        replicas,
        selector: { matchLabels: { app: "ssa" } },
        template: { metadata: { labels: { app: "ssa" } }, spec: { containers: [{ name: "app", image }] } },
      },
    });
  const applyPath = (q: string) => `/apis/apps/v1/namespaces/default/deployments/ssa?${q}`;

  it("requires a fieldManager", async () => {
    const r = await raw(sim, "PATCH", applyPath(""), { contentType: "application/apply-patch+yaml", body: cfg(1) });
    expect(r.json).toMatchObject({
      code: 422,
      reason: "Invalid",
      message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    });
  });

  it("records Apply ownership, reports conflicts with FieldManagerConflict causes, and takes ownership with force", async () => {
    const created = await raw(sim, "PATCH", applyPath("fieldManager=team-a"), { contentType: "application/apply-patch+yaml", body: cfg(2) });
    expect(created.status).toBe(201);
    const entry = managers(created.json as V1Deployment).find((m) => m.manager === "team-a");
    expect(entry).toMatchObject({ operation: "Apply", apiVersion: "apps/v1" });
    expect(entry?.fieldsV1).toMatchObject({ "f:metadata": { "f:labels": { "f:app": {} } }, "f:spec": { "f:replicas": {}, "f:selector": {} } });

    // An imperative edit of replicas, then an apply that disagrees.
    await raw(sim, "PATCH", "/apis/apps/v1/namespaces/default/deployments/ssa/scale", { contentType: "application/merge-patch+json", body: { spec: { replicas: 5 } }, userAgent: "kubectl/v1.32.4 (linux/amd64) kubernetes/59526cd" });
    const conflict = await raw(sim, "PATCH", applyPath("fieldManager=team-a"), { contentType: "application/apply-patch+yaml", body: cfg(2) });
    expect(conflict.status).toBe(409);
    expect(conflict.json).toMatchObject({
      reason: "Conflict",
      message: 'Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas',
      details: { causes: [{ reason: "FieldManagerConflict", message: 'conflict with "kubectl" with subresource "scale" using apps/v1', field: ".spec.replicas" }] },
    });

    const forced = await raw(sim, "PATCH", applyPath("fieldManager=team-a&force=true"), { contentType: "application/apply-patch+yaml", body: cfg(2) });
    expect(forced.status).toBe(200);
    const fm = managers(forced.json as V1Deployment);
    expect(fm.find((m) => m.subresource === "scale")).toBeUndefined();
    expect((forced.json as V1Deployment).spec?.replicas).toBe(2);
  });

  it("removes fields an applier stops specifying when nobody else owns them", async () => {
    await raw(sim, "PATCH", "/api/v1/namespaces/default/configmaps/prune?fieldManager=a", {
      contentType: "application/apply-patch+yaml",
      body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: prune\ndata:\n  keep: '1'\n  drop: '2'\n",
    });
    const r = await raw(sim, "PATCH", "/api/v1/namespaces/default/configmaps/prune?fieldManager=a", {
      contentType: "application/apply-patch+yaml",
      body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: prune\ndata:\n  keep: '1'\n",
    });
    expect((r.json as V1ConfigMap).data).toEqual({ keep: "1" });
  });
});

describe("lists", () => {
  beforeAll(async () => {
    await core.createNamespace({ body: { metadata: { name: "listing" } } });
    sim.seed(
      Array.from({ length: 25 }, (_, i) => ({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `item-${String(i).padStart(2, "0")}`, namespace: "listing", labels: { tier: i % 3 === 0 ? "a" : i % 3 === 1 ? "b" : "c", ...(i < 5 ? { special: "yes" } : {}) } },
        data: { i: String(i) },
      })),
      { manager: "seeder" },
    );
  });

  it("returns XList with items without kind/apiVersion and a resourceVersion", async () => {
    const r = (await raw(sim, "GET", "/api/v1/namespaces/listing/configmaps?labelSelector=tier%3Da")).json as { kind: string; apiVersion: string; metadata: { resourceVersion: string }; items: Array<Record<string, unknown>> };
    expect(r.kind).toBe("ConfigMapList");
    expect(r.apiVersion).toBe("v1");
    expect(r.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(r.items[0]).not.toHaveProperty("kind");
    expect(r.items[0]).not.toHaveProperty("apiVersion");
    expect(r.items.map((i) => (i.metadata as { name: string }).name)).toEqual(["item-00", "item-03", "item-06", "item-09", "item-12", "item-15", "item-18", "item-21", "item-24"]);
  });

  it.each([
    ["tier!=a", 16],
    ["tier in (a,b)", 17],
    ["tier notin (a,b)", 8],
    ["special", 5],
    ["!special", 20],
    ["tier=b,special", 2],
  ])("filters by label selector %s", async (sel, count) => {
    const l = await core.listNamespacedConfigMap({ namespace: "listing", labelSelector: sel });
    expect(l.items.filter((i) => i.metadata?.name?.startsWith("item-"))).toHaveLength(count);
  });

  it("paginates at one resourceVersion with continue tokens and remainingItemCount", async () => {
    const first = await core.listNamespacedConfigMap({ namespace: "listing", limit: 10 });
    expect(first.items).toHaveLength(10);
    expect(first.metadata?.remainingItemCount).toBe(16);
    expect(first.metadata?._continue).toBeTruthy();
    // Changes after the first page do not leak into later pages.
    await core.createNamespacedConfigMap({ namespace: "listing", body: { metadata: { name: "item-99" } } });
    await core.deleteNamespacedConfigMap({ name: "item-20", namespace: "listing" });
    const names: string[] = first.items.map((i) => i.metadata?.name ?? "");
    let cont = first.metadata?._continue;
    while (cont) {
      const page = await core.listNamespacedConfigMap({ namespace: "listing", limit: 10, _continue: cont });
      expect(page.metadata?.resourceVersion).toBe(first.metadata?.resourceVersion);
      names.push(...page.items.map((i) => i.metadata?.name ?? ""));
      cont = page.metadata?._continue;
    }
    expect(names).toContain("item-20");
    expect(names).not.toContain("item-99");
    expect(names).toHaveLength(26);
  });

  it("answers an expired continue token with 410 Expired and a fresh token", async () => {
    const first = await core.listNamespacedConfigMap({ namespace: "listing", limit: 5 });
    // More changes than the history keeps (historyLimit 50).
    sim.seed(Array.from({ length: 60 }, (_, i) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `churn-${i}`, namespace: "listing" } })));
    const r = await raw(sim, "GET", `/api/v1/namespaces/listing/configmaps?limit=5&continue=${encodeURIComponent(first.metadata?._continue ?? "")}`);
    expect(r.status).toBe(410);
    expect(r.json).toMatchObject({ reason: "Expired", code: 410, message: expect.stringMatching(/^The provided continue parameter is too old/), metadata: { continue: expect.any(String) } });
  });

  it("supports field selectors on metadata.name and metadata.namespace", async () => {
    const l = await core.listConfigMapForAllNamespaces({ fieldSelector: "metadata.name=item-01,metadata.namespace=listing" });
    expect(l.items.map((i) => i.metadata?.name)).toEqual(["item-01"]);
    const s = await core.listNamespacedSecret({ namespace: "default", fieldSelector: "type=Opaque" });
    expect(s.items.length).toBeGreaterThan(0);
  });
});

describe("deletion", () => {
  it("garbage-collects dependents in the background and orphans them on request", async () => {
    const owner = await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "owner" } } });
    const ref = { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata?.uid ?? "" };
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "dependent", ownerReferences: [ref] } } });
    await core.deleteNamespacedConfigMap({ name: "owner", namespace: "default" });
    await eventually(async () => (await raw(sim, "GET", "/api/v1/namespaces/default/configmaps/dependent")).status === 404);

    const owner2 = await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "owner2" } } });
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "kept", ownerReferences: [{ ...ref, name: "owner2", uid: owner2.metadata?.uid ?? "" }] } } });
    await core.deleteNamespacedConfigMap({ name: "owner2", namespace: "default", propagationPolicy: "Orphan" });
    const kept = await core.readNamespacedConfigMap({ name: "kept", namespace: "default" });
    expect(kept.metadata?.ownerReferences).toBeUndefined();
  });

  it("terminates a namespace: Terminating phase, no new content, finalizers honoured, then gone with its objects", async () => {
    await core.createNamespace({ body: { metadata: { name: "doomed" } } });
    await core.createNamespacedConfigMap({ namespace: "doomed", body: { metadata: { name: "plain" } } });
    await core.createNamespacedConfigMap({ namespace: "doomed", body: { metadata: { name: "held", finalizers: ["example.com/hold"] } } });
    const ns = await raw(sim, "DELETE", "/api/v1/namespaces/doomed");
    expect(ns.status).toBe(200);
    expect(ns.json).toMatchObject({ kind: "Namespace", status: { phase: "Terminating" }, metadata: { deletionTimestamp: expect.any(String) }, spec: { finalizers: ["kubernetes"] } });
    const refused = await raw(sim, "POST", "/api/v1/namespaces/doomed/configmaps", { body: { metadata: { name: "late" } } });
    expect(refused.json).toMatchObject({
      code: 403,
      reason: "Forbidden",
      message: 'configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated',
    });
    // The held object waits for its finalizer; the namespace waits for it.
    const held = await eventually(async () => {
      const h = await core.readNamespacedConfigMap({ name: "held", namespace: "doomed" });
      return h.metadata?.deletionTimestamp ? h : undefined;
    });
    expect((await raw(sim, "GET", "/api/v1/namespaces/doomed/configmaps/plain")).status).toBe(404);
    expect((await raw(sim, "GET", "/api/v1/namespaces/doomed")).status).toBe(200);
    await core.replaceNamespacedConfigMap({ name: "held", namespace: "doomed", body: { ...held, metadata: { ...held.metadata, finalizers: [] } } });
    await eventually(async () => (await raw(sim, "GET", "/api/v1/namespaces/doomed")).status === 404);
    expect(sim.objects().some((o) => (o.metadata as { namespace?: string }).namespace === "doomed")).toBe(false);
  });
});

describe("custom resources", () => {
  it("serves Flux and Argo CD kinds once their CRDs are applied, with status subresource semantics", async () => {
    // Posted raw: client-node's serializer would drop the schemas' `default:` keys (it expects `_default`).
    for (const crd of GITOPS_CRDS) expect((await raw(sim, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", { body: crd })).status).toBe(201);
    await eventually(async () => {
      const rl = (await raw(sim, "GET", "/apis/kustomize.toolkit.fluxcd.io/v1")).json as { resources?: Array<{ name: string }> } | undefined;
      return rl?.resources?.some((r) => r.name === "kustomizations/status");
    });
    type CrdStatus = { status: { conditions?: Array<{ type: string; status: string }> } };
    await eventually(async () => {
      const c = (await raw(sim, "GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/kustomizations.kustomize.toolkit.fluxcd.io")).json as CrdStatus;
      return c.status.conditions?.some((x) => x.type === "Established" && x.status === "True");
    });

    const repo = await objects.create({
      apiVersion: "source.toolkit.fluxcd.io/v1",
      kind: "GitRepository",
      metadata: { name: "app", namespace: "default" },
      spec: { interval: "1m", url: "https://git.example.com/app.git", ref: { branch: "main" } },
    } as KubernetesObject);
    const spec = (repo as unknown as { spec: Record<string, unknown>; status: Record<string, unknown> }).spec;
    expect(spec.timeout).toBe("60s");
    expect(repo.metadata?.generation).toBe(1);

    const ks = {
      apiVersion: "kustomize.toolkit.fluxcd.io/v1",
      kind: "Kustomization",
      metadata: { name: "apps", namespace: "default" },
      spec: { interval: "5m", path: "./apps", prune: true, sourceRef: { kind: "GitRepository", name: "app" } },
    };
    await objects.create(ks as KubernetesObject);
    const status = { conditions: [{ type: "Ready", status: "True", reason: "ReconciliationSucceeded", message: "Applied revision: main@sha1:abc", lastTransitionTime: "2024-01-01T00:00:00Z" }], lastAppliedRevision: "main@sha1:abc" };
    const st = await raw(sim, "PATCH", "/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/default/kustomizations/apps/status?fieldManager=kustomize-controller", {
      contentType: "application/merge-patch+json",
      body: { status },
    });
    expect(st.status).toBe(200);
    const after = st.json as { metadata: { generation: number; managedFields: ManagedEntry[] }; status: Record<string, unknown> };
    expect(after.metadata.generation).toBe(1);
    expect(after.status.lastAppliedRevision).toBe("main@sha1:abc");
    expect(after.metadata.managedFields.find((m) => m.manager === "kustomize-controller")).toMatchObject({ operation: "Update", subresource: "status" });
    // Main-resource writes cannot change status; spec changes bump generation.
    const main = await raw(sim, "PATCH", "/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/default/kustomizations/apps", {
      contentType: "application/merge-patch+json",
      body: { spec: { suspend: true }, status: { lastAppliedRevision: "forged" } },
    });
    expect(main.json).toMatchObject({ metadata: { generation: 2 }, status: { lastAppliedRevision: "main@sha1:abc" } });

    // Argo CD's Application has no status subresource: status is part of the object.
    const app = await objects.create({
      apiVersion: "argoproj.io/v1alpha1",
      kind: "Application",
      metadata: { name: "guestbook", namespace: "default" },
      spec: { project: "default", source: { repoURL: "https://git.example.com/gb.git", path: "gb", targetRevision: "HEAD" }, destination: { server: "https://kubernetes.default.svc", namespace: "gb" } },
      status: { sync: { status: "Synced", revision: "abc123" } },
    } as KubernetesObject);
    expect((app as unknown as { status: unknown }).status).toEqual({ sync: { status: "Synced", revision: "abc123" } });

    const list = (await raw(sim, "GET", "/apis/source.toolkit.fluxcd.io/v1/namespaces/default/gitrepositories")).json as { kind: string; items: Array<Record<string, unknown>> };
    expect(list.kind).toBe("GitRepositoryList");
    expect(list.items[0]).toMatchObject({ apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository" });

    const smp = await raw(sim, "PATCH", "/apis/source.toolkit.fluxcd.io/v1/namespaces/default/gitrepositories/app", { contentType: "application/strategic-merge-patch+json", body: {} });
    expect(smp.json).toMatchObject({
      code: 415,
      message: "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
    });

    const invalid = await raw(sim, "POST", "/apis/source.toolkit.fluxcd.io/v1/namespaces/default/gitrepositories", {
      body: { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", metadata: { name: "bad" }, spec: { url: "ftp://nope", suspend: "yes" } },
    });
    expect(invalid.json).toMatchObject({
      code: 422,
      reason: "Invalid",
      message: expect.stringContaining('GitRepository.source.toolkit.fluxcd.io "bad" is invalid: ['),
    });
    expect((invalid.json as { message: string }).message).toContain('spec.suspend: Invalid value: "string": spec.suspend in body must be of type boolean: "string"');

    const unknown = await raw(sim, "POST", "/apis/source.toolkit.fluxcd.io/v1/namespaces/default/gitrepositories?fieldValidation=Warn", {
      body: { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", metadata: { name: "extra" }, spec: { url: "https://x", interval: "1m", extra: 1 } },
    });
    expect(unknown.status).toBe(201);
    expect(unknown.headers.warning).toBe('299 - "unknown field \\"spec.extra\\""');
    expect((unknown.json as { spec: Record<string, unknown> }).spec).not.toHaveProperty("extra");

    // Deleting a CRD removes its objects and stops serving the kind.
    await raw(sim, "DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/applications.argoproj.io");
    await eventually(async () => (await raw(sim, "GET", "/apis/argoproj.io/v1alpha1/namespaces/default/applications")).status === 404);
    expect(sim.objects().some((o) => o.kind === "Application")).toBe(false);
  });
});
