// The database for an entry point (web server, collector, scripts): the server
// named by DATABASE_URL when set, else an embedded Postgres in the data folder.
// Either way the committed migrations are applied before it is handed out.
import path from "node:path";
import { startEmbeddedPostgres } from "./embedded";
import { applyMigrations } from "./migrate";

export interface EnsureDatabaseOptions {
  /** Driftwatch's data folder; the embedded cluster lives in `<dataDir>/postgres`. */
  dataDir: string;
  log?: (message: string) => void;
  /** Defaults to `prisma/migrations` under the current working folder. */
  migrationsDir?: string;
}

export interface Database {
  url: string;
  embedded: boolean;
  /** Stops the embedded Postgres (disconnect Prisma first); nothing to do for DATABASE_URL. */
  stop(): Promise<void>;
}

export async function ensureDatabase(options: EnsureDatabaseOptions): Promise<Database> {
  const log = options.log ?? (() => {});
  const migrate = { migrationsDir: options.migrationsDir, log };
  const external = process.env.DATABASE_URL;
  if (external) {
    try {
      await applyMigrations(external, migrate);
    } catch (e) {
      throw describeConnectionError(e, external);
    }
    return { url: external, embedded: false, stop: async () => {} };
  }

  const server = await startEmbeddedPostgres({ dataDir: path.join(options.dataDir, "postgres"), log });
  try {
    await applyMigrations(server.url, migrate);
  } catch (e) {
    await server.stop();
    throw e;
  }
  process.env.DATABASE_URL = server.url;
  return {
    url: server.url,
    embedded: true,
    stop: async () => {
      await server.stop();
      if (process.env.DATABASE_URL === server.url) delete process.env.DATABASE_URL;
    },
  };
}

/** Network errors from pg say "ECONNREFUSED 127.0.0.1:5432"; say which setting is involved, without its password. */
function describeConnectionError(e: unknown, url: string): unknown {
  const code = (e as { code?: unknown }).code;
  const network = typeof code === "string" && /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EHOSTUNREACH)$/.test(code);
  const auth = code === "28P01" || code === "28000" || code === "3D000";
  if (!network && !auth) return e;
  return new Error(`Cannot use the database at DATABASE_URL=${redact(url)}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
}

export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparsable URL)";
  }
}
