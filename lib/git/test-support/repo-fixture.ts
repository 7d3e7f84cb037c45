// Real Git repositories for tests: a work tree in a temp dir, commits with
// chosen authors and back-dated times, so history looks like a team's.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export interface Person {
  name: string;
  email: string;
}

export const ALICE: Person = { name: "Alice Example", email: "alice@example.com" };
export const BOB: Person = { name: "Bob Builder", email: "bob@example.com" };
export const CAROL: Person = { name: "Carol Ops", email: "carol@example.com" };

export function tempDir(prefix: string): string {
  return mkdtempSync(path.join(os.tmpdir(), `driftwatch-${prefix}-`));
}

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith("GIT_")) delete env[k];
  return Object.assign(env, { GIT_CONFIG_NOSYSTEM: "1", HOME: os.tmpdir(), LC_ALL: "C" }, extra);
}

export class TestRepo {
  private constructor(readonly dir: string) {}

  static create(prefix = "repo"): TestRepo {
    const dir = tempDir(prefix);
    const repo = new TestRepo(dir);
    repo.git("init", "--quiet", "--initial-branch=main");
    return repo;
  }

  git(...args: string[]): string {
    return this.gitEnv({}, ...args);
  }

  gitEnv(extra: Record<string, string>, ...args: string[]): string {
    return execFileSync("git", ["-c", "commit.gpgsign=false", "-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], {
      cwd: this.dir,
      env: cleanEnv(extra),
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
    });
  }

  write(file: string, content: string | Buffer): this {
    const full = path.join(this.dir, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, content);
    return this;
  }

  remove(file: string): this {
    this.git("rm", "-r", "--quiet", "--", file);
    return this;
  }

  /** Commits everything in the work tree; returns the new sha. */
  commit(message: string, opts: { author?: Person; committer?: Person; date?: string | Date } = {}): string {
    const author = opts.author ?? ALICE;
    const committer = opts.committer ?? author;
    const date = opts.date instanceof Date ? opts.date.toISOString() : (opts.date ?? new Date().toISOString());
    this.git("add", "--all");
    this.gitEnv(
      {
        GIT_AUTHOR_NAME: author.name,
        GIT_AUTHOR_EMAIL: author.email,
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_NAME: committer.name,
        GIT_COMMITTER_EMAIL: committer.email,
        GIT_COMMITTER_DATE: date,
      },
      "commit",
      "--quiet",
      "--allow-empty",
      "-m",
      message,
    );
    return this.head();
  }

  /** A --no-ff merge of `branch` into the current branch, dated like `commit`. */
  merge(branch: string, message: string, opts: { author?: Person; date?: string | Date } = {}): string {
    const author = opts.author ?? ALICE;
    const date = opts.date instanceof Date ? opts.date.toISOString() : (opts.date ?? new Date().toISOString());
    this.gitEnv(
      {
        GIT_AUTHOR_NAME: author.name,
        GIT_AUTHOR_EMAIL: author.email,
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_NAME: author.name,
        GIT_COMMITTER_EMAIL: author.email,
        GIT_COMMITTER_DATE: date,
      },
      "merge",
      "--quiet",
      "--no-ff",
      "-m",
      message,
      branch,
    );
    return this.head();
  }

  head(ref = "HEAD"): string {
    return this.git("rev-parse", ref).trim();
  }

  get fileUrl(): string {
    return `file://${this.dir}`;
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** YAML for a ConfigMap; handy to fill environments with objects. */
export function configMap(name: string, data: Record<string, string>, namespace?: string): string {
  const lines = ["apiVersion: v1", "kind: ConfigMap", "metadata:", `  name: ${name}`];
  if (namespace) lines.push(`  namespace: ${namespace}`);
  lines.push("data:");
  for (const [k, v] of Object.entries(data)) lines.push(`  ${k}: ${JSON.stringify(v)}`);
  return `${lines.join("\n")}\n`;
}
