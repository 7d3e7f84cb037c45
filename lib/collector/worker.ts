// A collector worker: schedules due runs, leases one at a time, runs it while
// renewing its lease, records the outcome. Any number of workers (processes)
// can run against one database; the job table keeps them from colliding.
import os from "node:os";
import crypto from "node:crypto";
import { Prisma } from "@/lib/db/generated/client";
import { databaseUrl } from "@/lib/db/url";
import type { RunProgress } from "@/lib/domain/types";
import { collectEnvironment, type CollectorContext, type RunOutcome } from "./collect-environment";
import { enqueueRun, heartbeat, leaseNextRun, leaseRunById, reapExpiredLeases, scheduleDueRuns, type LeasedRun } from "./jobs";
import { recordEvents } from "./events";
import { afterRunHooks, periodicSweep } from "./hooks";
import { WatchManager, type WatchStatus } from "./watch";
import { listenForRuns } from "./watch-queue";
import { DEFAULT_WORKER_HEARTBEAT_MS, DEFAULT_WORKER_TTL_MS, workerGone, workerHeartbeat } from "./affinity";
import { WATCH_TRIGGER } from "./run-context";

export interface WorkerOptions {
  workerId?: string;
  leaseMs?: number;
  pollMs?: number;
  /** How often expiries and ageing are re-evaluated (claims, pauses, unowned drift). */
  sweepMs?: number;
  /**
   * Watch mode (environments with `mode: watch`): the Postgres URL for the
   * advisory locks that let one worker watch each environment (default: the
   * DATABASE_URL the Prisma client uses), debounce and lock-check timings, or
   * false to leave watching to other workers.
   */
  watch?: false | { databaseUrl?: string; debounceMs?: number; maxDelayMs?: number; lockCheckMs?: number; maxObjects?: number };
  /** Start runs queued elsewhere (webhooks, "refresh now") at once, through LISTEN/NOTIFY; default true when a database URL is known. */
  listen?: boolean;
  /**
   * Run affinity (jobs.ts): how long a due run waits for the live worker that
   * ran its environment last (default DEFAULT_AFFINITY_GRACE_MS, 30 s), and
   * this worker's liveness heartbeat and how long one lasts (5 s / 30 s).
   */
  affinityGraceMs?: number;
  heartbeatMs?: number;
  workerTtlMs?: number;
}

export interface Worker {
  readonly id: string;
  /** Look for work now instead of at the next poll. */
  wake(): void;
  stop(): Promise<void>;
  /** Resolves when the worker is idle (tests). */
  idle(): Promise<void>;
  /** The environments this worker watches (it holds their watch locks), with their informer state. */
  watchStatus(): WatchStatus[];
}

export function newWorkerId(): string {
  return `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString("hex")}`;
}

