// The local bare mirror of each configured repository. Everything else in
// lib/git reads from the mirror, so a remote that is down or gone only makes
// the data stale: a failed fetch never touches what the mirror already has.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { simpleGit, type SimpleGit } from "simple-git";
import type { RepositoryConfig } from "@/lib/config/schema";
import { GitError, categoriseFetchFailure, gitStderrSummary, redact } from "./errors";
import { gitEnv, runGit, type RunGitResult } from "./exec";
import { remoteAccess, type RemoteAccess } from "./remote-access";

export interface SyncResult {
  mirrorPath: string;
  /** Branch name → commit sha, as fetched. */
  heads: Record<string, string>;
}

const DEFAULT_FETCH_TIMEOUT_MS = 120_000;

export function mirrorPathFor(repo: Pick<RepositoryConfig, "name">, mirrorsDir: string): string {
  return path.join(path.resolve(mirrorsDir), `${repo.name}.git`);
}

// Two environments on the same repository are collected concurrently; git
// refuses concurrent ref updates, so syncs of one mirror queue up in-process.
const queues = new Map<string, Promise<unknown>>();

export async function syncMirror(
  repo: RepositoryConfig,
  mirrorsDir: string,
  opts: { timeoutMs?: number } = {},
): Promise<SyncResult> {
  const mirrorPath = mirrorPathFor(repo, mirrorsDir);
  return queued(mirrorPath, () => sync(repo, mirrorPath, opts.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS));
}

async function queued<T>(mirrorPath: string, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(mirrorPath) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(work);
  queues.set(mirrorPath, run);
  try {
    return await run;
  } finally {
    if (queues.get(mirrorPath) === run) queues.delete(mirrorPath);
  }
}

/**
 * Fetches refs outside branches and tags (a Flux `ref.name` such as
 * refs/pull/1/head) into the mirror, each under its local name. Asked for
 * only by applications that follow one, so a forge's thousands of pull
 * request refs are never fetched wholesale. The mirror must exist (syncMirror first).
 */
export async function fetchRefs(repo: RepositoryConfig, mirrorsDir: string, refs: ReadonlyArray<{ remote: string; local: string }>, opts: { timeoutMs?: number } = {}): Promise<void> {
  if (refs.length === 0) return;
  const mirrorPath = mirrorPathFor(repo, mirrorsDir);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  await queued(mirrorPath, async () => {
    const access = remoteAccess(repo, { timeoutMs });
    const res = await runGit(
      mirrorPath,
      ["-c", "gc.autoDetach=false", "-c", "maintenance.auto=false", "fetch", "--quiet", "--force", "--no-write-fetch-head", "--no-recurse-submodules", "--no-tags", access.url, ...refs.map((r) => `+${r.remote}:${r.local}`)],
      { env: gitEnv(access.env), timeoutMs },
    );
    if (res.code === 0) return;
    if (/couldn't find remote ref|no such ref/i.test(res.stderr)) {
      throw new GitError("git-missing-ref", `fetching ${refs.map((r) => r.remote).join(", ")} from ${repoLabel(repo)} failed: ${gitStderrSummary(res.stderr)}`, access.secrets);
    }
    throw fetchError(repo, res.stderr || `git fetch failed with exit code ${res.code}`, access);
  });
}

/** The remote's default branch (what its HEAD points at), as `git ls-remote --symref` reports it; Argo CD's HEAD follows it. */
export async function remoteDefaultBranch(repo: RepositoryConfig, mirrorsDir: string, opts: { timeoutMs?: number } = {}): Promise<string> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  const access = remoteAccess(repo, { timeoutMs });
  // Run beside the mirror (syncMirror first); ls-remote reads nothing from it.
  const res = await runGit(mirrorPathFor(repo, mirrorsDir), ["ls-remote", "--symref", access.url, "HEAD"], { env: gitEnv(access.env), timeoutMs });
  if (res.code !== 0) throw fetchError(repo, res.stderr || `git ls-remote failed with exit code ${res.code}`, access);
  const branch = parseSymrefHead(res.stdout.toString("utf8"));
  if (!branch) throw new GitError("git-missing-ref", `${repoLabel(repo)} names no default branch (its HEAD is not a branch)`, access.secrets);
  return branch;
}

/** `ref: refs/heads/main\tHEAD` → `main`; null when HEAD is detached or absent. */
export function parseSymrefHead(lsRemote: string): string | null {
  const m = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(lsRemote);
  return m?.[1] ?? null;
}

