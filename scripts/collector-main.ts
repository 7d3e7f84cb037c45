// The collector worker: a long-running process. Run as many as you like
// against one database; they share the environments through Postgres leases.
// Started by `npm run collector` (scripts/collector.mjs), which bundles this
// file and runs it under plain node with the collector's heap limit.
import { embeddedPostgres } from "@driftwatch/embedded-postgres";
import { collectorContext, startWorker } from "@/lib/collector";
import { disconnectPrisma } from "@/lib/db";
import { prepare } from "@/lib/server/prepare";

async function main(): Promise<void> {
  const prepared = await prepare({ embedded: embeddedPostgres });
  const worker = startWorker(collectorContext(prepared.db, prepared.config));
  console.log(`collector ${worker.id} started for ${prepared.config.environments.length} environment(s)`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing the current run, then stopping`);
    await worker.stop();
    await disconnectPrisma();
    await prepared.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
  // Started by scripts/collector.mjs on an IPC channel: if that process is gone (killed alone), stop rather than run on unsupervised.
  if (process.send) process.on("disconnect", () => void stop("launcher gone"));
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
