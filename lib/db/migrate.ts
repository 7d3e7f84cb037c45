// Applies the committed SQL migrations under prisma/migrations, recording them
// in `_prisma_migrations` exactly as the Prisma CLI does (same table, same
// checksum, same advisory lock), so `prisma migrate deploy/status` on a machine
// that can run the Prisma CLI sees the same history. We cannot use the CLI
// here: it downloads its schema engine at run time.
import crypto from "node:crypto";
import fsp from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { lineOf, splitSqlStatements } from "./sql-statements";

/** The key Prisma's schema engine locks during migrate deploy; sharing it serialises us with it. */
const PRISMA_ADVISORY_LOCK = 72707369;

// Prisma's definition, verbatim in meaning (its engine creates this table the same way).
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
)`;

export interface Migration {
  /** Folder name, e.g. `20261202140000_init`; Prisma orders migrations by it. */
  name: string;
  /** Absolute path of its migration.sql. */
  file: string;
  script: string;
  /** SHA-256 of the file, hex, as Prisma stores it. */
  checksum: string;
}

export interface MigrateOptions {
  /** Defaults to `prisma/migrations` under the current working folder. */
  migrationsDir?: string;
  log?: (message: string) => void;
}

export class MigrationError extends Error {
  override readonly name = "MigrationError";
  constructor(
    message: string,
    readonly migration: string,
    readonly file: string,
  ) {
    super(message);
  }
}

export function defaultMigrationsDir(): string {
  return path.join(process.cwd(), "prisma", "migrations");
}

export async function readMigrations(migrationsDir: string = defaultMigrationsDir()): Promise<Migration[]> {
  const entries = await fsp.readdir(migrationsDir, { withFileTypes: true }).catch((e: unknown) => {
    throw new Error(`Cannot read the migrations folder ${migrationsDir}: ${e instanceof Error ? e.message : String(e)}`);
  });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const migrations: Migration[] = [];
  for (const name of names) {
    const file = path.join(migrationsDir, name, "migration.sql");
    const bytes = await fsp.readFile(file).catch(() => undefined);
    if (!bytes) continue; // Prisma ignores folders without a migration.sql too
    migrations.push({ name, file, script: bytes.toString("utf8"), checksum: crypto.createHash("sha256").update(bytes).digest("hex") });
  }
  return migrations;
}

interface Recorded {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  logs: string | null;
}

async function recorded(client: pg.Client): Promise<Recorded[] | undefined> {
  const exists = await client.query<{ t: string | null }>("SELECT to_regclass('_prisma_migrations')::text AS t");
  if (!exists.rows[0]?.t) return undefined;
  const result = await client.query<Recorded>(
    "SELECT migration_name, checksum, finished_at, rolled_back_at, logs FROM _prisma_migrations ORDER BY started_at",
  );
  return result.rows;
}

function isApplied(rows: Recorded[] | undefined, name: string): Recorded | undefined {
  return rows?.find((r) => r.migration_name === name && r.rolled_back_at === null && r.finished_at !== null);
}

function failedRecord(rows: Recorded[] | undefined, name: string): Recorded | undefined {
  return rows?.find((r) => r.migration_name === name && r.rolled_back_at === null && r.finished_at === null);
}

async function connect(databaseUrl: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on("error", () => {}); // reported through the failing query instead
  await client.connect();
  return client;
}

/**
 * Applies every committed migration not yet recorded as applied, in name order,
 * each in its own transaction, under Prisma's advisory lock (so concurrent
 * starts, or a concurrent `prisma migrate deploy`, apply each migration once).
 */
export async function applyMigrations(databaseUrl: string, options: MigrateOptions = {}): Promise<{ applied: string[] }> {
  const log = options.log ?? (() => {});
  const migrations = await readMigrations(options.migrationsDir);
  const client = await connect(databaseUrl);
  const applied: string[] = [];
  try {
    await client.query(`SELECT pg_advisory_lock(${PRISMA_ADVISORY_LOCK})`);
    let rows = await recorded(client);
    // Only when missing: an application role without CREATE may start against a migrated database.
    if (rows === undefined) {
      await client.query(CREATE_MIGRATIONS_TABLE);
      rows = await recorded(client);
    }

    for (const m of migrations) {
      const done = isApplied(rows, m.name);
      if (done) {
        if (done.checksum !== m.checksum) {
          log(`Warning: ${m.file} was changed after it was applied (checksum differs from _prisma_migrations); the change is not applied.`);
        }
        continue;
      }
      const failed = failedRecord(rows, m.name);
      if (failed) {
        throw new MigrationError(
          `Migration ${m.name} (${m.file}) is recorded as failed in _prisma_migrations` +
            `${failed.logs ? `:\n${failed.logs.trim()}\n` : ". "}` +
            `Repair the database, then run \`npx prisma migrate resolve --rolled-back ${m.name}\` (or delete that row) and start again.`,
          m.name,
          m.file,
        );
      }
      await applyOne(client, m);
      applied.push(m.name);
      log(`Applied migration ${m.name}`);
    }
    return { applied };
  } finally {
    await client.query(`SELECT pg_advisory_unlock(${PRISMA_ADVISORY_LOCK})`).catch(() => {});
    await client.end().catch(() => {});
  }
}

async function applyOne(client: pg.Client, m: Migration): Promise<void> {
  const startedAt = new Date();
  await client.query("BEGIN");
  try {
    // Without parameters pg uses the simple query protocol, which runs a multi-statement script as is.
    await client.query(m.script);
    // One step per script and finished_at set: what Prisma records for a successful migration.
    await client.query(
      `INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
       VALUES ($1, $2, clock_timestamp(), $3, NULL, NULL, $4, 1)`,
      [crypto.randomUUID(), m.checksum, m.name, startedAt],
    );
    await client.query("COMMIT");
  } catch (e) {
    await client.query("ROLLBACK").catch(() => {});
    const err = e as { message?: string; position?: string };
    const offset = err.position ? Number(err.position) - 1 : await locateFailure(client, m.script);
    const line = offset === undefined ? "" : ` line ${lineOf(m.script, offset)}`;
    throw new MigrationError(
      `Migration ${m.name} failed at ${m.file}${line}: ${err.message ?? String(e)}\nNothing of this migration was applied (its transaction was rolled back).`,
      m.name,
      m.file,
    );
  }
}

/**
 * Postgres gives no position for most errors inside a multi-statement script.
 * Replay it statement by statement in a transaction we roll back, to name the
 * statement that fails.
 */
async function locateFailure(client: pg.Client, script: string): Promise<number | undefined> {
  try {
    await client.query("BEGIN");
    for (const statement of splitSqlStatements(script)) {
      try {
        await client.query(statement.text);
      } catch {
        return statement.offset;
      }
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    await client.query("ROLLBACK").catch(() => {});
  }
}

/** Names of committed migrations the database has not applied (all of them when it has none). */
export async function pendingMigrations(databaseUrl: string, options: MigrateOptions = {}): Promise<string[]> {
  const migrations = await readMigrations(options.migrationsDir);
  const client = await connect(databaseUrl);
  try {
    const rows = await recorded(client);
    return migrations.filter((m) => !isApplied(rows, m.name)).map((m) => m.name);
  } finally {
    await client.end().catch(() => {});
  }
}
