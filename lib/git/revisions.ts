// Questions about history, answered from the mirror.
import { GitError, gitStderrSummary, looksLikeMissingRef } from "./errors";
import { runGit } from "./exec";
import { describeFollowedRef, parseFollowedRef, qualifiedRef } from "./followed-ref";

export interface GitRevision {
  sha: string;
  parents: string[];
  authorName: string;
  authorEmail: string;
  authoredAt: Date;
  committerName: string;
  committerEmail: string;
  committedAt: Date;
  message: string;
  /** Paths changed by the commit (for a merge: against its first parent). Renames count as delete + add. */
  changedPaths: string[];
}

/**
 * A repository-relative path with no leading "./" or trailing "/"; "" is the
 * root. ".." is refused: an environment path must stay inside its repository.
 */
export function normalisePath(p: string): string {
  const parts = p.replace(/\\/g, "/").split("/").filter((s) => s !== "" && s !== ".");
  if (parts.includes("..")) throw new GitError("render", `path "${p}" must stay inside the repository (no "..")`);
  return parts.join("/");
}

/** The commit a followed ref (a branch name, or a full ref: see follow.ts) points at. */
async function branchSha(mirrorPath: string, branch: string): Promise<string> {
  const res = await runGit(mirrorPath, ["rev-parse", "--verify", "--quiet", `${qualifiedRef(branch)}^{commit}`]);
  const sha = res.stdout.toString("utf8").trim();
  if (res.code !== 0 || !sha) throw new GitError("git-missing-ref", `${parseFollowedRef(branch).kind === "branch" ? `branch "${branch}"` : describeFollowedRef(branch)} not found in the mirror`);
  return sha;
}

