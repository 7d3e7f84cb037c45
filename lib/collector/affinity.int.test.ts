// Run affinity on a real Postgres: an environment's next run goes to the live
// worker that ran it last; another worker takes it once that one stops
// heartbeating, stops cleanly, loses its lease, or the run has waited past
// the grace; never two runs of one environment at once.
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { seedEnvironment, seedRepository } from "@/test/fixtures/dashboard";
import { createCollectorFixture, deploymentYaml, type CollectorFixture } from "@/test/support/collector-env";
import { enqueueRun, leaseNextRun, leaseRunById, reapExpiredLeases } from "./jobs";
import { liveWorkers, workerGone, workerHeartbeat } from "./affinity";
import { collectorContext, startWorker } from "./index";

const db = getPrisma();
const T0 = Date.parse("2026-12-05T08:00:00.000Z");
const at = (seconds: number) => new Date(T0 + seconds * 1_000);
const LEASE_MS = 60_000;
const GRACE_MS = 30_000;
const TTL_MS = 30_000;

let envId: string;

/** Closes a run as a worker does: the run succeeded and is its environment's last run. */
async function finish(runId: number, when: Date): Promise<void> {
  const run = await db.collectionRun.update({ where: { id: runId }, data: { status: "succeeded", finishedAt: when, leaseExpiresAt: null } });
  await db.environment.update({ where: { id: run.environmentId }, data: { lastRunId: runId, lastGoodRunId: runId } });
}

/** Both workers alive at `s` seconds. */
async function beat(s: number, ...workers: string[]): Promise<void> {
  for (const w of workers) await workerHeartbeat(db, w, TTL_MS, at(s));
}

/** `worker` runs the environment once, start to finish, at `s` seconds. */
async function runAs(worker: string, s: number, environmentId = envId): Promise<void> {
  await enqueueRun(db, environmentId, "schedule", { notBefore: at(s) });
  const run = await leaseNextRun(db, worker, LEASE_MS, at(s), { graceMs: GRACE_MS });
  expect(run?.environmentId).toBe(environmentId);
  await finish(run!.id, at(s + 1));
}

describe("run affinity between workers", () => {
  beforeEach(async () => {
    await resetDatabase(db);
    const repo = await seedRepository(db);
    envId = (await seedEnvironment(db, { name: "production", position: 0, repositoryId: repo.id, path: "envs/production" })).id;
  });

  it("the next run goes to the worker that ran the environment last while it heartbeats, and never runs twice at once", async () => {
    await beat(0, "a", "b");
    await runAs("a", 0);

    await enqueueRun(db, envId, "schedule", { notBefore: at(2) });
    await beat(3, "a", "b");
    expect(await leaseNextRun(db, "b", LEASE_MS, at(3), { graceMs: GRACE_MS })).toBeNull();
    const mine = await leaseNextRun(db, "a", LEASE_MS, at(3), { graceMs: GRACE_MS });
    expect(mine?.environmentId).toBe(envId);

    // While a's run goes on, a follow-up is queued; b finds nothing to take, even past the grace.
    await enqueueRun(db, envId, "manual", { notBefore: at(4) });
    await beat(60, "a", "b");
    expect(await leaseNextRun(db, "b", LEASE_MS, at(60), { graceMs: GRACE_MS })).toBeNull();
    expect(await db.collectionRun.count({ where: { environmentId: envId, status: "running" } })).toBe(1);
    await finish(mine!.id, at(61));
  });

  it("another worker takes the run once the owner stops heartbeating, and then owns the environment", async () => {
    await beat(0, "a", "b");
    await runAs("a", 0);
    // a's last heartbeat was at 0 (alive until 30 s); b keeps beating.
    await enqueueRun(db, envId, "schedule", { notBefore: at(25) });
    await beat(26, "b");
    expect(await leaseNextRun(db, "b", LEASE_MS, at(26), { graceMs: GRACE_MS })).toBeNull();
    await beat(31, "b");
    expect(await liveWorkers(db, at(31))).toEqual(["b"]);
    const taken = await leaseNextRun(db, "b", LEASE_MS, at(31), { graceMs: GRACE_MS });
    expect(taken?.environmentId).toBe(envId);
    await finish(taken!.id, at(32));

    // a comes back: the environment stays with b, the worker that ran it last.
    await enqueueRun(db, envId, "schedule", { notBefore: at(33) });
    await beat(34, "a", "b");
    expect(await leaseNextRun(db, "a", LEASE_MS, at(34), { graceMs: GRACE_MS })).toBeNull();
    expect((await leaseNextRun(db, "b", LEASE_MS, at(34), { graceMs: GRACE_MS }))?.environmentId).toBe(envId);
  });

  it("another worker takes the run once it has waited past the grace, though the owner is alive", async () => {
    await beat(0, "a", "b");
    await runAs("a", 0);
    await enqueueRun(db, envId, "schedule", { notBefore: at(10) });
    await beat(39, "a", "b");
    expect(await leaseNextRun(db, "b", LEASE_MS, at(39), { graceMs: GRACE_MS })).toBeNull();
    await beat(41, "a", "b");
    expect((await leaseNextRun(db, "b", LEASE_MS, at(41), { graceMs: GRACE_MS }))?.environmentId).toBe(envId);
  });

  it("a worker that joins takes its share at once: environments move from a worker above the share to one below it, no further", async () => {
    const repo = await db.repository.findFirstOrThrow();
    const stagingId = (await seedEnvironment(db, { name: "staging", position: 1, repositoryId: repo.id, path: "envs/staging" })).id;
    await beat(0, "a");
    await runAs("a", 0);
    await runAs("a", 2, stagingId);
    // b starts: two environments, two live workers, a holds both.
    await enqueueRun(db, envId, "schedule", { notBefore: at(4) });
    await enqueueRun(db, stagingId, "schedule", { notBefore: at(4) });
    await beat(5, "a", "b");
    const moved = await leaseNextRun(db, "b", LEASE_MS, at(5), { graceMs: GRACE_MS });
    expect(moved?.environmentId).toBe(envId);
    await finish(moved!.id, at(6));
    // Now each holds one: b does not take a's other environment.
    await beat(7, "a", "b");
    expect(await leaseNextRun(db, "b", LEASE_MS, at(7), { graceMs: GRACE_MS })).toBeNull();
    expect((await leaseNextRun(db, "a", LEASE_MS, at(7), { graceMs: GRACE_MS }))?.environmentId).toBe(stagingId);
  });

  it("a watch-triggered run is left to the watching worker (it leases it by id) until the grace", async () => {
    await beat(0, "a", "b");
    await runAs("a", 0);
    // b watches the environment and queued a run for its informer caches.
    const queued = await enqueueRun(db, envId, "watch", { notBefore: at(2) });
    await beat(3, "a", "b");
    expect(await leaseNextRun(db, "a", LEASE_MS, at(3), { graceMs: GRACE_MS })).toBeNull();
    expect(await leaseNextRun(db, "b", LEASE_MS, at(3), { graceMs: GRACE_MS })).toBeNull();
    expect((await leaseRunById(db, queued, "b", LEASE_MS, at(3)))?.environmentId).toBe(envId);
    await finish(queued, at(4));
    // b ran it last: the scheduled runs follow it there.
    await enqueueRun(db, envId, "schedule", { notBefore: at(5) });
    await beat(6, "a", "b");
    expect(await leaseNextRun(db, "a", LEASE_MS, at(6), { graceMs: GRACE_MS })).toBeNull();
    expect((await leaseNextRun(db, "b", LEASE_MS, at(6), { graceMs: GRACE_MS }))?.environmentId).toBe(envId);
    // A watch run nobody leases by id (its watcher died before) goes to anyone after the grace.
    await finish((await db.collectionRun.findFirstOrThrow({ where: { status: "running" } })).id, at(7));
    await enqueueRun(db, envId, "watch", { notBefore: at(8) });
    await beat(39, "a");
    expect((await leaseNextRun(db, "a", LEASE_MS, at(39), { graceMs: GRACE_MS }))?.trigger).toBe("watch");
  });

  it("a worker that stops cleanly, or whose lease is reaped, hands its environments over at once", async () => {
    await beat(0, "a", "b");
    await runAs("a", 0);
    await enqueueRun(db, envId, "schedule", { notBefore: at(2) });
    await workerGone(db, "a");
    await beat(3, "b");
    const taken = await leaseNextRun(db, "b", LEASE_MS, at(3), { graceMs: GRACE_MS });
    expect(taken?.environmentId).toBe(envId);

    // b dies mid-run (no clean stop): its lease expires, the reaper closes the
    // run and queues a retry, which a may take at once although b's
    // registration had not expired yet.
    await beat(4, "a", "b");
    expect(await reapExpiredLeases(db, at(3 + LEASE_MS / 1_000 + 1))).toBe(1);
    expect(await liveWorkers(db, at(5))).toEqual(["a"]);
    const retry = await leaseNextRun(db, "a", LEASE_MS, new Date(), { graceMs: GRACE_MS });
    expect(retry?.trigger).toBe("retry");
  });
});

