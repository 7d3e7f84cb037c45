// The fleet: 10 environments × 300 declared applications × 60 objects
// (180,000 objects), each environment on a cluster of its own — nine kubesim
// processes and one real kube-apiserver + etcd (tools/realkube) — all from one
// Git repository into one Postgres, collected by 1, 2 and 4 collector
// processes (`scripts/collector.mjs`, as `npm run collector` starts it) while
// the dashboard (`npm start`, scripts/start.ts) serves 50 signed-in clients.
//
// Why a kubesim process per environment and not a few shared ones: a real
// fleet has an API server per cluster, and kubesim serves every request on
// one event loop, so a shared instance would queue one environment's lists
// behind another's and measure kubesim, not Driftwatch. Nine idle kubesim
// processes cost memory (~150–250 MiB each at 18,000 objects), not CPU.
//
// Per number of collector processes, while they collect back to back (every
// environment due again 1 s after its last run was queued):
//  - runs per minute in a window after a warm-up (at least --window seconds,
//    and until --min-runs runs finished in it, one per environment by
//    default, at most --max-window), with the median run, beside
//    a bare paged list + JSON.parse of one environment's objects (same run);
//  - freshness: a kubectl-style edit (merge patch, fieldManager kubectl-edit)
//    of a ConfigMap Git sets → its drift item in GET /api/environments/{env}/drift
//    over HTTP (what a user's browser would get), p50/p95, beside the median run
//    and the cycle one would expect (environments × median run ÷ processes);
//  - the drift API (the ten environments' drift in turn) and the environments
//    page `/` under 50 clients, beside the same requests with collectors idle;
//  - CPU seconds per object per run of the collectors, Postgres and the API
//    servers (/proc), WAL bytes per object per run, peak RSS per collector.
// Then, collectors stopped: Postgres growth at 1% churn per hour. Each round
// changes 1% of every environment's live objects (half by hand, half as
// controllers do: bench/support/fixtures.ts churn) and collects every
// environment once: one hour's churn. Growth per day = 24 × the growth of a
// round + runs per day at the default 60 s interval × what a run with nothing
// changed adds (its CollectionRun row). Raw snapshots older than
// retention.rawSnapshots (30 days by default) are pruned; that is not applied.
//
//   npx tsx bench/fleet.ts [--scale 1] [--environments 10] [--applications 300] [--objects-per-app 60]
//                          [--workers 1,2,4] [--window 30] [--min-runs <environments>] [--max-window 600]
//                          [--duration 10] [--connections 50]
//                          [--churn-rounds 1] [--no-realkube] [--profile-collectors <dir>]
//
// --scale 0.1 keeps 10 environments and 60 objects per application but
// declares 30 applications per environment (18,000 objects): for development.
// The full run takes about 11 minutes on the 2-core machine (see bench/README.md).
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { createClusterClient, type ClusterClient } from "../lib/kube/client";
import { discover, type Discovery } from "../lib/kube/discovery";
import { readOnlyUser, startRealKube } from "../tools/realkube/cluster";
import { bareListOf, patchAs, startBenchCluster, type BenchCluster } from "./support/cluster";
import { databaseBytes, startBenchDatabase } from "./support/db";
import { benchConfig, benchContext, benchObjects, churn, collectOnce, newRepo, refOf, syncConfig, viewerCookie, writeApplicationManifests, type BenchEnvSpec, type ObjectRef } from "./support/fixtures";
import { flag, loadAverage, median, MiB, numberArg, percentile, round, runIfMain, stringArg } from "./support/stats";
import type { ScaleOutPhase } from "./scale-out";
import { cpuMsOf, load, peakRssOf, startCollector, startWebServer, stopProcesses, warmCollectors, type Autocannon, type LoadResult } from "./support/web";

const TARGETS = { apiP95Ms: 150, pageP95Ms: 300 };
/** The default poll interval (lib/config/schema.ts): what "runs per day" means for storage. */
const DEFAULT_INTERVAL_S = 60;

type Obj = Record<string, unknown>;

interface FleetCluster {
  name: string;
  server: "kubesim" | "kube-apiserver";
  kubeconfig: string;
  /** The collector's context: read-only. */
  readContext: string;
  reader: ClusterClient;
  discovery: Discovery;
  patch: BenchCluster["patch"];
  seed(objects: Obj[]): Promise<void>;
  pids(): number[];
  stop(): Promise<void>;
}