/** The full sha of a commit, or a git-missing-ref error. */
export async function resolveCommit(mirrorPath: string, rev: string): Promise<string> {
  const res = await runGit(mirrorPath, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${rev}^{commit}`]);
  const sha = res.stdout.toString("utf8").trim();
  if (res.code !== 0 || !sha) throw new GitError("git-missing-ref", `revision "${rev}" not found in the mirror`);
  return sha;
}

const FIELD = "\x1f";
const RECORD = "\x1e";
const LOG_FORMAT = `${RECORD}%H${FIELD}%P${FIELD}%an${FIELD}%ae${FIELD}%aI${FIELD}%cn${FIELD}%ce${FIELD}%cI${FIELD}%B${FIELD}`;

/**
 * Commits reachable from `branch`, newest first (children always before their
 * parents), excluding everything reachable from a `known` commit — so a second
 * call returns only what arrived since. Known commits that no longer exist
 * (history rewritten, then garbage-collected) are ignored. With `limit`, the
 * newest `limit` commits; note that marking those as known hides their older
 * ancestors from later calls, so a first ingestion with a limit is a cut-off.
 */
export async function listRevisions(
  mirrorPath: string,
  branch: string,
  opts: { known?: Set<string>; limit?: number; /** The branch's commit as the run resolved it (not asked again: the ref may move meanwhile). */ tip?: string } = {},
): Promise<GitRevision[]> {
  const head = opts.tip ?? (await branchSha(mirrorPath, branch));
  if (opts.known?.has(head)) return [];
  const known = await existingCommits(mirrorPath, [...(opts.known ?? [])]);
  const revs = [head, ...known.map((s) => `^${s}`)];
  const args = [
    "log",
    "--stdin",
    "--date-order",
    `--format=${LOG_FORMAT}`,
    "-z",
    "--name-only",
    "--no-renames",
    "--diff-merges=first-parent",
    "--encoding=UTF-8",
  ];
  if (opts.limit !== undefined) args.push(`--max-count=${Math.max(0, Math.floor(opts.limit))}`);
  const res = await runGit(mirrorPath, args, { input: `${revs.join("\n")}\n` });
  if (res.code !== 0) {
    throw new GitError(
      looksLikeMissingRef(res.stderr) ? "git-missing-ref" : "git-fetch",
      `listing commits of "${branch}" failed: ${gitStderrSummary(res.stderr)}`,
    );
  }
  return parseLog(res.stdout.toString("utf8"));
}

/**
 * The known shas the mirror still has as commits. After a force-push and a
 * garbage collection, old shas are gone; git log would refuse them.
 */
async function existingCommits(mirrorPath: string, shas: string[]): Promise<string[]> {
  const candidates = shas.filter((s) => /^[0-9a-f]{40}([0-9a-f]{24})?$/i.test(s));
  if (candidates.length === 0) return [];
  const res = await runGit(mirrorPath, ["cat-file", "--batch-check=%(objectname) %(objecttype)"], {
    input: `${candidates.join("\n")}\n`,
  });
  if (res.code !== 0) throw new GitError("git-fetch", `checking known commits failed: ${gitStderrSummary(res.stderr)}`);
  return res.stdout
    .toString("utf8")
    .split("\n")
    .map((l) => l.split(" "))
    .filter(([, type]) => type === "commit")
    .map(([oid]) => oid!);
}

export function parseLog(out: string): GitRevision[] {
  const revisions: GitRevision[] = [];
  for (const record of out.split(RECORD)) {
    if (!record) continue;
    const fields: string[] = [];
    let at = 0;
    for (let i = 0; i < 8; i++) {
      const next = record.indexOf(FIELD, at);
      if (next < 0) break;
      fields.push(record.slice(at, next));
      at = next + 1;
    }
    const end = record.lastIndexOf(FIELD);
    if (fields.length < 8 || end < at) continue;
    const [sha, parents, an, ae, ad, cn, ce, cd] = fields as [string, string, string, string, string, string, string, string];
    const message = record.slice(at, end).replace(/\n+$/, "");
    const changedPaths = record
      .slice(end + 1)
      .split("\0")
      .map((p) => p.replace(/^\n/, ""))
      .filter((p) => p !== "");
    revisions.push({
      sha,
      parents: parents ? parents.split(" ") : [],
      authorName: an,
      authorEmail: ae,
      authoredAt: new Date(ad),
      committerName: cn,
      committerEmail: ce,
      committedAt: new Date(cd),
      message,
      changedPaths,
    });
  }
  return revisions;
}

/**
 * The approved revision: the newest commit on the branch's first-parent line
 * that changes `path` or any of `inputs` (repository-relative files the
 * render reads outside the path: an overlay's bases, components, patches and
 * generator files). A merge counts as touching when it changes one of them
 * relative to its first parent, which makes the approved revision the commit
 * that landed the change on the branch — what a GitOps controller reports.
 */
export async function approvedRevision(mirrorPath: string, branch: string, path: string, inputs: readonly string[] = []): Promise<string | null> {
  return approvedRevisionFrom(mirrorPath, await branchSha(mirrorPath, branch), path, inputs, branch);
}

/** approvedRevision from a given commit (a tip already resolved: every application of a run sees the same one). */
export async function approvedRevisionFrom(mirrorPath: string, head: string, path: string, inputs: readonly string[] = [], branch = head): Promise<string | null> {
  const rel = normalisePath(path);
  // Inputs inside the path are already covered by it; the root covers everything.
  const outside = rel ? [...new Set(inputs.map(normalisePath))].filter((p) => p !== "" && p !== rel && !p.startsWith(`${rel}/`)) : [];
  // Paths go on stdin (after "--"), so thousands of inputs never hit the argument-length limit.
  const args = ["--literal-pathspecs", "log", "--stdin", "-1", "--first-parent", "--format=%H"];
  const stdin = rel ? [head, "--", rel, ...outside] : [head];
  const res = await runGit(mirrorPath, args, { input: `${stdin.join("\n")}\n` });
  if (res.code !== 0) throw new GitError("git-missing-ref", `finding the approved revision of "${path}" on "${branch}" failed: ${gitStderrSummary(res.stderr)}`);
  const sha = res.stdout.toString("utf8").trim();
  return sha || null;
}

export async function isAncestor(mirrorPath: string, ancestor: string, descendant: string): Promise<boolean> {
  const [a, d] = await Promise.all([resolveCommit(mirrorPath, ancestor), resolveCommit(mirrorPath, descendant)]);
  const res = await runGit(mirrorPath, ["merge-base", "--is-ancestor", a, d]);
  if (res.code === 0) return true;
  if (res.code === 1) return false;
  throw new GitError("git-missing-ref", `ancestry of ${ancestor} and ${descendant} unknown: ${gitStderrSummary(res.stderr)}`);
}

/**
 * Hash of the tree (or file) at `path` in commit `sha`; null when the path
 * does not exist there. Unchanged hash = unchanged content, whatever commits
 * happened elsewhere in the repository.
 */
export async function treeHash(mirrorPath: string, sha: string, path: string): Promise<string | null> {
  const commit = await resolveCommit(mirrorPath, sha);
  const rel = normalisePath(path);
  const spec = rel ? `${commit}:${rel}` : `${commit}^{tree}`;
  const res = await runGit(mirrorPath, ["rev-parse", "--verify", "--quiet", "--end-of-options", spec]);
  const hash = res.stdout.toString("utf8").trim();
  return res.code === 0 && hash ? hash : null;
}
