// The database for an entry point (web server, collector, scripts): the server
// named by DATABASE_URL when set, else an embedded Postgres in the data folder.
// Either way the committed migrations are applied before it is handed out.
import path from "node:path";
import { applyMigrations } from "./migrate";
import { env } from "@/lib/env";
import { publishDatabaseUrl } from "./url";
import { APP_ROLE, checkApplicationRole, ensureEmbeddedRoles, grantApplicationRole, roleOf } from "./roles";

/**
 * Starts the default database when DATABASE_URL is not set. Entry points pass
 * `embeddedPostgres` from @driftwatch/embedded-postgres; lib/ never imports that
 * package (a lint rule), so a server given DATABASE_URL needs no Postgres binaries.
 */
export interface EmbeddedDatabase {
  start(options: { dataDir: string; log?: (message: string) => void }): Promise<{ url: string; stop(): Promise<void> }>;
  /** Why the `postgres` user could not use this folder, or undefined when it can. */
  checkDataDirAccess(dataDir: string): Promise<string | undefined>;
}

export interface EnsureDatabaseOptions {
  /** Driftwatch's data folder; the embedded cluster lives in `<dataDir>/postgres`. */
  dataDir: string;
  log?: (message: string) => void;
  /** Defaults to `prisma/migrations` under the current working folder. */
  migrationsDir?: string;
  /** Without it, DATABASE_URL must be set. */
  embedded?: EmbeddedDatabase;
}

export interface Database {
  url: string;
  /** The role that owns the tables (migrations, test and demo resets); the same as `url` without DATABASE_MIGRATION_URL. */
  ownerUrl: string;
  embedded: boolean;
  /** Stops the embedded Postgres (disconnect Prisma first); nothing to do for DATABASE_URL. */
  stop(): Promise<void>;
}

export async function ensureDatabase(options: EnsureDatabaseOptions): Promise<Database> {
  const log = options.log ?? (() => {});
  const migrate = { migrationsDir: options.migrationsDir, log };
  const { DATABASE_URL: external, DATABASE_MIGRATION_URL: owner } = env();
  if (external) {
    try {
      if (owner) {
        await applyMigrations(owner, migrate);
        await grantApplicationRole(owner, await roleOf(external));
      } else {
        await applyMigrations(external, migrate);
      }
      const role = await checkApplicationRole(external);
      if (role.canAlterAudit) {
        log(
          `Warning: DATABASE_URL connects as "${role.role}", which owns the audit table (or is a superuser) and could turn its append-only trigger off. ` +
            "Connect as a role that owns nothing and give the owner as DATABASE_MIGRATION_URL (docs/operations.md, \"Database roles\").",
        );
      }
    } catch (e) {
      // Which URL failed is not known here; naming both (without passwords) beats naming the wrong one.
      throw describeConnectionError(e, owner ? { DATABASE_URL: external, DATABASE_MIGRATION_URL: owner } : { DATABASE_URL: external });
    }
    return { url: external, ownerUrl: owner ?? external, embedded: false, stop: async () => {} };
  }

  if (!options.embedded) {
    throw new Error("DATABASE_URL is not set: give it the URL of a Postgres server (this entry point does not start an embedded one).");
  }
  const server = await options.embedded.start({ dataDir: path.join(options.dataDir, "postgres"), log });
  let appUrl: string;
  let ownerUrl: string;
  try {
    // The superuser only creates the roles; migrations run as the owner, and everything else as the application role.
    const roles = await ensureEmbeddedRoles(server.url);
    await applyMigrations(roles.ownerUrl, migrate);
    await grantApplicationRole(roles.ownerUrl, APP_ROLE);
    appUrl = roles.appUrl;
    ownerUrl = roles.ownerUrl;
  } catch (e) {
    await server.stop();
    throw e;
  }
  // getPrisma() and the change feed (here and in Next.js's copy of lib/) find it through databaseUrl().
  publishDatabaseUrl(appUrl);
  return {
    url: appUrl,
    ownerUrl,
    embedded: true,
    stop: async () => {
      await server.stop();
      publishDatabaseUrl(undefined);
    },
  };
}

/** Network errors from pg say "ECONNREFUSED 127.0.0.1:5432"; say which setting is involved, without its password. */
function describeConnectionError(e: unknown, urls: Record<string, string>): unknown {
  const code = (e as { code?: unknown }).code;
  const network = typeof code === "string" && /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EHOSTUNREACH)$/.test(code);
  const auth = code === "28P01" || code === "28000" || code === "3D000";
  if (!network && !auth) return e;
  const named = Object.entries(urls).map(([name, url]) => `${name}=${redact(url)}`).join(" / ");
  return new Error(`Cannot use the database at ${named}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
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
