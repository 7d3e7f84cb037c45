// A throw-away embedded Postgres for one benchmark, migrated, named by
// DATABASE_URL for the duration (the Prisma client and the collector's watch
// locks read it there), and removed afterwards.
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startEmbeddedPostgres } from "@driftwatch/embedded-postgres";
import { applyMigrations } from "../../lib/db/migrate";
import { disconnectPrisma, getPrisma } from "../../lib/db";
import type { PrismaClient } from "../../lib/db/generated/client";
import { resetEnvCache } from "../../lib/env";

export interface BenchDatabase {
  url: string;
  dir: string;
  db: PrismaClient;
  stop(): Promise<void>;
}

export async function startBenchDatabase(prefix: string): Promise<BenchDatabase> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), `driftwatch-bench-${prefix}-`));
  const server = await startEmbeddedPostgres({ dataDir: dir });
  const previous = process.env.DATABASE_URL;
  await applyMigrations(server.url);
  process.env.DATABASE_URL = server.url;
  resetEnvCache();
  const db = getPrisma();
  return {
    url: server.url,
    dir,
    db,
    async stop() {
      await disconnectPrisma();
      if (previous === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = previous;
      resetEnvCache();
      await server.stop();
      await fsp.rm(dir, { recursive: true, force: true });
    },
  };
}

/** Bytes used by every table of the schema, with indexes and TOAST. */
export async function databaseBytes(db: PrismaClient): Promise<Record<string, number>> {
  const rows = await db.$queryRaw<Array<{ name: string; bytes: bigint }>>`
    SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'r'`;
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.bytes)]));
}
