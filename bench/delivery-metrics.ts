// The metrics page (getMetrics) over two discovered environments, staging and
// production, of N applications each (one promotion key per application, both
// instances reading one repository), with a history of commits spread over the
// window, each changing one application's folder and applied by staging ten
// minutes after it was made and by production two hours after. The page's
// lead time per hop and stale time are rolled up from every application's
// chain; the figures are the first request (the repository's history loaded
// from Postgres) and later ones (history cached), beside one application's
// figures (?application=) on the same estate.
//
//   npx tsx bench/delivery-metrics.ts [--applications 300] [--commits 3000] [--rounds 5]
//   node --expose-gc --import tsx bench/delivery-metrics.ts …   (also the heap the first request leaves behind)
//
// Starts its own embedded Postgres in a temporary folder (removed afterwards). Not part of `npm run bench`.
import { createHash } from "node:crypto";
import { startBenchDatabase } from "./support/db";
import { loadAverage, machine, median, MiB, numberArg, round, runIfMain, timed } from "./support/stats";
import { getMetrics } from "../lib/dashboard/metrics";

const H = 3_600_000;
const sha = (seed: string) => createHash("sha1").update(seed).digest("hex");

export interface DeliveryMetricsResult {
  applications: number;
  commits: number;
  firstMs: number;
  heapRetainedMiB: number | null;
  warmP50Ms: number;
  oneApplicationP50Ms: number;
  hops: Array<{ from: string | null; to: string; samples: number }>;
  loadAverage1m: number;
}

export async function deliveryMetricsBench(opts: { applications: number; commits: number; rounds: number }): Promise<DeliveryMetricsResult> {
  const bench = await startBenchDatabase("delivery-metrics");
  try {
    const { db } = bench;
    const now = new Date();
    const start = now.getTime() - 29 * 24 * H;
    const step = (27 * 24 * H) / opts.commits;
    const repo = await db.repository.create({ data: { name: "fleet", url: "https://git.example.com/acme/fleet.git" } });
    const apps = Array.from({ length: opts.applications }, (_, j) => `app-${String(j).padStart(4, "0")}`);
    const commits = Array.from({ length: opts.commits }, (_, i) => ({ sha: sha(`c${i}`), at: new Date(start + i * step), app: apps[i % apps.length]! }));
    await db.revision.createMany({
      data: commits.map((c, i) => ({
        repositoryId: repo.id,
        sha: c.sha,
        parents: i === 0 ? [] : [commits[i - 1]!.sha],
        authorName: "Ada",
        authorEmail: "ada@example.com",
        authoredAt: c.at,
        committerName: "Ada",
        committerEmail: "ci@example.com",
        committedAt: c.at,
        message: `${c.app}: change ${i}`,
        changedPaths: [`apps/${c.app}/deployment.yaml`],
      })),
    });
    await db.branchHead.create({ data: { repositoryId: repo.id, branch: "main", sha: commits[commits.length - 1]!.sha } });
    const envs = await Promise.all(
      [
        { name: "staging", position: 0, lagMs: 10 * 60_000 },
        { name: "production", position: 1, lagMs: 2 * H },
      ].map(async (e) => ({ ...e, row: await db.environment.create({ data: { name: e.name, position: e.position, repositoryId: null, branch: "", path: "", spec: { name: e.name } } }) })),
    );
    for (const env of envs) {
      for (const app of apps) {
        // The application's own commits, each applied `lagMs` after it was made, the last still applied.
        const own = commits.filter((c) => c.app === app);
        const last = own[own.length - 1];
        const row = await db.application.create({
          data: {
            environmentId: env.row.id,
            name: `flux-system/${app}`,
            promotionKey: app,
            kind: "flux-kustomization",
            spec: {},
            sources: [{ repository: "fleet", url: "https://git.example.com/acme/fleet.git", ref: { branch: "main" }, path: `apps/${app}` }],
            approvedSha: last?.sha ?? null,
            appliedSha: last?.sha ?? null,
            appliedSince: last ? new Date(last.at.getTime() + env.lagMs) : null,
            firstSeenAt: new Date(start),
          },
        });
        await db.appliedRevision.createMany({
          data: own.map((c, k) => {
            const from = new Date(c.at.getTime() + env.lagMs);
            const next = own[k + 1];
            const to = next ? new Date(next.at.getTime() + env.lagMs) : null;
            return { environmentId: env.row.id, applicationId: row.id, sha: c.sha, source: "controller", firstSeenAt: from, lastSeenAt: to ?? now, endedAt: to };
          }),
        });
      }
    }

    // What the first request leaves in the heap (the history cache and its ancestry sets), when run with --expose-gc.
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const first = await timed(() => getMetrics(db, 30, now));
    gc?.();
    const heapRetainedMiB = gc ? round((process.memoryUsage().heapUsed - heapBefore) / MiB) : null;
    const warm: number[] = [];
    for (let r = 0; r < opts.rounds; r++) warm.push((await timed(() => getMetrics(db, 30, now))).ms);
    const one: number[] = [];
    for (let r = 0; r < opts.rounds; r++) one.push((await timed(() => getMetrics(db, 30, now, apps[0]))).ms);
    return {
      applications: opts.applications,
      commits: opts.commits,
      firstMs: round(first.ms),
      heapRetainedMiB,
      warmP50Ms: round(median(warm)),
      oneApplicationP50Ms: round(median(one)),
      hops: first.value.leadTime.map((h) => ({ from: h.from, to: h.to, samples: h.samples })),
      loadAverage1m: loadAverage(),
    };
  } finally {
    await bench.stop();
  }
}

runIfMain(import.meta.url, async () => {
  const result = await deliveryMetricsBench({ applications: numberArg("applications", 300), commits: numberArg("commits", 3000), rounds: numberArg("rounds", 5) });
  console.log(JSON.stringify({ machine: machine(), ...result }, null, 2));
});
