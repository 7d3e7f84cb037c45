// Wakes a worker as soon as a run is queued anywhere (a webhook in the web
// tier, "refresh now", another worker's watch), through Postgres
// LISTEN/NOTIFY: enqueueRun notifies in the same transaction, so the signal
// arrives when the run can be leased. Polling continues underneath; a lost
// connection only means waiting for the next poll until it is back.
import pg from "pg";
import type { Logger } from "@/lib/log";

export const RUNS_CHANNEL = "driftwatch_runs";

export interface QueueListener {
  stop(): Promise<void>;
}

export function listenForRuns(databaseUrl: string, onRun: () => void, log: Logger): QueueListener {
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;

  const connect = () => {
    if (stopped) return;
    const c = new pg.Client({ connectionString: databaseUrl, application_name: "driftwatch-run-queue" });
    const lost = (e: unknown) => {
      // Only the current connection counts, and only once ('error' is followed by 'end').
      if (client !== c) return;
      client = null;
      void c.end().catch(() => undefined);
      if (stopped) return;
      failures++;
      const delay = Math.min(30_000, 500 * 2 ** Math.min(failures, 6));
      log.warn({ err: e instanceof Error ? e.message : String(e), retryInMs: delay }, "run queue notifications lost; polling meanwhile");
      retry = setTimeout(connect, delay);
      retry.unref();
    };
    c.on("error", lost);
    c.on("end", () => lost(new Error("connection closed")));
    c.on("notification", (n) => {
      if (n.channel === RUNS_CHANNEL) onRun();
    });
    client = c;
    c.connect()
      .then(() => c.query(`LISTEN ${RUNS_CHANNEL}`))
      .then(() => {
        failures = 0;
        if (stopped) void c.end().catch(() => undefined);
      })
      .catch(lost);
  };
  connect();

  return {
    async stop() {
      stopped = true;
      clearTimeout(retry);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
