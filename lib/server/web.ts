// The HTTP side of Driftwatch: the Next.js request handler on PORT/HOST.
// `npm start` serves from web processes (Node.js cluster, scripts/web-worker.mjs)
// while this process keeps everything else (the database, the in-process
// collector): one Node.js process renders pages on one core, so with one per
// core none sits idle under load. They share nothing in memory: sessions and
// the job queue live in Postgres, and each process's caches follow Postgres's
// change notifications. `npm run dev` serves from this process.
import cluster, { type Worker } from "node:cluster";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import next from "next";
import { env, inheritedEnvironment } from "@/lib/env";
import { requestFrontFromEnv } from "./request-front";
import { refuseUnservedMethod } from "./refuse-unserved-method.mjs";

export interface WebServer {
  stop(): Promise<void>;
}

/**
 * How many web processes to run: DRIFTWATCH_WEB_PROCESSES; 1 in development.
 * "auto" leaves one CPU to the rest (this process's collector, the embedded
 * Postgres): one per CPU but one, at least 1 and at most 4. On 2 cores a
 * second web process only competes with Postgres for the same CPU: the drift
 * API's p95 under 50 clients went from 123 ms to 147 ms with it (bench/api).
 */
export function webProcessCount(dev: boolean): number {
  if (dev) return 1;
  const configured = env().DRIFTWATCH_WEB_PROCESSES;
  return configured === "auto" ? autoWebProcesses(os.availableParallelism()) : configured;
}

export function autoWebProcesses(cpus: number): number {
  return Math.max(1, Math.min(4, cpus - 1));
}

/** Next.js on PORT/HOST in this process (development). */
export async function serveNext(opts: { dev: boolean; root: string }): Promise<WebServer> {
  const { PORT, HOST } = env();
  const app = next({ dev: opts.dev, dir: opts.root, hostname: HOST, port: PORT });
  await app.prepare();
  const handle = app.getRequestHandler();
  const front = requestFrontFromEnv();
  // Node's 16 KiB would refuse (431) a drift query the API documents as valid: three name lists of 1,000
  // characters, percent-encoded, exceed it on their own. 64 KiB covers every documented query.
  const server = http.createServer({ maxHeaderSize: 64 * 1024 }, (req, res) => {
    if (refuseUnservedMethod(req, res)) return;
    front(req, res);
    void handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(PORT, HOST, resolve);
  });
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * This process's Node.js flags (heap size, --cpu-prof…) for the web
 * processes, without the TypeScript loader (tsx): they run the compiled build.
 */
export function nodeFlagsWithoutLoader(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const flag = execArgv[i] as string;
    const [name, inline] = flag.split(/=(.*)/s, 2) as [string, string | undefined];
    if (name === "--require" || name === "-r" || name === "--import" || name === "--loader" || name === "--experimental-loader") {
      const value = inline ?? execArgv[++i] ?? "";
      if (!/(^|[/\\])tsx([/\\]|$)/.test(value)) out.push(name, value);
      continue;
    }
    out.push(flag);
  }
  return out;
}

const WORKER_SCRIPT = path.join(import.meta.dirname, "..", "..", "scripts", "web-worker.mjs");

/**
 * `count` web processes (scripts/web-worker.ts) sharing PORT, each told the
 * database this process uses (the embedded one's URL exists only here); resolves once
 * all of them listen. A process that dies is replaced, unless they keep dying
 * (then the last error is logged and the rest carry on).
 */
export async function serveNextCluster(opts: { root: string; count: number; databaseUrl: string; log: (m: string) => void }): Promise<WebServer> {
  cluster.setupPrimary({ exec: WORKER_SCRIPT, execArgv: nodeFlagsWithoutLoader(process.execArgv), silent: false });
  const { PORT, HOST } = env();
  let stopping = false;
  let restarts = 0;
  const workers = new Set<Worker>();

  const fork = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const w = cluster.fork({ ...inheritedEnvironment(), DATABASE_URL: opts.databaseUrl, PORT: String(PORT), HOST, NODE_ENV: "production" });
      workers.add(w);
      const onEarlyExit = (code: number | null) => reject(new Error(`a web process exited with code ${code} while starting`));
      w.once("listening", () => {
        w.off("exit", onEarlyExit);
        resolve();
      });
      w.once("exit", onEarlyExit);
      w.on("exit", (code, signal) => {
        workers.delete(w);
        if (stopping) return;
        if (restarts >= 10) {
          opts.log(`A web process exited (${signal ?? code}); not replacing it after ${restarts} restarts.`);
          return;
        }
        restarts++;
        opts.log(`A web process exited (${signal ?? code}); starting another.`);
        fork().catch((e: unknown) => opts.log(e instanceof Error ? e.message : String(e)));
      });
    });

  const stop = async () => {
    stopping = true;
    await Promise.all(
      [...workers].map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.isDead()) return resolve();
            const timer = setTimeout(() => w.process.kill("SIGKILL"), 10_000);
            w.once("exit", () => {
              clearTimeout(timer);
              resolve();
            });
            w.process.kill("SIGTERM");
          }),
      ),
    );
  };
  try {
    await Promise.all(Array.from({ length: opts.count }, fork));
    opts.log(`${opts.count} web process${opts.count === 1 ? "" : "es"} serving (DRIFTWATCH_WEB_PROCESSES)`);
  } catch (e) {
    await stop();
    throw e;
  }
  return { stop };
}
