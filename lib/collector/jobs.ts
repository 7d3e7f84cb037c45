// Collection runs are jobs in Postgres. Workers lease them with
// FOR UPDATE SKIP LOCKED; partial unique indexes (migration SQL) guarantee at
// most one queued and one running run per environment, so no environment is
// ever collected twice at once, however many workers share the table.
//
// Run affinity. A worker keeps what an environment's runs can reuse (its
// renders, the rows it wrote, its API client: run-memo.ts) only for the
// environments it ran itself, and a run elsewhere costs several times more
// (the fleet bench: 6–16 s instead of 0.8–1.6 s). So an environment belongs
// to the live worker that ran it last — the lease owner of its `lastRunId`,
// while that worker's CollectorWorker row is alive (heartbeats: affinity.ts)
// — and a queued run is leased only by its owner, except:
//  - no live owner (a new environment, or its worker stopped or died): any worker;
//  - the run has been due longer than the grace (DEFAULT_AFFINITY_GRACE_MS): any worker;
//  - its owner holds more than a fair share (environments ÷ live workers,
//    rounded up) and the asking worker less: that worker, so a worker that
//    joins takes its share at once instead of idling while the others keep up.
// A watch-triggered run is the exception's exception: the watching worker
// queued it for its informer caches and leases it by id (leaseRunById), so
// other workers leave it alone until the grace has passed.
// Whoever runs it becomes its owner. The owner is not stored anywhere new: it
// is read from the runs themselves in the statement that picks the run, and
// SKIP LOCKED still only skips rows another worker is leasing at that
// instant. Moves only go from above the share to below it, so they settle.
import type { PrismaClient } from "@/lib/db/generated/client";
import { WATCH_TRIGGER } from "./run-context";

/**
 * How long a due run waits for the live worker that ran its environment last
 * before any worker may take it. A run in another worker is a first run there
 * (several times dearer), so waiting a while for the owner is cheaper than
 * moving; past this, freshness matters more.
 */
export const DEFAULT_AFFINITY_GRACE_MS = 30_000;

export interface LeasedRun {
  id: number;
  environmentId: string;
  environmentName: string;
  trigger: string;
  requestedBy: string | null;
  attempts: number;
}

type Db = Pick<PrismaClient, "$queryRaw" | "$executeRaw">;

/** Queues a run unless one is already queued for the environment. Returns the queued run's id. */
export async function enqueueRun(
  db: Db,
  environmentId: string,
  trigger: string,
  opts: { requestedBy?: string | null; notBefore?: Date } = {},
): Promise<number> {
  const notBefore = opts.notBefore ?? new Date();
  const inserted = await db.$queryRaw<Array<{ id: number }>>`
    INSERT INTO "CollectionRun" ("environmentId", "trigger", "requestedBy", "notBefore")
    VALUES (${environmentId}::uuid, ${trigger}, ${opts.requestedBy ?? null}, ${notBefore})
    ON CONFLICT ("environmentId") WHERE status = 'queued' DO NOTHING
    RETURNING id`;
  if (inserted[0]) return notified(db, inserted[0].id);
  // Already queued: a manual or webhook trigger moves it forward instead of queueing twice. It also names the run
  // when the queued one is a scheduled or a watch-triggered run: a watch-triggered run reuses a recent Git fetch
  // (git-side.ts), so a push's webhook or "Refresh now" folded into one must make it fetch.
  const existing = await db.$queryRaw<Array<{ id: number }>>`
    UPDATE "CollectionRun" SET "notBefore" = LEAST("notBefore", ${notBefore}),
      "trigger" = CASE WHEN "trigger" = 'schedule' OR ("trigger" = ${WATCH_TRIGGER} AND ${trigger} <> 'schedule') THEN ${trigger} ELSE "trigger" END,
      "requestedBy" = COALESCE("requestedBy", ${opts.requestedBy ?? null})
    WHERE "environmentId" = ${environmentId}::uuid AND status = 'queued'
    RETURNING id`;
  if (existing[0]) return notified(db, existing[0].id);
  return enqueueRun(db, environmentId, trigger, opts); // the queued run started in between; queue the next
}

