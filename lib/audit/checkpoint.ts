// The audit chain's newest hash, remembered outside the database. At a fixed
// cadence the newest event's id and hash are written to a file in the data
// folder, signed with the audit key. Whoever controls the database can delete
// the newest events or rewrite them, but cannot move the checkpoint back:
// verification then finds the checkpointed event gone or changed. A
// checkpoint never replaces one the database no longer agrees with — that
// evidence stays until someone looks (the log says so at every attempt).
import { createHmac, timingSafeEqual } from "node:crypto";
import fsp from "node:fs/promises";
import path from "node:path";
import type { PrismaClient } from "@/lib/db/generated/client";
import { canonicalJson } from "./canonical";
import { auditKey, verifyAuditChain, type ChainHead, type ChainVerification } from "./chain";

export const CHECKPOINT_FILE = "audit-checkpoint.json";

export interface SignedCheckpoint extends ChainHead {
  /** HMAC-SHA256 of the canonical {id, hash, writtenAt} with the audit key, hex. */
  signature: string;
}

export type CheckpointRead =
  | { status: "none" }
  | { status: "valid"; head: ChainHead }
  | { status: "invalid"; reason: string };

function sign(key: Buffer | undefined, head: ChainHead): string {
  return createHmac("sha256", auditKey(key)).update("checkpoint\n").update(canonicalJson({ id: head.id, hash: head.hash, writtenAt: head.writtenAt })).digest("hex");
}

export async function readCheckpoint(file: string, key?: Buffer): Promise<CheckpointRead> {
  let text: string;
  try {
    text = await fsp.readFile(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { status: "none" };
    throw e;
  }
  let parsed: Partial<SignedCheckpoint>;
  try {
    parsed = JSON.parse(text) as Partial<SignedCheckpoint>;
  } catch {
    return { status: "invalid", reason: `the audit checkpoint ${file} is not JSON` };
  }
  const { id, hash, writtenAt, signature } = parsed;
  if (typeof id !== "string" || typeof hash !== "string" || typeof writtenAt !== "string" || typeof signature !== "string") {
    return { status: "invalid", reason: `the audit checkpoint ${file} lacks id, hash, writtenAt or signature` };
  }
  const head = { id, hash, writtenAt };
  const expected = Buffer.from(sign(key, head), "hex");
  const given = Buffer.from(signature, "hex");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { status: "invalid", reason: `the audit checkpoint ${file} has a signature that does not verify with the instance key: it was edited, or written with another key` };
  }
  return { status: "valid", head };
}

export async function writeCheckpoint(file: string, head: ChainHead, key?: Buffer): Promise<void> {
  const signed: SignedCheckpoint = { ...head, signature: sign(key, head) };
  await fsp.mkdir(path.dirname(file), { recursive: true });
  // Written aside and renamed: a reader never sees half a checkpoint.
  const tmp = `${file}.${process.pid}.tmp`;
  await fsp.writeFile(tmp, `${JSON.stringify(signed, null, 2)}\n`, { mode: 0o600 });
  await fsp.rename(tmp, file);
}

export type CheckpointOutcome =
  | { status: "empty" }
  | { status: "unchanged"; head: ChainHead }
  | { status: "written"; head: ChainHead }
  | { status: "mismatch"; previous: ChainHead; reason: string }
  | { status: "invalid"; reason: string };

/**
 * Records the chain's newest event in the checkpoint file, after checking
 * that the database still holds the previous checkpoint's event unchanged.
 */
export async function checkpointAuditChain(db: PrismaClient, opts: { file: string; now: Date; key?: Buffer }): Promise<CheckpointOutcome> {
  const previous = await readCheckpoint(opts.file, opts.key);
  if (previous.status === "invalid") return previous;
  if (previous.status === "valid") {
    const prev = previous.head;
    const row = await db.auditEvent.findUnique({ where: { id: BigInt(prev.id) }, select: { hash: true } });
    if (!row) return { status: "mismatch", previous: prev, reason: `event ${prev.id}, checkpointed at ${prev.writtenAt}, is no longer in the audit table: the newest events were removed` };
    if (row.hash !== prev.hash) return { status: "mismatch", previous: prev, reason: `event ${prev.id} no longer has the hash checkpointed at ${prev.writtenAt}: events were rewritten` };
  }
  const newest = await db.auditEvent.findFirst({ orderBy: { id: "desc" }, select: { id: true, hash: true } });
  if (!newest) return { status: "empty" };
  if (previous.status === "valid" && previous.head.id === newest.id.toString()) return { status: "unchanged", head: previous.head };
  const head: ChainHead = { id: newest.id.toString(), hash: newest.hash, writtenAt: opts.now.toISOString() };
  await writeCheckpoint(opts.file, head, opts.key);
  return { status: "written", head };
}

/** The chain verified against the newest checkpoint in `file` (what GET /api/audit/verify answers). */
export async function verifyAuditLog(db: PrismaClient, opts: { file: string; key?: Buffer; batchSize?: number }): Promise<ChainVerification> {
  const read = await readCheckpoint(opts.file, opts.key);
  if (read.status === "invalid") {
    const chain = await verifyAuditChain(db, { key: opts.key, batchSize: opts.batchSize });
    return chain.ok ? { ...chain, ok: false, firstBroken: { id: "checkpoint", reason: read.reason } } : chain;
  }
  return verifyAuditChain(db, { key: opts.key, batchSize: opts.batchSize, checkpoint: read.status === "valid" ? read.head : undefined });
}

export interface CheckpointSchedule {
  stop(): Promise<void>;
}

/**
 * Checkpoints now and then every `intervalMs`. Started once by an entry
 * point, never from a route. `onOutcome` sees every result (the log, alert
 * webhooks); a mismatch keeps being reported at every tick.
 */
export function scheduleAuditCheckpoints(opts: {
  db: PrismaClient;
  file: string;
  intervalMs: number;
  onOutcome: (outcome: CheckpointOutcome) => Promise<void> | void;
  onError: (error: unknown) => void;
}): CheckpointSchedule {
  let running: Promise<void> | undefined;
  const tick = () => {
    running ??= (async () => {
      try {
        await opts.onOutcome(await checkpointAuditChain(opts.db, { file: opts.file, now: new Date() }));
      } catch (e) {
        opts.onError(e);
      } finally {
        running = undefined;
      }
    })();
  };
  tick();
  const timer = setInterval(tick, opts.intervalMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
