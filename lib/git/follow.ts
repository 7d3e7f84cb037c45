// Which commit an application's ref points at in the mirror, for every kind
// of ref the controllers follow: a branch, a tag (lightweight or annotated),
// a semver range over tags, a pinned commit, a full ref name, the remote's
// default branch. resolveFollowedRef moves the mirror's own refs
// (followed-ref.ts) after each fetch; everything downstream (revisions,
// approved revision, ancestry, inference) then reads them as it reads a branch.
import type { RepositoryConfig } from "@/lib/config/schema";
import { GitError, gitStderrSummary } from "./errors";
import { runGit } from "./exec";
import { fetchRefs, remoteDefaultBranch } from "./mirror";
import { highestMatchingTag, parseRange, SemverRangeError } from "./semver";
import { parseFollowedRef } from "./followed-ref";

export interface ResolvedFollow {
  /** The commit the ref points at now. */
  sha: string;
  /** The full ref it was resolved through (the range's tag, the default branch), when that says more than the followed ref. */
  resolvedRef: string | null;
}

const FULL_SHA = /^[0-9a-f]{40}$/;

interface TagRow {
  name: string;
  commit: string;
  committedAt: number;
}

/**
 * Every tag of the mirror with the commit it points at (annotated tags
 * peeled), and where `also` (a followed ref) points now, in one git process.
 */
async function tagsOf(mirrorPath: string, also: string): Promise<{ tags: TagRow[]; current: string | null }> {
  const fmt = "%(refname)%00%(objecttype)%00%(objectname)%00%(committerdate:unix)%00%(*objecttype)%00%(*objectname)%00%(*committerdate:unix)";
  const res = await runGit(mirrorPath, ["for-each-ref", `--format=${fmt}`, "refs/tags/", also]);
  if (res.code !== 0) throw new GitError("git-fetch", `listing tags failed: ${gitStderrSummary(res.stderr)}`);
  const tags: TagRow[] = [];
  let current: string | null = null;
  for (const line of res.stdout.toString("utf8").split("\n")) {
    const [ref, type, sha, date, peeledType, peeledSha, peeledDate] = line.split("\0");
    if (!ref) continue;
    if (ref === also) {
      current = sha ?? null;
      continue;
    }
    if (!ref.startsWith("refs/tags/")) continue;
    const name = ref.slice("refs/tags/".length);
    if (type === "commit" && sha) tags.push({ name, commit: sha, committedAt: Number(date) || 0 });
    else if (type === "tag" && peeledType === "commit" && peeledSha) tags.push({ name, commit: peeledSha, committedAt: Number(peeledDate) || 0 });
  }
  return { tags, current };
}

async function commitAt(mirrorPath: string, ref: string): Promise<string | null> {
  const res = await runGit(mirrorPath, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`]);
  const sha = res.stdout.toString("utf8").trim();
  return res.code === 0 && sha ? sha : null;
}

async function updateRef(mirrorPath: string, ref: string, target: string, symbolic = false): Promise<void> {
  const args = symbolic ? ["symbolic-ref", ref, target] : ["update-ref", "--no-deref", ref, target];
  let res = await runGit(mirrorPath, args);
  // Two runs of one repository (two environments, two workers) may move the same ref at once, to the same commit.
  if (res.code !== 0 && /cannot lock ref|unable to create .*\.lock/i.test(res.stderr)) {
    await new Promise((r) => setTimeout(r, 100 + Math.random() * 400));
    res = await runGit(mirrorPath, args);
  }
  if (res.code !== 0) throw new GitError("git-fetch", `moving ${ref} to ${target} failed: ${gitStderrSummary(res.stderr)}`);
}

export interface FollowContext {
  repo: RepositoryConfig;
  mirrorsDir: string;
  mirrorPath: string;
  /** The branches the mirror's fetch reported. */
  heads: Readonly<Record<string, string>>;
  timeoutMs?: number;
}

/**
 * Points the followed ref at its commit after the mirror's fetch, and answers
 * that commit. A branch is read from the fetched heads; a tag from refs/tags
 * (annotated ones peeled to their commit); a semver range takes its highest
 * matching tag; a pinned commit must be in the mirror (on a fetched branch or
 * tag); a ref name is fetched by name; the default branch is asked of the
 * remote. Anything missing is a git-missing-ref GitError naming it.
 */
export async function resolveFollowedRef(ctx: FollowContext, followed: string): Promise<ResolvedFollow> {
  const f = parseFollowedRef(followed);
  const label = ctx.repo.name;
  switch (f.kind) {
    case "branch": {
      const sha = ctx.heads[f.branch];
      if (!sha) throw new GitError("git-missing-ref", `branch "${f.branch}" not found in repository "${label}"`);
      return { sha, resolvedRef: null };
    }
    case "tag": {
      const sha = await commitAt(ctx.mirrorPath, followed);
      if (!sha) throw new GitError("git-missing-ref", `tag "${f.tag}" not found in repository "${label}" (or it does not point at a commit)`);
      return { sha, resolvedRef: null };
    }
    case "semver": {
      let range;
      try {
        range = parseRange(f.range);
      } catch (e) {
        throw new GitError("git-missing-ref", e instanceof SemverRangeError ? e.message : String(e));
      }
      const { tags, current } = await tagsOf(ctx.mirrorPath, followed);
      const tag = highestMatchingTag(range, tags);
      const row = tags.find((t) => t.name === tag);
      if (!tag || !row) throw new GitError("git-missing-ref", `no tag of repository "${label}" matches semver range "${f.range}" (${tags.length} tags)`);
      if (current !== row.commit) await updateRef(ctx.mirrorPath, followed, row.commit);
      return { sha: row.commit, resolvedRef: `refs/tags/${tag}` };
    }
    case "commit": {
      let sha = await commitAt(ctx.mirrorPath, f.commit);
      // A commit on no branch or tag (a pull request's, say) is asked for by its id, as Flux's clone does; hosts that allow it send it.
      if (!sha && FULL_SHA.test(f.commit)) {
        sha = await fetchRefs(ctx.repo, ctx.mirrorsDir, [{ remote: f.commit, local: followed }], { timeoutMs: ctx.timeoutMs })
          .then(() => commitAt(ctx.mirrorPath, f.commit))
          .catch(() => null);
      }
      if (!sha || !sha.startsWith(f.commit)) throw new GitError("git-missing-ref", `commit ${f.commit} not found in repository "${label}" (it is on no branch or tag, and the server would not send it by id)`);
      // A ref keeps the pinned commit in the mirror should its branch be rewritten.
      await updateRef(ctx.mirrorPath, followed, sha);
      return { sha, resolvedRef: null };
    }
    case "name": {
      await fetchRefs(ctx.repo, ctx.mirrorsDir, [{ remote: f.name, local: followed }], { timeoutMs: ctx.timeoutMs });
      const sha = await commitAt(ctx.mirrorPath, followed);
      if (!sha) throw new GitError("git-missing-ref", `ref ${f.name} of repository "${label}" does not point at a commit`);
      return { sha, resolvedRef: null };
    }
    case "default": {
      const branch = await remoteDefaultBranch(ctx.repo, ctx.mirrorsDir, { timeoutMs: ctx.timeoutMs });
      const sha = ctx.heads[branch];
      if (!sha) throw new GitError("git-missing-ref", `the default branch "${branch}" of repository "${label}" was not fetched`);
      await updateRef(ctx.mirrorPath, followed, `refs/heads/${branch}`, true);
      return { sha, resolvedRef: `refs/heads/${branch}` };
    }
  }
}
