// State changes the collector observed, written to the audit log in the same
// transaction as the state itself, so the log never claims what was not stored.
import type { Prisma } from "@/lib/db/generated/client";
import type { AuditAction } from "@/lib/domain/types";
import { appendAuditBatch } from "@/lib/audit";

export interface ObservedEvent {
  action: AuditAction;
  targetId: string;
  key: string | null;
  before?: unknown;
  after?: unknown;
  reason?: string;
}

export async function recordEvents(tx: Prisma.TransactionClient, environment: string, events: ObservedEvent[], at: Date): Promise<void> {
  await appendAuditBatch(
    tx,
    events.map((e) => ({
      at,
      actor: { type: "system", id: null, name: "collector" },
      action: e.action,
      targetType: e.action.startsWith("drift.") ? "drift" : e.action.startsWith("revision.") ? "revision" : "environment",
      targetId: e.targetId,
      environment,
      reason: e.reason ?? (e.key ? e.key : null),
      before: e.before ?? null,
      after: e.after ?? null,
    })),
  );
}
