// No false drift from server defaults: the kinds GitOps repositories commonly
// carry, applied as a controller applies them, compare equal to Git on the
// first run. A real kube-apiserver fills in what it fills in (Job selectors
// and labels, Service IPs, probe and strategy defaults...); the imitation
// must not hide a default the collector would trip over.
import { afterEach, describe, expect, it } from "vitest";
import { createCollectorFixture, deploymentYaml, type CollectorFixture } from "../support/collector-env";
import { forEachCluster, type ClusterServer } from "../support/clusters";

const ns = { namespace: "shop" };
const podSpec = { containers: [{ name: "app", image: "shop/app:1.0.0", ports: [{ containerPort: 8080 }], readinessProbe: { httpGet: { path: "/healthz", port: 8080 } } }] };
const objects: Array<Record<string, unknown>> = [
  deploymentYaml("api", "shop/api:1.4.0", 2),
  { apiVersion: "apps/v1", kind: "StatefulSet", metadata: { name: "db", ...ns }, spec: { serviceName: "db", replicas: 1, selector: { matchLabels: { app: "db" } }, template: { metadata: { labels: { app: "db" } }, spec: podSpec }, volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }] } },
  { apiVersion: "v1", kind: "Service", metadata: { name: "api", ...ns }, spec: { selector: { app: "api" }, ports: [{ port: 80, targetPort: 8080 }] } },
  { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", ...ns }, data: { MODE: "live" } },
  { apiVersion: "v1", kind: "Secret", metadata: { name: "credentials", ...ns }, type: "Opaque", stringData: { TOKEN: "not-a-real-token" } },
  { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "api", ...ns } },
  { apiVersion: "networking.k8s.io/v1", kind: "Ingress", metadata: { name: "api", ...ns }, spec: { rules: [{ host: "shop.example.com", http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "api", port: { number: 80 } } } }] } }] } },
  { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", metadata: { name: "api", ...ns }, spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "api" }, minReplicas: 2, maxReplicas: 6, metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } } }] } },
  { apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name: "agent", ...ns }, spec: { selector: { matchLabels: { app: "agent" } }, template: { metadata: { labels: { app: "agent" } }, spec: podSpec } } },
  { apiVersion: "batch/v1", kind: "Job", metadata: { name: "migrate", ...ns }, spec: { template: { spec: { ...podSpec, restartPolicy: "Never" } } } },
  { apiVersion: "batch/v1", kind: "CronJob", metadata: { name: "report", ...ns }, spec: { schedule: "0 3 * * *", jobTemplate: { spec: { template: { spec: { ...podSpec, restartPolicy: "OnFailure" } } } } } },
  { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "uploads", ...ns }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "5Gi" } } } },
  { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: "reader", ...ns }, rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }] },
  { apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding", metadata: { name: "api-reader", ...ns }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "reader" }, subjects: [{ kind: "ServiceAccount", name: "api", namespace: "shop" }] },
  { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: { name: "api", ...ns }, spec: { podSelector: { matchLabels: { app: "api" } }, ingress: [{ ports: [{ port: 8080 }] }] } },
  { apiVersion: "policy/v1", kind: "PodDisruptionBudget", metadata: { name: "api", ...ns }, spec: { minAvailable: 1, selector: { matchLabels: { app: "api" } } } },
  { apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "compute", ...ns }, spec: { hard: { "requests.cpu": "4", "requests.memory": "8Gi" } } },
  { apiVersion: "v1", kind: "LimitRange", metadata: { name: "defaults", ...ns }, spec: { limits: [{ type: "Container", default: { cpu: "500m", memory: "512Mi" } }] } },
];

let f: CollectorFixture;

async function expectInSync(objects: Array<Record<string, unknown>>, cluster: ClusterServer): Promise<void> {
  f = await createCollectorFixture({ "envs/test/all.yaml": objects }, { cluster });
  await f.applyAsController(objects);
  const out = await f.run();
  expect(out.errors.filter((e) => e.severity !== "warning"), JSON.stringify(out.errors)).toEqual([]);
  expect(out.status).toBe("succeeded");
  const open = await f.db.driftItem.findMany({ where: { resolvedAt: null }, select: { key: true, type: true, changes: true } });
  expect(open, JSON.stringify(open, null, 1)).toEqual([]);
  expect(out.stats).toMatchObject({ desired: objects.length, live: objects.length });
}

forEachCluster((server) => {
  describe("server defaults", () => {
    afterEach(async () => {
      await f.cleanup();
    });

    it("the common kinds, applied as Git has them, are in sync on the first run", async () => {
      await expectInSync(objects, server());
    });
  });
});
