// Watch mode, against the Kubernetes API imitation and a real kube-apiserver
// with the same assertions: an edit in the cluster
// becomes a drift item within seconds without waiting for the poll interval,
// watches recover from drops and from 410 Expired, of several workers
// exactly one watches an environment, and what watch-triggered runs store is
// what a run that lists everything would store.
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCollectorFixture, deploymentYaml, KUBECTL_UA, type CollectorFixture } from "@/test/support/collector-env";
import { forEachCluster } from "@/test/support/clusters";
import { resourcePath } from "@/lib/kube/discovery";
import { logger } from "@/lib/log";
import { EnvironmentWatch } from "./environment-watch";
import { enqueueRun } from "./jobs";
import { resetRunMemo } from "./run-memo";
import { collectorContext } from "./runtime";
import type { SupervisedInformer } from "./watch-informer";
import { startWorker, type Worker } from "./worker";

const api = deploymentYaml("api", "shop/api:1.4.0", 3);
const settings = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", namespace: "shop" }, data: { CART_TTL: "30m" } };
const flags = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "flags", namespace: "shop" }, data: { CHECKOUT: "on" } };
const token = { apiVersion: "v1", kind: "Secret", metadata: { name: "payments", namespace: "shop" }, type: "Opaque", data: { TOKEN: Buffer.from("s3cret-one").toString("base64") } };

let f: CollectorFixture;
const workers: Worker[] = [];

function start(workerId: string, watch: { maxObjects?: number } = {}): Worker {
  const ctx = collectorContext(f.db, f.config, {
    mirrorsDir: path.join(f.dir, "mirrors"),
    secretKey: Buffer.from("test-instance-key-0123456789abcdef"),
    log: logger.child({ test: "watch", worker: workerId }),
  });
  const w = startWorker(ctx, { workerId, pollMs: 250, watch: { debounceMs: 100, lockCheckMs: 150, ...watch } });
  workers.push(w);
  return w;
}

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The first scheduled run has listed, and the watcher has synced the kinds that run read. */
async function watching(w: Worker): Promise<void> {
  await until("the first run", () => f.db.collectionRun.findFirst({ where: { status: "succeeded" } }));
  await until("synced informers", async () => {
    const s = w.watchStatus()[0];
    return s?.ready && s.informers.length >= 2;
  });
}

async function scaleByHand(replicas: number): Promise<void> {
  const r = f.admin.discovery.lookup("apps/v1", "Deployment");
  if (!r) throw new Error("no deployments");
  await f.admin.client.requestJson("PATCH", resourcePath(r, "shop", "api") + "/scale", {
    body: { spec: { replicas } },
    contentType: "application/merge-patch+json",
    userAgent: KUBECTL_UA,
  });
}

async function openDrift(key: string) {
  return f.db.driftItem.findFirst({ where: { key, resolvedAt: null } });
}

/** Every run queued so far has finished. */
async function settled(): Promise<void> {
  await until("queued runs to finish", async () => (await f.db.collectionRun.count({ where: { status: { in: ["queued", "running"] } } })) === 0, 15_000);
}

/** What the environment's runs have stored: current objects and open drift, as a user's pages read them. */
async function storedState() {
  const [live, desired, drift] = await Promise.all([
    f.db.liveObject.findMany({ select: { key: true, blobHash: true, resourceVersion: true, applicationId: true }, orderBy: { key: "asc" } }),
    f.db.desiredObject.findMany({ select: { key: true, blobHash: true, revisionSha: true, sourcePath: true, applicationId: true }, orderBy: { key: "asc" } }),
    f.db.driftItem.findMany({ where: { resolvedAt: null }, select: { key: true, type: true, changes: true, attributionManager: true }, orderBy: { key: "asc" } }),
  ]);
  return { live, desired, drift };
}

/** A run that lists everything, with nothing remembered from the watch runs, finds nothing to change: the watch runs stored `byWatch` right. */
async function expectAFullListToStoreTheSame(byWatch: Awaited<ReturnType<typeof storedState>>): Promise<void> {
  await Promise.all(workers.splice(0).map((x) => x.stop()));
  resetRunMemo();
  const full = await f.run();
  expect(full.status).toBe("succeeded");
  expect(full.stats?.objectsChanged).toBe(0);
  expect(await storedState()).toEqual(byWatch);
}

