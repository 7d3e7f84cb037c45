// Process-level faults: Postgres restarted under a running collection, a
// collector process killed with SIGKILL mid-run, and two collectors on the
// same environment at once.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createCollectorFixture, deploymentYaml, KUBECTL_UA, type CollectorFixture } from "../support/collector-env";
import { PrismaClient } from "@/lib/db/generated/client";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "@driftwatch/embedded-postgres";
import { applyMigrations } from "@/lib/db/migrate";
import { parseConfig } from "@/lib/config";
import { collectorContext, enqueueRun, executeRun, leaseNextRun, leaseRunById, reapExpiredLeases, startWorker, syncConfigToDatabase } from "@/lib/collector";
import { resourcePath, discover } from "@/lib/kube/discovery";
import { createClusterClient } from "@/lib/kube/client";
import { serverSideApply, type DemoKube } from "@/demo/kube-writer";
import { startKubeSim } from "@driftwatch/kubesim";
import { TestRepo } from "@/lib/git/test-support/repo-fixture";
import { logger } from "@/lib/log";
import { expectNoDuplicates, expectStateKept, runWith, storedState, TEST_SECRET_KEY, waitFor } from "./support";

const root = path.resolve(import.meta.dirname, "../..");
const api = deploymentYaml("api", "shop/api:1.4.0", 3);
const web = deploymentYaml("web", "shop/web:2.0.0", 2);
const settings = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", namespace: "shop" }, data: { MODE: "live" } };
const service = { apiVersion: "v1", kind: "Service", metadata: { name: "api", namespace: "shop" }, spec: { selector: { app: "api" }, ports: [{ port: 80, targetPort: 8080 }] } };

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function scaleByHand(kube: DemoKube, name: string, replicas: number): Promise<void> {
  const r = kube.discovery.lookup("apps/v1", "Deployment");
  if (!r) throw new Error("no deployments");
  await kube.client.requestJson("PATCH", resourcePath(r, "shop", name) + "/scale", { body: { spec: { replicas } }, contentType: "application/merge-patch+json", userAgent: KUBECTL_UA });
}

function configYaml(kubeconfigPath: string, repoDir: string, interval = "60s"): string {
  return stringify({
    repositories: [{ name: "shop", url: repoDir }],
    environments: [
      {
        name: "test",
        cluster: { kubeconfig: kubeconfigPath, context: "t-readonly" },
        namespaces: ["shop"],
        defaultNamespace: "shop",
        source: { repository: "shop", branch: "main", path: "envs/test" },
        interval,
      },
    ],
  });
}

