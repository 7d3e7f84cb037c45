// Cluster-side faults, on the Kubernetes API imitation and on a real
// kube-apiserver with the same assertions: unreachable before and during a
// run, slow beyond the timeout, a revoked token, a kind the credential may no
// longer read, kinds the cluster does not serve. A cluster clock far from ours
// runs on the imitation only: a real API server takes its time from the
// machine's clock, which a test cannot move.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCollectorFixture, deploymentYaml, KUBECTL_UA, type CollectorFixture } from "../support/collector-env";
import { forEachCluster, type ClusterServer } from "../support/clusters";
import { discover, resourcePath } from "@/lib/kube/discovery";
import { serverSideApply } from "@/demo/kube-writer";
import { setKubeSimClock } from "@driftwatch/kubesim";
import { getEnvironmentDetail } from "@/lib/dashboard";
import { buildMetrics } from "@/lib/metrics";
import { expectFailureRecorded, expectNoDuplicates, expectRecovered, expectStateKept, runWith, storedState, waitFor } from "./support";

const api = deploymentYaml("api", "shop/api:1.4.0", 3);
const settings = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", namespace: "shop" }, data: { MODE: "live" } };
const service = { apiVersion: "v1", kind: "Service", metadata: { name: "api", namespace: "shop" }, spec: { selector: { app: "api" }, ports: [{ port: 80, targetPort: 8080 }] } };
const account = { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "api", namespace: "shop" } };
const TIMEOUT = 1_500;

let f: CollectorFixture;

async function scaleByHand(replicas: number): Promise<void> {
  const r = f.admin.discovery.lookup("apps/v1", "Deployment");
  if (!r) throw new Error("no deployments");
  await f.admin.client.requestJson("PATCH", resourcePath(r, "shop", "api") + "/scale", { body: { spec: { replicas } }, contentType: "application/merge-patch+json", userAgent: KUBECTL_UA });
}

/** A first good run, with one drifted object so "drift unchanged" means something. */
async function goodBaseline() {
  await runWith(f);
  await scaleByHand(5);
  const out = await runWith(f);
  expect(out.status).toBe("succeeded");
  expect(out.stats?.drift.Modified).toBe(1);
  return storedState(f.db);
}

async function fixture(cluster?: ClusterServer): Promise<void> {
  f = await createCollectorFixture({ "envs/test/app.yaml": [api, settings, service, account] }, { cluster });
  await f.applyAsController([api, settings, service, account]);
}

