// Wakes a worker as soon as a run is queued anywhere (a webhook in the web
// tier, "refresh now", another worker's watch), through Postgres
// LISTEN/NOTIFY: enqueueRun notifies in the same transaction, so the signal
// arrives when the run can be leased. Polling continues underneath; a lost
// connection only means waiting for the next poll until it is back.
import { listen } from "@/lib/db/listen";
import type { Logger } from "@/lib/log";

export const RUNS_CHANNEL = "driftwatch_runs";

export interface QueueListener {
  stop(): Promise<void>;
}

export function listenForRuns(databaseUrl: string, onRun: () => void, log: Logger): QueueListener {
  return listen({
    databaseUrl,
    channels: [RUNS_CHANNEL],
    applicationName: "driftwatch-run-queue",
    log,
    lostMessage: "run queue notifications lost; polling meanwhile",
    onNotification: () => onRun(),
  });
}
