// Retention of raw snapshots (`retention.rawSnapshots` in driftwatch.yaml):
// object versions older than the window are deleted, except each object's
// newest version, so "since when is it like this" stays answerable; then
// object bodies nothing refers to any more. Drift items, revisions, applied
// revisions (lineage), collection runs and the audit log are never pruned.
//
// A run may start referring again to an old body it found already stored
// (INSERT … ON CONFLICT DO NOTHING takes no row lock). Deleting bodies
// therefore happens under a table lock that waits for runs writing bodies to
// commit and makes new ones wait, and the reference check covers every
// version written since the candidates were chosen.
import type { PrismaClient } from "@/lib/db/generated/client";

type Db = Pick<PrismaClient, "$queryRaw" | "$executeRaw" | "$transaction">;

export interface RetentionResult {
  versionsDeleted: number;
  blobsDeleted: number;
  durationMs: number;
}

export interface RetentionOptions {
  /** Keep versions observed within this many ms (the config's retention.rawSnapshots). */
  retentionMs: number;
  now?: Date;
  /** Rows per statement, so no single transaction holds locks for long. */
  batchSize?: number;
}

/** Runs last seconds; versions written this long before the candidate scan are re-checked too. */
const RECHECK_MARGIN_MS = 3_600_000;

export async function pruneRawSnapshots(db: Db, opts: RetentionOptions): Promise<RetentionResult> {
  const started = Date.now();
  const now = opts.now ?? new Date();
  const cutoff = new Date(now.getTime() - opts.retentionMs);
  const batch = opts.batchSize ?? 5_000;

  let versionsDeleted = 0;
  for (;;) {
    const n = await db.$executeRaw`
      DELETE FROM "ObjectVersion" WHERE id IN (
        SELECT o.id FROM "ObjectVersion" o
        WHERE o."observedAt" < ${cutoff}
          AND EXISTS (SELECT 1 FROM "ObjectVersion" n
                      WHERE n."environmentId" = o."environmentId" AND n.key = o.key AND n.side = o.side
                        AND (n."observedAt" > o."observedAt" OR (n."observedAt" = o."observedAt" AND n.id > o.id)))
        LIMIT ${batch})`;
    versionsDeleted += n;
    if (n < batch) break;
  }

  let blobsDeleted = 0;
  let after = "";
  for (;;) {
    const scanAt = new Date();
    const candidates = await db.$queryRaw<Array<{ hash: string }>>`
      SELECT b.hash FROM "ObjectBlob" b
      WHERE b.hash > ${after} AND b."createdAt" < ${cutoff}
        AND NOT EXISTS (SELECT 1 FROM "LiveObject" l WHERE l."blobHash" = b.hash)
        AND NOT EXISTS (SELECT 1 FROM "DesiredObject" d WHERE d."blobHash" = b.hash)
        AND NOT EXISTS (SELECT 1 FROM "ObjectVersion" v WHERE v."blobHash" = b.hash)
      ORDER BY b.hash
      LIMIT ${batch}`;
    if (candidates.length === 0) break;
    const hashes = candidates.map((c) => c.hash);
    after = hashes[hashes.length - 1] ?? after;
    const since = new Date(scanAt.getTime() - RECHECK_MARGIN_MS);
    blobsDeleted += await db.$transaction(async (tx) => {
      // Conflicts with the ROW EXCLUSIVE lock a run's body INSERT holds until it commits.
      await tx.$executeRaw`LOCK TABLE "ObjectBlob" IN SHARE ROW EXCLUSIVE MODE`;
      return tx.$executeRaw`
        DELETE FROM "ObjectBlob" b
        WHERE b.hash = ANY(${hashes}::text[])
          AND NOT EXISTS (SELECT 1 FROM "LiveObject" l WHERE l."blobHash" = b.hash)
          AND NOT EXISTS (SELECT 1 FROM "DesiredObject" d WHERE d."blobHash" = b.hash)
          AND NOT EXISTS (SELECT 1 FROM "ObjectVersion" v WHERE v."observedAt" >= ${since} AND v."blobHash" = b.hash)`;
    });
    if (candidates.length < batch) break;
  }
  return { versionsDeleted, blobsDeleted, durationMs: Date.now() - started };
}

/**
 * For a worker's periodic sweep: prunes at most once per `everyMs` in this
 * process. Several workers may each prune; deletes are idempotent and the
 * body phase is serialised by its table lock.
 */
export function retentionSweeper(everyMs = 3_600_000): (db: Db, retentionMs: number, now?: Date) => Promise<RetentionResult | null> {
  let last = 0;
  let running: Promise<RetentionResult> | null = null;
  return async (db, retentionMs, now = new Date()) => {
    if (running || Date.now() - last < everyMs) return null;
    last = Date.now();
    running = pruneRawSnapshots(db, { retentionMs, now });
    try {
      return await running;
    } finally {
      running = null;
    }
  };
}
