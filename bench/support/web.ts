// The dashboard's production server (`npm start`, scripts/start.ts) and
// collector processes (`npm run collector`, scripts/collector.mjs) for
// benchmarks, autocannon load on the server, and what processes cost (CPU and
// memory from /proc): shared by bench/api.ts, bench/scale-out.ts and bench/fleet.ts.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type { PrismaClient } from "../../lib/db/generated/client";
import { percentile, round } from "./stats";
import { COLLECTOR_HEAP_MIB } from "../../scripts/collector-bundle.mjs";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

export interface LoadResult {
  path: string;
  requests: number;
  errors: number;
  non2xx: number;
  requestsPerSecond: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  /** CPU the server's processes spent per request (see cpuMsOf). */
  serverCpuMsPerRequest: number;
}

/** The part of autocannon's interface used here (it ships no types). */
export interface AutocannonInstance {
  on(event: "response", cb: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): void;
  on(event: "done", cb: (result: { requests: { total: number }; errors: number; non2xx: number; duration: number }) => void): void;
  on(event: "error", cb: (e: Error) => void): void;
}
export interface AutocannonRequest {
  headers?: Record<string, string>;
  [key: string]: unknown;
}
export type Autocannon = (opts: {
  url: string;
  connections: number;
  duration: number;
  timeout?: number;
  requests: Array<{ setupRequest: (req: AutocannonRequest) => AutocannonRequest }>;
}) => AutocannonInstance;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export async function waitForServer(url: string, cookie: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      const res = await fetch(url, { headers: { cookie } });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the server did not answer ${url} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A process and all its descendants (the start script, its web processes), with their resident memory. */
export function processTree(pid: number): Array<[number, number, number]> {
  const rows = spawnSync("ps", ["-e", "-o", "pid=,ppid=,rss="], { encoding: "utf8" })
    .stdout.split("\n")
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter((r): r is [number, number, number] => r.length === 3 && r.every((n) => Number.isFinite(n)));
  const tree = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [p, parent] of rows) {
      if (!tree.has(p) && tree.has(parent)) {
        tree.add(p);
        grew = true;
      }
    }
  }
  return rows.filter(([p]) => tree.has(p));
}

/**
 * CPU time (user + system, ms) the server's processes have used so far. Per
 * request, it says what the server costs independently of what else the
 * machine runs: latency under load is mostly queueing for a free core.
 */
export function cpuMsOf(pid: number, opts: { exitedChildren?: boolean } = {}): number {
  let ticks = 0;
  for (const [p] of processTree(pid)) {
    try {
      // Fields after the command name: state is 3rd, utime 14th, stime 15th.
      const stat = fs.readFileSync(`/proc/${p}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
      // cutime and cstime: children that have exited and been waited for (a
      // collector's git and helm processes; a Postgres server's ended backends).
      if (opts.exitedChildren) ticks += Number(fields[13]) + Number(fields[14]);
    } catch {
      // exited meanwhile
    }
  }
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

/** Resident memory of a process and all its descendants. */
export function rssOf(pid: number): number {
  try {
    return processTree(pid).reduce((sum, [, , rss]) => sum + rss * 1024, 0);
  } catch {
    return 0;
  }
}


/**
 * `connections` clients on `url` for `duration` seconds. Requests take the
 * session cookies in turn: 50 clients are 50 people signed in, not one
 * person with 50 tabs (an empty list: signed-out requests).
 */
export async function load(
  autocannon: Autocannon,
  url: string,
  cookies: readonly string[],
  connections: number,
  duration: number,
  onSample: () => void,
  serverPid: number,
  /** Paths taken in turn instead of the URL's own (several environments' drift, say). */
  paths: readonly string[] = [],
): Promise<LoadResult> {
  const times: number[] = [];
  const cpuBefore = cpuMsOf(serverPid);
  const sampler = setInterval(onSample, 500);
  let turn = 0;
  const setupRequest = (req: AutocannonRequest): AutocannonRequest => {
    const n = turn++;
    const withPath = paths.length === 0 ? req : { ...req, path: paths[n % paths.length] as string };
    return cookies.length === 0 ? withPath : { ...withPath, headers: { ...req.headers, cookie: cookies[n % cookies.length] as string } };
  };
  try {
    const result = await new Promise<{ requests: { total: number }; errors: number; non2xx: number; duration: number }>((resolve, reject) => {
      const inst = autocannon({ url, connections, duration, timeout: 30, requests: [{ setupRequest }] });
      inst.on("response", (_client, _status, _bytes, responseTime) => times.push(responseTime));
      inst.on("done", resolve);
      inst.on("error", reject);
    });
    return {
      path: new URL(url).pathname,
      requests: result.requests.total,
      errors: result.errors,
      non2xx: result.non2xx,
      requestsPerSecond: round(result.requests.total / result.duration, 1),
      p50Ms: round(percentile(times, 0.5), 1),
      p95Ms: round(percentile(times, 0.95), 1),
      p99Ms: round(percentile(times, 0.99), 1),
      serverCpuMsPerRequest: round((cpuMsOf(serverPid) - cpuBefore) / Math.max(1, result.requests.total), 2),
    };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * `npm start` (scripts/start.ts) on the existing build against `databaseUrl`,
 * without an in-process collector, on a free loopback port; resolves once
 * `readyPath` answers 200 to the signed-in `cookie`.
 */
export async function startWebServer(opts: {
  databaseUrl: string;
  configFile: string;
  dataDir: string;
  cookie: string;
  readyPath: string;
  webProcesses?: string;
  /** --cpu-prof into this folder (each web process too). */
  profileDir?: string;
}): Promise<{ base: string; child: ChildProcess; stop(): Promise<void> }> {
  const port = await freePort();
  const profile = opts.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${opts.profileDir}`] : [];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", path.join(ROOT, "scripts/start.ts")], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env,
      NODE_ENV: "production",
      DATABASE_URL: opts.databaseUrl,
      DRIFTWATCH_CONFIG: opts.configFile,
      DRIFTWATCH_DATA_DIR: opts.dataDir,
      DRIFTWATCH_SECRET: "bench-secret-0123456789abcdef0123456789abcdef",
      DRIFTWATCH_IN_PROCESS_COLLECTOR: "false",
      DRIFTWATCH_WEB_PROCESSES: opts.webProcesses ?? "auto",
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      NEXT_TELEMETRY_DISABLED: "1",
    },
  });
  const base = `http://127.0.0.1:${port}`;
  const stop = () => stopProcesses([child], 5_000);
  try {
    await waitForServer(`${base}${opts.readyPath}`, opts.cookie, child, 120_000);
  } catch (e) {
    await stop();
    throw e;
  }
  return { base, child, stop };
}