/** Runs per minute in the window, their speed-up against one process, the median run, each collector's peak RSS (MiB). */
export interface FleetPhase extends Pick<ScaleOutPhase, "workers" | "windowSeconds" | "runs" | "runsPerMinute" | "speedup" | "medianRunMs" | "peakRssMiB"> {
  /** Median run of the environment on the real kube-apiserver (null without it). */
  medianRunMsRealKube: number | null;
  /** Runs whose environment last ran in the same process, and the median run of each kind. */
  affinity: { sameProcessShare: number; medianRunMsSameProcess: number | null; medianRunMsOtherProcess: number | null };
  freshness: { samples: number; timeouts: number; p50Ms: number; p95Ms: number; maxMs: number };
  /** Environments × median run ÷ processes + one run: the wait one would expect. */
  expectedCycleMs: number;
  api: LoadResult;
  page: LoadResult;
  /** Per object per run, µs of CPU: collectors (their git children included), Postgres, the API servers. */
  cpuMicrosPerObjectRun: { collectors: number; postgres: number; kubesim: number; kubeApiserver: number | null };
  walBytesPerObjectRun: number;
  failedRuns: number;
  loadAverage1m: number;
}

/** 500 clusters × 100 applications × 60 objects at the default 60 s interval and 1% churn an hour. */
export const TARGET_FLEET = { clusters: 500, applications: 50_000, objectsPerApplication: 60, intervalSeconds: DEFAULT_INTERVAL_S, churnPerHour: 0.01, busiestShare: 0.7 };

export interface FleetProjection {
  /** Which phase's per-object costs: n collector processes (more processes, more runs that change process). */
  fromWorkers: number;
  objectRunsPerSecond: number;
  collectorCores: number;
  /** Collector processes at most 70% busy (one JavaScript thread each). */
  collectorProcesses: number;
  postgresCores: number;
  walMiBPerSecond: number;
  /** One cluster's API server: its share of a core for Driftwatch's lists (from the real kube-apiserver + etcd). */
  apiServerCoresPerCluster: number | null;
}

export interface FleetCheck {
  workers: number;
  /** Runs per minute this machine should manage with n processes at the 1-process costs per object: min(n cores, the machine's 2) over a run's CPU. */
  predictedRunsPerMinute: number;
  measuredRunsPerMinute: number;
}

export interface FleetBenchResult {
  environments: number;
  applicationsPerEnvironment: number;
  objectsPerApplication: number;
  objects: number;
  connections: number;
  realKubeEnvironment: string | null;
  setupSeconds: number;
  cold: { runs: number; medianMs: number; maxMs: number; totalSeconds: number };
  bareList: { kubesimMedianMs: number; kubeApiserverMedianMs: number | null };
  idle: { api: LoadResult; page: LoadResult };
  phases: FleetPhase[];
  storage: {
    rounds: number;
    /** Objects changed per round: 1% of the fleet. */
    changedObjectsPerRound: number;
    /** JSON size of those objects as the API served them after the change, per round. */
    changedBytesPerRound: number;
    growthBytesPerRound: number;
    ratio: number;
    /** Growth over one run of every environment with nothing changed, per run. */
    unchangedRunBytes: number;
    /** Average stored size of a CollectionRun row (never pruned). */
    runRowBytes: number;
    runsPerDay: number;
    perDayBytes: number;
    bytesPerChangedObject: number;
  };
  databaseBytesAtEnd: number;
  /** databaseBytesAtEnd ÷ objects: what an object costs at rest (live and desired rows, blobs, indexes, the runs so far). */
  databaseBytesPerObject: number;
  projection: {
    objects: number;
    perPhase: FleetProjection[];
    /** Postgres growth a day: 24 × an hour's churn + runs a day × a run's row. */
    growthPerDayBytes: number;
    /** Objects at rest (databaseBytesPerObject × objects), before snapshots and runs accumulate. */
    sizeAtStartBytes: number;
    /** At start plus 30 days of growth (raw snapshots are kept 30 days by default; run rows are never pruned). */
    sizeAfter30DaysBytes: number;
    check: FleetCheck[];
  };
  durationSeconds: number;
  loadAverage1m: number;
  targets: { apiP95Ms: number; pageP95Ms: number; apiMet: boolean; pageMet: boolean };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function pool<T>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const work = async () => {
    for (let i = next++; i < items.length; i = next++) await fn(items[i] as T);
  };
  await Promise.all(Array.from({ length: concurrency }, work));
}

async function kubesimCluster(dir: string, name: string): Promise<FleetCluster> {
  await fsp.mkdir(dir, { recursive: true });
  const c = await startBenchCluster(dir, { clusterName: name });
  const readContext = `${name}-readonly`;
  return {
    name,
    server: "kubesim",
    kubeconfig: c.kubeconfigPath,
    readContext,
    reader: createClusterClient({ kubeconfig: c.kubeconfigPath, context: readContext }, { timeoutMs: 120_000 }),
    discovery: c.discovery,
    patch: c.patch,
    seed: (objects) => c.seed(objects, "kustomize-controller"),
    pids: () => [c.pid],
    stop: () => c.stop(),
  };
}

