// Reads many blobs through one `git cat-file --batch` process, yielding each
// as soon as it has arrived, so a render of thousands of files costs one
// process and holds one file in memory at a time.
import { spawn } from "node:child_process";
import { GitError } from "./errors";
import { countGitProcess, gitEnv } from "./exec";

export interface Blob {
  oid: string;
  /** null when the object is missing from the mirror. */
  content: Buffer | null;
}

export async function* readBlobs(mirrorPath: string, oids: readonly string[]): AsyncGenerator<Blob> {
  if (oids.length === 0) return;
  countGitProcess(["cat-file"]);
  const child = spawn("git", ["--git-dir", mirrorPath, "cat-file", "--batch", "--buffer"], {
    cwd: mirrorPath,
    env: gitEnv(),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => {
    if (stderr.length < 16 * 1024) stderr += c.toString("utf8");
  });
  const exited = new Promise<number>((resolve) => {
    child.on("close", (code) => resolve(code ?? -1));
    child.on("error", () => resolve(-1));
  });
  child.stdin.on("error", () => undefined);
  child.stdin.end(`${oids.join("\n")}\n`);

  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let header: { oid: string; size: number } | null = null;
  let delivered = 0;

  const take = (n: number): Buffer => {
    const all = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    pending = rest.length ? [rest] : [];
    pendingBytes = rest.length;
    return out;
  };

  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      for (;;) {
        if (!header) {
          // Headers are short; only look for the newline near the front.
          const flat = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
          pending = [flat];
          const nl = flat.indexOf(0x0a);
          if (nl < 0) break;
          const line = take(nl + 1).toString("utf8").trimEnd();
          // The name asked for, as given: a `<commit>:<path>` may hold spaces.
          const missing = /^(.+) missing$/.exec(line);
          if (missing) {
            delivered++;
            yield { oid: missing[1]!, content: null };
            continue;
          }
          const m = /^([0-9a-f]+) (\w+) (\d+)$/.exec(line);
          if (!m) throw new GitError("render", `unexpected output from git cat-file: ${line.slice(0, 200)}`);
          header = { oid: m[1]!, size: Number(m[3]) };
        }
        if (pendingBytes < header.size + 1) break;
        const content = Buffer.from(take(header.size + 1).subarray(0, header.size));
        const oid = header.oid;
        header = null;
        delivered++;
        yield { oid, content };
      }
    }
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
  const code = await exited;
  if (delivered < oids.length) {
    throw new GitError("render", `git cat-file stopped after ${delivered} of ${oids.length} objects (exit ${code}): ${stderr.trim()}`);
  }
}
