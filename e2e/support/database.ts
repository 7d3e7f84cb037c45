// The running demo's embedded Postgres, for what a test must do to the server
// from outside: e.g. cut the web server's change-notification connection
// (the way a database failover or a proxy timeout would).
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { DATABASE_NAME, connectionUrl } from "../../packages/embedded-postgres/src/shared";

function demoDatabaseUrl(dataDir: string): string {
  const dir = path.join(dataDir, "postgres");
  const port = Number(fs.readFileSync(path.join(dir, "port"), "utf8").trim());
  const password = fs.readFileSync(path.join(dir, "password"), "utf8").trim();
  return connectionUrl(port, password, DATABASE_NAME);
}

/** Terminates every server process's LISTEN connection of the change feed (lib/db/change-feed.ts); returns how many. */
export async function cutChangeFeeds(dataDir: string): Promise<number> {
  const client = new pg.Client({ connectionString: demoDatabaseUrl(dataDir) });
  await client.connect();
  try {
    const res = await client.query<{ ok: boolean }>(`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = 'driftwatch-change-feed'`);
    return res.rows.filter((r) => r.ok).length;
  } finally {
    await client.end();
  }
}