/**
 * The real API server, with what the bench objects need: a service IP range
 * for 3,600 Services (realkube's /24 holds 254), and the collector's read-only
 * user allowed to read Secrets (`view` is not; Driftwatch compares their hashes).
 */
async function realKubeCluster(): Promise<FleetCluster> {
  const kube = await startRealKube({ apiserverArgs: ["--service-cluster-ip-range=10.96.0.0/16"] });
  const admin = createClusterClient({ kubeconfig: kube.kubeconfigPath, context: "realkube" }, { timeoutMs: 120_000 });
  const rbac = "/apis/rbac.authorization.k8s.io/v1";
  await admin.requestJson("POST", `${rbac}/clusterroles`, {
    body: { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "bench-read-secrets" }, rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["get", "list", "watch"] }] },
  });
  await admin.requestJson("POST", `${rbac}/clusterrolebindings`, {
    body: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: "bench-read-secrets" },
      subjects: [{ kind: "User", name: readOnlyUser, apiGroup: "rbac.authorization.k8s.io" }],
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "bench-read-secrets" },
    },
  });
  const discovery = await discover(admin);
  return {
    name: "realkube",
    server: "kube-apiserver",
    kubeconfig: kube.kubeconfigPath,
    readContext: "realkube-ro",
    reader: createClusterClient({ kubeconfig: kube.kubeconfigPath, context: "realkube-ro" }, { timeoutMs: 120_000 }),
    discovery,
    patch: (obj, body, fieldManager, sub) => patchAs(admin, discovery, obj, body, fieldManager, sub),
    async seed(objects) {
      // Created as `kubectl apply` would, 16 at a time; then the status a
      // controller would have written (no kube-controller-manager runs here).
      const namespaces = [...new Set(objects.map((o) => (o.metadata as { namespace: string }).namespace))];
      for (const ns of namespaces) await admin.requestJson("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } } });
      await pool(objects, 16, async (o) => {
        const r = discovery.lookup(String(o.apiVersion), String(o.kind));
        if (!r) throw new Error(`${String(o.kind)} is not served`);
        const { status, ...body } = o;
        const ns = (o.metadata as { namespace: string }).namespace;
        await admin.requestJson("POST", `${r.group ? `/apis/${r.group}` : "/api"}/${r.version}/namespaces/${ns}/${r.resource}`, { body, query: { fieldManager: "kubectl-client-side-apply" } });
        if (status) await patchAs(admin, discovery, refOf(o), { status }, "kube-controller-manager", "status");
      });
    },
    pids: () => kube.pids,
    stop: () => kube.stop(),
  };
}

/** The postmaster of the bench database: the process started with its data folder. */
function postgresPid(dataDir: string): number {
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (args.some((a) => a.includes(dataDir)) && args.some((a) => a.endsWith("postgres"))) {
        const ppid = Number(fs.readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]?.split(" ")[1]);
        const parentArgs = fs.readFileSync(`/proc/${ppid}/cmdline`, "utf8");
        if (!parentArgs.includes(dataDir)) return Number(entry);
      }
    } catch {
      // exited meanwhile
    }
  }
  throw new Error(`no postgres process for ${dataDir}`);
}

