// Wires the audit checkpoint schedule for an entry point: the file in the data
// folder, the cadence from DRIFTWATCH_AUDIT_CHECKPOINT_SECONDS, the log, and —
// when `alerts.auditCheckpoints` is set — a copy of each new checkpoint, and
// of every mismatch, to the alert webhooks.
import fsp from "node:fs/promises";
import path from "node:path";
import type { DriftwatchConfig } from "@/lib/config";
import type { PrismaClient } from "@/lib/db/generated/client";
import { dataDir, env } from "@/lib/env";
import { logger } from "@/lib/log";
import { postWebhook } from "@/lib/alerts/deliver";
import { CHECKPOINT_FILE, scheduleAuditCheckpoints, type CheckpointOutcome, type CheckpointSchedule } from "@/lib/audit";

export function startAuditCheckpoints(db: PrismaClient, config: DriftwatchConfig): CheckpointSchedule {
  const file = path.join(dataDir(), CHECKPOINT_FILE);
  const webhooks = config.alerts.auditCheckpoints ? config.alerts.webhooks : [];
  return scheduleAuditCheckpoints({
    db,
    file,
    intervalMs: env().DRIFTWATCH_AUDIT_CHECKPOINT_SECONDS * 1000,
    onError: (e) => logger.warn({ err: e }, "audit checkpoint: could not read the chain's head"),
    onOutcome: async (outcome) => {
      if (outcome.status === "mismatch" || outcome.status === "invalid") {
        logger.error({ file, reason: outcome.reason }, "audit checkpoint: the audit log no longer matches its checkpoint; the checkpoint is kept as evidence");
      }
      if (webhooks.length === 0 || !worthSending(outcome)) return;
      const payload = await webhookPayload(file, outcome);
      const results = await Promise.all(webhooks.map((w) => postWebhook(w, payload, "audit.checkpoint")));
      for (const r of results) if (!r.ok) logger.warn({ webhook: r.webhook, error: r.error }, "audit checkpoint: webhook delivery failed");
    },
  });
}

function worthSending(outcome: CheckpointOutcome): boolean {
  return outcome.status === "written" || outcome.status === "mismatch" || outcome.status === "invalid";
}

async function webhookPayload(file: string, outcome: CheckpointOutcome): Promise<unknown> {
  if (outcome.status === "written") {
    // The signed file as written, so a receiver can keep and later compare it.
    const signed = JSON.parse(await fsp.readFile(file, "utf8")) as unknown;
    const text = `Audit checkpoint: event ${outcome.head.id}, hash ${outcome.head.hash.slice(0, 16)}…`;
    return { text, driftwatch: { event: "audit.checkpoint", checkpoint: signed } };
  }
  const reason = "reason" in outcome ? outcome.reason : "";
  return { text: `:red_circle: The audit log no longer matches its checkpoint: ${reason}`, driftwatch: { event: "audit.checkpoint", mismatch: reason } };
}
