// Shared start-up of every entry point that talks to the database: config
// validated (all errors at once), database ready, config mirrored into it.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { getConfig, ConfigError, type DriftwatchConfig } from "@/lib/config";
import { dataDir, env } from "@/lib/env";
import { ensureDatabase, type EmbeddedDatabase } from "@/lib/db/ensure-database";
import { getPrisma } from "@/lib/db";
import type { PrismaClient } from "@/lib/db/generated/client";
import { syncConfigToDatabase } from "@/lib/collector/sync-config";
import { ensureAuditChainKeyed } from "@/lib/audit";

export interface Prepared {
  db: PrismaClient;
  config: DriftwatchConfig;
  embedded: boolean;
  /** The application role's URL: DATABASE_URL, or the embedded database's (web processes are handed it). */
  databaseUrl: string;
  /** The database's owner role (lib/db/roles.ts): only for resets the application role may not make. */
  ownerUrl: string;
  stop(): Promise<void>;
}

export function loadConfigOrExit(): DriftwatchConfig {
  try {
    return getConfig().config;
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
}

/**
 * As root, embedded Postgres runs as the `postgres` user, which cannot enter a
 * folder under /root (mode 0700). Rather than fail, the cluster then lives
 * under /var/lib/driftwatch, one folder per checkout, and we say so.
 */
async function postgresParentDir(embedded: EmbeddedDatabase, log: (m: string) => void): Promise<string> {
  const preferred = dataDir();
  if (env().DATABASE_URL || process.getuid?.() !== 0) return preferred;
  const problem = await embedded.checkDataDirAccess(path.join(preferred, "postgres"));
  if (!problem) return preferred;
  const fallback = path.join("/var/lib/driftwatch", `${path.basename(preferred)}-${crypto.createHash("sha256").update(preferred).digest("hex").slice(0, 10)}`);
  log(`Running as root: the postgres user cannot use ${preferred} (${problem.split("\n")[0]}). Keeping the embedded database in ${fallback} instead; set DRIFTWATCH_DATA_DIR to choose another folder.`);
  fs.mkdirSync(fallback, { recursive: true, mode: 0o755 });
  return fallback;
}

export interface PrepareOptions {
  log?: (m: string) => void;
  /** The database to start when DATABASE_URL is not set (entry points pass @driftwatch/embedded-postgres). */
  embedded?: EmbeddedDatabase;
}

export async function prepare(options: PrepareOptions = {}): Promise<Prepared> {
  const log = options.log ?? ((m: string) => console.log(m));
  const config = loadConfigOrExit();
  const folder = options.embedded ? await postgresParentDir(options.embedded, log) : dataDir();
  const database = await ensureDatabase({ dataDir: folder, log, embedded: options.embedded });
  const db = getPrisma();
  await syncConfigToDatabase(db, config);
  await ensureAuditChainKeyed(db);
  return { db, config, embedded: database.embedded, databaseUrl: database.url, ownerUrl: database.ownerUrl, stop: database.stop };
}
