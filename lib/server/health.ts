// GET /api/health: can we reach the database, is the schema current, when did
// the last collection finish. Used by probes, so it stays cheap and public.
import { getPrisma } from "@/lib/db";
import { pendingMigrations } from "@/lib/db/migrate";

export interface Health {
  ready: boolean;
  database: { reachable: boolean; error?: string };
  migrations: { pending: string[] };
  collection: { lastCollectedAt: string | null; environments: number; failing: number };
}

export async function checkHealth(): Promise<Health> {
  const url = process.env.DATABASE_URL;
  if (!url) return { ready: false, database: { reachable: false, error: "DATABASE_URL is not set" }, migrations: { pending: [] }, collection: { lastCollectedAt: null, environments: 0, failing: 0 } };
  try {
    const db = getPrisma();
    const [pending, agg, failing] = await Promise.all([
      pendingMigrations(url),
      db.environment.aggregate({ where: { removedAt: null }, _max: { lastGoodCollectedAt: true }, _count: { _all: true } }),
      db.$queryRaw<Array<{ n: number }>>`SELECT count(*)::int AS n FROM "Environment" WHERE "removedAt" IS NULL AND "lastError" IS NOT NULL AND "lastError" <> 'null'::jsonb`,
    ]);
    return {
      ready: pending.length === 0,
      database: { reachable: true },
      migrations: { pending },
      collection: { lastCollectedAt: agg._max.lastGoodCollectedAt?.toISOString() ?? null, environments: agg._count._all, failing: failing[0]?.n ?? 0 },
    };
  } catch (e) {
    return {
      ready: false,
      database: { reachable: false, error: e instanceof Error ? e.message.split("\n")[0] : String(e) },
      migrations: { pending: [] },
      collection: { lastCollectedAt: null, environments: 0, failing: 0 },
    };
  }
}
