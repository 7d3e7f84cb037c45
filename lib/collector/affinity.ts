// Which collector workers are alive, for run affinity (jobs.ts, "Run
// affinity"): each worker keeps a row in "CollectorWorker" whose `expiresAt`
// it pushes forward on every heartbeat and deletes when it stops. A worker
// that dies stops renewing; once its row expires (or its run's lease is
// reaped) the environments it ran go to whichever worker leases them next.
import type { PrismaClient } from "@/lib/db/generated/client";

type Db = Pick<PrismaClient, "$queryRaw" | "$executeRaw">;

/** How often a worker renews its registration. */
export const DEFAULT_WORKER_HEARTBEAT_MS = 5_000;
/**
 * How long a registration lasts without renewal: six heartbeats, so a worker
 * whose event loop is busy for a few seconds is not taken for dead (which
 * would move its environments, each to a first run elsewhere).
 */
export const DEFAULT_WORKER_TTL_MS = 30_000;

/** Registers the worker as alive until `now + ttlMs` (insert or renew). */
export async function workerHeartbeat(db: Db, workerId: string, ttlMs: number = DEFAULT_WORKER_TTL_MS, now: Date = new Date()): Promise<void> {
  await db.$executeRaw`
    INSERT INTO "CollectorWorker" (id, "startedAt", "heartbeatAt", "expiresAt")
    VALUES (${workerId}, ${now}, ${now}, ${new Date(now.getTime() + ttlMs)})
    ON CONFLICT (id) DO UPDATE SET "heartbeatAt" = EXCLUDED."heartbeatAt", "expiresAt" = EXCLUDED."expiresAt"`;
  // Rows of workers long gone say nothing any more; keep the table to the living and the recent.
  await db.$executeRaw`DELETE FROM "CollectorWorker" WHERE "expiresAt" < ${new Date(now.getTime() - 86_400_000)}`;
}

/** A worker stopping cleanly: its environments may go to other workers at once. */
export async function workerGone(db: Db, workerId: string): Promise<void> {
  await db.$executeRaw`DELETE FROM "CollectorWorker" WHERE id = ${workerId}`;
}

/** The workers alive at `now`, by id. */
export async function liveWorkers(db: Db, now: Date = new Date()): Promise<string[]> {
  const rows = await db.$queryRaw<Array<{ id: string }>>`SELECT id FROM "CollectorWorker" WHERE "expiresAt" > ${now} ORDER BY id`;
  return rows.map((r) => r.id);
}
