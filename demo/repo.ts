// The demo's Git repository: a real repository, committed to with back-dated
// author and committer dates, so the history looks like two weeks of work.
import fs from "node:fs";
import path from "node:path";
import { runGit, gitEnv } from "@/lib/git/exec";

export interface Author {
  name: string;
  email: string;
}

export class DemoRepo {
  readonly gitDir: string;
  constructor(readonly dir: string) {
    this.gitDir = path.join(dir, ".git");
  }

  async init(): Promise<void> {
    fs.mkdirSync(this.dir, { recursive: true });
    await runGit(this.gitDir, ["init", "-q", "-b", "main", this.dir], { cwd: this.dir });
    await runGit(this.gitDir, ["config", "user.name", "Driftwatch Demo"], { cwd: this.dir });
    await runGit(this.gitDir, ["config", "user.email", "demo@driftwatch.dev"], { cwd: this.dir });
    await runGit(this.gitDir, ["config", "commit.gpgsign", "false"], { cwd: this.dir });
  }

  exists(): boolean {
    return fs.existsSync(path.join(this.gitDir, "HEAD"));
  }

  /** Writes files (relative path → text) and commits them as `author` at `at`. Returns the sha. */
  async commit(files: Record<string, string>, message: string, author: Author, at: Date): Promise<string> {
    for (const [rel, text] of Object.entries(files)) {
      const file = path.join(this.dir, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
    }
    await runGit(this.gitDir, ["add", "-A"], { cwd: this.dir });
    const date = at.toISOString();
    const env = gitEnv({
      GIT_AUTHOR_NAME: author.name,
      GIT_AUTHOR_EMAIL: author.email,
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_NAME: author.name,
      GIT_COMMITTER_EMAIL: author.email,
      GIT_COMMITTER_DATE: date,
    });
    await runGit(this.gitDir, ["commit", "-q", "--allow-empty", "-m", message], { cwd: this.dir, env });
    return (await runGit(this.gitDir, ["rev-parse", "HEAD"], { cwd: this.dir })).stdout.toString().trim();
  }
}