/** Records a finished run on its row and, for failures, on the environment (keeping its last good state). */
export async function finishRun(
  ctx: CollectorContext,
  run: LeasedRun | { id: number; environmentId: string; environmentName: string },
  outcome: RunOutcome,
  /** The environment's error before this run (a successful run clears it in its own transaction). */
  previousError: unknown,
): Promise<void> {
  const now = ctx.now();
  const { db } = ctx;
  const env = { lastError: previousError };
  // One statement; the stats persistRun stored with the run's state are kept and extended.
  const recordRun = (tx: Prisma.TransactionClient | typeof db) => tx.$executeRaw`
    UPDATE "CollectionRun" SET status = ${outcome.status}::"RunStatus", "finishedAt" = ${now}, errors = ${JSON.stringify(outcome.errors)}::jsonb,
      "approvedSha" = ${outcome.approvedSha}, "appliedSha" = ${outcome.appliedSha}, "leaseExpiresAt" = NULL
      ${outcome.stats ? Prisma.sql`, stats = (CASE WHEN jsonb_typeof(stats) = 'object' THEN stats ELSE '{}'::jsonb END) || ${JSON.stringify(outcome.stats)}::jsonb` : Prisma.empty}
    WHERE id = ${run.id}`;
  // A good run after good runs writes nothing else: no transaction needed. A superseded run's failure is its own:
  // the environment's state and error are the run's that superseded it.
  if ((outcome.status !== "failed" && !env.lastError) || outcome.superseded) {
    await recordRun(db);
    return;
  }
  await db.$transaction(async (tx) => {
    await recordRun(tx);
    if (outcome.status === "failed") {
      const first = outcome.errors.find((e) => e.severity !== "warning") ?? outcome.errors[0];
      await tx.environment.update({
        where: { id: run.environmentId },
        data: {
          lastRunId: run.id,
          lastCollectedAt: now,
          lastError: first ? ({ category: first.category, message: first.message, at: now.toISOString(), runId: run.id } as Prisma.InputJsonValue) : Prisma.DbNull,
        },
      });
      // One audit event when an environment starts failing, not one per retry.
      if (!env.lastError) {
        await recordEvents(tx, run.environmentName, [{ action: "run.failed", targetId: String(run.id), key: null, after: { category: first?.category, message: first?.message } }], now);
      }
    } else if (env.lastError) {
      await recordEvents(tx, run.environmentName, [{ action: "run.recovered", targetId: String(run.id), key: null, before: env.lastError }], now);
    }
  });
}

/** Runs one leased run to completion, renewing the lease while it goes. */
export async function executeRun(ctx: CollectorContext, run: LeasedRun, workerId: string, leaseMs: number): Promise<RunOutcome> {
  const log = ctx.log.child({ env: run.environmentName, runId: run.id });
  let lastProgressWrite = 0;
  let pending: RunProgress | null = null;
  const writeProgress = async (p: RunProgress) => {
    await ctx.db.collectionRun.update({ where: { id: run.id }, data: { progress: p as unknown as Prisma.InputJsonValue } }).catch(() => undefined);
  };
  const beat = setInterval(() => {
    void heartbeat(ctx.db, run.id, workerId, leaseMs).catch((e: unknown) => log.warn({ err: String(e) }, "lease renewal failed"));
    if (pending) {
      void writeProgress(pending);
      pending = null;
    }
  }, Math.max(250, Math.floor(leaseMs / 4)));
  try {
    log.info({ trigger: run.trigger }, "collection started");
    const before = await ctx.db.environment.findUniqueOrThrow({ where: { id: run.environmentId }, select: { lastError: true } });
    const outcome = await collectEnvironment({ ...ctx, log }, run, (p) => {
      const nowMs = Date.now();
      if (nowMs - lastProgressWrite > 400) {
        lastProgressWrite = nowMs;
        void writeProgress(p);
      } else pending = p;
    });
    await finishRun(ctx, run, outcome, before.lastError);
    await afterRunHooks(ctx, run.environmentId).catch((e: unknown) => log.error({ err: e instanceof Error ? e.message : String(e) }, "after-run hooks failed"));
    log.info({ status: outcome.status, errors: outcome.errors.length, stats: outcome.stats }, "collection finished");
    return outcome;
  } finally {
    clearInterval(beat);
  }
}

