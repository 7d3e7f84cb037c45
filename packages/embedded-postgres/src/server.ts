// Cluster and server: initdb once (redone when a previous one was cut short),
// a free port, a server left running by a crashed process stopped, postgres
// started and probed until it answers, and stopped again.
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import pg from "pg";
import { DATABASE_NAME, EmbeddedPostgresError, READY_TIMEOUT_MS, STOP_TIMEOUT_MS, SUPERUSER, connectionUrl } from "./shared";
import { type RunAs, run, userName } from "./run-as";
import type { Binaries } from "./binaries";

export async function ensureCluster(args: {
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

export class PortInUseError extends EmbeddedPostgresError {}

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

export async function choosePort(dataDir: string): Promise<number> {
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
export async function stopOrphanedServer(pgdata: string, log: (m: string) => void): Promise<void> {
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

export async function startServer(args: {
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

export async function ensureDatabaseExists(port: number, password: string): Promise<void> {
  const client = new pg.Client({ connectionString: connectionUrl(port, password, "postgres") });
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [DATABASE_NAME]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${DATABASE_NAME}"`);
  } finally {
    await client.end();
  }
}

export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // SIGINT is Postgres's fast shutdown: abort sessions, checkpoint, exit.
  child.kill("SIGINT");
  const timer = setTimeout(() => child.kill("SIGQUIT"), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
