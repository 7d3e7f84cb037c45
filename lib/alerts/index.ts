import type { DriftwatchConfig } from "@/lib/config";
import { env } from "@/lib/env";
import type { SyncOptions } from "./sync";

export { evaluateAlerts, ALERT_TYPES } from "./rules";
export type { AlertType, Severity, AlertSnapshot, DesiredAlert, SnapshotEnvironment, SnapshotApplication, SnapshotDrift, SnapshotClaim, SnapshotPause } from "./rules";
export { syncAlerts, refreshAlerts, loadAlertSnapshot, deliverPending, listAlerts } from "./sync";
export type { SyncOptions, SyncResult, AlertDto } from "./sync";
export { runbookFor } from "./runbooks";
export type { Runbook } from "./runbooks";
export { alertPayload, contentHash, signature, postWebhook } from "./deliver";
export type { WebhookTarget, AlertEvent, DeliveryResult } from "./deliver";

/** Webhooks, runbook links and the public URL, from driftwatch.yaml and the environment. */
export function alertOptionsFrom(config: DriftwatchConfig): SyncOptions {
  return { webhooks: config.alerts.webhooks, runbooks: config.alerts.runbooks, publicUrl: env().DRIFTWATCH_PUBLIC_URL };
}
