// Detection latency in watch mode, measured the way a user would see it.
//  1. A `kubectl scale` (PATCH …/scale, as kubectl sends it) on the API
//     imitation → the drift item visible through GET /api/environments/{env}/drift
//     (the route handler, in process, with a signed-in session): 50 edits, one
//     at a time, on an environment of 1,000 objects in watch mode.
//  2. A signed push webhook (POST /api/webhooks/git) for a new commit → that
//     commit visible as the approved revision through GET /api/environments/{env}.
// A collector worker runs in this process with its default settings (1 s job
// poll, 200 ms watch debounce); the API server runs in a process of its own.
//
//   npx tsx bench/latency.ts [--objects 1000] [--edits 50] [--pushes 20]
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
import { startBenchCluster } from "./support/cluster";
import { startBenchDatabase } from "./support/db";
import { benchConfig, benchContext, benchObjects, newRepo, refOf, syncConfig, viewerCookie, writeManifests } from "./support/fixtures";
import { runIfMain, loadAverage, numberArg, percentile, round } from "./support/stats";

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
  loadAverage1m: number;
  targets: { p95Ms: number; driftMet: boolean; webhookMet: boolean };
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

export async function runLatencyBench(opts: { objects?: number; edits?: number; pushes?: number; log?: (m: string) => void } = {}): Promise<LatencyBenchResult> {
  const objects = opts.objects ?? 1_000;
  const edits = opts.edits ?? 50;
  const pushes = opts.pushes ?? 20;
  const log = opts.log ?? (() => {});
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "driftwatch-bench-latency-"));
  const saved = { config: process.env.DRIFTWATCH_CONFIG, secret: process.env[SECRET_ENV] };
  const database = await startBenchDatabase("latency");
  const cluster = await startBenchCluster(dir, { controllers: true });
  const repo = newRepo("bench-latency");
  let worker: ReturnType<typeof startWorker> | null = null;
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
    const cookie = await viewerCookie(database.db);
    const ctx = benchContext(database.db, config, path.join(dir, "mirrors"));
    worker = startWorker(ctx);
    const w = worker;

    await until("the first run", () => database.db.collectionRun.findFirst({ where: { status: "succeeded" } }), 120_000, 100);
    await until("the watch caches", async () => w.watchStatus()[0]?.ready, 60_000, 100);
    log(`latency: watching ${objects} objects; ${edits} edits`);

    const driftVisible = async (key: string): Promise<boolean> => {
      const name = key.split("/").pop() ?? key;
      const req = new NextRequest(new URL(`/api/environments/bench/drift?q=${encodeURIComponent(name)}`, "http://localhost"), { headers: { cookie } });
      const res = await getDrift(req, { params: Promise.resolve({ env: "bench" }) });
      if (res.status !== 200) throw new Error(`GET drift answered ${res.status}: ${await res.text()}`);
      const body = (await res.json()) as { items: Array<{ key: string }> };
      return body.items.some((i) => i.key === key);
    };

    const deployments = set.live.filter((o) => o.kind === "Deployment").map(refOf);
    const driftMs: number[] = [];
    const runsBefore = await database.db.collectionRun.count({ where: { trigger: "watch" } });
    for (let i = 0; i < edits; i++) {
      const ref = deployments[i % deployments.length];
      if (!ref) break;
      const key = `apps/Deployment/${ref.namespace}/${ref.name}`;
      const t0 = performance.now();
      // kubectl scale: merge patch on the scale subresource, no fieldManager (the server names it "kubectl").
      await cluster.client.requestJson("PATCH", `/apis/apps/v1/namespaces/${ref.namespace}/deployments/${ref.name}/scale`, {
        body: { spec: { replicas: 20 + i } },
        contentType: "application/merge-patch+json",
        userAgent: "kubectl/v1.32.4 (linux/amd64) kubernetes/59526cd",
      });
      await until(`drift of ${key}`, () => driftVisible(key), 30_000);
      driftMs.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 100 + ((i * 37) % 200)));
    }
    const watchRuns = await database.db.collectionRun.findMany({ where: { trigger: "watch", status: "succeeded" }, select: { startedAt: true, finishedAt: true }, skip: runsBefore });
    const runMs = watchRuns.filter((r) => r.startedAt && r.finishedAt).map((r) => (r.finishedAt as Date).getTime() - (r.startedAt as Date).getTime());
    log(`latency: drift p50 ${round(percentile(driftMs, 0.5))} ms, p95 ${round(percentile(driftMs, 0.95))} ms`);

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
    return {
      objects,
      drift,
      webhook,
      watchRuns: runMs.length,
      watchRunMedianMs: round(percentile(runMs, 0.5)),
      loadAverage1m: loadAverage(),
      targets: { p95Ms: 2_000, driftMet: drift.p95Ms <= 2_000, webhookMet: webhook.p95Ms <= 2_000 },
    };
  } finally {
    await worker?.stop();
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
  const r = await runLatencyBench({ objects: numberArg("objects", 1_000), edits: numberArg("edits", 50), pushes: numberArg("pushes", 20), log: (m) => console.log(m) });
  console.log(JSON.stringify(r));
  return r;
}

runIfMain(import.meta.url, main);
