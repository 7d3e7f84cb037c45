// The lock file: one Driftwatch per data folder. `driftwatch.lock` holds the
// owner's pid and start time, so a lock left by a dead (or reused) pid is
// taken over rather than honoured.
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { EmbeddedPostgresError } from "./shared";

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

export async function acquireDataDirLock(dataDir: string): Promise<LockRelease> {
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
