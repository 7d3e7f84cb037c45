// Health for probes and monitors. Liveness is this process answering at all
// (no database). Readiness asks the database through the one Prisma pool —
// never a connection of its own — and is computed at most once per
// READINESS_TTL_MS however many probes ask: concurrent callers share one
// check. Answers carry reason codes only; what went wrong goes to the log,
// because probes are public and database errors name hosts, roles and tables.
import { databaseUrl, getPrisma } from "@/lib/db";
import { readMigrations } from "@/lib/db/migrate";
import { logger } from "@/lib/log";

export const READINESS_TTL_MS = 2_000;

export type NotReadyReason = "database-not-configured" | "database-unreachable" | "migrations-pending";

export interface Readiness {
  ready: boolean;
  reason?: NotReadyReason;
  /** When this answer was computed (it is reused for up to READINESS_TTL_MS). */
  checkedAt: string;
}

/** The shape /api/health always had, with a reason code where the database's error text used to be. */
export interface Health extends Readiness {
  database: { reachable: boolean; reason?: NotReadyReason };
  migrations: { pending: string[] };
  collection: { lastCollectedAt: string | null; environments: number; failing: number };
}

export function liveness(now: Date): { alive: true; checkedAt: string } {
  return { alive: true, checkedAt: now.toISOString() };
}

// The committed migration names only change with a new release: read the folder once per process.
let committed: Promise<string[]> | undefined;
function committedMigrations(): Promise<string[]> {
  committed ??= readMigrations().then(
    (ms) => ms.map((m) => m.name),
    (e: unknown) => {
      committed = undefined;
      throw e;
    },
  );
  return committed;
}

const NOTHING_COLLECTED: Health["collection"] = { lastCollectedAt: null, environments: 0, failing: 0 };

async function computeHealth(now: Date): Promise<Health> {
  const checkedAt = now.toISOString();
  if (!databaseUrl()) {
    return notReady("database-not-configured", checkedAt);
  }
  try {
    const db = getPrisma();
    const [names, applied, agg, failing] = await Promise.all([
      committedMigrations(),
      db.$queryRaw<Array<{ name: string }>>`SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
      db.environment.aggregate({ where: { removedAt: null }, _max: { lastGoodCollectedAt: true }, _count: { _all: true } }),
      db.$queryRaw<Array<{ n: number }>>`SELECT count(*)::int AS n FROM "Environment" WHERE "removedAt" IS NULL AND "lastError" IS NOT NULL AND "lastError" <> 'null'::jsonb`,
    ]);
    const done = new Set(applied.map((r) => r.name));
    const pending = names.filter((n) => !done.has(n));
    return {
      ready: pending.length === 0,
      ...(pending.length > 0 ? { reason: "migrations-pending" as const } : {}),
      checkedAt,
      database: { reachable: true },
      migrations: { pending },
      collection: { lastCollectedAt: agg._max.lastGoodCollectedAt?.toISOString() ?? null, environments: agg._count._all, failing: failing[0]?.n ?? 0 },
    };
  } catch (e) {
    logger.warn({ err: e }, "readiness check: the database did not answer");
    return notReady("database-unreachable", checkedAt);
  }
}

function notReady(reason: NotReadyReason, checkedAt: string): Health {
  return { ready: false, reason, checkedAt, database: { reachable: false, reason }, migrations: { pending: [] }, collection: NOTHING_COLLECTED };
}

interface Cached {
  at: number;
  health: Promise<Health>;
}
let cached: Cached | undefined;

/**
 * The newest health answer, recomputed when older than READINESS_TTL_MS.
 * Callers that arrive while a check runs wait for that check.
 */
export function checkHealth(now: Date = new Date()): Promise<Health> {
  const t = now.getTime();
  if (cached && t - cached.at < READINESS_TTL_MS && t >= cached.at) return cached.health;
  const entry: Cached = { at: t, health: computeHealth(now) };
  cached = entry;
  return entry.health;
}

export async function readiness(now: Date = new Date()): Promise<Readiness> {
  const { ready, reason, checkedAt } = await checkHealth(now);
  return reason ? { ready, reason, checkedAt } : { ready, checkedAt };
}

/** Tests: forget the cached answer. */
export function resetHealthCache(): void {
  cached = undefined;
}