describe("collector workers with affinity", () => {
  let f: CollectorFixture;
  afterEach(async () => {
    await f.cleanup();
  });

  it("one worker keeps collecting the environment while it runs; when it stops, the other takes over", async () => {
    f = await createCollectorFixture({ "envs/test/app.yaml": [deploymentYaml("api", "shop/api:1.4.0", 3)] });
    const env = await f.db.environment.findUniqueOrThrow({ where: { name: "test" } });
    await f.db.environment.update({ where: { id: env.id }, data: { spec: { ...(env.spec as object), interval: 200 } } });
    const ctx = collectorContext(f.db, f.config, { mirrorsDir: path.join(f.dir, "mirrors") });
    const since = new Date();
    const w1 = startWorker(ctx, { workerId: "w1", pollMs: 50, listen: false, watch: false });
    const w2 = startWorker(ctx, { workerId: "w2", pollMs: 50, listen: false, watch: false });
    const runsSince = (from: Date) => f.db.collectionRun.findMany({ where: { environmentId: env.id, startedAt: { gte: from } }, orderBy: { startedAt: "asc" } });
    const finishedSince = async (from: Date, n: number) => {
      const deadline = Date.now() + 30_000;
      while ((await runsSince(from)).filter((r) => r.finishedAt).length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      return runsSince(from);
    };
    const first = await finishedSince(since, 4);
    expect(first.length).toBeGreaterThanOrEqual(4);
    const owner = first[0]!.leaseOwner;
    expect(first.every((r) => r.leaseOwner === owner)).toBe(true);

    const [stopping, other] = owner === "w1" ? [w1, w2] : [w2, w1];
    await stopping.stop();
    const handover = new Date();
    const after = await finishedSince(handover, 2);
    await other.stop();
    expect(after.length).toBeGreaterThanOrEqual(2);
    expect(after.every((r) => r.leaseOwner === other.id)).toBe(true);

    const all = await runsSince(since);
    expect(all.every((r) => r.status === "succeeded")).toBe(true);
    for (let i = 1; i < all.length; i++) expect(all[i]!.startedAt!.getTime()).toBeGreaterThanOrEqual(all[i - 1]!.finishedAt!.getTime());
    expect(await liveWorkers(f.db)).toEqual([]);
  }, 60_000);
});
