// What follows every collection run, in one call for the collector: detected
// pauses from the controller status it read, automatic resume of expired
// pauses, then every alert re-evaluated and delivered.
import type { PrismaClient } from "@/lib/db/generated/client";
import type { ControllerStatus } from "@/lib/kube/controller-status";
import { logger } from "@/lib/log";
import { reconcileDetectedPauses, resumeExpiredPauses } from "@/lib/pauses/observed";
import { refreshAlerts, type SyncOptions, type SyncResult } from "./sync";

export interface AfterRunResult {
  detectedPauses: string[];
  endedPauses: string[];
  resumedPauses: string[];
  alerts: SyncResult;
}

/**
 * `controller` is the status the run read (null when the environment has no
 * controller, or it could not be read: then pauses are left as they are).
 * Alerts are synced for every environment, not only this one: expiries and
 * claims spanning environments do not wait for their own environment's run.
 */
export async function afterCollectionRun(
  db: PrismaClient,
  environment: { id: string; name: string },
  controller: ControllerStatus | null,
  now: Date = new Date(),
  opts: SyncOptions = {},
): Promise<AfterRunResult> {
  const pauses = await reconcileDetectedPauses(db, environment, controller, now);
  const auto = await resumeExpiredPauses(db, { now });
  for (const f of auto.failed) logger.warn({ env: environment.name, pauseId: f.id, err: f.message }, "automatic resume of an expired pause failed");
  const alerts = await refreshAlerts(db, null, now, opts);
  return { detectedPauses: pauses.detected, endedPauses: pauses.ended, resumedPauses: auto.resumed, alerts };
}
