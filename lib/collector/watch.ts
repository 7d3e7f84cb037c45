// Watch mode. For each environment configured with `mode: watch`, exactly one
// worker (the holder of a Postgres advisory lock for it) keeps informers on
// the kinds the environment's runs read. An event queues a run (debounced);
// that run takes its live objects from the informer caches instead of
// listing, and the run's "unchanged since the last good run" check keeps the
// comparison to the objects that moved. Scheduled runs still list, so polling
// remains a safety net under the watches.
//
// Informers stop on errors other than 410 (client-node relists on 410 by
// itself); every informer here is supervised and restarted with backoff, and
// while one is down its environment's runs list instead of trusting a cache
// that may have missed events.
//
// This file holds the per-worker side (locks, debounce); one environment's
// informers are in environment-watch.ts, one informer in watch-informer.ts.
import pg from "pg";
import type { EnvironmentConfig } from "@/lib/config";
import { env } from "@/lib/env";
import type { Logger } from "@/lib/log";
import type { CollectorContext, LiveSource } from "./collect-environment";
import { RESTART_BASE_MS, RESTART_MAX_MS, errorText } from "./watch-informer";
import { defaultWatchBudget, fits, keepWatches } from "./watch-budget";
import { EnvironmentWatch, type WatchStatus } from "./environment-watch";
import { WATCH_TRIGGER } from "./run-context";

export type { WatchStatus } from "./environment-watch";
export type { InformerStatus } from "./watch-informer";

export interface WatchManagerOptions {
  /** Postgres for the advisory locks: a session of its own, so the locks live and die with this worker. */
  databaseUrl: string;
  /** Queues a watch-triggered run of the environment and wakes the worker. */
  trigger: (environmentId: string, environmentName: string) => Promise<void>;
  /** Quiet time after an event before the run is queued; default 50 ms (one apply of many objects arrives within it). */
  debounceMs?: number;
  /** Longest an event waits while events keep coming; default 1 s. */
  maxDelayMs?: number;
  /** How often locks are tried, held ones confirmed and the configuration followed; default 2 s. */
  lockCheckMs?: number;
  /** Live objects this process may hold in watch caches (watch-budget.ts); default from the heap limit. */
  maxObjects?: number;
}

/**
 * Runs that read the cache: those the watch queued, and pushes (a Git-side
 * event; the cluster side is what the watch keeps current). Scheduled runs,
 * retries and "refresh now" list, so polling stays a check on the cache.
 */
const CACHE_TRIGGERS = new Set([WATCH_TRIGGER, "webhook"]);

/**
 * Per worker: takes the advisory lock of every watch-mode environment it can,
 * runs an EnvironmentWatch for each one it holds, and debounces their events
 * into runs. Locks belong to one Postgres session; if this worker dies or its
 * connection drops, Postgres releases them and another worker takes over at
 * its next check.
 */
export class WatchManager {
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private readonly watches = new Map<string, EnvironmentWatch>();
  private readonly starting = new Map<string, Promise<void>>();
  private readonly startFailures = new Map<string, { count: number; retryAt: number }>();
  /** Environments polled because watching them would not fit the budget (said once each). */
  private readonly overBudget = new Set<string>();
  private readonly debounce = new Map<string, { timer: NodeJS.Timeout; first: number }>();
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly log: Logger;

  constructor(
    private readonly ctx: CollectorContext,
    private readonly opts: WatchManagerOptions,
  ) {
    this.log = ctx.log.child({ component: "watch" });
  }

  /** For the run: cached live objects when it was triggered by a watch and the cache is complete. */
  readonly liveSource: LiveSource = async (request) => {
    const watch = [...this.watches.values()].find((w) => w.env.name === request.environment);
    if (!watch) return null;
    if (!CACHE_TRIGGERS.has(request.trigger ?? "")) {
      // Learn the kinds this run reads, so the next watch-triggered run finds them cached.
      watch.ensure(request.resources, request.namespaces);
      return null;
    }
    return watch.read(request.resources, request.namespaces);
  };