describe("Postgres restarted during a run", () => {
  it("the interrupted run is closed as lost, the last good state is intact, and the next run succeeds", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-fault-pg-"));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    // Its own temp folder, as the test setup does: as root, Postgres runs as another user who must enter it.
    const pgDir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-fault-pgdata-"));
    cleanups.push(() => fs.rmSync(pgDir, { recursive: true, force: true }));
    let pg: EmbeddedPostgres = await startEmbeddedPostgres({ dataDir: pgDir });
    cleanups.push(() => pg.stop());
    await applyMigrations(pg.url);
    const db = new PrismaClient({ adapter: new PrismaPg({ connectionString: pg.url }) });
    cleanups.push(() => db.$disconnect());

    const sim = await startKubeSim({ kubeconfigPath: path.join(dir, "kubeconfig"), clusterName: "t", adminPort: false });
    cleanups.push(() => sim.stop());
    const repo = TestRepo.create("fault-pg");
    cleanups.push(() => repo.cleanup());
    repo.write("envs/test/app.yaml", [api, web, settings, service].map((o) => stringify(o)).join("---\n"));
    repo.commit("manifests");
    const config = parseConfig(configYaml(sim.kubeconfigPath, repo.dir));
    await syncConfigToDatabase(db, config);
    const client = createClusterClient({ kubeconfig: sim.kubeconfigPath, context: "t" });
    const kube: DemoKube = { client, discovery: await discover(client) };
    await serverSideApply(kube, { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } }, "kubectl");
    for (const o of [api, web, settings, service]) await serverSideApply(kube, o, "kustomize-controller");

    const f = { db, config, dir };
    expect((await runWith(f)).status).toBe("succeeded");
    await scaleByHand(kube, "api", 6);
    expect((await runWith(f)).stats?.drift.Modified).toBe(1);
    const before = await storedState(db);

    // A run with a short lease, slowed down so Postgres can go away while it lists.
    await scaleByHand(kube, "web", 5);
    sim.faults.setLatency(400);
    const env = await db.environment.findUniqueOrThrow({ where: { name: "test" } });
    const runId = await enqueueRun(db, env.id, "test");
    const leaseMs = 2_000;
    const run = await leaseRunById(db, runId, "doomed-worker", leaseMs);
    if (!run) throw new Error("no lease");
    const ctx = collectorContext(db, config, { mirrorsDir: path.join(dir, "mirrors"), secretKey: TEST_SECRET_KEY, log: logger.child({ test: "pg-restart" }) });
    const pending = executeRun(ctx, run, "doomed-worker", leaseMs).then(
      () => "finished",
      (e: unknown) => `threw: ${e instanceof Error ? e.message : String(e)}`,
    );
    await waitFor("the run to list objects", async () => {
      const r = await db.collectionRun.findUnique({ where: { id: runId } });
      return (r?.progress as { phase?: string } | null)?.phase === "list";
    });
    const port = pg.port;
    await pg.stop();
    // Down until the run has tried to store its result and to record its end.
    const ended = await pending;
    expect(ended).toMatch(/^threw: /);
    pg = await startEmbeddedPostgres({ dataDir: pgDir, port });
    sim.faults.setLatency(0);

    // Nothing of the interrupted run reached the tables (one transaction, never committed).
    expectStateKept(before, await storedState(db));
    const stuck = await db.collectionRun.findUniqueOrThrow({ where: { id: runId } });
    expect(stuck.status).toBe("running");
    // Its lease runs out; any worker's next tick closes it as lost and queues a retry.
    await new Promise((r) => setTimeout(r, leaseMs + 200));
    expect(await reapExpiredLeases(db)).toBe(1);
    const lost = await db.collectionRun.findUniqueOrThrow({ where: { id: runId } });
    expect(lost.status).toBe("failed");
    expect((lost.errors as Array<{ category: string; message: string }>)[0]).toMatchObject({ category: "worker-lost", message: expect.stringContaining("doomed-worker") });
    const retry = await db.collectionRun.findFirstOrThrow({ where: { environmentId: env.id, status: "queued" } });
    expect(retry.trigger).toBe("retry");

    const next = await leaseRunById(db, retry.id, "healthy-worker", 60_000);
    if (!next) throw new Error("no lease for the retry");
    const out = await executeRun(ctx, next, "healthy-worker", 60_000);
    expect(out.status).toBe("succeeded");
    const after = await storedState(db);
    expect(after.drift.filter((d) => d.resolvedAt === null).map((d) => d.key).sort()).toEqual(["apps/Deployment/shop/api", "apps/Deployment/shop/web"]);
    expect((await db.environment.findUniqueOrThrow({ where: { id: env.id } })).lastGoodRunId).toBe(retry.id);
    await expectNoDuplicates(db);
  }, 90_000);
});