async function sync(repo: RepositoryConfig, mirrorPath: string, timeoutMs: number): Promise<SyncResult> {
  const access = remoteAccess(repo, { timeoutMs });
  await mkdir(path.dirname(mirrorPath), { recursive: true });

  if (existsSync(mirrorPath) && !(await isBareRepository(mirrorPath))) {
    // A mirror is only a cache; a broken one (half-deleted, not a repository) is rebuilt.
    await rm(mirrorPath, { recursive: true, force: true });
  }

  if (existsSync(mirrorPath)) {
    await removeStaleLocks(mirrorPath, timeoutMs + 60_000);
    await fetchWithRetry(repo, mirrorPath, access, timeoutMs);
  } else {
    // Built aside and renamed into place, so an interrupted first fetch never
    // leaves an empty mirror that later looks like a repository with no branches.
    const tmp = await mkdtemp(path.join(path.dirname(mirrorPath), `.${repo.name}.git.tmp-`));
    try {
      await git(tmp, access, timeoutMs).raw(["init", "--bare", "--quiet", tmp]);
      await fetch(repo, tmp, access, timeoutMs);
      try {
        await rename(tmp, mirrorPath);
      } catch (e) {
        // Another process created the mirror meanwhile; use theirs.
        if (!existsSync(mirrorPath)) throw e;
        await fetchWithRetry(repo, mirrorPath, access, timeoutMs);
      }
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }
  return { mirrorPath, heads: await readHeads(mirrorPath) };
}

function git(baseDir: string, access: RemoteAccess, timeoutMs: number): SimpleGit {
  const env = gitEnv(access.env);
  return simpleGit({
    baseDir,
    strict: true,
    abort: AbortSignal.timeout(timeoutMs),
    allowEnvironment: Object.keys(env).filter((k) => /^GIT_/.test(k)),
    allowConfig: ["credential.helper", "maintenance.auto"],
    config: ["gc.autoDetach=false", "maintenance.auto=false"],
  }).env(env);
}

async function fetch(repo: RepositoryConfig, gitDir: string, access: RemoteAccess, timeoutMs: number): Promise<void> {
  // Our own child rather than simple-git's: simple-git waits 50 ms more after a
  // process that printed nothing, which a quiet fetch with nothing new always is.
  let res: RunGitResult;
  try {
    res = await runGit(
      gitDir,
      [
        "-c",
        "gc.autoDetach=false",
        "-c",
        "maintenance.auto=false",
        "fetch",
        "--quiet",
        "--prune",
        "--force",
        // FETCH_HEAD would record the URL and is of no use to a mirror.
        "--no-write-fetch-head",
        "--no-recurse-submodules",
        access.url,
        "+refs/heads/*:refs/heads/*",
        "+refs/tags/*:refs/tags/*",
      ],
      { env: gitEnv(access.env), timeoutMs },
    );
  } catch (e) {
    // runGit gives up only when git could not run or ran past the timeout.
    const timedOut = e instanceof GitError && /timed out/.test(e.message);
    throw timedOut ? new GitError("git-fetch", `fetching ${repoLabel(repo)} timed out after ${Math.round(timeoutMs / 1000)}s`, access.secrets) : e;
  }
  if (res.code !== 0) throw fetchError(repo, res.stderr || `git fetch failed with exit code ${res.code}`, access);
}

async function fetchWithRetry(repo: RepositoryConfig, gitDir: string, access: RemoteAccess, timeoutMs: number): Promise<void> {
  try {
    await fetch(repo, gitDir, access, timeoutMs);
  } catch (e) {
    // Another collector process on this machine may be fetching the same mirror.
    if (e instanceof GitError && /cannot lock ref|unable to create .*\.lock/i.test(e.message)) {
      await new Promise((r) => setTimeout(r, 500 + Math.random() * 1000));
      await fetch(repo, gitDir, access, timeoutMs);
      return;
    }
    throw e;
  }
}

function repoLabel(repo: RepositoryConfig): string {
  return `repository "${repo.name}" (${redact(repo.url)})`;
}

function fetchError(repo: RepositoryConfig, raw: string, access: RemoteAccess): GitError {
  const category = categoriseFetchFailure(raw);
  let summary = gitStderrSummary(raw) || "git fetch failed";
  // git's wording for an HTTP 401 with prompts off names a prompt nobody sees.
  if (/could not read (username|password)|terminal prompts disabled/i.test(summary)) {
    summary = repo.auth.type === "token" ? "the server rejected the credentials (HTTP 401)" : "the server requires credentials (HTTP 401)";
  }
  const hint =
    category === "git-auth"
      ? repo.auth.type === "token"
        ? ` (credentials rejected: check the token in ${repo.auth.tokenEnv})`
        : repo.auth.type === "ssh"
          ? " (check auth.keyFile and auth.knownHostsFile)"
          : " (the repository needs credentials: configure auth)"
      : "";
  return new GitError(category, `fetching ${repoLabel(repo)} failed${hint}: ${summary}`, access.secrets);
}

// The two questions below are asked on every run, so they are answered from
// the mirror's files: starting a git process from a collector holding a large
// heap costs tens of milliseconds of its event loop each time (fork copies
// the page tables), more than the fetch itself. Anything these readers do not
// recognise is left to git.

/** What git itself checks before calling a folder a repository (HEAD, objects/, refs/), and that its config says bare. */
async function isBareRepository(dir: string): Promise<boolean> {
  try {
    const [head, config, objects, refs] = await Promise.all([
      readFile(path.join(dir, "HEAD"), "utf8"),
      readFile(path.join(dir, "config"), "utf8"),
      stat(path.join(dir, "objects")),
      stat(path.join(dir, "refs")),
    ]);
    return objects.isDirectory() && refs.isDirectory() && /^(ref: refs\/|[0-9a-f]{40})/.test(head) && /^\s*bare\s*=\s*true\s*$/im.test(config);
  } catch {
    return false;
  }
}

async function readHeads(mirrorPath: string): Promise<Record<string, string>> {
  const fromFiles = await readHeadFiles(mirrorPath);
  if (fromFiles) return fromFiles;
  const res = await runGit(mirrorPath, ["for-each-ref", "--format=%(objectname) %(refname)", "refs/heads/"]);
  if (res.code !== 0) throw new GitError("git-fetch", `reading branches of ${mirrorPath} failed: ${gitStderrSummary(res.stderr)}`);
  const heads: Record<string, string> = {};
  for (const line of res.stdout.toString("utf8").split("\n")) {
    const m = /^([0-9a-f]{40,64}) refs\/heads\/(.+)$/.exec(line);
    if (m?.[1] && m[2]) heads[m[2]] = m[1];
  }
  return heads;
}

const SHA_LINE = /^([0-9a-f]{40}|[0-9a-f]{64})\n?$/;

/**
 * Branch heads from the files ref backend: loose refs under refs/heads, then
 * packed-refs for the rest (loose wins, as in git). Loose refs are read first
 * so a ref packed meanwhile (loose file gone) is still found in packed-refs.
 * Null for what only git should interpret: another ref backend (reftable), a
 * symbolic or unreadable branch ref.
 */
async function readHeadFiles(mirrorPath: string): Promise<Record<string, string> | null> {
  const config = await readFile(path.join(mirrorPath, "config"), "utf8").catch(() => null);
  if (config === null || /refstorage/i.test(config)) return null;
  // A Map, not an object: a branch may be called __proto__ or constructor.
  const heads = new Map<string, string>();
  const visit = async (dir: string, prefix: string): Promise<boolean> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === "ENOENT";
    }
    for (const ent of entries) {
      const name = prefix + ent.name;
      if (ent.isDirectory()) {
        if (!(await visit(path.join(dir, ent.name), `${name}/`))) return false;
      } else if (ent.isFile()) {
        if (ent.name.endsWith(".lock")) continue;
        let text: string;
        try {
          text = await readFile(path.join(dir, ent.name), "utf8");
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === "ENOENT") continue; // deleted or packed meanwhile
          return false;
        }
        const m = SHA_LINE.exec(text);
        if (!m?.[1]) return false;
        heads.set(name, m[1]);
      } else {
        return false;
      }
    }
    return true;
  };
  if (!(await visit(path.join(mirrorPath, "refs", "heads"), ""))) return null;
  let packed: string;
  try {
    packed = await readFile(path.join(mirrorPath, "packed-refs"), "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return Object.fromEntries(heads);
    return null;
  }
  for (const line of packed.split("\n")) {
    const m = /^([0-9a-f]{40}|[0-9a-f]{64}) refs\/heads\/(.+)$/.exec(line);
    if (m?.[1] && m[2] && !heads.has(m[2])) heads.set(m[2], m[1]);
  }
  return Object.fromEntries(heads);
}

/**
 * A collector killed mid-fetch (SIGKILL) leaves `*.lock` files that would make
 * every later fetch fail. Locks older than any fetch may run are removed.
 */
async function removeStaleLocks(mirrorPath: string, olderThanMs: number): Promise<void> {
  const now = Date.now();
  const visit = async (dir: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const ent of entries) {
      const full = path.join(dir, ent.name);
      if (ent.isDirectory()) {
        if (depth < 8 && (depth > 0 || ent.name === "refs")) await visit(full, depth + 1);
      } else if (ent.name.endsWith(".lock")) {
        try {
          if (now - (await stat(full)).mtimeMs > olderThanMs) await unlink(full);
        } catch {
          // Gone already, or not ours to remove: the fetch will report it.
        }
      }
    }
  };
  await visit(mirrorPath, 0);
}