forEachCluster((server) => {
  beforeEach(async () => {
    await fixture(server());
  });
  afterEach(async () => {
    await f.cleanup();
  });

  describe("cluster faults", () => {
    it("unreachable before the run (connections hang): timeout, last good state kept, recovers", async () => {
      const before = await goodBaseline();
      await f.cluster.faults.unavailable("hang");
      const started = Date.now();
      const failed = await runWith(f, { clusterTimeoutMs: TIMEOUT });
      expect(Date.now() - started).toBeLessThan(TIMEOUT * 4);
      await expectFailureRecorded(f.db, failed, /^timeout$/, /no answer from .* within 1500 ms/);
      // A second failing run does not audit the failure again.
      await runWith(f, { clusterTimeoutMs: TIMEOUT });
      expect(await f.db.auditEvent.count({ where: { action: "run.failed" } })).toBe(1);
      expectStateKept(before, await storedState(f.db));

      await f.cluster.faults.unavailable(false);
      await expectRecovered(f.db, await runWith(f, { clusterTimeoutMs: TIMEOUT }));
      expect((await storedState(f.db)).drift).toEqual(before.drift);
      await expectNoDuplicates(f.db);
    });

    it("unreachable before the run (connections refused): unreachable, recovers", async () => {
      const before = await goodBaseline();
      await f.cluster.faults.unavailable("refuse");
      await expectFailureRecorded(f.db, await runWith(f, { clusterTimeoutMs: TIMEOUT }), /^unreachable$/, /cannot reach/);
      expectStateKept(before, await storedState(f.db));
      await f.cluster.faults.unavailable(false);
      await expectRecovered(f.db, await runWith(f, { clusterTimeoutMs: TIMEOUT }));
      await expectNoDuplicates(f.db);
    });

    it("stops answering in the middle of listing: the half-read state is thrown away, not stored", async () => {
      // Eight kinds to list, so the cluster can stop answering with most of them still to read
      // (the collector lists a few kinds at a time).
      const more = [
        { apiVersion: "v1", kind: "Secret", metadata: { name: "api", namespace: "shop" }, stringData: { K: "v" } },
        { apiVersion: "networking.k8s.io/v1", kind: "Ingress", metadata: { name: "api", namespace: "shop" }, spec: { rules: [{ host: "shop.example.com", http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "api", port: { number: 80 } } } }] } }] } },
        { apiVersion: "apps/v1", kind: "StatefulSet", metadata: { name: "db", namespace: "shop" }, spec: { serviceName: "db", replicas: 1, selector: { matchLabels: { app: "db" } }, template: { metadata: { labels: { app: "db" } }, spec: { containers: [{ name: "db", image: "postgres:18" }] } } } },
        { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", metadata: { name: "api", namespace: "shop" }, spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "api" }, minReplicas: 1, maxReplicas: 10 } },
      ];
      f.repo.write("envs/test/more.yaml", more.map((o) => JSON.stringify(o)).join("\n---\n"));
      f.repo.commit("more kinds");
      await f.applyAsController(more);
      const before = await goodBaseline();
      // Slow enough that every progress step is written, so the test sees the run reach the list phase.
      await f.cluster.faults.latency(450);
      const env = await f.db.environment.findUniqueOrThrow({ where: { name: "test" } });
      const pending = runWith(f, { clusterTimeoutMs: TIMEOUT });
      await waitFor("the run to list objects", async () => {
        const run = await f.db.collectionRun.findFirst({ where: { environmentId: env.id, status: "running" } });
        const p = run?.progress as { phase?: string; kindsDone?: number } | null;
        return p?.phase === "list" && (p.kindsDone ?? 0) >= 1;
      });
      await f.cluster.faults.unavailable("hang");
      const failed = await pending;
      await expectFailureRecorded(f.db, failed, /^timeout$/);
      expect(failed.errors[0]?.resource).toBeTruthy();
      expectStateKept(before, await storedState(f.db));

      await f.cluster.faults.clear();
      await expectRecovered(f.db, await runWith(f, { clusterTimeoutMs: TIMEOUT }));
      await expectNoDuplicates(f.db);
    });

    it("answers slower than the timeout: timeout, kept, recovers when the API is fast again", async () => {
      const before = await goodBaseline();
      await f.cluster.faults.latency(TIMEOUT + 500);
      await expectFailureRecorded(f.db, await runWith(f, { clusterTimeoutMs: TIMEOUT }), /^timeout$/);
      expectStateKept(before, await storedState(f.db));
      await f.cluster.faults.latency(0);
      await expectRecovered(f.db, await runWith(f, { clusterTimeoutMs: TIMEOUT }));
      await expectNoDuplicates(f.db);
    });

    it("token expired (401): unauthorised with the API's message, kept, recovers with a valid token", async () => {
      const before = await goodBaseline();
      await f.cluster.faults.revokeCollectorToken();
      const failed = await runWith(f, { clusterTimeoutMs: TIMEOUT });
      await expectFailureRecorded(f.db, failed, /^unauthorised$/);
      // The token itself is never part of what is recorded.
      const recorded = JSON.stringify({ errors: failed.errors, env: (await f.db.environment.findUniqueOrThrow({ where: { name: "test" } })).lastError });
      expect(recorded).not.toContain(f.cluster.collectorToken());
      expectStateKept(before, await storedState(f.db));
      await f.cluster.faults.clear();
      await expectRecovered(f.db, await runWith(f, { clusterTimeoutMs: TIMEOUT }));
      await expectNoDuplicates(f.db);
    });

    it("permission on one kind revoked (403): partial run, that kind kept as last seen, the rest compared, recovers", async () => {
      const before = await goodBaseline();
      // Someone edits the ConfigMap, then the collector loses the right to read ConfigMaps, and the Deployment is scaled back.
      const cm = f.admin.discovery.lookup("v1", "ConfigMap");
      if (!cm) throw new Error("no configmaps");
      await f.admin.client.requestJson("PATCH", resourcePath(cm, "shop", "settings"), { body: { data: { MODE: "debug" } }, contentType: "application/merge-patch+json", userAgent: KUBECTL_UA, query: { fieldManager: "kubectl-patch" } });
      await f.cluster.faults.forbid("configmaps");
      await scaleByHand(3);
      const out = await runWith(f, { clusterTimeoutMs: TIMEOUT });
      expect(out.status).toBe("partial");
      expect(out.errors.find((e) => e.category === "forbidden")?.resource).toBe("configmaps");
      const detail = await getEnvironmentDetail(f.db, "test");
      expect(detail.lastRun?.errors.some((e) => e.category === "forbidden" && e.resource === "configmaps")).toBe(true);
      const after = await storedState(f.db);
      const cmKey = "/ConfigMap/shop/settings";
      expect(after.live.find((l) => l.key === cmKey)).toEqual(before.live.find((l) => l.key === cmKey));
      // The Deployment's drift was seen to end; no ConfigMap drift was invented or missed as "deleted".
      expect(after.drift.find((d) => d.key === "apps/Deployment/shop/api")?.resolvedAt).not.toBeNull();
      expect(after.drift.filter((d) => d.key === cmKey)).toEqual([]);

      await f.cluster.faults.clear();
      const back = await runWith(f, { clusterTimeoutMs: TIMEOUT });
      expect(back.status).toBe("succeeded");
      // Readable again: the edit made while it was hidden shows up now.
      expect((await storedState(f.db)).drift.find((d) => d.key === cmKey && d.resolvedAt === null)?.type).toBe("Modified");
      await expectNoDuplicates(f.db);
    });

    it("kinds the cluster does not serve (CRD not installed): a warning naming the kind, the rest compared, no failure", async () => {
      await goodBaseline();
      const widget = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w1", namespace: "shop" }, spec: { size: 3 } };
      f.repo.write("envs/test/widget.yaml", JSON.stringify(widget));
      f.repo.commit("add a widget");
      await scaleByHand(6);
      const out = await runWith(f, { clusterTimeoutMs: TIMEOUT });
      expect(out.status).toBe("succeeded");
      expect(out.errors.some((e) => e.severity === "warning" && /does not serve example\.com\/v1 Widget/.test(e.message))).toBe(true);
      const open = (await storedState(f.db)).drift.filter((d) => d.resolvedAt === null);
      expect(open.map((d) => `${d.type} ${d.key}`).sort()).toEqual(["Missing example.com/Widget/shop/w1", "Modified apps/Deployment/shop/api"]);

      // Installing the CRD (and, as the shipped role says, granting the collector its resource) and the object resolves it by itself.
      await f.cluster.grantRead("example.com", "widgets");
      await f.admin.client.requestJson("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
        body: {
          apiVersion: "apiextensions.k8s.io/v1",
          kind: "CustomResourceDefinition",
          metadata: { name: "widgets.example.com" },
          spec: {
            group: "example.com",
            scope: "Namespaced",
            names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
            versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
          },
        },
      });
      await waitFor("the CRD to be served", async () => {
        try {
          await f.admin.client.requestJson("GET", "/apis/example.com/v1/namespaces/shop/widgets");
          return true;
        } catch {
          return false;
        }
      }, 10_000, 100);
      // The fixture's discovery predates the CRD.
      await serverSideApply({ client: f.admin.client, discovery: await discover(f.admin.client) }, widget, "kustomize-controller");
      const back = await runWith(f, { clusterTimeoutMs: TIMEOUT });
      expect(back.errors.filter((e) => /does not serve/.test(e.message))).toEqual([]);
      expect((await storedState(f.db)).drift.find((d) => d.key === "example.com/Widget/shop/w1")?.resolvedAt).not.toBeNull();
      await expectNoDuplicates(f.db);
    });
  });
});

