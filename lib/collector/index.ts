export { collectEnvironment, type CollectorContext, type RunOutcome } from "./collect-environment";
export { startWorker, executeRun, finishRun, newWorkerId, type Worker } from "./worker";
export { enqueueRun, leaseNextRun, leaseRunById, scheduleDueRuns, reapExpiredLeases } from "./jobs";
export { syncConfigToDatabase, redactUrl } from "./sync-config";
export { collectorContext } from "./runtime";
export { runOnce, type OnceResult } from "./once";
