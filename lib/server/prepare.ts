// Shared start-up of every entry point that talks to the database: config
// validated (all errors at once), database ready, config mirrored into it.
import { getConfig, ConfigError, type DriftwatchConfig } from "@/lib/config";
import { dataDir, resetEnvCache } from "@/lib/env";
import { ensureDatabase } from "@/lib/db/ensure-database";
import { getPrisma } from "@/lib/db";
import type { PrismaClient } from "@/lib/db/generated/client";
import { syncConfigToDatabase } from "@/lib/collector/sync-config";

export interface Prepared {
  db: PrismaClient;
  config: DriftwatchConfig;
  embedded: boolean;
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

export async function prepare(log: (m: string) => void = (m) => console.log(m)): Promise<Prepared> {
  const config = loadConfigOrExit();
  const database = await ensureDatabase({ dataDir: dataDir(), log });
  resetEnvCache();
  const db = getPrisma();
  await syncConfigToDatabase(db, config);
  return { db, config, embedded: database.embedded, stop: database.stop };
}
