// Direct `git` processes for what simple-git cannot do: feeding stdin while
// streaming stdout (cat-file --batch), telling exit code 1 from an error
// (merge-base --is-ancestor), and byte-exact output with NULs.
import { spawn } from "node:child_process";
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
  const out: NodeJS.ProcessEnv = { ...process.env };
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
  /** Refuse output larger than this (the process is killed). */
  maxBytes?: number;
}

export interface RunGitResult {
  stdout: Buffer;
  stderr: string;
  code: number;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;
const DEFAULT_MAX_BYTES = 512 * 1024 * 1024;

export function runGit(gitDir: string, args: readonly string[], opts: RunGitOptions = {}): Promise<RunGitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", ["--git-dir", gitDir, ...args], {
      cwd: opts.cwd ?? gitDir,
      env: opts.env ?? gitEnv(),
      stdio: ["pipe", "pipe", "pipe"],
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = "";
    let failure: Error | null = null;
    const timer = setTimeout(() => {
      failure = new Error(`git ${args[0] ?? ""} timed out after ${Math.round((opts.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000)}s`);
      child.kill("SIGKILL");
    }, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    child.stdout.on("data", (c: Buffer) => {
      size += c.length;
      if (size > (opts.maxBytes ?? DEFAULT_MAX_BYTES)) {
        failure ??= new Error(`git ${args[0] ?? ""} produced more than ${opts.maxBytes ?? DEFAULT_MAX_BYTES} bytes`);
        child.kill("SIGKILL");
        return;
      }
      chunks.push(c);
    });
    child.stderr.on("data", (c: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += c.toString("utf8");
    });
    child.on("error", (e) => {
      failure ??= e;
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (failure) reject(failure);
      else resolve({ stdout: Buffer.concat(chunks), stderr, code: code ?? -1 });
    });
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
  let res: RunGitResult;
  try {
    res = await runGit(gitDir, args, opts);
  } catch (e) {
    throw new GitError(category, (e as Error).message);
  }
  if (res.code !== 0) {
    const cat = looksLikeMissingRef(res.stderr) ? "git-missing-ref" : category;
    throw new GitError(cat, `git ${args[0] ?? ""} failed: ${gitStderrSummary(res.stderr) || `exit code ${res.code}`}`);
  }
  return res.stdout.toString("utf8");
}