/** Peak resident memory (VmHWM) of one process, bytes; 0 once it has gone. */
export function peakRssOf(pid: number): number {
  try {
    return Number(/^VmHWM:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** SIGTERM, then SIGKILL after `graceMs`: a collector finishes its current run before it exits. */
export async function stopProcesses(children: readonly ChildProcess[], graceMs = 30_000): Promise<void> {
  await Promise.all(
    children.map(async (c) => {
      if (c.exitCode !== null || c.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => c.once("exit", () => resolve()));
      c.kill("SIGTERM");
      const timer = setTimeout(() => c.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    }),
  );
}

/** One collector process, as `npm run collector` starts it (scripts/collector.mjs), on the bench's database and config. */
export function startCollector(opts: { databaseUrl: string; configFile: string; dataDir: string; profileDir?: string; heapMiB?: number }): ChildProcess {
  const profile = opts.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${opts.profileDir}`] : [];
  // Its heap limit given here (the default unless told), so the launcher runs the bundle in its own process (not in one it starts): its pid is the one measured and stopped.
  return spawn(process.execPath, [...profile, `--max-old-space-size=${opts.heapMiB ?? COLLECTOR_HEAP_MIB}`, path.join(ROOT, "scripts/collector.mjs")], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env,
      DATABASE_URL: opts.databaseUrl,
      DRIFTWATCH_CONFIG: opts.configFile,
      DRIFTWATCH_DATA_DIR: opts.dataDir,
      DRIFTWATCH_SECRET: "bench-secret-0123456789abcdef0123456789abcdef",
      LOG_LEVEL: "warn",
    },
  });
}

/**
 * Warm-up of freshly started collector processes: every one has finished a
 * run (within `startMs`), then about one run per environment per process for
 * at most `extraMs` more, since a process's first run of an environment
 * renders its manifests afresh and reads its rows from Postgres.
 */
export async function warmCollectors(db: PrismaClient, processes: number, environments: number, opts: { startMs: number; extraMs: number }): Promise<void> {
  const since = new Date();
  const deadline = Date.now() + opts.startMs;
  const sleep = () => new Promise((r) => setTimeout(r, 250));
  for (;;) {
    const owners = await db.collectionRun.findMany({ where: { finishedAt: { gte: since }, status: "succeeded" }, distinct: ["leaseOwner"], select: { leaseOwner: true } });
    if (owners.length >= processes) break;
    if (Date.now() > deadline) throw new Error(`only ${owners.length} of ${processes} collector processes finished a run within ${opts.startMs / 1000} s`);
    await sleep();
  }
  const until = Date.now() + opts.extraMs;
  while (Date.now() < until && (await db.collectionRun.count({ where: { finishedAt: { gte: since }, status: "succeeded" } })) < environments * processes) await sleep();
}
