// Starts the whole single-machine install: the database (embedded unless
// DATABASE_URL is set), the Next.js server (in this process or in several web
// processes, lib/server/web.ts) and, optionally, an in-process collector.
// Stops them in reverse order on SIGINT/SIGTERM.
import { dataDir, env } from "@/lib/env";
import { disconnectPrisma } from "@/lib/db";
import { collectorContext, startWorker } from "@/lib/collector";
import { ensureProductionBuild } from "./build";
import { prepare, type Prepared } from "./prepare";
import type { EmbeddedDatabase } from "@/lib/db/ensure-database";
import { serveNext, serveNextCluster, webProcessCount } from "./web";
import { TrustedProxies } from "./request-front";
import { revealFirstAdminPassword } from "./first-admin";
import { ensureFirstAdmin } from "@/lib/auth";
import { startAuditCheckpoints } from "./audit-checkpoints";

export interface BootOptions {
  dev?: boolean;
  /** Extra work to start once the database is ready (the demo scenario); returns its stopper. */
  afterDatabase?: (prepared: Prepared) => Promise<(() => Promise<void>) | void>;
  /** Run a collector worker in this process (default: DRIFTWATCH_IN_PROCESS_COLLECTOR). */
  inProcessCollector?: boolean;
  /** A build already under way (the demo starts it early); otherwise built here when needed. */
  build?: Promise<void>;
  log?: (msg: string) => void;
  /** The database to start when DATABASE_URL is not set (entry points pass @driftwatch/embedded-postgres). */
  embedded?: EmbeddedDatabase;
}

export interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

export async function bootServer(opts: BootOptions = {}): Promise<RunningServer> {
  const log = opts.log ?? ((m: string) => console.log(m));
  const root = process.cwd();
  // A mistake here would otherwise only show in each web process: refuse to start instead.
  TrustedProxies.parse(env().DRIFTWATCH_TRUSTED_PROXIES);

  const prepared = await prepare({ log, embedded: opts.embedded });
  log(prepared.embedded ? "Embedded Postgres ready" : "Using the database at DATABASE_URL");
  const stoppers: Array<() => Promise<void>> = [disconnectPrisma, prepared.stop];
  try {
    if (opts.afterDatabase) {
      const stop = await opts.afterDatabase(prepared);
      if (stop) stoppers.unshift(stop);
    }
    await ensureFirstAdmin(prepared.db, revealFirstAdminPassword({ terminal: process.stdout.isTTY ? process.stdout : null, dataDir: dataDir(), log }));
    const checkpoints = startAuditCheckpoints(prepared.db, prepared.config);
    stoppers.unshift(() => checkpoints.stop());
    if (opts.inProcessCollector ?? env().DRIFTWATCH_IN_PROCESS_COLLECTOR) {
      const worker = startWorker(collectorContext(prepared.db, prepared.config));
      stoppers.unshift(() => worker.stop());
      log(`Collector ${worker.id} running in this process`);
    }
    if (!opts.dev) {
      if (opts.build) await opts.build;
      else ensureProductionBuild(root, log);
    }
    const { PORT, HOST } = env();
    const web = opts.dev ? await serveNext({ dev: true, root }) : await serveNextCluster({ root, count: webProcessCount(false), databaseUrl: prepared.databaseUrl, log });
    stoppers.unshift(() => web.stop());
    const url = `http://${HOST === "0.0.0.0" ? "localhost" : HOST}:${PORT}`;
    return { url, stop: () => runStoppers(stoppers) };
  } catch (e) {
    await runStoppers(stoppers);
    throw e;
  }
}

async function runStoppers(stoppers: Array<() => Promise<void>>): Promise<void> {
  for (const stop of stoppers) {
    try {
      await stop();
    } catch (e) {
      console.error("while stopping:", e instanceof Error ? e.message : e);
    }
  }
}

/** Wires SIGINT/SIGTERM to a clean stop, once. */
export function stopOnSignals(server: RunningServer, log: (m: string) => void = console.log): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log(`\n${signal}: stopping…`);
    server.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}