describe("cluster clock (the imitation only: a real API server's clock is the machine's)", () => {
  beforeEach(async () => {
    await fixture();
  });
  afterEach(async () => {
    setKubeSimClock(null);
    await f.cleanup();
  });

  it("a cluster clock two hours ahead (and then behind) of ours: our times stay ours, nothing negative, nothing spurious", async () => {
    const skew = 2 * 3_600_000;
    setKubeSimClock(() => new Date(Date.now() + skew));
    await runWith(f);
    const t0 = Date.now();
    const r = f.admin.discovery.lookup("apps/v1", "Deployment");
    if (!r) throw new Error("no deployments");
    await f.admin.client.requestJson("PATCH", resourcePath(r, "shop", "api"), { body: { spec: { replicas: 4 } }, contentType: "application/merge-patch+json", userAgent: KUBECTL_UA, query: { fieldManager: "kubectl-edit" } });
    const out = await runWith(f);
    expect(out.stats?.drift.Modified).toBe(1);
    const item = await f.db.driftItem.findFirstOrThrow({ where: { resolvedAt: null } });
    // Opened and last seen in the dashboard's time; the cluster's own time is kept only as attribution.
    expect(item.openedAt.getTime()).toBeGreaterThanOrEqual(t0 - 1_000);
    expect(item.openedAt.getTime()).toBeLessThanOrEqual(Date.now() + 1_000);
    expect(item.attributionManager).toBe("kubectl-edit");
    expect(Math.abs((item.attributionTime?.getTime() ?? 0) - (t0 + skew))).toBeLessThan(60_000);

    setKubeSimClock(() => new Date(Date.now() - skew));
    const again = await runWith(f);
    expect(again.status).toBe("succeeded");
    const same = await f.db.driftItem.findUniqueOrThrow({ where: { id: item.id } });
    expect(same.resolvedAt).toBeNull();
    expect(same.lastSeenAt.getTime()).toBeGreaterThanOrEqual(item.lastSeenAt.getTime());
    expect(await f.db.driftItem.count()).toBe(1);

    const metrics = await (await buildMetrics(f.db)).getMetricsAsJSON();
    for (const m of metrics) for (const v of m.values) expect(v.value, `${m.name} ${JSON.stringify(v.labels)}`).toBeGreaterThanOrEqual(0);
    const detail = await getEnvironmentDetail(f.db, "test");
    expect(detail.status).toBe("Drifted");
    await expectNoDuplicates(f.db);
  });
});