/**
 * Tells listening workers (lib/collector/watch-queue.ts) that a run is due,
 * so they start it now rather than at their next poll. Inside a transaction
 * Postgres delivers it at commit, when the run is visible.
 */
async function notified(db: Db, runId: number): Promise<number> {
  await db.$executeRaw`SELECT pg_notify('driftwatch_runs', ${String(runId)})`;
  return runId;
}

/** Queues a scheduled run for every environment whose interval has passed since its last run was queued. */
export async function scheduleDueRuns(db: Db, now: Date = new Date()): Promise<number> {
  return db.$executeRaw`
    INSERT INTO "CollectionRun" ("environmentId", "trigger", "notBefore")
    SELECT e.id, 'schedule', ${now}
    FROM "Environment" e
    WHERE e."removedAt" IS NULL
      AND NOT EXISTS (SELECT 1 FROM "CollectionRun" q WHERE q."environmentId" = e.id AND q.status = 'queued')
      AND COALESCE(
            (SELECT max(r."queuedAt") FROM "CollectionRun" r WHERE r."environmentId" = e.id),
            '-infinity'::timestamptz
          ) <= ${now}::timestamptz - make_interval(secs => COALESCE((e.spec->>'interval')::numeric / 1000, 60))
    ON CONFLICT ("environmentId") WHERE status = 'queued' DO NOTHING`;
}

/**
 * Leases the oldest due run this worker may take (see "Run affinity" above):
 * of an environment that is not already running, and that is this worker's,
 * or no live worker's, or due longer than `graceMs`, or its owner's above a
 * fair share while this worker is below it; watch-triggered runs only once
 * due longer than `graceMs` (their watcher leases them by id).
 */
export async function leaseNextRun(db: Db, workerId: string, leaseMs: number, now: Date = new Date(), opts: { graceMs?: number } = {}): Promise<LeasedRun | null> {
  const graceCutoff = new Date(now.getTime() - (opts.graceMs ?? DEFAULT_AFFINITY_GRACE_MS));
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const rows = await db.$queryRaw<LeasedRun[]>`
        WITH live AS (
          SELECT id FROM "CollectorWorker" WHERE "expiresAt" > ${now}
        ), owned AS (
          SELECT e.id AS "environmentId", r."leaseOwner" AS owner
          FROM "Environment" e JOIN "CollectionRun" r ON r.id = e."lastRunId"
          WHERE e."removedAt" IS NULL AND r."leaseOwner" IN (SELECT id FROM live)
        ), load AS (
          SELECT owner, count(*) AS n FROM owned GROUP BY owner
        ), share AS (
          SELECT ceil((SELECT count(*) FROM "Environment" WHERE "removedAt" IS NULL)::numeric
            / ((SELECT count(*) FROM live) + CASE WHEN ${workerId} IN (SELECT id FROM live) THEN 0 ELSE 1 END)) AS n
        ), next AS (
          SELECT q.id FROM "CollectionRun" q
          LEFT JOIN owned o ON o."environmentId" = q."environmentId"
          WHERE q.status = 'queued' AND q."notBefore" <= ${now}
            AND NOT EXISTS (SELECT 1 FROM "CollectionRun" x WHERE x."environmentId" = q."environmentId" AND x.status = 'running')
            AND (q."notBefore" <= ${graceCutoff} OR (q.trigger <> 'watch' AND (o.owner IS NULL OR o.owner = ${workerId}
              OR ((SELECT n FROM load WHERE owner = o.owner) > (SELECT n FROM share)
                AND COALESCE((SELECT n FROM load WHERE owner = ${workerId}), 0) < (SELECT n FROM share)))))
          ORDER BY q."notBefore", q.id
          FOR UPDATE OF q SKIP LOCKED
          LIMIT 1
        )
        UPDATE "CollectionRun" r
        SET status = 'running', "leaseOwner" = ${workerId}, "startedAt" = ${now},
            "leaseExpiresAt" = ${new Date(now.getTime() + leaseMs)}, attempts = r.attempts + 1
        FROM next, "Environment" e
        WHERE r.id = next.id AND e.id = r."environmentId"
        RETURNING r.id, r."environmentId", e.name AS "environmentName", r.trigger, r."requestedBy", r.attempts`;
      return rows[0] ?? null;
    } catch (e) {
      // Two workers raced to run the same environment: the running-run index refused one. Try again.
      if (String(e).includes("23505") || String(e).includes("unique")) continue;
      throw e;
    }
  }
  return null;
}

