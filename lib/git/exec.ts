// Direct `git` processes for what simple-git cannot do: feeding stdin while
// streaming stdout (cat-file --batch), telling exit code 1 from an error
// (merge-base --is-ancestor), and byte-exact output with NULs.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { inheritedEnvironment } from "@/lib/env";
import { GitError, gitStderrSummary, looksLikeMissingRef, type GitErrorCategory } from "./errors";

/**
 * The environment for every git child: the ambient GIT_* variables are
 * dropped (a GIT_DIR inherited from a hook would point git at the wrong
 * repository), helper programs are dropped, prompts are off (a collector has no terminal), and messages are
 * in English so failures can be categorised.
 */
// Programs git could be told to start (editors, pagers, askpass) are never wanted here.
const DROPPED = new Set(["SSH_ASKPASS", "EDITOR", "VISUAL", "PAGER", "PREFIX", "LANGUAGE"]);

export function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const out = inheritedEnvironment();
  for (const k of Object.keys(out)) {
    if (/^GIT_/i.test(k) || DROPPED.has(k.toUpperCase())) delete out[k];
  }
  out.GIT_TERMINAL_PROMPT = "0";
  out.LC_ALL = "C";
  return Object.assign(out, extra);
}

export interface RunGitOptions {
  input?: string | Buffer;
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Category of the GitError when git cannot run or times out (default git-fetch). */
  category?: GitErrorCategory;
  /** Refuse output larger than this (the process is killed). */
  maxBytes?: number;
}

export interface RunGitResult {
  stdout: Buffer;
  stderr: string;
  code: number;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

/**
 * Git processes started by this process, by subcommand: what a collection run
 * costs in processes is what the benchmark and the tests hold down (a run of
 * hundreds of applications of one repository should not start hundreds).
 */
const spawned = new Map<string, number>();

const OPTIONS_WITH_VALUE = new Set(["-c", "-C", "--git-dir", "--work-tree", "--namespace"]);

/** The subcommand of a git argument list: the first word that is not an option or an option's value ("-c x=y"). */
function subcommandOf(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (OPTIONS_WITH_VALUE.has(a)) i++;
    else if (!a.startsWith("-")) return a;
  }
  return "(none)";
}

/** Counts one git process about to be started (every spawn of git in lib/git goes through here). */
export function countGitProcess(args: readonly string[]): void {
  const sub = subcommandOf(args);
  spawned.set(sub, (spawned.get(sub) ?? 0) + 1);
}

/** Git processes started since the last reset, by subcommand, with their total. */
export function gitProcessCounts(): { total: number; bySubcommand: Record<string, number> } {
  const bySubcommand = Object.fromEntries([...spawned].sort(([a], [b]) => a.localeCompare(b)));
  return { total: [...spawned.values()].reduce((a, b) => a + b, 0), bySubcommand };
}

export function resetGitProcessCounts(): void {
  spawned.clear();
}
const DEFAULT_MAX_BYTES = 512 * 1024 * 1024;

/**
 * Runs git against a repository. Resolves with the exit code (callers decide
 * what a non-zero code means); rejects with a GitError only when git could not
 * run, ran too long, or said too much.
 */
export function runGit(gitDir: string, args: readonly string[], opts: RunGitOptions = {}): Promise<RunGitResult> {
  const category = opts.category ?? "git-fetch";
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const cwd = opts.cwd ?? gitDir;
  if (!existsSync(cwd)) {
    return Promise.reject(new GitError(category, `repository mirror ${gitDir} does not exist (has the repository been synced?)`));
  }
  countGitProcess(args);
  return new Promise((resolve, reject) => {
    const child = spawn("git", ["--git-dir", gitDir, ...args], { cwd, env: opts.env ?? gitEnv(), stdio: ["pipe", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = "";
    let failure: GitError | null = null;
    let settled = false;
    const finish = (result: RunGitResult | GitError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (result instanceof GitError) reject(result);
      else resolve(result);
    };
    const timer = setTimeout(() => {
      failure = new GitError(category, `git ${args[0] ?? ""} timed out after ${Math.round(timeoutMs / 1000)}s`);
      child.kill("SIGKILL");
      // A helper git started (git-remote-http waiting on a silent server) can keep
      // the pipes open after git itself is gone: do not wait for them to close.
      child.stdout.destroy();
      child.stderr.destroy();
      finish(failure);
    }, timeoutMs);
    child.stdout.on("data", (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) {
        failure ??= new GitError(category, `git ${args[0] ?? ""} produced more than ${Math.round(maxBytes / 1024 / 1024)} MB`);
        child.kill("SIGKILL");
        return;
      }
      chunks.push(c);
    });
    child.stderr.on("data", (c: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += c.toString("utf8");
    });
    child.on("error", (e) => finish(new GitError(category, `git could not be run: ${e.message}`)));
    child.on("close", (code) => finish(failure ?? { stdout: Buffer.concat(chunks), stderr, code: code ?? -1 }));
    // A git that exits early (bad revision) closes stdin under us; the exit code tells the story.
    child.stdin.on("error", () => undefined);
    child.stdin.end(opts.input ?? "");
  });
}

/** Runs git and returns stdout as text; a non-zero exit becomes a GitError. */
export async function gitText(
  gitDir: string,
  args: readonly string[],
  category: GitErrorCategory,
  opts: RunGitOptions = {},
): Promise<string> {
  const res = await runGit(gitDir, args, { category, ...opts });
  if (res.code !== 0) {
    const cat = looksLikeMissingRef(res.stderr) ? "git-missing-ref" : category;
    throw new GitError(cat, `git ${args[0] ?? ""} failed: ${gitStderrSummary(res.stderr) || `exit code ${res.code}`}`);
  }
  return res.stdout.toString("utf8");
}
