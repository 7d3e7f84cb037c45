// The audit log is a hash chain: each event stores the SHA-256 of the previous
// event's hash and its own canonical content. Appenders take a
// transaction-scoped advisory lock, so writers in any number of processes
// line up and the chain never forks.
import { createHash } from "node:crypto";
import { Prisma, type PrismaClient } from "@/lib/db/generated/client";
import type { AuditAction } from "@/lib/domain/types";
import { canonicalJson, storable } from "./canonical";

type Tx = Prisma.TransactionClient;
type Db = PrismaClient | Tx;

export const GENESIS_HASH = "0".repeat(64);
/** Arbitrary constant naming the audit chain's advisory lock ("DWAU"). */
const AUDIT_LOCK_KEY = 0x44574155;

export type Actor =
  | { type: "user"; id: string; name: string }
  | { type: "system"; name?: string; id?: null }
  /** Someone not signed in (a failed sign-in, a rejected webhook). */
  | { type: "anonymous"; name: string };

export const SYSTEM: Actor = { type: "system" };

export interface AuditInput {
  actor: Actor;
  action: AuditAction;
  targetType: string;
  targetId: string;
  environment?: string | null;
  reason?: string | null;
  before?: unknown;
  after?: unknown;
  at?: Date;
}

/** The fields the hash covers, exactly as stored. */
export interface AuditContent {
  at: Date;
  actorType: string;
  actorId: string | null;
  actorName: string;
  action: string;
  targetType: string;
  targetId: string;
  environment: string | null;
  reason: string | null;
  before: unknown;
  after: unknown;
}

export function hashEvent(prevHash: string, content: AuditContent): string {
  const canonical = canonicalJson({
    at: content.at.toISOString(),
    actorType: content.actorType,
    actorId: content.actorId,
    actorName: content.actorName,
    action: content.action,
    targetType: content.targetType,
    targetId: content.targetId,
    environment: content.environment,
    reason: content.reason,
    before: content.before ?? null,
    after: content.after ?? null,
  });
  return createHash("sha256").update(prevHash).update(canonical).digest("hex");
}

function toContent(input: AuditInput): AuditContent {
  const actor = input.actor;
  // Timestamps are stored to the millisecond; hashing anything finer would never verify.
  const at = new Date(Math.trunc((input.at ?? new Date()).getTime()));
  // A JSON round trip drops undefined and turns Dates into strings, as jsonb will.
  const json = (v: unknown): unknown => (v === undefined || v === null ? null : storable(JSON.parse(JSON.stringify(v)) as unknown));
  return {
    at,
    actorType: actor.type,
    actorId: actor.type === "user" ? actor.id : null,
    actorName: storable(actor.type === "system" ? (actor.name ?? "system") : actor.name).slice(0, 200),
    action: input.action,
    targetType: storable(input.targetType).slice(0, 200),
    targetId: storable(input.targetId).slice(0, 500),
    environment: input.environment ? storable(input.environment) : null,
    reason: input.reason ? storable(input.reason).slice(0, 4000) : null,
    before: json(input.before),
    after: json(input.after),
  };
}

const jsonInput = (v: unknown) => (v === null || v === undefined ? Prisma.DbNull : (v as Prisma.InputJsonValue));

async function appendInTx(tx: Tx, input: AuditInput): Promise<{ id: bigint; hash: string }> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${AUDIT_LOCK_KEY}::bigint)`;
  const last = await tx.auditEvent.findFirst({ orderBy: { id: "desc" }, select: { hash: true } });
  const prevHash = last?.hash ?? GENESIS_HASH;
  const content = toContent(input);
  const hash = hashEvent(prevHash, content);
  const row = await tx.auditEvent.create({
    data: { ...content, before: jsonInput(content.before), after: jsonInput(content.after), prevHash, hash },
    select: { id: true },
  });
  return { id: row.id, hash };
}

/**
 * Appends one event. Pass the transaction that makes the change being
 * audited, so the change and its record commit (or roll back) together; a
 * plain client gets a transaction of its own.
 */
export async function appendAudit(db: Db, input: AuditInput): Promise<{ id: bigint; hash: string }> {
  if ("$transaction" in db) return db.$transaction((tx) => appendInTx(tx, input));
  return appendInTx(db, input);
}

export interface ChainVerification {
  ok: boolean;
  checked: number;
  firstBroken?: { id: string; reason: string };
}

/** Recomputes the whole chain in id order and names the first event that does not hold. */
export async function verifyAuditChain(db: Db, batchSize = 2000): Promise<ChainVerification> {
  let expectedPrev = GENESIS_HASH;
  let checked = 0;
  let cursor: bigint | null = null;
  for (;;) {
    const rows: Awaited<ReturnType<typeof db.auditEvent.findMany>> = await db.auditEvent.findMany({
      where: cursor === null ? {} : { id: { gt: cursor } },
      orderBy: { id: "asc" },
      take: batchSize,
    });
    for (const row of rows) {
      if (row.prevHash !== expectedPrev) {
        return {
          ok: false,
          checked,
          firstBroken: {
            id: row.id.toString(),
            reason: checked === 0 && expectedPrev === GENESIS_HASH
              ? "the first event does not start the chain: earlier events are missing"
              : "its previous-hash does not match the event before it: an event was removed or altered",
          },
        };
      }
      const recomputed = hashEvent(row.prevHash, {
        at: row.at,
        actorType: row.actorType,
        actorId: row.actorId,
        actorName: row.actorName,
        action: row.action,
        targetType: row.targetType,
        targetId: row.targetId,
        environment: row.environment,
        reason: row.reason,
        before: row.before,
        after: row.after,
      });
      if (recomputed !== row.hash) {
        return { ok: false, checked, firstBroken: { id: row.id.toString(), reason: "its content does not match its hash: the event was edited" } };
      }
      expectedPrev = row.hash;
      checked++;
    }
    if (rows.length < batchSize) break;
    cursor = rows[rows.length - 1]?.id ?? null;
  }
  return { ok: true, checked };
}