/** The install TARGET_FLEET needs, from what one phase measured per object per run; and this machine's runs/min predicted from 1 process's costs. */
export function project(phases: readonly FleetPhase[], storage: FleetBenchResult["storage"], bytesPerObjectAtRest: number, objectsPerEnv: number): FleetBenchResult["projection"] {
  const t = TARGET_FLEET;
  const objects = t.applications * t.objectsPerApplication;
  const perSecond = objects / t.intervalSeconds;
  const perClusterPerSecond = perSecond / t.clusters;
  // A phase in which no run finished inside the window measured no cost per object-run.
  const perPhase = phases.filter((p) => p.runs > 0).map((p) => {
    const collectorCores = (perSecond * p.cpuMicrosPerObjectRun.collectors) / 1e6;
    return {
      fromWorkers: p.workers,
      objectRunsPerSecond: round(perSecond),
      collectorCores: round(collectorCores, 1),
      collectorProcesses: Math.ceil(collectorCores / t.busiestShare),
      postgresCores: round((perSecond * p.cpuMicrosPerObjectRun.postgres) / 1e6, 1),
      walMiBPerSecond: round((perSecond * p.walBytesPerObjectRun) / MiB, 1),
      apiServerCoresPerCluster: p.cpuMicrosPerObjectRun.kubeApiserver === null ? null : round((perClusterPerSecond * p.cpuMicrosPerObjectRun.kubeApiserver) / 1e6, 3),
    };
  });
  const runsPerDay = (t.clusters * 86_400) / t.intervalSeconds;
  const growthPerDayBytes = 24 * objects * t.churnPerHour * storage.bytesPerChangedObject + runsPerDay * Math.max(storage.unchangedRunBytes, storage.runRowBytes);
  const sizeAtStartBytes = objects * bytesPerObjectAtRest;
  const one = phases[0];
  const check = phases.map((p) => {
    // One run's CPU at the 1-process costs: in its collector, and in all (collector, Postgres, the API server) on this 2-core machine.
    const cost = one ? one.cpuMicrosPerObjectRun : p.cpuMicrosPerObjectRun;
    const collectorS = (objectsPerEnv * cost.collectors) / 1e6;
    const allS = (objectsPerEnv * (cost.collectors + cost.postgres + cost.kubesim)) / 1e6;
    const perSecond_ = Math.min(p.workers / Math.max(1e-9, collectorS), 2 / Math.max(1e-9, allS));
    return { workers: p.workers, predictedRunsPerMinute: round(perSecond_ * 60, 1), measuredRunsPerMinute: p.runsPerMinute };
  });
  return { objects, perPhase, growthPerDayBytes: round(growthPerDayBytes), sizeAtStartBytes: round(sizeAtStartBytes), sizeAfter30DaysBytes: round(sizeAtStartBytes + 30 * growthPerDayBytes), check };
}

