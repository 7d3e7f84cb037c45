// Detection latency in watch mode, measured the way a user would see it.
//  1. A `kubectl scale` (PATCH …/scale, as kubectl sends it) on the API
//     imitation → the drift item visible through GET /api/environments/{env}/drift
//     (the route handler, in process, with a signed-in session): 50 edits, one
//     at a time, on an environment of 1,000 objects in watch mode.
//  2. A signed push webhook (POST /api/webhooks/git) for a new commit → that
//     commit visible as the approved revision through GET /api/environments/{env}.
//  3. A burst of `--batch` edits at once (default 100) → every one visible, and
//     what the watch-triggered runs that carried them cost, beside a bare list
//     of the same objects measured in this run (issue 21: with 100,000 objects
//     and 100 changes a run takes ≤ 0.2× the bare list, edit → visible p95 ≤ 1 s).
// A collector worker runs in this process with its default settings (1 s job
// poll, 50 ms watch debounce); the API server runs in a process of its own.
// With --collector-process the worker is `npm run collector` instead (bundled,
// plain node, its 768 MiB heap limit), and the report adds that process's
// memory: what a collector watching the environment holds (its informer caches,
// the render, the rows and live entries it keeps between runs) and its peak.
//
//   npx tsx bench/latency.ts [--objects 1000] [--edits 50] [--pushes 20] [--batch 100]
//   npx tsx bench/latency.ts --full     (100,000 objects, issue 21's watch-at-scale targets)
//   --profile /tmp/burst.cpuprofile      (a CPU profile of the burst)
//   --collector-process                  (the worker as `npm run collector`, its RSS reported)
//   --collector-heap MiB                 (with --collector-process: its heap limit, default npm run collector's)
import { createHmac, randomUUID } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { NextRequest } from "next/server";
import { resetConfigCache } from "../lib/config/index";
import { resetEnvCache } from "../lib/env/index";
import { startWorker } from "../lib/collector/index";
import { GET as getDrift } from "../app/api/environments/[env]/drift/route";
import { GET as getEnvironment } from "../app/api/environments/[env]/route";
import { POST as postWebhook } from "../app/api/webhooks/git/route";
import { createClusterClient } from "../lib/kube/client";
import { bareListOf, startBenchCluster } from "./support/cluster";
import { startBenchDatabase } from "./support/db";
import { benchConfig, benchContext, benchObjects, newRepo, refOf, syncConfig, viewerCookie, writeManifests } from "./support/fixtures";
import { startProfiler } from "./support/profiler";
import { flag, runIfMain, loadAverage, median, MiB, numberArg, percentile, round, stringArg } from "./support/stats";
import { startCollector } from "./support/web";

