// Database growth: a 10,000-object environment collected 100 times, 1% of
// its live objects changed before each run (half by hand, so drift opens and
// closes; half by controllers), against the raw size of the changed objects
// as the API serves them. Then 5 more runs with nothing changed, which should
// cost (almost) nothing: only unchanged objects, never rewritten.
//
//   npx tsx bench/storage.ts [--objects 10000] [--runs 100]
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startBenchCluster } from "./support/cluster";
import { databaseBytes, startBenchDatabase } from "./support/db";
import { benchConfig, benchContext, benchObjects, churn, collectOnce, newRepo, syncConfig, writeManifests } from "./support/fixtures";
import { runIfMain, loadAverage, median, numberArg, round } from "./support/stats";

export interface StorageBenchResult {
  objects: number;
  runs: number;
  changedObjects: number;
  /** JSON bytes of the changed objects as the API served them after each change. */
  changedBytes: number;
  /** pg_total_relation_size over all tables, after the runs minus before (the first, cold run excluded). */
  growthBytes: number;
  ratio: number;
  byTable: Record<string, number>;
  /** Growth over 5 runs that found nothing changed, per run. */
  unchangedRunBytes: number;
  medianRunMs: number;
  loadAverage1m: number;
  targets: { maxRatio: number; met: boolean };
}

export async function runStorageBench(opts: { objects?: number; runs?: number; log?: (m: string) => void } = {}): Promise<StorageBenchResult> {
  const objects = opts.objects ?? 10_000;
  const runs = opts.runs ?? 100;
  const log = opts.log ?? (() => {});
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "driftwatch-bench-storage-"));
  const database = await startBenchDatabase("storage");
  const cluster = await startBenchCluster(dir);
  const repo = newRepo("bench-storage");
  try {
    const set = benchObjects(objects);
    await cluster.seed(set.live, "kustomize-controller");
    writeManifests(repo, "envs/bench", set.desired);
    const { config } = benchConfig(repo.dir, cluster.kubeconfigPath, [{ name: "bench", namespaces: set.namespaces, path: "envs/bench" }]);
    await syncConfig(database.db, config);
    const ctx = benchContext(database.db, config, path.join(dir, "mirrors"));
    await collectOnce(ctx, "bench");
    // Settle what the cold run left (dead tuples of its own updates) so growth is the runs' own.
    await database.db.$executeRawUnsafe("VACUUM ANALYZE");
    const before = await databaseBytes(database.db);

    let changedObjects = 0;
    let changedBytes = 0;
    const times: number[] = [];
    for (let n = 1; n <= runs; n++) {
      const c = await churn(cluster, set.live, 0.01, n);
      changedObjects += c.refs.length;
      changedBytes += c.bytes;
      times.push((await collectOnce(ctx, "bench")).ms);
      if (n % 25 === 0) log(`storage: ${n}/${runs} runs`);
    }
    const after = await databaseBytes(database.db);
    for (let i = 0; i < 5; i++) await collectOnce(ctx, "bench");
    const idle = await databaseBytes(database.db);

    const sum = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);
    const growthBytes = sum(after) - sum(before);
    const byTable: Record<string, number> = {};
    for (const t of Object.keys(after)) {
      const d = (after[t] ?? 0) - (before[t] ?? 0);
      if (d !== 0) byTable[t] = d;
    }
    const ratio = growthBytes / changedBytes;
    return {
      objects,
      runs,
      changedObjects,
      changedBytes,
      growthBytes,
      ratio: round(ratio, 2),
      byTable,
      unchangedRunBytes: round((sum(idle) - sum(after)) / 5),
      medianRunMs: round(median(times)),
      loadAverage1m: loadAverage(),
      targets: { maxRatio: 2, met: ratio <= 2 },
    };
  } finally {
    await cluster.stop();
    repo.cleanup();
    await database.stop();
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

export async function main(): Promise<StorageBenchResult> {
  const r = await runStorageBench({ objects: numberArg("objects", 10_000), runs: numberArg("runs", 100), log: (m) => console.log(m) });
  console.log(JSON.stringify(r));
  return r;
}

runIfMain(import.meta.url, main);