/** Extends the lease of a run this worker holds; false when the lease was lost (reaped). */
export async function heartbeat(db: Db, runId: number, workerId: string, leaseMs: number): Promise<boolean> {
  const n = await db.$executeRaw`
    UPDATE "CollectionRun" SET "leaseExpiresAt" = now() + make_interval(secs => ${leaseMs / 1000})
    WHERE id = ${runId} AND status = 'running' AND "leaseOwner" = ${workerId}`;
  return n === 1;
}

/**
 * A worker that died (SIGKILL, lost network) stops renewing its lease. Its run
 * is closed as failed ("worker-lost") and the environment queued again, so
 * another worker picks the work up. The worker counts as gone from then on
 * (its registration is dropped; a worker that was only stalled registers
 * again at its next heartbeat), so the retry and its other environments'
 * runs need not wait for its registration to expire.
 */
export async function reapExpiredLeases(db: Db, now: Date = new Date()): Promise<number> {
  const reaped = await db.$queryRaw<Array<{ id: number; environmentId: string; leaseOwner: string | null }>>`
    UPDATE "CollectionRun"
    SET status = 'failed', "finishedAt" = ${now},
        errors = errors || jsonb_build_array(jsonb_build_object('category', 'worker-lost',
          'message', 'the worker holding this run stopped renewing its lease (' || COALESCE("leaseOwner", '?') || ')'))
    WHERE status = 'running' AND "leaseExpiresAt" < ${now}
    RETURNING id, "environmentId", "leaseOwner"`;
  const lost = [...new Set(reaped.flatMap((r) => (r.leaseOwner ? [r.leaseOwner] : [])))];
  if (lost.length > 0) await db.$executeRaw`DELETE FROM "CollectorWorker" WHERE id = ANY(${lost}::text[])`;
  for (const r of reaped) {
    // The environment says so at once (Collection failing), not only after the retry.
    await db.$executeRaw`
      UPDATE "Environment" SET "lastError" = jsonb_build_object('category', 'worker-lost',
        'message', 'the collector running this environment stopped (lease expired); retrying',
        'at', to_char(${now}::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'runId', ${r.id}::int)
      WHERE id = ${r.environmentId}::uuid`;
    await enqueueRun(db, r.environmentId, "retry");
  }
  return reaped.length;
}

/**
 * Leases one specific queued run (the CLI's `collect --once`, tests, and a
 * watching worker's own watch-triggered runs). Affinity does not apply: the
 * caller asked for this run; it becomes the environment's owner by running it.
 */
export async function leaseRunById(db: Db, runId: number, workerId: string, leaseMs: number, now: Date = new Date()): Promise<LeasedRun | null> {
  const rows = await db.$queryRaw<LeasedRun[]>`
    UPDATE "CollectionRun" r
    SET status = 'running', "leaseOwner" = ${workerId}, "startedAt" = ${now},
        "leaseExpiresAt" = ${new Date(now.getTime() + leaseMs)}, attempts = r.attempts + 1
    FROM "Environment" e
    WHERE r.id = ${runId} AND r.status = 'queued' AND e.id = r."environmentId"
      AND NOT EXISTS (SELECT 1 FROM "CollectionRun" x WHERE x."environmentId" = r."environmentId" AND x.status = 'running')
    RETURNING r.id, r."environmentId", e.name AS "environmentName", r.trigger, r."requestedBy", r.attempts`;
  return rows[0] ?? null;
}