describe("collector processes", () => {
  let f: CollectorFixture;

  async function fixture(): Promise<CollectorFixture> {
    f = await createCollectorFixture({ "envs/test/app.yaml": [api, web, settings, service] });
    cleanups.push(() => f.cleanup());
    await f.applyAsController([api, web, settings, service]);
    return f;
  }

  /** `npm run collector`'s process (scripts/collector.mjs: the bundled collector under plain node) as its own process group over the fixture, started (it said so); killed with the test. */
  async function startCollectorProcess(f: CollectorFixture): Promise<{ signal: (s: NodeJS.Signals) => void; exited: Promise<number | null>; output: () => string }> {
    const configFile = path.join(f.dir, "driftwatch.yaml");
    fs.writeFileSync(configFile, configYaml(f.cluster.kubeconfigPath, f.repo.dir));
    const child: ChildProcess = spawn(process.execPath, ["scripts/collector.mjs"], {
      cwd: root,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        DATABASE_URL: process.env.DATABASE_URL,
        DRIFTWATCH_CONFIG: configFile,
        DRIFTWATCH_DATA_DIR: path.join(f.dir, "child-data"),
        DRIFTWATCH_SECRET: TEST_SECRET_KEY.toString("utf8"),
        LOG_LEVEL: "warn",
      },
    });
    let output = "";
    child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code, signal) => resolve(signal ? -1 : code)));
    const signal = (s: NodeJS.Signals) => process.kill(-(child.pid as number), s);
    cleanups.push(() => {
      try {
        if (child.pid && child.exitCode === null) {
          signal("SIGCONT");
          signal("SIGKILL");
        }
      } catch {
        // already gone
      }
    });
    await waitFor("the collector process to start", async () => output.includes("started for 1 environment"), 60_000, 100).catch((e: unknown) => {
      throw new Error(`${String(e)}\n${output}`);
    });
    return { signal, exited, output: () => output };
  }

  /** A collector process running a manual run of "test", slowed by API latency, caught while it lists. */
  async function collectorProcessListing(f: CollectorFixture) {
    await f.cluster.faults.latency(500);
    const child = await startCollectorProcess(f);
    const env = await f.db.environment.findUniqueOrThrow({ where: { name: "test" } });
    await enqueueRun(f.db, env.id, "manual");
    const run = await waitFor("the child to be listing", async () => {
      const r = await f.db.collectionRun.findFirst({ where: { environmentId: env.id, status: "running" } });
      return r && (r.progress as { phase?: string } | null)?.phase === "list" ? r : null;
    }, 30_000);
    return { child, run, env };
  }

  it("a collector killed with SIGKILL mid-run: its lease expires, another worker finishes the environment, nothing half-written", async () => {
    await fixture();
    await runWith(f);
    await scaleByHand(f.admin, "api", 4);
    await runWith(f);
    const before = await storedState(f.db);

    const { child, run: running } = await collectorProcessListing(f);
    expect(running.leaseOwner).not.toBe("fault-worker");
    child.signal("SIGKILL");
    expect(await child.exited).toBe(-1);
    await f.cluster.faults.latency(0);

    expectStateKept(before, await storedState(f.db));
    // Another worker, a minute later (the default lease is 60 s): reap and finish.
    expect(await reapExpiredLeases(f.db, new Date(Date.now() + 61_000))).toBe(1);
    const lost = await f.db.collectionRun.findUniqueOrThrow({ where: { id: running.id } });
    expect(lost.status).toBe("failed");
    expect((lost.errors as Array<{ category: string }>)[0]?.category).toBe("worker-lost");
    const next = await leaseNextRun(f.db, "survivor", 60_000);
    expect(next?.trigger).toBe("retry");
    if (!next) throw new Error("nothing to retry");
    const ctx = collectorContext(f.db, f.config, { mirrorsDir: path.join(f.dir, "mirrors"), secretKey: TEST_SECRET_KEY, log: logger.child({ test: "sigkill" }) });
    const out = await executeRun(ctx, next, "survivor", 60_000);
    expect(out.status).toBe("succeeded");
    expect(await f.db.collectionRun.count({ where: { status: { in: ["queued", "running"] } } })).toBe(0);
    const after = await storedState(f.db);
    expect(after.drift).toEqual(before.drift.map((d) => d)); // same single open drift item, not reopened or doubled
    await expectNoDuplicates(f.db);
  }, 120_000);

  it("a collector stalled past its lease resumes after the retry wrote: its run writes nothing, the retry's state stands", async () => {
    await fixture();
    await runWith(f);
    await scaleByHand(f.admin, "api", 4);
    expect((await runWith(f)).stats?.drift.Modified).toBe(1);

    const { child, run: stalled, env } = await collectorProcessListing(f);
    // Frozen mid-run (a stop-the-world pause, a suspended VM): it stops renewing its lease, and holds what it read.
    child.signal("SIGSTOP");
    await f.cluster.faults.latency(0);

    // Meanwhile the hand edit is undone, the lease runs out, and another worker runs the environment.
    await scaleByHand(f.admin, "api", 3);
    expect(await reapExpiredLeases(f.db, new Date(Date.now() + 61_000))).toBe(1);
    const retry = await leaseNextRun(f.db, "survivor", 60_000);
    if (!retry) throw new Error("nothing to retry");
    const ctx = collectorContext(f.db, f.config, { mirrorsDir: path.join(f.dir, "mirrors"), secretKey: TEST_SECRET_KEY, log: logger.child({ test: "stalled" }) });
    expect((await executeRun(ctx, retry, "survivor", 60_000)).status).toBe("succeeded");
    const afterRetry = await storedState(f.db);
    expect(afterRetry.drift.filter((d) => d.resolvedAt === null)).toEqual([]);

    // It wakes up and finishes its run: the run says it was discarded, and the environment is the retry's.
    child.signal("SIGCONT");
    const ended = await waitFor("the stalled run to end", async () => {
      const r = await f.db.collectionRun.findUniqueOrThrow({ where: { id: stalled.id } });
      return (r.errors as Array<{ message: string }>).some((e) => e.message.includes("discarded")) ? r : null;
    }, 60_000).catch((e: unknown) => {
      throw new Error(`${String(e)}\n${child.output()}`);
    });
    expect(ended.status).toBe("failed");
    expect((ended.errors as Array<{ category: string; message: string }>)[0]).toMatchObject({ category: "worker-lost", message: expect.stringMatching(new RegExp(`lease ran out.*run ${retry.id} of the environment was written`)) });
    const environment = await f.db.environment.findUniqueOrThrow({ where: { id: env.id } });
    expect(environment.lastGoodRunId).toBe(retry.id);
    expect(environment.lastError).toBeNull();
    expectStateKept(afterRetry, await storedState(f.db));
    await expectNoDuplicates(f.db);
  }, 120_000);

  it("two collectors on the same environment: one lease at a time, each drift recorded once", async () => {
    await fixture();
    await runWith(f);
    await scaleByHand(f.admin, "api", 8);
    const env = await f.db.environment.findUniqueOrThrow({ where: { name: "test" } });

    // Both ask for the same queued run at the same instant: exactly one gets it.
    await enqueueRun(f.db, env.id, "manual");
    const [a, b] = await Promise.all([leaseNextRun(f.db, "a", 60_000), leaseNextRun(f.db, "b", 60_000)]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    const ctx = collectorContext(f.db, f.config, { mirrorsDir: path.join(f.dir, "mirrors"), secretKey: TEST_SECRET_KEY, log: logger.child({ test: "two" }) });
    const leased = a ?? b;
    if (!leased) throw new Error("no lease");
    // While it runs, the other worker finds nothing to do for this environment.
    const running = executeRun(ctx, leased, leased === a ? "a" : "b", 60_000);
    await enqueueRun(f.db, env.id, "manual");
    expect(await leaseNextRun(f.db, leased === a ? "b" : "a", 60_000)).toBeNull();
    await running;

    // Then both run as workers, polling fast on a 200 ms interval, for a few seconds.
    await f.db.environment.update({ where: { id: env.id }, data: { spec: { ...(env.spec as object), interval: 200 } } });
    const w1 = startWorker(ctx, { workerId: "w1", pollMs: 50 });
    const w2 = startWorker(ctx, { workerId: "w2", pollMs: 50 });
    await new Promise((r) => setTimeout(r, 4_000));
    await Promise.all([w1.stop(), w2.stop()]);
    const runs = await f.db.collectionRun.findMany({ where: { environmentId: env.id, startedAt: { not: null } }, orderBy: { startedAt: "asc" } });
    expect(runs.length).toBeGreaterThanOrEqual(4);
    for (let i = 1; i < runs.length; i++) {
      const prev = runs[i - 1]!;
      const cur = runs[i]!;
      if (prev.finishedAt && cur.startedAt) expect(cur.startedAt.getTime()).toBeGreaterThanOrEqual(prev.finishedAt.getTime());
    }
    expect(runs.every((r) => r.status === "succeeded")).toBe(true);
    expect(await f.db.driftItem.count()).toBe(1);
    expect(await f.db.auditEvent.count({ where: { action: "drift.opened" } })).toBe(1);
    await expectNoDuplicates(f.db);
  }, 60_000);
});
