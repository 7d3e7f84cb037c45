// Scale-out: 20 environments of 2,000 objects each (one API server, one Git
// repository, one Postgres), collected by 1, 2 and 4 collector processes —
// each `node scripts/collector.mjs`, as `npm run collector` starts
// it, sharing the work through the Postgres job table. Every environment is
// due again 1 s after its last run was queued, so the workers never idle:
// runs per minute is their throughput. Afterwards the CollectionRun rows are
// checked: no environment may ever have had two runs overlapping in time.
//
//   npx tsx bench/scale-out.ts [--window 15] [--workers 1,2,4]
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startBenchCluster } from "./support/cluster";
import { startBenchDatabase } from "./support/db";
import { benchConfig, benchContext, benchObjects, collectOnce, newRepo, syncConfig, writeManifests } from "./support/fixtures";
import { runIfMain, loadAverage, MiB, numberArg, round } from "./support/stats";
import { peakRssOf, startCollector, stopProcesses, warmCollectors } from "./support/web";

const ENVIRONMENTS = 20;
const OBJECTS = 2_000;

export interface ScaleOutPhase {
  workers: number;
  windowSeconds: number;
  runs: number;
  runsPerMinute: number;
  /** Against one worker in the same run of the benchmark. */
  speedup: number;
  medianRunMs: number;
  /** Workers that finished at least one run in the window. */
  activeWorkers: number;
  /** Peak resident memory of each collector process, MiB. */
  peakRssMiB: number[];
}

export interface ScaleOutBenchResult {
  environments: number;
  objectsPerEnvironment: number;
  phases: ScaleOutPhase[];
  /** Runs checked for overlap, and the overlaps found (must be 0). */
  runsChecked: number;
  overlaps: number;
  failedRuns: number;
  loadAverage1m: number;
  targets: { noOverlap: boolean };
}

export async function runScaleOutBench(opts: { windowSeconds?: number; workers?: number[]; log?: (m: string) => void } = {}): Promise<ScaleOutBenchResult> {
  const windowSeconds = opts.windowSeconds ?? 15;
  const counts = opts.workers ?? [1, 2, 4];
  const log = opts.log ?? (() => {});
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "driftwatch-bench-scale-"));
  const database = await startBenchDatabase("scale");
  const cluster = await startBenchCluster(dir);
  const repo = newRepo("bench-scale");
  const children: ChildProcess[] = [];
  try {
    const envs = [];
    for (let e = 0; e < ENVIRONMENTS; e++) {
      const set = benchObjects(OBJECTS, { namespaces: 1, prefix: `e${e}-` });
      await cluster.seed(set.live, "kustomize-controller");
      writeManifests(repo, `envs/e${e}`, set.desired, 2);
      envs.push({ name: `e${e}`, namespaces: set.namespaces, path: `envs/e${e}`, interval: "1s" });
    }
    const { config, yaml } = benchConfig(repo.dir, cluster.kubeconfigPath, envs);
    const configFile = path.join(dir, "driftwatch.yaml");
    fs.writeFileSync(configFile, yaml);
    await syncConfig(database.db, config);
    // Every environment's first (cold) run, here, so each phase measures steady-state work.
    const ctx = benchContext(database.db, config, path.join(dir, "bench-mirrors"));
    for (const e of envs) await collectOnce(ctx, e.name);
    log(`scale-out: ${ENVIRONMENTS} environments × ${OBJECTS} objects seeded and collected once`);

    const phases: ScaleOutPhase[] = [];
    for (const n of counts) {
      const started: ChildProcess[] = [];
      for (let i = 0; i < n; i++) {
        const child = startCollector({ databaseUrl: database.url, configFile, dataDir: path.join(dir, `worker-${n}-${i}`) });
        started.push(child);
        children.push(child);
      }
      await warmCollectors(database.db, n, ENVIRONMENTS, { startMs: 120_000, extraMs: 30_000 });
      const from = new Date();
      await new Promise((r) => setTimeout(r, windowSeconds * 1_000));
      const to = new Date();
      const peaks = started.map((c) => round(peakRssOf(c.pid ?? 0) / MiB));
      await stopProcesses(started);
      const runs = await database.db.collectionRun.findMany({ where: { status: "succeeded", finishedAt: { gte: from, lte: to } }, select: { startedAt: true, finishedAt: true, leaseOwner: true } });
      const durations = runs.filter((r) => r.startedAt && r.finishedAt).map((r) => (r.finishedAt as Date).getTime() - (r.startedAt as Date).getTime());
      durations.sort((a, b) => a - b);
      const seconds = (to.getTime() - from.getTime()) / 1_000;
      const perMinute = (runs.length / seconds) * 60;
      phases.push({
        workers: n,
        windowSeconds: round(seconds, 1),
        runs: runs.length,
        runsPerMinute: round(perMinute, 1),
        speedup: phases[0] ? round(perMinute / phases[0].runsPerMinute, 2) : 1,
        medianRunMs: round(durations[Math.floor(durations.length / 2)] ?? 0),
        activeWorkers: new Set(runs.map((r) => r.leaseOwner)).size,
        peakRssMiB: peaks,
      });
      log(`scale-out: ${n} worker(s): ${round(perMinute, 1)} runs/min (median run ${phases[phases.length - 1]?.medianRunMs} ms)`);
    }

    // No environment ever ran twice at once: per environment, each run ends before the next starts.
    const all = await database.db.collectionRun.findMany({
      where: { startedAt: { not: null } },
      select: { environmentId: true, startedAt: true, finishedAt: true, status: true },
      orderBy: [{ environmentId: "asc" }, { startedAt: "asc" }],
    });
    let overlaps = 0;
    for (let i = 1; i < all.length; i++) {
      const prev = all[i - 1];
      const cur = all[i];
      if (!prev || !cur || prev.environmentId !== cur.environmentId) continue;
      const prevEnd = prev.finishedAt ?? new Date(8.64e15);
      if ((cur.startedAt as Date).getTime() < prevEnd.getTime()) overlaps++;
    }
    const failedRuns = all.filter((r) => r.status === "failed").length;
    return {
      environments: ENVIRONMENTS,
      objectsPerEnvironment: OBJECTS,
      phases,
      runsChecked: all.length,
      overlaps,
      failedRuns,
      loadAverage1m: loadAverage(),
      targets: { noOverlap: overlaps === 0 },
    };
  } finally {
    await stopProcesses(children);
    await cluster.stop();
    repo.cleanup();
    await database.stop();
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

export async function main(): Promise<ScaleOutBenchResult> {
  const i = process.argv.indexOf("--workers");
  const workers = i >= 0 ? (process.argv[i + 1] ?? "").split(",").map(Number).filter((n) => n > 0) : undefined;
  const r = await runScaleOutBench({ windowSeconds: numberArg("window", 15), workers, log: (m) => console.log(m) });
  console.log(JSON.stringify(r));
  return r;
}

runIfMain(import.meta.url, main);
