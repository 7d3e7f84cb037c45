// Watches dropped and 410 Expired, in both modes, on the Kubernetes API
// imitation and on a real kube-apiserver with the same assertions: watch mode
// (informers relist on 410 and are restarted after drops; runs fall back to
// listing while a cache is not trustworthy) and poll mode (a list continue
// token outlived by the server's history between two pages).
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCollectorFixture, deploymentYaml, KUBECTL_UA, type CollectorFixture } from "../support/collector-env";
import { forEachCluster } from "../support/clusters";
import { collectorContext, enqueueRun, startWorker, type Worker } from "@/lib/collector";
import { resourcePath } from "@/lib/kube/discovery";
import { logger } from "@/lib/log";
import { expectNoDuplicates, expectStateKept, runWith, storedState, TEST_SECRET_KEY, waitFor } from "./support";

const COUNT = 1_200; // three pages of 500

let f: CollectorFixture;

forEachCluster((server) => {
  describe("410 Expired on a paginated list (poll mode)", () => {
    beforeEach(async () => {
      const many = Array.from({ length: COUNT }, (_, i) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${String(i).padStart(4, "0")}`, namespace: "shop" }, data: { i: String(i) } }));
      f = await createCollectorFixture({ "envs/test/many.yaml": many }, { cluster: server() });
      await f.seed(many, "kustomize-controller");
    });
    afterEach(async () => {
      await f.cleanup();
    });

    it("a list continue token expired between pages: the list falls back to one unpaged list, every object stored once", async () => {
      expect((await runWith(f)).status).toBe("succeeded");
      const before = await storedState(f.db);

      await f.cluster.faults.latency(700);
      const env = await f.db.environment.findUniqueOrThrow({ where: { name: "test" } });
      const pending = runWith(f, { clusterTimeoutMs: 5_000 });
      await waitFor("the run to start", () => f.db.collectionRun.findFirst({ where: { environmentId: env.id, status: "running" } }), 30_000, 20);
      // The server's history moves on for as long as the run lasts (heavy churn, an etcd compaction): between
      // two pages (700 ms apart) the continue token becomes too old.
      let running = true;
      const churn = (async () => {
        while (running) {
          await f.cluster.faults.expireHistory();
          await new Promise((r) => setTimeout(r, 200));
        }
      })();
      const out = await pending.finally(() => (running = false));
      await churn;
      await f.cluster.faults.latency(0);
      console.log(`[faults] list continue token expired mid-list: run ${out.status}${out.errors[0] ? ` (${out.errors[0].category}: ${out.errors[0].message.slice(0, 80)})` : ""}`);

      // Like client-go's pager, a 410 on a continue token falls back to one consistent list without pages.
      expect(out.status).toBe("succeeded");
      expect(out.stats?.live).toBe(COUNT);
      // The churn touched no object of ours: every stored row is exactly as before, none doubled.
      expect((await storedState(f.db)).live).toEqual(before.live);
      const next = await runWith(f);
      expect(next.status).toBe("succeeded");
      expect(next.stats?.live).toBe(COUNT);
      expect(await f.db.liveObject.count()).toBe(COUNT);
      expect(await f.db.driftItem.count()).toBe(0);
      await expectNoDuplicates(f.db);
    }, 90_000);
  });

  describe("watch mode", () => {
    const api = deploymentYaml("api", "shop/api:1.4.0", 3);
    const settings = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", namespace: "shop" }, data: { MODE: "a" } };
    let worker: Worker | null = null;

    beforeEach(async () => {
      f = await createCollectorFixture({ "envs/test/app.yaml": [api, settings] }, { envYaml: { mode: "watch", interval: "1h" }, cluster: server() });
      await f.applyAsController([api, settings]);
      const ctx = collectorContext(f.db, f.config, { mirrorsDir: path.join(f.dir, "mirrors"), secretKey: TEST_SECRET_KEY, log: logger.child({ test: "watch-faults" }), clusterTimeoutMs: 2_000 });
      worker = startWorker(ctx, { workerId: "watcher", pollMs: 200, watch: { debounceMs: 100, lockCheckMs: 150 } });
      await waitFor("the first run", () => f.db.collectionRun.findFirst({ where: { status: "succeeded" } }));
      await waitFor("synced informers", async () => worker?.watchStatus()[0]?.ready && (worker.watchStatus()[0]?.informers.length ?? 0) >= 2);
    });
    afterEach(async () => {
      await worker?.stop();
      worker = null;
      await f.cleanup();
    });

    const status = () => worker?.watchStatus()[0];
    const idle = () => waitFor("no run queued or running", async () => (await f.db.collectionRun.count({ where: { status: { in: ["queued", "running"] } } })) === 0);

    async function scaleByHand(replicas: number): Promise<void> {
      const r = f.admin.discovery.lookup("apps/v1", "Deployment");
      if (!r) throw new Error("no deployments");
      await f.admin.client.requestJson("PATCH", resourcePath(r, "shop", "api") + "/scale", { body: { spec: { replicas } }, contentType: "application/merge-patch+json", userAgent: KUBECTL_UA });
    }

    it("watches dropped four times in a row: restarted each time, the next change still becomes one drift item within seconds", async () => {
      for (let i = 1; i <= 4; i++) {
        const restarts = status()?.informers.reduce((n, x) => n + x.restarts, 0) ?? 0;
        await f.cluster.faults.closeWatches("reset");
        await waitFor(`restart ${i}`, async () => (status()?.informers.reduce((n, x) => n + x.restarts, 0) ?? 0) > restarts);
        await waitFor(`healthy again ${i}`, async () => status()?.ready);
      }
      const t0 = Date.now();
      await scaleByHand(6);
      const item = await waitFor("the drift item", () => f.db.driftItem.findFirst({ where: { key: "apps/Deployment/shop/api", resolvedAt: null } }), 10_000);
      console.log(`[faults] watch: drift seen ${Date.now() - t0} ms after the edit, after 4 dropped watches`);
      expect(item.type).toBe("Modified");
      await idle();
      expect(await f.db.collectionRun.count({ where: { status: { not: "succeeded" } } })).toBe(0);
      expect(await f.db.auditEvent.count({ where: { action: "drift.opened" } })).toBe(1);
      await expectNoDuplicates(f.db);
    });

    it("a 410 storm (history outrun three times while disconnected): relisted each time, the latest value wins, one drift item", async () => {
      const cm = () => status()?.informers.find((i) => i.resource === "configmaps");
      for (const [round, mode] of [[1, "b"], [2, "c"], [3, "d"]] as const) {
        const lists = cm()?.lists ?? 0;
        // Objects nobody tracks change alongside, the history the watches were at is gone, the watches end.
        await f.seed(Array.from({ length: 20 }, (_, i) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `noise-${i}`, namespace: "shop" }, data: { round: String(round) } })), "load-test");
        await f.cluster.faults.expireHistory();
        await f.cluster.faults.closeWatches("end");
        await f.seed([{ ...settings, data: { MODE: mode } }], "kubectl-edit");
        await waitFor(`relist ${round}`, async () => (cm()?.lists ?? 0) > lists, 15_000);
        await waitFor(`healthy after relist ${round}`, async () => status()?.ready, 15_000);
      }
      await waitFor("the drift to show the latest value", async () => {
        const item = await f.db.driftItem.findFirst({ where: { key: "/ConfigMap/shop/settings", resolvedAt: null } });
        return JSON.stringify(item?.changes ?? null).includes('"live":"d"');
      }, 15_000);
      await idle();
      expect(await f.db.driftItem.count({ where: { key: "/ConfigMap/shop/settings" } })).toBe(1);
      // Noise objects are not ours (no tracking label or controller): never stored, never drift.
      expect(await f.db.liveObject.count()).toBe(2);
      expect(await f.db.collectionRun.count({ where: { status: { not: "succeeded" } } })).toBe(0);
      await expectNoDuplicates(f.db);
    }, 90_000);

    it("cluster unreachable while watching: runs fail with the cause and keep the last good state; watches and runs come back by themselves", async () => {
      await scaleByHand(4);
      await waitFor("the drift item", () => f.db.driftItem.findFirst({ where: { resolvedAt: null } }), 10_000);
      await idle();
      const before = await storedState(f.db);
      await f.cluster.faults.unavailable("refuse");
      await waitFor("the watches to notice", async () => !status()?.ready, 10_000);
      // A manual refresh meanwhile fails and says why.
      const env = await f.db.environment.findUniqueOrThrow({ where: { name: "test" } });
      await enqueueRun(f.db, env.id, "manual");
      worker?.wake();
      const failed = await waitFor("the failed run", () => f.db.collectionRun.findFirst({ where: { status: "failed" } }), 15_000);
      expect((failed.errors as Array<{ category: string }>)[0]?.category).toMatch(/unreachable|timeout/);
      expect(((await f.db.environment.findUniqueOrThrow({ where: { id: env.id } })).lastError as { category: string } | null)?.category).toMatch(/unreachable|timeout/);
      expectStateKept(before, await storedState(f.db));

      await f.cluster.faults.unavailable(false);
      await waitFor("watching again", async () => status()?.ready, 40_000, 100);
      await scaleByHand(3);
      await waitFor("the drift to close from the watch", async () => (await f.db.driftItem.findFirst({ where: { key: "apps/Deployment/shop/api" } }))?.resolvedAt, 10_000);
      await idle();
      expect((await f.db.environment.findUniqueOrThrow({ where: { id: env.id } })).lastError).toBeNull();
      await expectNoDuplicates(f.db);
    }, 90_000);
  });
});
