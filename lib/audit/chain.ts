// The audit log is a hash chain: each event stores the previous event's hash
// and its own hash over that and its canonical content. The hash is an
// HMAC-SHA256 keyed with a key derived from the instance key, so someone who
// can write the table but does not hold the key cannot rewrite events and
// hash them again. Chains begun by releases before the key are kept: their
// events stay plain SHA-256 up to an `audit.keyed` event, from which every
// event is keyed (see verifyAuditChain). Appenders take a transaction-scoped
// advisory lock, so writers in any number of processes line up and the chain
// never forks.
import { createHash, createHmac } from "node:crypto";
import type { Prisma, PrismaClient } from "@/lib/db/generated/client";
import type { AuditAction } from "@/lib/domain/types";
import { instanceKey } from "@/lib/env/instance-key";
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

function canonicalContent(content: AuditContent): string {
  return canonicalJson({
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
}

/**
 * The audit chain's own key, derived from the instance key so that a hash
 * made for one purpose (Secret values, sessions) is never valid for another.
 */
export function auditKey(key: Buffer = instanceKey()): Buffer {
  return createHmac("sha256", key).update("driftwatch audit chain v1").digest();
}

/** The hash of events from the keyed epoch on. */
export function hashEvent(key: Buffer, prevHash: string, content: AuditContent): string {
  return createHmac("sha256", key).update(prevHash).update(canonicalContent(content)).digest("hex");
}

/** The unkeyed hash of releases before the keyed epoch: verifies old events, never written any more. */
export function legacyHashEvent(prevHash: string, content: AuditContent): string {
  return createHash("sha256").update(prevHash).update(canonicalContent(content)).digest("hex");
}

/** Marks where a chain begun without a key continues keyed. */
function keyedEpochMarker(): AuditInput {
  return {
    actor: { type: "system", name: "driftwatch" },
    action: "audit.keyed",
    targetType: "audit",
    targetId: "chain",
    reason: "From this event on, every audit event's hash is an HMAC keyed with the instance key; earlier events keep their unkeyed SHA-256 hashes.",
    after: { algorithm: "HMAC-SHA256", earlier: "SHA-256" },
  };
}

type StoredEvent = AuditContent & { id: bigint; prevHash: string; hash: string };

/** The hashed part of a stored event, as it was appended. */
export function auditContentOf(row: StoredEvent): AuditContent {
  return {
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
  };
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
  const key = auditKey();
  // A statement of its own, after the lock: its snapshot sees the last appender's commit.
  const head = await tx.auditEvent.findFirst({ orderBy: { id: "desc" } });
  let prevHash = head?.hash ?? GENESIS_HASH;
  // A chain whose newest event is unkeyed was begun before the key: say so in the chain before continuing it keyed.
  const epoch = head && head.hash !== hashEvent(key, head.prevHash, auditContentOf(head)) && head.hash === legacyHashEvent(head.prevHash, auditContentOf(head));
  if (epoch) inputs = [keyedEpochMarker(), ...inputs];
  const out: Array<{ id: bigint; hash: string }> = [];
  for (let i = 0; i < inputs.length; i += INSERT_CHUNK) {
    const rows = inputs.slice(i, i + INSERT_CHUNK).map((input) => {
      const content = toContent(input);
      const hash = hashEvent(key, prevHash, content);
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
  return epoch ? out.slice(1) : out;
}

/**
 * Makes sure the chain continues keyed: on a chain begun by an earlier
 * release, appends the `audit.keyed` event now (entry points call this at
 * start, so verification right after an upgrade already sees the epoch).
 */
export async function ensureAuditChainKeyed(db: PrismaClient): Promise<void> {
  await db.$transaction((tx) => appendManyInTx(tx, []));
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
  /** Events before the keyed epoch (a chain begun by an earlier release); absent when none. */
  unkeyed?: number;
  /** How the chain compares with the newest checkpoint kept outside the database; absent without one. */
  checkpoint?: { id: string; hash: string; writtenAt: string; matches: boolean };
}

/** The newest hash as last seen outside the database (see checkpoint.ts). */
export interface ChainHead {
  id: string;
  hash: string;
  writtenAt: string;
}

export interface VerifyOptions {
  batchSize?: number;
  /** The instance key (default: this instance's). */
  key?: Buffer;
  /** Compare with this checkpoint: the event it names must still be there with the same hash. */
  checkpoint?: ChainHead;
}

/**
 * Recomputes the whole chain in id order and names the first event that does
 * not hold. A valid chain is an unkeyed prefix (possibly empty) from an
 * earlier release, then keyed events only, the first of them the
 * `audit.keyed` marker when there was a prefix; the newest event must be
 * keyed. With a checkpoint, the event it names must still hold its hash:
 * removing the newest events, or rewriting them under any key, shows.
 */
export async function verifyAuditChain(db: Db, options: VerifyOptions = {}): Promise<ChainVerification> {
  const batchSize = options.batchSize ?? 2000;
  const key = auditKey(options.key);
  const checkpoint = options.checkpoint;
  let expectedPrev = GENESIS_HASH;
  let checked = 0;
  let unkeyed = 0;
  let keyed = false;
  let checkpointSeen: boolean | undefined;
  let newestId = "none";
  let cursor: bigint | null = null;
  const result = (r: Omit<ChainVerification, "unkeyed" | "checkpoint">): ChainVerification => ({
    ...r,
    ...(unkeyed > 0 ? { unkeyed } : {}),
    ...(checkpoint ? { checkpoint: { ...checkpoint, matches: checkpointSeen === true } } : {}),
  });
  for (;;) {
    const rows: StoredEvent[] = await db.auditEvent.findMany({
      where: cursor === null ? {} : { id: { gt: cursor } },
      orderBy: { id: "asc" },
      take: batchSize,
    });
    for (const row of rows) {
      const broken = (reason: string) => result({ ok: false, checked, firstBroken: { id: row.id.toString(), reason } });
      if (row.prevHash !== expectedPrev) {
        return broken(
          checked === 0 && expectedPrev === GENESIS_HASH
            ? "the first event does not start the chain: earlier events are missing"
            : "its previous-hash does not match the event before it: an event was removed or altered",
        );
      }
      const content = auditContentOf(row);
      if (row.hash === hashEvent(key, row.prevHash, content)) {
        if (!keyed && unkeyed > 0 && row.action !== "audit.keyed") {
          return broken("the chain turns keyed here without the audit.keyed event: events were inserted");
        }
        keyed = true;
      } else if (row.hash === legacyHashEvent(row.prevHash, content)) {
        if (keyed) return broken("its hash is not keyed with the instance key, unlike the events before it: the event was rewritten and hashed again without the key");
        unkeyed++;
      } else {
        return broken("its content does not match its hash: the event was edited, or hashed again with another key");
      }
      if (checkpoint && row.id.toString() === checkpoint.id) {
        checkpointSeen = row.hash === checkpoint.hash;
        if (!checkpointSeen) {
          return broken(`its hash differs from the checkpoint written at ${checkpoint.writtenAt}: this and later events were rewritten`);
        }
      }
      expectedPrev = row.hash;
      newestId = row.id.toString();
      checked++;
    }
    if (rows.length < batchSize) break;
    cursor = rows[rows.length - 1]?.id ?? null;
  }
  if (checked > 0 && !keyed) {
    return result({ ok: false, checked, firstBroken: { id: newestId, reason: "no event is keyed with the instance key: the newest events were rewritten without the key (or Driftwatch has not started since its upgrade)" } });
  }
  if (checkpoint && checkpointSeen === undefined) {
    return result({
      ok: false,
      checked,
      firstBroken: {
        id: checkpoint.id,
        reason: `the checkpoint written at ${checkpoint.writtenAt} names event ${checkpoint.id}, which is no longer in the chain (newest: ${newestId}): the newest events were removed`,
      },
    });
  }
  return result({ ok: true, checked });
}
