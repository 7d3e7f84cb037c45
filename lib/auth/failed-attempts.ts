// What failed attempts by people who are not signed in (wrong passwords, OIDC
// callback errors, bad webhook signatures) write to the audit log, and when.
// Each write takes the audit chain's global lock and adds a row that can never
// be deleted, so an unauthenticated flood must not turn into a flood of rows:
//
// - the first failure from an address in a window (5 minutes, per kind) is
//   written at once, as before, so a single mistyped password is visible;
// - further failures from that address in that window are only counted, and
//   one summary event with the count (and the usernames tried, and why) is
//   written when the window ends;
// - past MAX_SOURCES addresses in one window, further addresses share one
//   summary ("other addresses"), so many addresses cannot multiply the rows;
// - attempts refused by a rate limit are not written at all (the caller does
//   not report them here).
//
// So a window writes at most 2 × (MAX_SOURCES + 1) rows per kind and process,
// whatever the number of attempts. Counts live in this process until the
// window ends: a process that stops mid-window loses that window's counts
// beyond the first failure of each address (never the first).
import type { Prisma, PrismaClient } from "@/lib/db/generated/client";
import type { AuditAction } from "@/lib/domain/types";
import { appendAuditBatch, type AuditInput } from "@/lib/audit";
import { getPrisma } from "@/lib/db";
import { logger } from "@/lib/log";

type Db = PrismaClient | Prisma.TransactionClient;

export const FAILURE_WINDOW_MS = 5 * 60_000;
export const MAX_SOURCES_PER_WINDOW = 100;
/** Distinct usernames (or other targets) and reasons named in one summary. */
const MAX_NAMED = 20;
const OTHER_SOURCES = "(other addresses)";

export interface FailedAttempt {
  /** Which kind of attempt; also the audit action written. */
  action: Extract<AuditAction, "auth.signin_failed" | "webhook.rejected">;
  /** `password`, `oidc`, a webhook provider…: kept apart in their own windows. */
  method: string;
  /** The client address (already resolved through trusted proxies). */
  ip: string;
  /** What the first event of an address looks like, exactly as it was written before aggregation. */
  event: Omit<AuditInput, "at">;
  /** The username or other target tried, counted in the summary. */
  target: string;
  reason: string;
}

interface Bucket {
  action: FailedAttempt["action"];
  method: string;
  source: string;
  windowStart: number;
  /** Failures after the first written one. */
  count: number;
  firstAt: number;
  lastAt: number;
  targets: Map<string, number>;
  reasons: Map<string, number>;
  /** Targets or reasons beyond MAX_NAMED, only counted. */
  unnamed: number;
}

export interface FailedAttemptAuditOptions {
  db: () => Db;
  windowMs?: number;
  maxSources?: number;
  /** Schedules the end-of-window summary; tests pass their own. */
  schedule?: (fn: () => void, ms: number) => void;
}

export class FailedAttemptAudit {
  private readonly windowMs: number;
  private readonly maxSources: number;
  private readonly buckets = new Map<string, Bucket>();
  /** Addresses seen per kind and window (bounded by maxSources + what is already in buckets). */
  private readonly sourcesSeen = new Map<string, Set<string>>();
  private readonly scheduled = new Set<number>();
  /** Events waiting for the writer; at most one audit transaction of ours is open at a time. */
  private readonly queue: Array<{ input: AuditInput; done: (error?: unknown) => void }> = [];
  private writing = false;

  constructor(private readonly opts: FailedAttemptAuditOptions) {
    this.windowMs = opts.windowMs ?? FAILURE_WINDOW_MS;
    this.maxSources = opts.maxSources ?? MAX_SOURCES_PER_WINDOW;
  }

