// The audit log is a hash chain: each event stores the SHA-256 of the previous
// event's hash and its own canonical content. Appenders take a
// transaction-scoped advisory lock, so writers in any number of processes
// line up and the chain never forks.
import { createHash } from "node:crypto";
import type { Prisma, PrismaClient } from "@/lib/db/generated/client";
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

/** Rows per INSERT: 13 parameters a row stays far below Postgres's 65,535. */
const INSERT_CHUNK = 1000;

const jsonText = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));

/**
 * Appends events in order under one lock: one read of the chain head and one
 * multi-row INSERT per chunk, each row's prevHash the hash of the row before.
 * Ids follow the order of the rows (the INSERT sorts by position), and no
 * other appender can take ids in between while the lock is held.
 */
async function appendManyInTx(tx: Tx, inputs: readonly AuditInput[]): Promise<Array<{ id: bigint; hash: string }>> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${AUDIT_LOCK_KEY}::bigint)`;
  // A statement of its own, after the lock: its snapshot sees the last appender's commit.
  const last = await tx.$queryRaw<Array<{ hash: string }>>`SELECT hash FROM "AuditEvent" ORDER BY id DESC LIMIT 1`;
  let prevHash = last[0]?.hash ?? GENESIS_HASH;
  const out: Array<{ id: bigint; hash: string }> = [];
  for (let i = 0; i < inputs.length; i += INSERT_CHUNK) {
    const rows = inputs.slice(i, i + INSERT_CHUNK).map((input) => {
      const content = toContent(input);
      const hash = hashEvent(prevHash, content);
      const row = { content, prevHash, hash };
      prevHash = hash;
      return row;
    });
    const col = <T>(f: (r: (typeof rows)[number]) => T): T[] => rows.map(f);
    const inserted = await tx.$queryRaw<Array<{ id: bigint; hash: string }>>`
      INSERT INTO "AuditEvent" (at, "actorType", "actorId", "actorName", action, "targetType", "targetId", environment, reason, before, after, "prevHash", hash)
      SELECT at, "actorType", "actorId", "actorName", action, "targetType", "targetId", environment, reason, before::jsonb, after::jsonb, "prevHash", hash
      FROM unnest(
        ${col((r) => r.content.at.toISOString())}::timestamptz[], ${col((r) => r.content.actorType)}::text[], ${col((r) => r.content.actorId)}::text[],
        ${col((r) => r.content.actorName)}::text[], ${col((r) => r.content.action)}::text[], ${col((r) => r.content.targetType)}::text[],
        ${col((r) => r.content.targetId)}::text[], ${col((r) => r.content.environment)}::text[], ${col((r) => r.content.reason)}::text[],
        ${col((r) => jsonText(r.content.before))}::text[], ${col((r) => jsonText(r.content.after))}::text[], ${col((r) => r.prevHash)}::text[],
        ${col((r) => r.hash)}::text[]
      ) WITH ORDINALITY AS t(at, "actorType", "actorId", "actorName", action, "targetType", "targetId", environment, reason, before, after, "prevHash", hash, position)
      ORDER BY position
      RETURNING id, hash`;
    const ids = new Map(inserted.map((r) => [r.hash, BigInt(r.id)]));
    for (const r of rows) out.push({ id: ids.get(r.hash) as bigint, hash: r.hash });
  }
  return out;
}

/**
 * Appends one event. Pass the transaction that makes the change being
 * audited, so the change and its record commit (or roll back) together; a
 * plain client gets a transaction of its own.
 */
export async function appendAudit(db: Db, input: AuditInput): Promise<{ id: bigint; hash: string }> {
  const [row] = await appendAuditBatch(db, [input]);
  return row as { id: bigint; hash: string };
}

/**
 * Appends events in the given order as one stretch of the chain: three round
 * trips whatever their number, where one appendAudit each would take three
 * apiece. Same transaction rule as appendAudit.
 */
export async function appendAuditBatch(db: Db, inputs: readonly AuditInput[]): Promise<Array<{ id: bigint; hash: string }>> {
  if (inputs.length === 0) return [];
  if ("$transaction" in db) return db.$transaction((tx) => appendManyInTx(tx, inputs));
  return appendManyInTx(db, inputs);
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
