// What a database failover or an idle-connection killer does to the change
// feed, for the suites that check Driftwatch notices and recovers.
import pg from "pg";

/** Terminates the change feed's LISTEN connection from another session, as Postgres would on a failover. */
export async function terminateChangeFeedConnection(connectionString: string): Promise<void> {
  const admin = new pg.Client({ connectionString });
  await admin.connect();
  try {
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'driftwatch-change-feed'`);
  } finally {
    await admin.end();
  }
}