  start(): void {
    const loop = () => {
      if (this.stopped) return;
      this.checking = this.check()
        .catch((e: unknown) => this.log.error({ err: errorText(e) }, "watch lock check failed"))
        .finally(() => {
          if (!this.stopped) {
            this.timer = setTimeout(loop, this.opts.lockCheckMs ?? 2_000);
          }
        });
    };
    loop();
  }

  status(): WatchStatus[] {
    return [...this.watches.values()].map((w) => w.status());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.checking;
    await Promise.allSettled(this.starting.values());
    for (const d of this.debounce.values()) clearTimeout(d.timer);
    this.debounce.clear();
    for (const w of this.watches.values()) w.stop();
    this.watches.clear();
    const client = this.client;
    this.client = null;
    // Ending the session releases every advisory lock it holds.
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<pg.Client> {
    if (this.client) return this.client;
    if (!this.connecting) {
      const client = new pg.Client({ connectionString: this.opts.databaseUrl, application_name: "driftwatch-watch-locks" });
      client.on("error", (e) => this.lost(client, e));
      client.on("end", () => this.lost(client, new Error("connection closed")));
      this.connecting = client
        .connect()
        .then(() => {
          this.client = client;
        })
        .finally(() => {
          this.connecting = null;
        });
    }
    await this.connecting;
    if (!this.client) throw new Error("no lock connection");
    return this.client;
  }

  /** The lock session is gone, and with it every lock: stop watching now, before another worker starts. */
  private lost(client: pg.Client, e: Error): void {
    if (this.client !== client) return;
    this.client = null;
    if (this.stopped) return;
    this.log.warn({ err: e.message, watching: this.watches.size }, "lost the watch lock connection; stopping watches");
    for (const w of this.watches.values()) w.stop();
    this.watches.clear();
  }

  private async check(): Promise<void> {
    const client = await this.connect();
    const rows = (await client.query<{ id: string; name: string }>(`SELECT id::text AS id, name FROM "Environment" WHERE "removedAt" IS NULL`)).rows;
    const byName = new Map(rows.map((r) => [r.name, r.id]));
    const wanted = new Map<string, EnvironmentConfig>();
    for (const e of this.ctx.config.environments) {
      const id = byName.get(e.name);
      if (e.mode === "watch" && id) wanted.set(id, e);
    }
    const unwatch = async (id: string) => {
      this.watches.get(id)?.stop();
      this.watches.delete(id);
      await client.query(`SELECT pg_advisory_unlock(hashtextextended($1, 0))`, [lockName(id)]);
    };
    for (const id of this.watches.keys()) if (!wanted.has(id)) await unwatch(id);

    // What each holds or would hold: its caches' objects once watched, else the live objects its last good run
    // counted. One without a good run is not watched yet: its first run lists everything, and informers listing the
    // same beside it are what ran a 100,000-object collector out of heap.
    const stored = new Map(
      (
        await client.query<{ id: string; n: number; good: boolean }>(
          `SELECT id::text AS id, "objectCount" AS n, "lastGoodRunId" IS NOT NULL AS good FROM "Environment" WHERE id = ANY($1::uuid[])`,
          [[...wanted.keys()]],
        )
      ).rows.map((r) => [r.id, r]),
    );
    const cached = (id: string) => this.watches.get(id)?.status().informers.reduce((n, i) => n + i.objects, 0) ?? 0;
    const objectsOf = (id: string) => Math.max(stored.get(id)?.n ?? 0, cached(id));
    const budget = this.opts.maxObjects ?? env().DRIFTWATCH_WATCH_MAX_OBJECTS ?? defaultWatchBudget();
    const overBudget = (id: string, held: number) => {
      if (this.overBudget.has(id)) return;
      this.overBudget.add(id);
      this.log.warn(
        { env: wanted.get(id)?.name, objects: objectsOf(id), budget, heldByThisWorker: held },
        "this worker will not watch it: its objects would not fit the worker's watch budget (DRIFTWATCH_WATCH_MAX_OBJECTS, or a larger heap: NODE_OPTIONS=--max-old-space-size); it is polled unless another worker watches it",
      );
    };
    const kept = keepWatches([...this.watches.keys()].map((id) => ({ id, objects: objectsOf(id) })), budget);
    for (const id of kept.stop) {
      await unwatch(id);
      overBudget(id, kept.held);
    }
    let held = kept.held;

    for (const [id, env] of wanted) {
      if (this.stopped || this.client !== client) return;
      if (this.watches.has(id) || this.starting.has(id)) continue;
      if (!stored.get(id)?.good) continue;
      const failure = this.startFailures.get(id);
      if (failure && failure.retryAt > Date.now()) continue;
      // Counted only once this worker watches it: one another worker holds costs this one nothing.
      if (!fits(held, objectsOf(id), budget)) {
        overBudget(id, held);
        continue;
      }
      // Re-entrant: a lock this session already holds is granted again, so hold it once.
      const locked = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked`, [lockName(id)]);
      if (!locked.rows[0]?.locked) continue;
      const start = this.startWatch(client, id, env).finally(() => this.starting.delete(id));
      this.starting.set(id, start);
      await start;
      if (this.watches.has(id)) {
        held += objectsOf(id);
        this.overBudget.delete(id);
      }
    }
  }

  private async startWatch(client: pg.Client, id: string, env: EnvironmentConfig): Promise<void> {
    const log = this.log.child({ env: env.name });
    const watch = new EnvironmentWatch(env, id, this.ctx.secretKey, log, () => this.schedule(id, env.name));
    try {
      const kinds = (
        await client.query<{ apiVersion: string; kind: string }>(
          `SELECT DISTINCT "apiVersion", kind FROM "DesiredObject" WHERE "environmentId" = $1::uuid
           UNION SELECT DISTINCT "apiVersion", kind FROM "LiveObject" WHERE "environmentId" = $1::uuid`,
          [id],
        )
      ).rows;
      await watch.start(kinds);
      if (this.stopped || this.client !== client) {
        watch.stop();
        return;
      }
      this.watches.set(id, watch);
      this.startFailures.delete(id);
      log.info({ kinds: kinds.length }, "watching");
    } catch (e) {
      watch.stop();
      const count = (this.startFailures.get(id)?.count ?? 0) + 1;
      const delay = Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** count);
      this.startFailures.set(id, { count, retryAt: Date.now() + delay });
      log.warn({ err: errorText(e), retryInMs: delay }, "cannot start watching; polling continues");
      // Let another worker try: this one could not reach the cluster.
      if (this.client === client) await client.query(`SELECT pg_advisory_unlock(hashtextextended($1, 0))`, [lockName(id)]).catch(() => undefined);
    }
  }

  /** Trailing debounce with a ceiling: a burst becomes one run, a steady stream still runs every `maxDelayMs`. */
  private schedule(id: string, name: string): void {
    if (this.stopped) return;
    const now = Date.now();
    const debounceMs = this.opts.debounceMs ?? 50;
    const maxDelayMs = this.opts.maxDelayMs ?? 1_000;
    const pending = this.debounce.get(id);
    const first = pending?.first ?? now;
    if (pending) clearTimeout(pending.timer);
    const delay = Math.max(0, Math.min(debounceMs, first + maxDelayMs - now));
    const timer = setTimeout(() => {
      this.debounce.delete(id);
      const w = this.watches.get(id);
      if (!w || this.stopped) return;
      w.runsQueued++;
      this.opts.trigger(id, name).catch((e: unknown) => this.log.error({ env: name, err: errorText(e) }, "cannot queue a watch-triggered run"));
    }, delay);
    this.debounce.set(id, { timer, first });
  }
}

function lockName(environmentId: string): string {
  return `driftwatch:watch:${environmentId}`;
}
