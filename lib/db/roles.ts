// Two database roles: an owner that runs migrations and owns every table, and
// the application role Driftwatch's processes connect with. The application
// role reads and writes what the app needs but owns nothing, so it cannot
// ALTER, DISABLE or DROP the audit table's append-only trigger; on
// "AuditEvent" it may only SELECT and INSERT (privileges are checked before
// triggers: UPDATE, DELETE and TRUNCATE are refused either way).
//
// The embedded Postgres creates both roles itself (ensureEmbeddedRoles). On an
// external Postgres the operator creates them and gives Driftwatch
// DATABASE_MIGRATION_URL (owner) next to DATABASE_URL (application); each
// start then migrates as the owner and grants the application role what it
// needs (grantApplicationRole) — see docs/operations.md.
import crypto from "node:crypto";
import pg from "pg";

export const OWNER_ROLE = "driftwatch_owner";
export const APP_ROLE = "driftwatch_app";

async function withClient<T>(url: string, f: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {}); // reported through the failing query instead
  await client.connect();
  try {
    return await f(client);
  } finally {
    await client.end().catch(() => {});
  }
}

const ident = (name: string): string => `"${name.replaceAll('"', '""')}"`;

function withCredentials(url: string, user: string, password: string): string {
  const u = new URL(url);
  u.username = encodeURIComponent(user);
  u.password = encodeURIComponent(password);
  return u.toString();
}

/**
 * The roles' passwords are derived from the superuser's (which only the data
 * folder holds), so they need no file of their own and survive restarts.
 */
function derivedPassword(superuserPassword: string, role: string): string {
  return crypto.createHmac("sha256", superuserPassword).update(`driftwatch role ${role}`).digest("hex");
}

/**
 * As the embedded cluster's superuser: creates the owner and application
 * roles when missing, makes the owner own the database, and hands it every
 * object in the public schema the superuser still owns (a data folder from a
 * release before these roles). Idempotent and quick on every start.
 */
export async function ensureEmbeddedRoles(superuserUrl: string): Promise<{ ownerUrl: string; appUrl: string }> {
  const superuserPassword = decodeURIComponent(new URL(superuserUrl).password);
  const ownerPassword = derivedPassword(superuserPassword, OWNER_ROLE);
  const appPassword = derivedPassword(superuserPassword, APP_ROLE);
  const database = decodeURIComponent(new URL(superuserUrl).pathname.slice(1));
  await withClient(superuserUrl, async (c) => {
    await c.query("BEGIN");
    try {
      for (const role of [OWNER_ROLE, APP_ROLE]) {
        const exists = await c.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [role]);
        if (exists.rowCount === 0) await c.query(`CREATE ROLE ${ident(role)} LOGIN`);
      }
      // Hex passwords: nothing to escape.
      await c.query(`ALTER ROLE ${ident(OWNER_ROLE)} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS PASSWORD '${ownerPassword}'`);
      await c.query(`ALTER ROLE ${ident(APP_ROLE)} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS PASSWORD '${appPassword}'`);
      await c.query(`ALTER DATABASE ${ident(database)} OWNER TO ${ident(OWNER_ROLE)}`);
      await c.query(HAND_OVER_TO_OWNER);
      await c.query("COMMIT");
    } catch (e) {
      await c.query("ROLLBACK").catch(() => {});
      throw e;
    }
  });
  return { ownerUrl: withCredentials(superuserUrl, OWNER_ROLE, ownerPassword), appUrl: withCredentials(superuserUrl, APP_ROLE, appPassword) };
}

// Tables (with their sequences), views, functions and types of the public
// schema still owned by the connected superuser go to the owner role.
// REASSIGN OWNED cannot be used: the superuser also owns the system catalogs.
const HAND_OVER_TO_OWNER = `
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN
    SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
      AND c.relowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)
      -- A sequence owned by a column moves with its table.
      AND NOT (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i')))
  LOOP
    EXECUTE format(
      CASE r.relkind WHEN 'S' THEN 'ALTER SEQUENCE %I OWNER TO ${OWNER_ROLE}' WHEN 'v' THEN 'ALTER VIEW %I OWNER TO ${OWNER_ROLE}'
        WHEN 'm' THEN 'ALTER MATERIALIZED VIEW %I OWNER TO ${OWNER_ROLE}' WHEN 'f' THEN 'ALTER FOREIGN TABLE %I OWNER TO ${OWNER_ROLE}'
        ELSE 'ALTER TABLE %I OWNER TO ${OWNER_ROLE}' END,
      r.relname);
  END LOOP;
  FOR r IN
    SELECT p.oid::regprocedure AS sig FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'public' AND p.proowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)
  LOOP
    EXECUTE format('ALTER ROUTINE %s OWNER TO ${OWNER_ROLE}', r.sig);
  END LOOP;
  FOR r IN
    SELECT t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
    WHERE n.nspname = 'public' AND t.typtype IN ('e', 'd', 'r', 'm')
      AND t.typowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)
  LOOP
    EXECUTE format('ALTER TYPE %I OWNER TO ${OWNER_ROLE}', r.typname);
  END LOOP;
END
$$`;

export interface RoleCheck {
  /** The role DATABASE_URL connects as. */
  role: string;
  /** It owns "AuditEvent" (or is a superuser): it could disable the append-only trigger. */
  canAlterAudit: boolean;
}

/** Who the application connects as, and whether it could turn the audit table's protection off. */
export async function checkApplicationRole(appUrl: string): Promise<RoleCheck> {
  return withClient(appUrl, async (c) => {
    const { rows } = await c.query<{ role: string; super: boolean; owns: boolean | null }>(
      `SELECT current_user AS role,
              (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS super,
              pg_has_role(current_user, (SELECT relowner FROM pg_class WHERE oid = to_regclass('"AuditEvent"')), 'USAGE') AS owns`,
    );
    const row = rows[0];
    return { role: row?.role ?? "", canAlterAudit: Boolean(row?.super) || row?.owns === true };
  });
}

/**
 * As the owner, after migrations: lets the application role use every table
 * and sequence of the public schema (run at every start, so tables from new
 * migrations are covered), except that "AuditEvent" is append-only for it and
 * the migration history is read-only.
 */
export async function grantApplicationRole(ownerUrl: string, appRole: string): Promise<void> {
  const app = ident(appRole);
  await withClient(ownerUrl, async (c) => {
    const { db: database = "", me = "" } = (await c.query<{ db: string; me: string }>("SELECT current_database() AS db, current_user AS me")).rows[0] ?? {};
    // One role given as both: revoking would only take the owner's own privileges away.
    if (appRole === me) return;
    await c.query("BEGIN");
    try {
      await c.query(`GRANT CONNECT, TEMPORARY ON DATABASE ${ident(database)} TO ${app}`);
      await c.query(`GRANT USAGE ON SCHEMA public TO ${app}`);
      await c.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${app}`);
      await c.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ${app}`);
      await c.query(`REVOKE UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON "AuditEvent" FROM ${app}`);
      await c.query(`REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON _prisma_migrations FROM ${app}`);
      await c.query("COMMIT");
    } catch (e) {
      await c.query("ROLLBACK").catch(() => {});
      throw e;
    }
  });
}

/** The role a URL connects as (asked of the server: the URL may not name it, e.g. with a service file). */
export async function roleOf(url: string): Promise<string> {
  return withClient(url, async (c) => (await c.query<{ role: string }>("SELECT current_user AS role")).rows[0]?.role ?? "");
}
