// The lock a run's write holds on its environment (holdEnvironment): it stops
// a run that is no longer the environment's from writing, and stops nothing
// else — a run queued, an alert or pause recorded for the environment while a
// write holds it goes in at once.
import { describe, expect, it } from "vitest";
import { deploymentYaml, eachCollectorFixture } from "@/test/support/collector-env";
import { enqueueRun, leaseRunById } from "./jobs";
import { holdEnvironment } from "./persist";
import { RunSuperseded } from "./run-context";

const api = deploymentYaml("api", "shop/api:1.4.0", 3);
const fixture = eachCollectorFixture({ "envs/test/app.yaml": [api] });

/** After a good run of "test": a run of it leased, and the environment as it stands. */
async function leasedAfterAGoodRun() {
  const f = fixture();
  await f.run();
  const env = await f.db.environment.findUniqueOrThrow({ where: { name: "test" } });
  const run = await leaseRunById(f.db, await enqueueRun(f.db, env.id, "test"), "w", 60_000);
  if (!run) throw new Error("no lease");
  return { env, run };
}

describe("holdEnvironment", () => {
  it("lets a run queued meanwhile in at once: the write's lock does not hold up rows that refer to the environment", async () => {
    const f = fixture();
    const { env, run } = await leasedAfterAGoodRun();
    let queued: Promise<unknown> = Promise.resolve();
    const queuedWhileHeld = await f.db.$transaction(async (tx) => {
      await holdEnvironment(tx, env.id, run.id, env.lastGoodRunId);
      // Another connection queues a run of the environment (a webhook, "Refresh now") while the write holds it.
      queued = enqueueRun(f.db, env.id, "manual");
      return Promise.race([queued.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 3_000))]);
    });
    await queued;
    expect(queuedWhileHeld).toBe(true);
  });

  it("refuses a run whose environment another run wrote since it read, and one whose lease was reaped", async () => {
    const f = fixture();
    const { env, run } = await leasedAfterAGoodRun();
    await expect(f.db.$transaction((tx) => holdEnvironment(tx, env.id, run.id, (env.lastGoodRunId ?? 0) - 1))).rejects.toBeInstanceOf(RunSuperseded);
    await f.db.collectionRun.update({ where: { id: run.id }, data: { status: "failed" } });
    await expect(f.db.$transaction((tx) => holdEnvironment(tx, env.id, run.id, env.lastGoodRunId))).rejects.toThrow(/lease ran out/);
  });
});