export async function runFleetBench(
  opts: {
    environments?: number;
    applications?: number;
    objectsPerApplication?: number;
    workers?: number[];
    windowSeconds?: number;
    /** Runs that must finish inside a window before it closes (default: one per environment), and the longest window. */
    minRuns?: number;
    maxWindowSeconds?: number;
    loadSeconds?: number;
    connections?: number;
    churnRounds?: number;
    realKube?: boolean;
    /** --cpu-prof of every collector process into this folder. */
    profileDir?: string;
    log?: (m: string) => void;
  } = {},
): Promise<FleetBenchResult> {
  const started = performance.now();
  const envCount = opts.environments ?? 10;
  const apps = opts.applications ?? 300;
  const perApp = opts.objectsPerApplication ?? 60;
  const objectsPerEnv = apps * perApp;
  const counts = opts.workers ?? [1, 2, 4];
  const windowSeconds = opts.windowSeconds ?? 30;
  const minRuns = opts.minRuns ?? envCount;
  const maxWindowSeconds = Math.max(windowSeconds, opts.maxWindowSeconds ?? 600);
  const loadSeconds = opts.loadSeconds ?? 10;
  const connections = opts.connections ?? 50;
  const rounds = opts.churnRounds ?? 1;
  const useRealKube = opts.realKube ?? true;
  const log = opts.log ?? (() => {});

  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "driftwatch-bench-fleet-"));
  const database = await startBenchDatabase("fleet");
  const repo = newRepo("bench-fleet");
  const clusters: FleetCluster[] = [];
  const children: ChildProcess[] = [];
  let server: Awaited<ReturnType<typeof startWebServer>> | null = null;
  try {
    // The clusters and their objects, all at once (each API server is a process of its own).
    const useReal = (e: number) => useRealKube && e === envCount - 1;
    const sets = Array.from({ length: envCount }, (_, e) => benchObjects(objectsPerEnv, { namespaces: 2, prefix: `e${e}-` }));
    const seeded = await Promise.allSettled(
      sets.map(async (set, e) => {
        const cluster = useReal(e) ? await realKubeCluster() : await kubesimCluster(path.join(dir, `c${e}`), `c${e}`);
        clusters[e] = cluster;
        const t = performance.now();
        await cluster.seed(set.live);
        log(`fleet: e${e} on ${cluster.server}: ${objectsPerEnv} objects seeded in ${round(performance.now() - t)} ms`);
        return cluster;
      }),
    );
    const failed = seeded.find((s) => s.status === "rejected");
    if (failed) throw failed.reason;
    const specs: BenchEnvSpec[] = sets.map((set, e) => {
      writeApplicationManifests(repo, `envs/e${e}`, set.desired, apps);
      const cluster = clusters[e] as FleetCluster;
      return { name: `e${e}`, namespaces: set.namespaces, path: `envs/e${e}`, interval: "1s", applications: apps, cluster: { kubeconfig: cluster.kubeconfig, context: cluster.readContext } };
    });
    const { config, yaml } = benchConfig(repo.dir, "", specs);
    const configFile = path.join(dir, "driftwatch.yaml");
    fs.writeFileSync(configFile, yaml);
    await syncConfig(database.db, config);
    const setupSeconds = round((performance.now() - started) / 1000, 1);

    const startCollectors = (n: number, tag: string): ChildProcess[] =>
      Array.from({ length: n }, (_, i) => {
        const child = startCollector({ databaseUrl: database.url, configFile, dataDir: path.join(dir, `collector-${tag}-${i}`), profileDir: opts.profileDir });
        children.push(child);
        return child;
      });

    // Every environment's cold first run (every application rendered, every
    // object written once), by two collector processes: both cores.
    const coldStart = performance.now();
    const coldProcs = startCollectors(2, "cold");
    const coldDeadline = Date.now() + 1_200_000;
    while ((await database.db.environment.count({ where: { lastGoodRunId: { not: null } } })) < envCount) {
      if (Date.now() > coldDeadline) throw new Error("the cold runs took more than 20 minutes");
      if (coldProcs.some((c) => c.exitCode !== null)) throw new Error("a collector process exited during the cold runs");
      await sleep(500);
    }
    await stopProcesses(coldProcs);
    const coldRuns = await database.db.collectionRun.findMany({ where: { status: "succeeded", startedAt: { not: null } }, select: { startedAt: true, finishedAt: true } });
    const coldMs = coldRuns.map((r) => (r.finishedAt as Date).getTime() - (r.startedAt as Date).getTime());
    const cold = { runs: coldMs.length, medianMs: round(median(coldMs)), maxMs: round(Math.max(...coldMs)), totalSeconds: round((performance.now() - coldStart) / 1000, 1) };
    const ctx = benchContext(database.db, config, path.join(dir, "bench-mirrors"));
    const driftRows = await database.db.$queryRaw<Array<{ name: string; n: bigint }>>`
      SELECT e.name, count(d.*) AS n FROM "Environment" e LEFT JOIN "DriftItem" d ON d."environmentId" = e.id AND d."resolvedAt" IS NULL GROUP BY e.name ORDER BY e.name`;
    log(`fleet: cold runs: median ${cold.medianMs} ms, ${cold.totalSeconds} s for ${envCount}; open drift after them: ${driftRows.map((r) => `${r.name} ${r.n}`).join(", ")}`);

    // The dashboard, and 50 signed-in viewers.
    const cookies: string[] = [];
    for (let i = 0; i < connections; i++) cookies.push(await viewerCookie(database.db));
    const cookie = cookies[0] as string;
    server = await startWebServer({ databaseUrl: database.url, configFile, dataDir: path.join(dir, "web"), cookie, readyPath: "/api/environments/e0/drift" });
    const base = server.base;
    const webPid = server.child.pid ?? 0;
    for (let i = 0; i < 20; i++) {
      await fetch(`${base}/api/environments/e${i % envCount}/drift`, { headers: { cookie } }).then((r) => r.arrayBuffer());
      await fetch(`${base}/`, { headers: { cookie } }).then((r) => r.arrayBuffer());
    }
    const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;
    const driftPaths = specs.map((s) => `/api/environments/${s.name}/drift`);
    const measureApi = async () => ({
      api: await load(autocannon, `${base}${driftPaths[0]}`, cookies, connections, loadSeconds, () => {}, webPid, driftPaths),
      page: await load(autocannon, `${base}/`, cookies, connections, loadSeconds, () => {}, webPid),
    });

    // Same-run baselines, collectors idle: a bare list of one environment's objects, and the same API load.
    const kubesimList: number[] = [];
    const realList: number[] = [];
    for (let i = 0; i < 3; i++) {
      for (const [k, c] of clusters.entries()) {
        if (k !== 0 && c.server === "kubesim") continue;
        const t = performance.now();
        const n = await bareListOf(c.reader, c.discovery, sets[k]?.namespaces ?? []);
        if (n !== objectsPerEnv) throw new Error(`listed ${n} of ${objectsPerEnv} objects on ${c.name}`);
        (c.server === "kubesim" ? kubesimList : realList).push(performance.now() - t);
      }
    }
    const bareList = { kubesimMedianMs: round(median(kubesimList)), kubeApiserverMedianMs: realList.length ? round(median(realList)) : null };
    const idle = await measureApi();
    log(`fleet: bare list of ${objectsPerEnv} objects: kubesim ${bareList.kubesimMedianMs} ms, kube-apiserver ${bareList.kubeApiserverMedianMs ?? "—"} ms`);
    log(`fleet: collectors idle: drift API p95 ${idle.api.p95Ms} ms (${idle.api.requestsPerSecond}/s), page p95 ${idle.page.p95Ms} ms (${idle.page.requestsPerSecond}/s)`);

    const pgPid = postgresPid(database.dir);
    const kubesimPids = clusters.filter((c) => c.server === "kubesim").flatMap((c) => c.pids());
    const realPids = clusters.filter((c) => c.server === "kube-apiserver").flatMap((c) => c.pids());
    const realEnvId = useRealKube ? (await database.db.environment.findUniqueOrThrow({ where: { name: `e${envCount - 1}` } })).id : null;
    const cpuOf = (pids: number[]) => pids.reduce((sum, p) => sum + cpuMsOf(p, { exitedChildren: true }), 0);
    const wal = async () => Number((await database.db.$queryRaw<Array<{ b: bigint }>>`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint AS b`)[0]?.b ?? 0);

    // Freshness edits: ConfigMaps Git sets, never edited before, from the end of each environment's list.
    const fresh = sets.map((s) => s.live.filter((o) => o.kind === "ConfigMap").map(refOf).reverse());
    const visible = async (env: string, ref: ObjectRef): Promise<boolean> => {
      const res = await fetch(`${base}/api/environments/${env}/drift?q=${encodeURIComponent(ref.name)}`, { headers: { cookie } });
      if (res.status !== 200) throw new Error(`GET drift answered ${res.status}`);
      const body = (await res.json()) as { items: Array<{ key: string }> };
      return body.items.some((i) => i.key.endsWith(`/ConfigMap/${ref.namespace}/${ref.name}`));
    };

    const phases: FleetPhase[] = [];
    for (const n of counts) {
      const procs = startCollectors(n, `phase-${n}`);
      await warmCollectors(database.db, n, envCount, { startMs: 600_000, extraMs: 20_000 });

      // Collectors: the process's own CPU and that of its exited children (git); live children are counted by the tree.
      const collectorsCpu = () => procs.reduce((sum, c) => sum + cpuMsOf(c.pid ?? 0, { exitedChildren: true }), 0);
      const before = { collectors: collectorsCpu(), postgres: cpuOf([pgPid]), kubesim: cpuOf(kubesimPids), real: cpuOf(realPids), wal: await wal() };
      const from = new Date();

      // Edits during the first half of the window, one every 1.5 s across the environments, each followed until visible.
      const freshMs: number[] = [];
      let timeouts = 0;
      const pending: Array<Promise<void>> = [];
      const editing = (async () => {
        const editUntil = Date.now() + (windowSeconds * 1_000) / 2;
        for (let k = 0; Date.now() < editUntil; k++) {
          const e = k % envCount;
          const ref = fresh[e]?.pop();
          const cluster = clusters[e];
          if (!ref || !cluster) break;
          const t0 = performance.now();
          await cluster.patch(ref, { data: { LOG_LEVEL: `fresh-${n}-${k}` } }, "kubectl-edit");
          pending.push(
            (async () => {
              const giveUp = Date.now() + 180_000;
              for (;;) {
                if (await visible(`e${e}`, ref)) {
                  freshMs.push(performance.now() - t0);
                  return;
                }
                if (Date.now() > giveUp) {
                  timeouts++;
                  return;
                }
                await sleep(200);
              }
            })(),
          );
          await sleep(1_500);
        }
      })();
      // The window is at least `windowSeconds` and lasts until `minRuns` runs
      // finished in it (at most `maxWindowSeconds`), so a phase whose runs are
      // slower than the window still measures runs instead of reporting none.
      await sleep(windowSeconds * 1_000);
      const finishedInWindow = () => database.db.collectionRun.count({ where: { status: "succeeded", finishedAt: { gte: from } } });
      while ((await finishedInWindow()) < minRuns && Date.now() - from.getTime() < maxWindowSeconds * 1_000) await sleep(500);
      const to = new Date();
      const after = { collectors: collectorsCpu(), postgres: cpuOf([pgPid]), kubesim: cpuOf(kubesimPids), real: cpuOf(realPids), wal: await wal() };
      await editing;
      await Promise.all(pending);

      // The API while the collectors go on.
      const loaded = await measureApi();
      const peaks = procs.map((c) => round(peakRssOf(c.pid ?? 0) / MiB));
      await stopProcesses(procs, 60_000);

      const runs = await database.db.collectionRun.findMany({ where: { finishedAt: { gte: from, lte: to } }, select: { id: true, startedAt: true, finishedAt: true, status: true, environmentId: true } });
      const ok = runs.filter((r) => r.status === "succeeded" && r.startedAt && r.finishedAt);
      const ms = (r: (typeof ok)[number]) => (r.finishedAt as Date).getTime() - (r.startedAt as Date).getTime();
      const seconds = (to.getTime() - from.getTime()) / 1_000;
      const perMinute = (ok.length / seconds) * 60;
      const objectRuns = Math.max(1, ok.length * objectsPerEnv);
      const realRuns = ok.filter((r) => r.environmentId === realEnvId);
      const kubesimRuns = Math.max(1, (ok.length - realRuns.length) * objectsPerEnv);
      const medianRunMs = ok.length ? round(median(ok.map(ms))) : 0;
      // Whether each run's environment had last run in the same process: a
      // process reuses its own render and the rows it wrote only then
      // (lib/collector/run-memo.ts), so the share says how often runs pay for a hop.
      const history = await database.db.collectionRun.findMany({
        where: { status: "succeeded", startedAt: { not: null }, finishedAt: { lte: to } },
        select: { id: true, environmentId: true, leaseOwner: true },
        orderBy: [{ environmentId: "asc" }, { startedAt: "asc" }],
      });
      const sameOwner = new Map<number, boolean>();
      for (let i = 1; i < history.length; i++) {
        const prev = history[i - 1];
        const cur = history[i];
        if (prev && cur && prev.environmentId === cur.environmentId) sameOwner.set(cur.id, prev.leaseOwner === cur.leaseOwner);
      }
      const same = ok.filter((r) => sameOwner.get(r.id) === true);
      const other = ok.filter((r) => sameOwner.get(r.id) === false);
      const affinity = {
        sameProcessShare: round(same.length / Math.max(1, same.length + other.length), 2),
        medianRunMsSameProcess: same.length ? round(median(same.map(ms))) : null,
        medianRunMsOtherProcess: other.length ? round(median(other.map(ms))) : null,
      };
      const phase: FleetPhase = {
        workers: n,
        windowSeconds: round(seconds, 1),
        runs: ok.length,
        runsPerMinute: round(perMinute, 1),
        speedup: phases[0] ? round(perMinute / phases[0].runsPerMinute, 2) : 1,
        medianRunMs,
        medianRunMsRealKube: realRuns.length ? round(median(realRuns.map(ms))) : null,
        affinity,
        freshness: { samples: freshMs.length, timeouts, p50Ms: round(percentile(freshMs, 0.5)), p95Ms: round(percentile(freshMs, 0.95)), maxMs: round(Math.max(0, ...freshMs)) },
        expectedCycleMs: round((envCount * medianRunMs) / n + medianRunMs),
        api: loaded.api,
        page: loaded.page,
        cpuMicrosPerObjectRun: {
          collectors: round(((after.collectors - before.collectors) * 1_000) / objectRuns, 2),
          postgres: round(((after.postgres - before.postgres) * 1_000) / objectRuns, 2),
          kubesim: round(((after.kubesim - before.kubesim) * 1_000) / kubesimRuns, 2),
          kubeApiserver: realRuns.length ? round(((after.real - before.real) * 1_000) / (realRuns.length * objectsPerEnv), 2) : null,
        },
        walBytesPerObjectRun: round((after.wal - before.wal) / objectRuns, 1),
        peakRssMiB: peaks,
        failedRuns: runs.filter((r) => r.status === "failed").length,
        loadAverage1m: loadAverage(),
      };
      phases.push(phase);
      log(
        `fleet: ${n} collector(s): ${phase.runsPerMinute} runs/min (${phase.runs} runs in a ${phase.windowSeconds} s window; median run ${medianRunMs} ms, real kube ${phase.medianRunMsRealKube ?? "—"} ms), ` +
          `same process as the environment's last run ${phase.affinity.sameProcessShare} (median ${phase.affinity.medianRunMsSameProcess ?? "—"} / other ${phase.affinity.medianRunMsOtherProcess ?? "—"} ms), ` +
          `freshness p50 ${phase.freshness.p50Ms} p95 ${phase.freshness.p95Ms} ms (${freshMs.length} edits, ${timeouts} timeouts), ` +
          `drift API p95 ${phase.api.p95Ms} ms, page p95 ${phase.page.p95Ms} ms, CPU µs/object-run ${JSON.stringify(phase.cpuMicrosPerObjectRun)}, WAL ${phase.walBytesPerObjectRun} B/object-run, load ${phase.loadAverage1m}`,
      );
    }

    // Storage at 1% churn per hour: `rounds` hours, each one run of every environment.
    const total = async () => Object.values(await databaseBytes(database.db)).reduce((a, b) => a + b, 0);
    await database.db.$executeRawUnsafe("CHECKPOINT");
    const bytes0 = await total();
    let changedBytes = 0;
    let changedObjects = 0;
    for (let r = 0; r < rounds; r++) {
      for (const [e, c] of clusters.entries()) {
        const changed = await churn(c, sets[e]?.live ?? [], 0.01, 100 + r);
        changedBytes += changed.bytes;
        changedObjects += changed.refs.length;
      }
      await pool(specs, 2, async (s) => void (await collectOnce(ctx, s.name)));
    }
    const bytes1 = await total();
    await pool(specs, 2, async (s) => void (await collectOnce(ctx, s.name)));
    const bytes2 = await total();
    const runRowBytes = Number((await database.db.$queryRaw<Array<{ b: number }>>`SELECT avg(pg_column_size(r.*))::float8 AS b FROM "CollectionRun" r`)[0]?.b ?? 0);
    const growthBytesPerRound = (bytes1 - bytes0) / rounds;
    const unchangedRunBytes = (bytes2 - bytes1) / envCount;
    const runsPerDay = (envCount * 86_400) / DEFAULT_INTERVAL_S;
    const storage = {
      rounds,
      changedObjectsPerRound: round(changedObjects / rounds),
      changedBytesPerRound: round(changedBytes / rounds),
      growthBytesPerRound: round(growthBytesPerRound),
      ratio: round(growthBytesPerRound / Math.max(1, changedBytes / rounds), 2),
      unchangedRunBytes: round(unchangedRunBytes),
      runRowBytes: round(runRowBytes),
      runsPerDay,
      // A run with nothing changed adds at least its row; table growth comes in 8 KiB pages, so take the larger.
      perDayBytes: round(24 * growthBytesPerRound + runsPerDay * Math.max(unchangedRunBytes, runRowBytes)),
      bytesPerChangedObject: round(growthBytesPerRound / Math.max(1, changedObjects / rounds)),
    };
    log(`fleet: storage: +${round(growthBytesPerRound / 1024)} KiB per round of ${storage.changedObjectsPerRound} changed objects (${storage.ratio}× their JSON), unchanged run +${storage.unchangedRunBytes} B (row ${storage.runRowBytes} B); per day ${round(storage.perDayBytes / MiB)} MiB`);

    const atEnd = await total();
    const projection = project(phases, storage, atEnd / (envCount * objectsPerEnv), objectsPerEnv);
    log(`fleet: projection for ${TARGET_FLEET.clusters} clusters: ${JSON.stringify(projection)}`);
    const worst = phases.reduce((w, p) => ({ api: Math.max(w.api, p.api.p95Ms), page: Math.max(w.page, p.page.p95Ms), non2xx: w.non2xx + p.api.non2xx + p.page.non2xx }), { api: 0, page: 0, non2xx: 0 });
    return {
      environments: envCount,
      applicationsPerEnvironment: apps,
      objectsPerApplication: perApp,
      objects: envCount * objectsPerEnv,
      connections,
      realKubeEnvironment: useRealKube ? `e${envCount - 1}` : null,
      setupSeconds,
      cold,
      bareList,
      idle,
      phases,
      storage,
      databaseBytesAtEnd: atEnd,
      databaseBytesPerObject: round(atEnd / (envCount * objectsPerEnv)),
      projection,
      durationSeconds: round((performance.now() - started) / 1000),
      loadAverage1m: loadAverage(),
      targets: { ...TARGETS, apiMet: worst.api <= TARGETS.apiP95Ms && worst.non2xx === 0, pageMet: worst.page <= TARGETS.pageP95Ms && worst.non2xx === 0 },
    };
  } finally {
    await stopProcesses(children);
    await server?.stop();
    await Promise.all(clusters.map((c) => c?.stop()));
    repo.cleanup();
    await database.stop();
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

export async function main(): Promise<FleetBenchResult> {
  const scale = Number(stringArg("scale") ?? "1");
  const workers = stringArg("workers")
    ?.split(",")
    .map(Number)
    .filter((n) => n > 0);
  const r = await runFleetBench({
    environments: numberArg("environments", 10),
    applications: numberArg("applications", Math.max(1, Math.round(300 * (Number.isFinite(scale) && scale > 0 ? scale : 1)))),
    objectsPerApplication: numberArg("objects-per-app", 60),
    workers,
    windowSeconds: numberArg("window", 30),
    minRuns: numberArg("min-runs", numberArg("environments", 10)),
    maxWindowSeconds: numberArg("max-window", 600),
    loadSeconds: numberArg("duration", 10),
    connections: numberArg("connections", 50),
    churnRounds: numberArg("churn-rounds", 1),
    realKube: !flag("no-realkube"),
    profileDir: stringArg("profile-collectors"),
    log: (m) => console.log(m),
  });
  console.log(JSON.stringify(r));
  return r;
}

runIfMain(import.meta.url, main);