  /**
   * Records one failure: written at once when it is the first from its
   * address in this window, otherwise counted for the window's summary.
   */
  async record(attempt: FailedAttempt, now: Date = new Date()): Promise<void> {
    const at = now.getTime();
    const windowStart = Math.floor(at / this.windowMs) * this.windowMs;
    const kind = `${attempt.action}|${attempt.method}|${windowStart}`;
    let seen = this.sourcesSeen.get(kind);
    if (!seen) this.sourcesSeen.set(kind, (seen = new Set()));
    const known = seen.has(attempt.ip);
    const overflow = !known && seen.size >= this.maxSources;
    const source = overflow ? OTHER_SOURCES : attempt.ip;
    this.ensureFlushScheduled(windowStart, at);
    if (!known && !overflow) {
      seen.add(attempt.ip);
      await this.write({ ...attempt.event, at: now });
      return;
    }
    const key = `${kind}|${source}`;
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { action: attempt.action, method: attempt.method, source, windowStart, count: 0, firstAt: at, lastAt: at, targets: new Map(), reasons: new Map(), unnamed: 0 };
      this.buckets.set(key, bucket);
    }
    bucket.count++;
    bucket.lastAt = at;
    countNamed(bucket, bucket.targets, attempt.target);
    countNamed(bucket, bucket.reasons, attempt.reason);
  }

  /** Writes the summaries of windows that ended by `now` (all of them with `everything`). */
  flush(opts: { now?: Date; everything?: boolean } = {}): Promise<void> {
    const now = (opts.now ?? new Date()).getTime();
    const due: Bucket[] = [];
    for (const [key, b] of this.buckets) {
      if (opts.everything || b.windowStart + this.windowMs <= now) {
        due.push(b);
        this.buckets.delete(key);
      }
    }
    for (const kind of this.sourcesSeen.keys()) {
      const windowStart = Number(kind.slice(kind.lastIndexOf("|") + 1));
      if (opts.everything || windowStart + this.windowMs <= now) this.sourcesSeen.delete(kind);
    }
    const writes = due
      .sort((x, y) => x.windowStart - y.windowStart)
      .map((b) =>
        this.write(summaryEvent(b, this.windowMs, new Date(now))).catch((e: unknown) =>
          logger.error({ err: e instanceof Error ? e.message : String(e), count: b.count }, "could not write a summary of failed attempts"),
        ),
      );
    return Promise.all(writes).then(() => undefined);
  }

  /**
   * Queues an event; resolves once it is in the chain. Events queued while a
   * write is under way go together in the next one (appendAuditBatch: one
   * transaction, one turn of the chain's lock), so however many requests fail
   * at once, they hold the lock that audited user actions also need at most
   * once at a time per process.
   */
  private write(input: AuditInput): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ input, done: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!this.writing) void this.writeQueued();
    });
  }

  /**
   * One transaction of our own, with room for a process busy with a flood
   * (Prisma's default gives an interactive transaction 5 s): waiting is fine
   * here, losing the batch is not.
   */
  private async append(inputs: AuditInput[]): Promise<void> {
    const db = this.opts.db();
    if ("$transaction" in db) await db.$transaction((tx) => appendAuditBatch(tx, inputs), { maxWait: 30_000, timeout: 60_000 });
    else await appendAuditBatch(db, inputs);
  }

  private async writeQueued(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, 500);
        const inputs = batch.map((b) => b.input);
        let error: unknown;
        // Tried twice: a flood is exactly when a busy process may see a transaction time out, and these counts exist nowhere else.
        for (let attempt = 0; attempt < 2; attempt++) {
          try {
            await this.append(inputs);
            error = undefined;
            break;
          } catch (e) {
            error = e ?? new Error("audit write failed");
          }
        }
        for (const b of batch) b.done(error);
      }
    } finally {
      this.writing = false;
    }
  }

  private ensureFlushScheduled(windowStart: number, now: number): void {
    if (this.scheduled.has(windowStart)) return;
    this.scheduled.add(windowStart);
    const schedule =
      this.opts.schedule ??
      ((fn: () => void, ms: number) => {
        // Started by a failed attempt, not at import; it must not keep a process alive.
        setTimeout(fn, ms).unref();
      });
    schedule(() => {
      this.scheduled.delete(windowStart);
      void this.flush();
    }, windowStart + this.windowMs - now + 50);
  }
}

function countNamed(bucket: Bucket, map: Map<string, number>, name: string): void {
  const have = map.get(name);
  if (have !== undefined) map.set(name, have + 1);
  else if (map.size < MAX_NAMED) map.set(name, 1);
  else bucket.unnamed++;
}

function summaryEvent(b: Bucket, windowMs: number, at: Date): AuditInput {
  const what = b.action === "auth.signin_failed" ? "failed sign-ins" : "rejected webhooks";
  const from = b.source === OTHER_SOURCES ? "other addresses" : b.source;
  const top = (m: Map<string, number>) => Object.fromEntries([...m].sort((x, y) => y[1] - x[1]));
  return {
    actor: { type: "anonymous", name: from },
    action: b.action,
    targetType: "client",
    targetId: b.source,
    reason: `${b.count} more ${what} (${b.method}) from ${from} between ${new Date(b.firstAt).toISOString()} and ${new Date(b.lastAt).toISOString()}`,
    after: {
      summary: true,
      method: b.method,
      ip: b.source === OTHER_SOURCES ? null : b.source,
      count: b.count,
      windowStart: new Date(b.windowStart).toISOString(),
      windowEnd: new Date(b.windowStart + windowMs).toISOString(),
      firstAt: new Date(b.firstAt).toISOString(),
      lastAt: new Date(b.lastAt).toISOString(),
      targets: top(b.targets),
      reasons: top(b.reasons),
      ...(b.unnamed > 0 ? { unnamed: b.unnamed } : {}),
    },
    at,
  };
}

const holder = globalThis as unknown as { driftwatchFailedAttemptAudit?: FailedAttemptAudit };

/** One per process (surviving dev hot reloads), writing through the app's database client. */
export function failedAttemptAudit(): FailedAttemptAudit {
  if (!holder.driftwatchFailedAttemptAudit) {
    holder.driftwatchFailedAttemptAudit = new FailedAttemptAudit({ db: getPrisma });
  }
  return holder.driftwatchFailedAttemptAudit;
}