export function startWorker(ctx: CollectorContext, opts: WorkerOptions = {}): Worker {
  const id = opts.workerId ?? newWorkerId();
  const leaseMs = opts.leaseMs ?? 60_000;
  const pollMs = opts.pollMs ?? 1_000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let busy: Promise<void> = Promise.resolve();
  let idleWaiters: Array<() => void> = [];
  const sweepMs = opts.sweepMs ?? 15_000;
  let lastSweep = 0;
  const heartbeatMs = opts.heartbeatMs ?? DEFAULT_WORKER_HEARTBEAT_MS;
  const workerTtlMs = opts.workerTtlMs ?? Math.max(DEFAULT_WORKER_TTL_MS, 3 * heartbeatMs);
  // Runs this worker's watches queued: leased first, by id, so they land where the cache is.
  const preferred: number[] = [];

  // Same source as the Prisma client (lib/db/client.ts): the locks must live in the same database.
  const lockUrl = opts.watch === false ? undefined : (opts.watch?.databaseUrl ?? databaseUrl());
  const watches =
    lockUrl && ctx.config.environments.some((e) => e.mode === "watch")
      ? new WatchManager(ctx, {
          databaseUrl: lockUrl,
          debounceMs: opts.watch ? opts.watch.debounceMs : undefined,
          maxDelayMs: opts.watch ? opts.watch.maxDelayMs : undefined,
          lockCheckMs: opts.watch ? opts.watch.lockCheckMs : undefined,
          maxObjects: opts.watch ? opts.watch.maxObjects : undefined,
          trigger: async (environmentId) => {
            preferred.push(await enqueueRun(ctx.db, environmentId, WATCH_TRIGGER));
            wake();
          },
        })
      : null;
  const runCtx: CollectorContext = watches ? { ...ctx, liveSource: watches.liveSource } : ctx;
  const listenUrl = (opts.watch ? opts.watch.databaseUrl : undefined) ?? databaseUrl();
  const queue = opts.listen !== false && listenUrl ? listenForRuns(listenUrl, () => wake(), ctx.log.child({ component: "run-queue", worker: id })) : null;

  const nextRun = async (): Promise<LeasedRun | null> => {
    for (let runId = preferred.shift(); runId !== undefined; runId = preferred.shift()) {
      const run = await leaseRunById(ctx.db, runId, id, leaseMs, ctx.now());
      if (run) return run;
    }
    return leaseNextRun(ctx.db, id, leaseMs, ctx.now(), { graceMs: opts.affinityGraceMs });
  };

  const tick = async () => {
    if (stopped) return;
    try {
      await reapExpiredLeases(ctx.db, ctx.now());
      await scheduleDueRuns(ctx.db, ctx.now());
      if (Date.now() - lastSweep >= sweepMs) {
        lastSweep = Date.now();
        await periodicSweep(ctx).catch((e: unknown) => ctx.log.error({ err: e instanceof Error ? e.message : String(e) }, "periodic sweep failed"));
      }
      for (;;) {
        if (stopped) break;
        const run = await nextRun();
        if (!run) break;
        await executeRun(runCtx, run, id, leaseMs);
      }
    } catch (e) {
      ctx.log.error({ err: e instanceof Error ? e.message : String(e), worker: id }, "collector tick failed; retrying");
    }
    const waiters = idleWaiters;
    idleWaiters = [];
    waiters.forEach((w) => w());
  };

  const loop = () => {
    if (stopped) return;
    busy = tick().finally(() => {
      if (!stopped) timer = setTimeout(loop, pollMs);
    });
  };

  // Wakes coalesce: many signals during a run start one tick after it, never two ticks at once.
  let wakePending = false;
  function wake(): void {
    if (stopped || wakePending) return;
    wakePending = true;
    clearTimeout(timer);
    void busy.then(() => {
      wakePending = false;
      if (!stopped) {
        clearTimeout(timer);
        loop();
      }
    });
  }

  // Alive for run affinity: on its own timer, so a long run does not make this worker look gone.
  let beating: Promise<void> = Promise.resolve();
  const alive = () => {
    beating = workerHeartbeat(ctx.db, id, workerTtlMs, ctx.now()).catch((e: unknown) => ctx.log.warn({ err: String(e), worker: id }, "worker heartbeat failed"));
  };
  alive();
  const aliveTimer = setInterval(alive, heartbeatMs);

  loop();
  watches?.start();

  return {
    id,
    wake,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.all([watches?.stop(), queue?.stop()]);
      await busy;
      clearInterval(aliveTimer);
      await beating;
      // Its environments go to the other workers now, not when the registration would have expired.
      await workerGone(ctx.db, id).catch((e: unknown) => ctx.log.warn({ err: String(e), worker: id }, "could not deregister the worker"));
    },
    idle: () => new Promise<void>((resolve) => idleWaiters.push(resolve)),
    watchStatus: () => watches?.status() ?? [],
  };
}
