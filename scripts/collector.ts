// npm run collector: a long-running collector worker. Run as many as you like
// against one database; they share the environments through Postgres leases.
import { withCollectorHeap } from "./collector-heap";

async function main(): Promise<void> {
  // Loaded here, not at the top: a process that only starts the collector again under a heap limit loads none of it.
  const [{ embeddedPostgres }, { prepare }, { collectorContext, startWorker }, { disconnectPrisma }] = await Promise.all([
    import("@driftwatch/embedded-postgres"),
    import("@/lib/server/prepare"),
    import("@/lib/collector"),
    import("@/lib/db"),
  ]);
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
}

// Under a bounded heap (collector-heap.ts): started again with one when none is set.
withCollectorHeap(() =>
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  }),
);
