// A watch-triggered run (a cluster change) takes Git as the last fetch left
// it while that fetch is younger than the environment's interval: a busy
// cluster starts such runs every few seconds, and each one asking the Git
// host was a request per run and a round trip between an edit and its drift
// item. Scheduled, webhook and manual runs fetch as before.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { gitProcessCounts, resetGitProcessCounts } from "@/lib/git/exec";
import path from "node:path";
import { enqueueRun } from "@/lib/collector/jobs";
import { createCollectorFixture, deploymentYaml, runCollection, type CollectorFixture } from "@/test/support/collector-env";

const api = (image: string) => deploymentYaml("api", image, 2);
const INTERVAL_MS = 3_000;

describe("Git in watch-triggered runs", () => {
  let f: CollectorFixture;
  beforeEach(async () => {
    f = await createCollectorFixture({ "envs/test/api.yaml": [api("shop/api:1.4.0")] }, { envYaml: { interval: `${INTERVAL_MS / 1000}s` } });
    await f.applyAsController([api("shop/api:1.4.0")]);
  });
  afterEach(async () => {
    await f.cleanup();
  });

  const approved = async () => (await f.db.environment.findUniqueOrThrow({ where: { name: "test" } })).approvedSha;
  const fetchesDuring = async (run: () => Promise<unknown>) => {
    resetGitProcessCounts();
    await run();
    return gitProcessCounts().bySubcommand.fetch ?? 0;
  };
  const push = (image: string) => {
    f.repo.write("envs/test/api.yaml", stringify(api(image)));
    return f.repo.commit(`api ${image}`);
  };

  it("reuses a fetch younger than the interval; a scheduled run, and a watch-triggered one after the interval, fetch", async () => {
    const initial = (await f.run(), await approved());
    const pushed = push("shop/api:1.5.0");

    // A cluster change right after: Git as fetched a moment ago, the push not yet seen.
    expect(await fetchesDuring(() => f.run("test", "watch"))).toBe(0);
    expect(await approved()).toBe(initial);
    const run = await f.db.collectionRun.findFirstOrThrow({ where: { trigger: "watch" }, orderBy: { id: "desc" } });
    expect((run.stats as { repositoriesFetched?: number }).repositoriesFetched).toBe(0);

    // The scheduled run fetches and sees the push, as without watch mode.
    expect(await fetchesDuring(() => f.run("test", "schedule"))).toBe(1);
    expect(await approved()).toBe(pushed);

    // Once the last fetch is older than the interval, a watch-triggered run fetches too.
    const later = push("shop/api:1.6.0");
    await new Promise((r) => setTimeout(r, INTERVAL_MS + 100));
    expect(await fetchesDuring(() => f.run("test", "watch"))).toBe(1);
    expect(await approved()).toBe(later);
  });

  it("fetches when another worker has fetched since: its newer commit is not taken back", async () => {
    await f.run();
    const pushed = push("shop/api:1.5.0");
    await f.applyAsController([api("shop/api:1.5.0")]);
    // Another worker (a mirror of its own) runs the environment after the push: the push is approved, and live.
    await runCollection(f.db, f.config, path.join(f.dir, "other-worker-mirrors"), "test");
    expect(await approved()).toBe(pushed);
    // This worker's fetch is younger than the interval but older than what the environment shows.
    const lastEvent = (await f.db.auditEvent.findFirstOrThrow({ orderBy: { id: "desc" } })).id;
    expect(await fetchesDuring(() => f.run("test", "watch"))).toBe(1);
    expect(await approved()).toBe(pushed);
    expect(await f.db.auditEvent.count({ where: { action: "revision.approved", id: { gt: lastEvent } } })).toBe(0);
    expect(await f.db.driftItem.count({ where: { resolvedAt: null } })).toBe(0);
  });

  it("a webhook or Refresh now folded into a queued watch-triggered run makes it fetch", async () => {
    await f.run();
    const pushed = push("shop/api:1.5.0");
    const env = await f.db.environment.findUniqueOrThrow({ where: { name: "test" } });
    const queued = await enqueueRun(f.db, env.id, "watch");
    expect(await enqueueRun(f.db, env.id, "webhook")).toBe(queued);
    expect(await enqueueRun(f.db, env.id, "schedule")).toBe(queued);
    expect((await f.db.collectionRun.findUniqueOrThrow({ where: { id: queued } })).trigger).toBe("webhook");
    // That run, when a worker takes it, fetches and shows the push.
    expect(await fetchesDuring(async () => expect((await f.run("test", "webhook")).runId).toBe(queued))).toBe(1);
    expect(await approved()).toBe(pushed);
  });
});