export interface LatencyStats {
  samples: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

export interface LatencyBenchResult {
  objects: number;
  drift: LatencyStats;
  webhook: LatencyStats;
  /** Runs the watch queued during the edits, and how long they took (median). */
  watchRuns: number;
  watchRunMedianMs: number;
  /** A bare paged list of the same objects (the collector's read-only credential), median of three. */
  bareListMs: number;
  /** `changes` edits at once: each one's edit → visible, and the watch runs that carried them. */
  burst: { changes: number; visible: LatencyStats; runs: number; runMedianMs: number; runMaxMs: number; runToBareList: number };
  /** --collector-process: the collector process's resident memory at the end (watching, caches full) and its peak (VmHWM) over the whole bench. */
  collectorRssMiB: { atEnd: number; peak: number } | null;
  loadAverage1m: number;
  targets: { p95Ms: number; driftMet: boolean; webhookMet: boolean; burstRunMaxRatio: number; burstRunMet: boolean; burstVisibleMet: boolean };
}

function stats(ms: number[]): LatencyStats {
  return { samples: ms.length, p50Ms: round(percentile(ms, 0.5)), p95Ms: round(percentile(ms, 0.95)), maxMs: round(Math.max(...ms)) };
}

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs: number, everyMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const SECRET_ENV = "DRIFTWATCH_BENCH_WEBHOOK_SECRET";

/** Resident memory of a process now and at its peak (VmRSS, VmHWM), from /proc. */
function processRss(pid: number): { atEnd: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { atEnd: round((kb("VmRSS") * 1024) / MiB), peak: round((kb("VmHWM") * 1024) / MiB) };
}

export async function runLatencyBench(
  opts: { objects?: number; edits?: number; pushes?: number; batch?: number; profileTo?: string; collectorProcess?: boolean; collectorHeapMiB?: number; log?: (m: string) => void } = {},
): Promise<LatencyBenchResult> {
  const objects = opts.objects ?? 1_000;
  const edits = opts.edits ?? 50;
  const pushes = opts.pushes ?? 20;
  // Issue 21's target is for 100,000 objects; smaller runs keep the first-release target of 2 s.
  const p95TargetMs = objects >= 100_000 ? 1_000 : 2_000;
  const log = opts.log ?? (() => {});
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "driftwatch-bench-latency-"));
  const saved = { config: process.env.DRIFTWATCH_CONFIG, secret: process.env[SECRET_ENV] };
  const database = await startBenchDatabase("latency");
  const cluster = await startBenchCluster(dir, { controllers: true });
  const repo = newRepo("bench-latency");
  let worker: ReturnType<typeof startWorker> | null = null;
  let collectorProcess: ReturnType<typeof startCollector> | null = null;
  try {
    const set = benchObjects(objects, { namespaces: 2 });
    await cluster.seed(set.live, "kustomize-controller");
    writeManifests(repo, "envs/bench", set.desired, 2);
    const { config, yaml } = benchConfig(repo.dir, cluster.kubeconfigPath, [{ name: "bench", namespaces: set.namespaces, path: "envs/bench", mode: "watch", interval: "1h" }], {
      webhookSecretEnv: SECRET_ENV,
    });
    // The route handlers read the configuration and the webhook secret the way a running server does.
    const configFile = path.join(dir, "driftwatch.yaml");
    fs.writeFileSync(configFile, yaml);
    const secret = randomUUID();
    process.env.DRIFTWATCH_CONFIG = configFile;
    process.env[SECRET_ENV] = secret;
    resetEnvCache();
    resetConfigCache();
    await syncConfig(database.db, config);
    const listClient = createClusterClient({ kubeconfig: cluster.kubeconfigPath, context: "bench-readonly" }, { timeoutMs: 300_000 });
    const bareLists: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      await bareListOf(listClient, cluster.discovery, set.namespaces);
      bareLists.push(performance.now() - t);
    }
    const bareListMs = median(bareLists);
    log(`latency: bare list of ${objects} objects ${round(bareListMs)} ms`);
    const cookie = await viewerCookie(database.db);
    // The webhook secret and the configuration are in this process's environment, which the collector process inherits.
    if (opts.collectorProcess) {
      collectorProcess = startCollector({ databaseUrl: database.url, configFile, dataDir: path.join(dir, "collector-data"), heapMiB: opts.collectorHeapMiB });
    } else worker = startWorker(benchContext(database.db, config, path.join(dir, "mirrors")));

    // A first run of 100,000 objects takes about a minute on 2 cores.
    await until("the first run", () => database.db.collectionRun.findFirst({ where: { status: "succeeded" } }), 900_000, 100);

    const driftVisible = async (key: string): Promise<boolean> => {
      const name = key.split("/").pop() ?? key;
      const req = new NextRequest(new URL(`/api/environments/bench/drift?q=${encodeURIComponent(name)}`, "http://localhost"), { headers: { cookie } });
      const res = await getDrift(req, { params: Promise.resolve({ env: "bench" }) });
      if (res.status !== 200) throw new Error(`GET drift answered ${res.status}: ${await res.text()}`);
      const body = (await res.json()) as { items: Array<{ key: string }> };
      return body.items.some((i) => i.key === key);
    };
    // kubectl scale: merge patch on the scale subresource, no fieldManager (the server names it "kubectl").
    const scale = (ref: { namespace: string; name: string }, replicas: number) =>
      cluster.client.requestJson("PATCH", `/apis/apps/v1/namespaces/${ref.namespace}/deployments/${ref.name}/scale`, {
        body: { spec: { replicas } },
        contentType: "application/merge-patch+json",
        userAgent: "kubectl/v1.32.4 (linux/amd64) kubernetes/59526cd",
      });
    const keyOf = (ref: { namespace: string; name: string }) => `apps/Deployment/${ref.namespace}/${ref.name}`;

    const deployments = set.live.filter((o) => o.kind === "Deployment").map(refOf);
    const w = worker;
    if (w) await until("the watch caches", async () => w.watchStatus()[0]?.ready, 300_000, 100);
    else {
      // Another process's caches cannot be asked: an edit of the last Deployment (edited by nothing else) is seen once they are.
      const probe = deployments[deployments.length - 1];
      if (!probe) throw new Error("no Deployment to probe the watch with");
      await scale(probe, 99);
      await until("the watch caches (a probe edit seen)", () => driftVisible(keyOf(probe)), 600_000, 200);
    }
    log(`latency: watching ${objects} objects; ${edits} edits`);
    // 100 by default; a small set (1,000 objects hold 100 Deployments) bursts what the single edits left.
    const batch = opts.batch ?? Math.min(100, deployments.length - edits);
    const driftMs: number[] = [];
    const runsBefore = await database.db.collectionRun.count({ where: { trigger: "watch" } });
    for (let i = 0; i < edits; i++) {
      const ref = deployments[i % deployments.length];
      if (!ref) break;
      const key = keyOf(ref);
      const t0 = performance.now();
      await scale(ref, 20 + i);
      await until(`drift of ${key}`, () => driftVisible(key), 30_000);
      driftMs.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 100 + ((i * 37) % 200)));
    }
    const watchRuns = await database.db.collectionRun.findMany({ where: { trigger: "watch", status: "succeeded" }, select: { startedAt: true, finishedAt: true }, skip: runsBefore });
    const runMs = watchRuns.filter((r) => r.startedAt && r.finishedAt).map((r) => (r.finishedAt as Date).getTime() - (r.startedAt as Date).getTime());
    log(`latency: drift p50 ${round(percentile(driftMs, 0.5))} ms, p95 ${round(percentile(driftMs, 0.95))} ms`);

    // A burst: `batch` Deployments not edited above, scaled at once (ten requests in flight, as a script would).
    const burstRefs = deployments.slice(edits, edits + batch);
    if (burstRefs.length < batch) throw new Error(`--batch ${batch} needs ${edits + batch} Deployments; the set has ${deployments.length}`);
    // --profile <file>: a CPU profile of the burst alone (edits, the runs carrying them, the polling).
    const profiler = opts.profileTo ? await startProfiler() : null;
    await profiler?.resume();
    const burstRunsFrom = new Date();
    const editedAt = new Map<string, number>();
    for (let i = 0; i < burstRefs.length; i += 10) {
      await Promise.all(burstRefs.slice(i, i + 10).map(async (ref) => {
        await scale(ref, 7);
        editedAt.set(keyOf(ref), performance.now());
      }));
    }
    const burstMs: number[] = [];
    const waiting = new Set(editedAt.keys());
    // One page of the drift list per look (as the dashboard reads it), not one request per edit: a hundred requests in a
    // row took seconds on a loaded machine, and an edit seen late only because the poll had not come round to it yet
    // would count that time as latency.
    const openDrift = async (): Promise<Set<string>> => {
      const req = new NextRequest(new URL("/api/environments/bench/drift?limit=500", "http://localhost"), { headers: { cookie } });
      const res = await getDrift(req, { params: Promise.resolve({ env: "bench" }) });
      if (res.status !== 200) throw new Error(`GET drift answered ${res.status}: ${await res.text()}`);
      return new Set(((await res.json()) as { items: Array<{ key: string }> }).items.map((i) => i.key));
    };
    await until(`${batch} burst edits`, async () => {
      const open = await openDrift();
      const seenAt = performance.now();
      for (const key of [...waiting]) {
        if (!open.has(key)) continue;
        burstMs.push(seenAt - (editedAt.get(key) ?? 0));
        waiting.delete(key);
      }
      return waiting.size === 0;
    }, 120_000, 50);
    await profiler?.pause();
    if (profiler && opts.profileTo) await profiler.save(opts.profileTo);
    const burstRuns = await database.db.collectionRun.findMany({ where: { trigger: "watch", status: "succeeded", startedAt: { gte: burstRunsFrom } }, select: { startedAt: true, finishedAt: true } });
    const burstRunMs = burstRuns.filter((r) => r.startedAt && r.finishedAt).map((r) => (r.finishedAt as Date).getTime() - (r.startedAt as Date).getTime());
    const burstRunMax = burstRunMs.length > 0 ? Math.max(...burstRunMs) : 0;
    log(`latency: burst of ${batch}: visible p95 ${round(percentile(burstMs, 0.95))} ms in ${burstRunMs.length} runs, longest ${round(burstRunMax)} ms (${round(burstRunMax / bareListMs, 3)}× the bare list)`);

    const approvedVisible = async (sha: string): Promise<boolean> => {
      const req = new NextRequest(new URL("/api/environments/bench", "http://localhost"), { headers: { cookie } });
      const res = await getEnvironment(req, { params: Promise.resolve({ env: "bench" }) });
      if (res.status !== 200) throw new Error(`GET environment answered ${res.status}: ${await res.text()}`);
      const body = (await res.json()) as { approved: { sha: string } | null };
      return body.approved?.sha === sha;
    };
    const webhookMs: number[] = [];
    for (let i = 0; i < pushes; i++) {
      repo.write("envs/bench/README.md", `Bench push ${i}\n`);
      const sha = repo.commit(`docs: push ${i}`);
      const body = Buffer.from(JSON.stringify({ ref: "refs/heads/main", after: sha, repository: { clone_url: repo.dir, full_name: "bench/bench" } }));
      const signature = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
      const t0 = performance.now();
      const req = new NextRequest(new URL("/api/webhooks/git", "http://localhost"), {
        method: "POST",
        headers: { "content-type": "application/json", "x-driftwatch-signature": signature, "x-driftwatch-delivery": randomUUID(), "x-forwarded-for": "10.0.0.9" },
        body,
      });
      const res = await postWebhook(req);
      if (res.status !== 202) throw new Error(`webhook answered ${res.status}: ${await res.text()}`);
      await until(`approved ${sha.slice(0, 8)}`, () => approvedVisible(sha), 30_000);
      webhookMs.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 100 + ((i * 53) % 200)));
    }
    log(`latency: webhook p50 ${round(percentile(webhookMs, 0.5))} ms, p95 ${round(percentile(webhookMs, 0.95))} ms`);

    const drift = stats(driftMs);
    const webhook = stats(webhookMs);
    const visible = stats(burstMs);
    const runToBareList = round(burstRunMax / bareListMs, 3);
    const collectorRssMiB = collectorProcess?.pid ? processRss(collectorProcess.pid) : null;
    if (collectorRssMiB) log(`latency: the collector process watching ${objects} objects: ${collectorRssMiB.atEnd} MiB resident, peak ${collectorRssMiB.peak} MiB`);
    const burstRunMaxRatio = 0.2;
    return {
      objects,
      drift,
      webhook,
      watchRuns: runMs.length,
      watchRunMedianMs: round(percentile(runMs, 0.5)),
      bareListMs: round(bareListMs),
      burst: { changes: batch, visible, runs: burstRunMs.length, runMedianMs: round(percentile(burstRunMs, 0.5)), runMaxMs: round(burstRunMax), runToBareList },
      collectorRssMiB,
      loadAverage1m: loadAverage(),
      targets: {
        p95Ms: p95TargetMs,
        driftMet: drift.p95Ms <= p95TargetMs,
        webhookMet: webhook.p95Ms <= 2_000,
        burstRunMaxRatio,
        // No run at all would carry no change: that is a failure, not a pass.
        burstRunMet: burstRunMs.length > 0 && runToBareList <= burstRunMaxRatio,
        burstVisibleMet: visible.p95Ms <= p95TargetMs,
      },
    };
  } finally {
    await worker?.stop();
    if (collectorProcess && collectorProcess.exitCode === null) {
      const exited = new Promise((resolve) => collectorProcess?.once("exit", resolve));
      collectorProcess.kill("SIGTERM");
      await exited;
    }
    await cluster.stop();
    repo.cleanup();
    await database.stop();
    for (const [k, v] of [["DRIFTWATCH_CONFIG", saved.config], [SECRET_ENV, saved.secret]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    resetEnvCache();
    resetConfigCache();
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

export async function main(): Promise<LatencyBenchResult> {
  const full = flag("full");
  const r = await runLatencyBench({
    objects: numberArg("objects", full ? 100_000 : 1_000),
    edits: numberArg("edits", 50),
    pushes: numberArg("pushes", 20),
    ...(process.argv.includes("--batch") ? { batch: numberArg("batch", 100) } : {}),
    ...(stringArg("profile") ? { profileTo: stringArg("profile") } : {}),
    collectorProcess: flag("collector-process"),
    ...(stringArg("collector-heap") ? { collectorHeapMiB: numberArg("collector-heap", 768) } : {}),
    log: (m) => console.log(m),
  });
  console.log(JSON.stringify(r));
  return r;
}

runIfMain(import.meta.url, main);
