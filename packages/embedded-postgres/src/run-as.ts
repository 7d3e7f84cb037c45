// Running as root: Postgres refuses to run as root, so initdb and postgres run
// as the `postgres` user, and every folder on the way to the data folder and
// the binaries must be enterable by that user.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { EmbeddedPostgresError, SUPERUSER } from "./shared";

export interface RunAs {
  uid: number;
  gid: number;
  name: string;
}

export async function postgresUser(): Promise<RunAs> {
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

export function deepestExisting(dir: string): string {
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

export function assertEnterable(user: RunAs, dir: string, dataDir: string): void {
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

export function userName(uid: number): string {
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

export function run(cmd: string, args: string[], runAs: RunAs | undefined): Promise<{ code: number; text: string }> {
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