forEachCluster((server) => {
  beforeEach(async () => {
    f = await createCollectorFixture({ "envs/test/app.yaml": [api, settings] }, { envYaml: { mode: "watch", interval: "1h" }, cluster: server() });
    await f.applyAsController([api, settings]);
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    await f.cleanup();
  });

  describe("watch mode", () => {
    it("shows a kubectl scale as drift within 2 s, from the watch cache, with no poll in between", async () => {
      const w = start("a");
      await watching(w);
      const runsBefore = await f.db.collectionRun.count();

      const t0 = Date.now();
      await scaleByHand(7);
      // From now on a listing run could not read Deployments (the run starts after the debounce):
      // only the watch cache can show this change.
      await f.cluster.faults.forbid("deployments", "apps");
      const item = await until("the drift item", () => openDrift("apps/Deployment/shop/api"), 5_000);
      const latency = Date.now() - t0;
      expect(latency).toBeLessThan(2_000);
      expect(item.type).toBe("Modified");
      expect(item.attributionManager).toBe("kubectl");

      await until("the run to finish", async () => (await f.db.collectionRun.count({ where: { status: { in: ["queued", "running"] } } })) === 0);
      const runs = await f.db.collectionRun.findMany({ orderBy: { id: "asc" }, skip: runsBefore });
      expect(runs.length).toBeGreaterThan(0);
      // Every run since the watch started was queued by the watch, and none had to list (a list would be forbidden).
      expect(runs.every((r) => r.trigger === "watch")).toBe(true);
      expect(runs.map((r) => r.status)).toEqual(runs.map(() => "succeeded"));
    });

    it("polls instead of watching an environment whose objects would not fit the worker's watch budget, and runs go on", async () => {
      // Two live objects, a budget of one: not watched before the first run (none is), nor after it.
      const w = start("a", { maxObjects: 1 });
      await until("the first run", () => f.db.collectionRun.findFirst({ where: { status: "succeeded" } }));
      await settled();
      const runsBefore = await f.db.collectionRun.count();

      await scaleByHand(7);
      await new Promise((r) => setTimeout(r, 1_500)); // several lock checks and watch debounces
      expect(await f.db.collectionRun.count()).toBe(runsBefore); // no watch-triggered run
      expect(await openDrift("apps/Deployment/shop/api")).toBeNull();
      expect(w.watchStatus()).toEqual([]);

      // Polled as in poll mode: the next run (here asked for) lists and sees the edit.
      const env = await f.db.environment.findUniqueOrThrow({ where: { name: "test" } });
      await enqueueRun(f.db, env.id, "manual");
      const item = await until("the drift item", () => openDrift("apps/Deployment/shop/api"), 10_000);
      expect(item.type).toBe("Modified");
      expect(item.attributionManager).toBe("kubectl");
    });

    it("restarts a watch whose connection was reset, and sees the next change", async () => {
      const w = start("a");
      await watching(w);
      // Synced informers may not have their watch request open yet (the watch starts after the first run): reset until one was.
      await until("a restarted informer", async () => {
        await f.cluster.faults.closeWatches("reset");
        return until("a restart", async () => w.watchStatus()[0]?.informers.some((i) => i.restarts > 0), 1_000).catch(() => false);
      });
      await until("healthy informers again", async () => w.watchStatus()[0]?.ready);

      await scaleByHand(5);
      const item = await until("the drift item", () => openDrift("apps/Deployment/shop/api"), 5_000);
      await until("the watch-triggered run to finish", () => f.db.collectionRun.findFirst({ where: { status: "succeeded", trigger: "watch" } }));
      expect(item.type).toBe("Modified");
    });

    it("relists after 410 Expired and catches up with what happened while it was not watching", async () => {
      const w = start("a");
      await watching(w);
      const configmaps = () => w.watchStatus()[0]?.informers.find((i) => i.resource === "configmaps");
      const listsBefore = configmaps()?.lists ?? 0;

      // Expire the history the informers' resourceVersions point into, close the
      // watches so they have to come back with those versions, and change a
      // desired ConfigMap while they are away.
      await f.cluster.faults.expireHistory();
      await f.cluster.faults.closeWatches("end");
      await f.seed([{ ...settings, data: { CART_TTL: "5m" } }], "kubectl-edit");

      const item = await until("the drift item", () => openDrift("/ConfigMap/shop/settings"), 10_000);
      expect(item.type).toBe("Modified");
      expect(configmaps()?.lists).toBeGreaterThan(listsBefore);
      expect(configmaps()?.objects).toBeGreaterThanOrEqual(1);
      await until("the watch-triggered run to finish", () => f.db.collectionRun.findFirst({ where: { status: "succeeded", trigger: "watch" } }));
    });

    it("stores after edits, deletes, a Secret change, a new commit and a relist exactly what a run that lists everything stores", async () => {
      await f.applyAsController([flags, token]);
      f.repo.write("envs/test/app.yaml", [api, settings, flags, token].map((o) => JSON.stringify(o)).join("\n---\n"));
      f.repo.commit("flags and the payments token");
      const w = start("a");
      await watching(w);
      await until("informers for secrets too", async () => w.watchStatus()[0]?.informers.some((i) => i.resource === "secrets"));
      await settled();
      const env = await f.db.environment.findUniqueOrThrow({ where: { name: "test" } });
      const watchRunsBefore = await f.db.collectionRun.count({ where: { trigger: "watch", status: "succeeded" } });

      // Live edits: a scale, a deleted ConfigMap, a changed Secret value.
      await scaleByHand(4);
      const configmaps = f.admin.discovery.lookup("v1", "ConfigMap");
      if (!configmaps) throw new Error("no configmaps");
      await f.admin.client.requestJson("DELETE", resourcePath(configmaps, "shop", "settings"));
      await f.seed([{ ...token, data: { TOKEN: Buffer.from("s3cret-two").toString("base64") } }], "kubectl-edit");
      await until("drift of all three", async () => (await openDrift("apps/Deployment/shop/api")) && (await openDrift("/ConfigMap/shop/settings"))?.type === "Missing" && (await openDrift("/Secret/shop/payments")));
      await settled();

      // A new commit and no live change: a push run reads the cache and compares against the new desired state.
      f.repo.write("envs/test/app.yaml", [{ ...api, spec: { ...(api.spec as object), replicas: 4 } }, settings, { ...flags, data: { CHECKOUT: "off" } }, token].map((o) => JSON.stringify(o)).join("\n---\n"));
      f.repo.commit("four replicas, checkout off");
      await enqueueRun(f.db, env.id, "webhook");
      await until("the Deployment back in sync by the new commit", async () => !(await openDrift("apps/Deployment/shop/api")), 10_000);
      await settled();

      // A relist: the history expires while the watches are away, and a change lands meanwhile.
      const listsBefore = w.watchStatus()[0]?.informers.find((i) => i.resource === "configmaps")?.lists ?? 0;
      await f.cluster.faults.expireHistory();
      await f.cluster.faults.closeWatches("end");
      await f.seed([{ ...flags, data: { CHECKOUT: "off" } }], "kubectl-edit");
      await until("flags back in sync after the relist", async () => !(await openDrift("/ConfigMap/shop/flags")), 10_000);
      await settled();
      expect(w.watchStatus()[0]?.informers.find((i) => i.resource === "configmaps")?.lists).toBeGreaterThan(listsBefore);
      // The cache answered these runs: the watch queued some, and none failed.
      expect(await f.db.collectionRun.count({ where: { trigger: "watch", status: "succeeded" } })).toBeGreaterThan(watchRunsBefore);
      expect(await f.db.collectionRun.count({ where: { status: "failed" } })).toBe(0);
      const byWatch = await storedState();
      expect(byWatch.drift.map((d) => [d.key, d.type])).toEqual([
        ["/ConfigMap/shop/settings", "Missing"],
        ["/Secret/shop/payments", "Modified"],
      ]);

      await expectAFullListToStoreTheSame(byWatch);
    });

    it("a watch-triggered run after a good one takes in only what the cache changed, and stores what a full list stores", async () => {
      // Thirty more objects, so "only what changed" is told apart from "everything".
      const more = Array.from({ length: 30 }, (_, i) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `more-${i}`, namespace: "shop" }, data: { N: String(i) } }));
      await f.applyAsController(more);
      f.repo.write("envs/test/app.yaml", [api, settings, ...more].map((o) => JSON.stringify(o)).join("\n---\n"));
      f.repo.commit("thirty more settings");
      const w = start("a");
      await watching(w);
      await settled();
      const lastWatchRun = async () => {
        const run = await f.db.collectionRun.findFirst({ where: { trigger: "watch", status: "succeeded" }, orderBy: { id: "desc" } });
        return run?.stats as { live: number; liveTakenIn?: number; objectsChanged: number } | undefined;
      };
      const configmaps = f.admin.discovery.lookup("v1", "ConfigMap");
      if (!configmaps) throw new Error("no configmaps");

      // The first run from the cache takes in all 32 objects; each run after it, only the object edited.
      await scaleByHand(5);
      await until("the scale as drift", async () => (await openDrift("apps/Deployment/shop/api"))?.changes);
      await settled();
      const first = await lastWatchRun();
      expect(first?.live).toBe(32);
      // Every object of the kinds read, ours or not (kubesim's namespace holds one more ConfigMap).
      expect(first?.liveTakenIn).toBeGreaterThanOrEqual(32);

      await scaleByHand(6);
      await until("the second scale", async () => JSON.stringify((await openDrift("apps/Deployment/shop/api"))?.changes ?? "").includes("6"));
      await settled();
      expect(await lastWatchRun()).toMatchObject({ live: 32, liveTakenIn: 1, objectsChanged: 1 });

      await f.admin.client.requestJson("DELETE", resourcePath(configmaps, "shop", "more-7"));
      await until("the deleted ConfigMap as Missing", async () => (await openDrift("/ConfigMap/shop/more-7"))?.type === "Missing");
      await settled();
      expect(await lastWatchRun()).toMatchObject({ live: 31, liveTakenIn: 1, objectsChanged: 1 });

      await f.seed([{ ...more[3]!, data: { N: "changed by hand" } }], "kubectl-edit");
      await until("the edited ConfigMap as drift", () => openDrift("/ConfigMap/shop/more-3"));
      await settled();
      expect(await lastWatchRun()).toMatchObject({ live: 31, liveTakenIn: 1 });

      // Back as Git has them: the scale and the edit resolve, the deleted one is recreated.
      await scaleByHand(3);
      await f.seed([more[3]!, more[7]!], "kubectl-edit");
      await until("everything back in sync", async () => (await f.db.driftItem.count({ where: { resolvedAt: null } })) === 0);
      await settled();
      expect((await lastWatchRun())?.live).toBe(32);
      const byWatch = await storedState();

      await expectAFullListToStoreTheSame(byWatch);
      const resolved = await f.db.driftItem.findMany({ where: { resolvedAt: { not: null } }, select: { key: true, resolution: true }, orderBy: { key: "asc" } });
      expect(resolved.map((r) => r.key)).toEqual(["/ConfigMap/shop/more-3", "/ConfigMap/shop/more-7", "apps/Deployment/shop/api"]);
    });

    it("an object Git lacks becomes Extra when labelled and leaves when the label goes, in runs that take in only it", async () => {
      await f.cleanup();
      f = await createCollectorFixture({ "envs/test/app.yaml": [api, settings] }, { envYaml: { mode: "watch", interval: "1h", trackingLabel: "team=shop", extraKinds: [] }, cluster: server() });
      const loose = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "loose", namespace: "shop" }, data: { NOTE: "made by hand" } };
      await f.applyAsController([api, settings]);
      await f.seed([loose], "kubectl-label");
      const w = start("a");
      await watching(w);
      await settled();
      const lastWatchRun = async () => (await f.db.collectionRun.findFirst({ where: { trigger: "watch", status: "succeeded" }, orderBy: { id: "desc" } }))?.stats as { live: number; liveTakenIn?: number; drift: { Extra: number } } | undefined;
      // The first run from the cache, then each edit's run from the change log.
      await scaleByHand(5);
      await until("the scale as drift", () => openDrift("apps/Deployment/shop/api"));
      await settled();

      await f.seed([{ ...loose, metadata: { ...loose.metadata, labels: { team: "shop" } } }], "kubectl-label");
      const extra = await until("the labelled ConfigMap as Extra", () => openDrift("/ConfigMap/shop/loose"));
      expect(extra.type).toBe("Extra");
      await settled();
      expect(await lastWatchRun()).toMatchObject({ live: 3, liveTakenIn: 1, drift: { Extra: 1 } });

      // Server-side apply by the same manager without the label takes it off: no longer tracked, no longer Extra.
      await f.seed([loose], "kubectl-label");
      await until("the Extra resolved", async () => !(await openDrift("/ConfigMap/shop/loose")));
      await settled();
      expect(await lastWatchRun()).toMatchObject({ live: 2, liveTakenIn: 1, drift: { Extra: 0 } });
      await scaleByHand(3);
      await until("the Deployment back in sync", async () => !(await openDrift("apps/Deployment/shop/api")));
      await settled();
      await expectAFullListToStoreTheSame(await storedState());
    });

    it("a list still in flight when its informer is stopped does not reach the change log a run continues from", async () => {
      const env = f.config.environments[0]!;
      const watch = new EnvironmentWatch(env, "test", Buffer.from("test-instance-key-0123456789abcdef"), logger.child({ test: "watch" }), () => {});
      try {
        const deployments = f.admin.discovery.lookup("apps/v1", "Deployment");
        const secrets = f.admin.discovery.lookup("v1", "Secret");
        if (!deployments || !secrets) throw new Error("no deployments or secrets");
        const scopes = env.namespaces.length > 0 ? env.namespaces : [undefined];
        await watch.start([]);
        await until("both informers synced", async () => watch.read([deployments, secrets], scopes));
        const informers = (watch as unknown as { informers: Map<string, SupervisedInformer> }).informers;
        const stopped = [...informers.values()].find((i) => i.resource.kind === "Secret");
        // A run that no longer reads Secrets stops their informer.
        const read = await until("Deployments alone", async () => watch.read([deployments], scopes));
        expect(stopped?.stopped).toBe(true);
        // Its relist was in flight: client-node applies the listed items without looking at whether it was stopped.
        (stopped as unknown as { informer: { addOrUpdateItems(items: unknown[]): void } }).informer.addOrUpdateItems([{ ...token, metadata: { ...token.metadata, resourceVersion: "424242" } }]);
        await scaleByHand(5);
        const changes = await until("the scale in the log", async () => {
          const c = read.changesSince(read.cursor);
          return c?.some((x) => x.key === "apps/Deployment/shop/api") && c;
        });
        expect(changes.map((c) => c.key)).toEqual(["apps/Deployment/shop/api"]);
        expect((changes[0]?.object as { spec?: { replicas?: number } }).spec?.replicas).toBe(5);
      } finally {
        watch.stop();
      }
    });

    it("two workers: exactly one watches; when it stops, the other takes over", async () => {
      const a = start("a");
      const b = start("b");
      await until("one watcher", async () => a.watchStatus().length + b.watchStatus().length === 1);
      // Give the other worker several lock checks to (wrongly) start a second watch.
      await new Promise((r) => setTimeout(r, 600));
      expect(a.watchStatus().length + b.watchStatus().length).toBe(1);

      const [holder, other] = a.watchStatus().length === 1 ? [a, b] : [b, a];
      await until("a run", () => f.db.collectionRun.findFirst({ where: { status: "succeeded" } }));
      await holder.stop();
      await watching(other);
      expect(other.watchStatus()).toHaveLength(1);

      await scaleByHand(9);
      await until("the drift item", () => openDrift("apps/Deployment/shop/api"), 5_000);
    });
  });
});
