// The first-parent history of a followed ref, walked once per tip and held in
// memory. A run of hundreds of applications of one repository asks the same
// few questions of every application (its approved revision, the recent
// revisions touching its path, whether a commit is on the branch); each was a
// git process per application. One `git log` walk answers all of them.
//
// Semantics are git's, as revisions.ts asks them:
// - a commit "touches" a path when its diff against its FIRST parent (a root
//   commit: against nothing) changes a file at or under the path — literal
//   pathspecs, so a directory matches by whole components ("a/b" matches
//   "a/b/c", not "a/bc"); renames count as a delete plus an add;
// - the approved revision is the newest commit on the first-parent line
//   touching the path or one of its inputs (`git log -1 --first-parent -- path inputs`);
//   the root ("" or ".") is touched by everything, so it is the tip itself.
// The walk stops at WALK_LIMIT commits: an answer that lies beyond it is not
// guessed, the caller asks git (the fallbacks here do).
import { LRUCache } from "lru-cache";
import { GitError, gitStderrSummary } from "./errors";
import { runGit } from "./exec";
import { approvedRevisionFrom, isAncestor, normalisePath } from "./revisions";

/** Commits walked at most per tip: far more than any question here needs in practice, few enough to hold in memory. */
export const WALK_LIMIT = 10_000;

interface LineCommit {
  sha: string;
  /** Null for a root commit. */
  firstParent: string | null;
  changedPaths: string[];
}

/**
 * A ref's first-parent line, oldest first, with the newest commit touching
 * each path prefix: the approved revision of any set of paths is then a few
 * map lookups, whatever the number of applications or commits.
 */
export class FirstParentHistory {
  /** Oldest first: a fast-forward appends. */
  private readonly line: LineCommit[] = [];
  private readonly position = new Map<string, number>();
  /** Every directory prefix and file of every changed path → the position of the newest commit touching it. */
  private readonly newestTouch = new Map<string, number>();
  /** Whether the walk reached a root commit: nothing older exists, so "not found" is an answer. */
  private complete = false;

  private constructor() {}

  /** Built from a walk, newest first (as git log prints it). */
  static fromWalk(newestFirst: readonly LineCommit[], complete: boolean): FirstParentHistory {
    const h = new FirstParentHistory();
    h.append(newestFirst);
    h.complete = complete;
    return h;
  }

  /** A copy that also holds `newer` (newest first; the oldest of them has this history's tip as its first parent). */
  extendedBy(newer: readonly LineCommit[]): FirstParentHistory {
    const h = new FirstParentHistory();
    h.append([...this.line].reverse());
    h.append(newer);
    h.complete = this.complete;
    return h;
  }

  private append(newestFirst: readonly LineCommit[]): void {
    for (let i = newestFirst.length - 1; i >= 0; i--) {
      const c = newestFirst[i]!;
      const at = this.line.length;
      this.line.push(c);
      this.position.set(c.sha, at);
      for (const p of c.changedPaths) {
        // "a/b/c" touches "a/b/c", "a/b" and "a".
        let prefix = p;
        for (;;) {
          this.newestTouch.set(prefix, at);
          const slash = prefix.lastIndexOf("/");
          if (slash < 0) break;
          prefix = prefix.slice(0, slash);
        }
      }
    }
  }

  get tip(): string | undefined {
    return this.line.at(-1)?.sha;
  }

  get length(): number {
    return this.line.length;
  }

  /** What the index holds, for the memory bound: commits plus changed paths. */
  get weight(): number {
    let n = this.line.length;
    for (const c of this.line) n += c.changedPaths.length;
    return n;
  }

  /**
   * The newest commit touching `path` or one of `inputs`; null when none does;
   * undefined when the answer may lie beyond the walk (ask git).
   */
  approved(path: string, inputs: readonly string[] = []): string | null | undefined {
    const rel = normalisePath(path);
    if (!rel) return this.tip ?? (this.complete ? null : undefined);
    let newest = -1;
    for (const spec of [rel, ...inputs.map(normalisePath)]) {
      // An input at the root would be everything; approvedRevision leaves it out (the path decides), so does this.
      if (!spec) continue;
      newest = Math.max(newest, this.newestTouch.get(spec) ?? -1);
    }
    if (newest >= 0) return this.line[newest]!.sha;
    return this.complete ? null : undefined;
  }

  /**
   * The `depth` newest commits among the `window` newest of the line that touch `path` or one of
   * `inputs`, newest first, leaving out `except`. Within the walk, so always an answer.
   */
  recentTouching(path: string, inputs: readonly string[], opts: { window: number; depth: number; except?: string }): string[] {
    const specs = specsOf(path, inputs);
    const out: string[] = [];
    const stop = Math.max(0, this.line.length - opts.window);
    for (let i = this.line.length - 1; i >= stop && out.length < opts.depth; i--) {
      const c = this.line[i]!;
      if (c.sha !== opts.except && touches(c.changedPaths, specs)) out.push(c.sha);
    }
    return out;
  }

  /**
   * Whether a commit after `since` on the line touches `path` or one of
   * `inputs`; undefined when `since` is not on the walked line.
   */
  touchedAfter(since: string, path: string, inputs: readonly string[] = []): boolean | undefined {
    const from = this.position.get(since);
    if (from === undefined) return undefined;
    const specs = specsOf(path, inputs);
    for (let i = from + 1; i < this.line.length; i++) if (touches(this.line[i]!.changedPaths, specs)) return true;
    return false;
  }

  /**
   * Whether a commit in (`since`, `until`] on the line changes `path`, one of
   * `inputs`, or a file named `anyFileNamed` wherever it lies; undefined when
   * either commit is not on the walked line or `until` is older than `since`.
   */
  touchedBetween(since: string, until: string, path: string, inputs: readonly string[] = [], opts: { anyFileNamed?: string } = {}): boolean | undefined {
    const from = this.position.get(since);
    const to = this.position.get(until);
    if (from === undefined || to === undefined || to < from) return undefined;
    const specs = specsOf(path, inputs);
    const named = opts.anyFileNamed;
    for (let i = from + 1; i <= to; i++) {
      const changed = this.line[i]!.changedPaths;
      if (touches(changed, specs)) return true;
      if (named && changed.some((p) => p === named || p.endsWith(`/${named}`))) return true;
    }
    return false;
  }

  /**
   * Whether `ancestor` is an ancestor of (or is) `descendant`, when both are
   * on the walked line; undefined otherwise (a side branch's commit: ask git).
   */
  isAncestor(ancestor: string, descendant: string): boolean | undefined {
    if (ancestor === descendant && this.position.has(ancestor)) return true;
    const a = this.position.get(ancestor);
    const d = this.position.get(descendant);
    if (a === undefined || d === undefined) return undefined;
    return a <= d;
  }
}

/** Paths as literal pathspecs: "" (the root) matches everything. */
function specsOf(path: string, inputs: readonly string[]): string[] {
  return [...new Set([path, ...inputs].map(normalisePath))];
}

function touches(changedPaths: readonly string[], specs: readonly string[]): boolean {
  for (const spec of specs) {
    if (spec === "") return true;
    for (const p of changedPaths) if (p === spec || (p.length > spec.length && p.startsWith(spec) && p[spec.length] === "/")) return true;
  }
  return false;
}

const FIELD = "\x1f";
const RECORD = "\x1e";

/** One first-parent walk: from `tip`, stopping before anything reachable from `exclude`, at most `limit` commits. */
async function walk(mirrorPath: string, tip: string, opts: { exclude?: string; limit: number }): Promise<{ commits: LineCommit[]; ok: boolean }> {
  const args = ["log", "--stdin", "--first-parent", `--format=${RECORD}%H${FIELD}%P${FIELD}`, "-z", "--name-only", "--no-renames", "--diff-merges=first-parent", `--max-count=${opts.limit}`];
  const revs = [tip, ...(opts.exclude ? [`^${opts.exclude}`] : [])];
  const res = await runGit(mirrorPath, args, { input: `${revs.join("\n")}\n` });
  if (res.code !== 0) {
    // A gone excluded commit (a force-push, then a garbage collection) is not an error: walk again without it.
    if (opts.exclude) return { commits: [], ok: false };
    throw new GitError("git-missing-ref", `walking the history of ${tip.slice(0, 12)} failed: ${gitStderrSummary(res.stderr)}`);
  }
  const commits: LineCommit[] = [];
  for (const record of res.stdout.toString("utf8").split(RECORD)) {
    if (!record) continue;
    const a = record.indexOf(FIELD);
    const b = record.indexOf(FIELD, a + 1);
    if (a < 0 || b < 0) continue;
    const parents = record.slice(a + 1, b);
    commits.push({
      sha: record.slice(0, a),
      firstParent: parents ? parents.split(" ")[0]! : null,
      changedPaths: record
        .slice(b + 1)
        .split("\0")
        .map((p) => p.replace(/^\n/, ""))
        .filter((p) => p !== ""),
    });
  }
  return { commits, ok: true };
}

async function fullWalk(mirrorPath: string, tip: string, limit: number): Promise<FirstParentHistory> {
  const { commits } = await walk(mirrorPath, tip, { limit });
  if (commits[0]?.sha !== tip) throw new GitError("git-missing-ref", `commit ${tip.slice(0, 12)} not found in the mirror`);
  return FirstParentHistory.fromWalk(commits, commits.length < limit || commits.at(-1)?.firstParent === null);
}

/**
 * The history at `tip`, built from `previous` (the same ref's index at an
 * older tip) when the ref moved forward along its first-parent line: only the
 * new commits are walked. A force-push (the old tip is not on the new line)
 * walks again from scratch.
 */
async function buildHistory(mirrorPath: string, tip: string, previous: FirstParentHistory | undefined, limit: number): Promise<FirstParentHistory> {
  const oldTip = previous?.tip;
  if (previous && oldTip && oldTip !== tip && previous.length < limit) {
    const { commits, ok } = await walk(mirrorPath, tip, { exclude: oldTip, limit: limit - previous.length });
    if (ok && commits.length > 0 && commits[0]!.sha === tip && commits.at(-1)!.firstParent === oldTip) return previous.extendedBy(commits);
  }
  return fullWalk(mirrorPath, tip, limit);
}

interface Entry {
  tip: string;
  history: Promise<FirstParentHistory>;
}

// A few refs of a few repositories (an entry holds up to WALK_LIMIT commits and their paths), weighed by what they hold.
const MAX_REFS = 16;
const MAX_WEIGHT = 4_000_000;
let indexes = newIndexes();
let walkLimit = WALK_LIMIT;

function newIndexes() {
  return new LRUCache<string, Entry>({ max: MAX_REFS, maxSize: MAX_WEIGHT, sizeCalculation: () => 1 });
}

/** Empties the indexes; `limit` changes the walk's cap (tests of the fallbacks). */
export function resetHistoryIndexes(opts: { limit?: number } = {}): void {
  indexes = newIndexes();
  walkLimit = opts.limit ?? WALK_LIMIT;
}

/**
 * The first-parent history of `ref` (the name it is followed by: a branch, a
 * tag, a range) at `tip`, a commit the run already resolved. Concurrent
 * callers share one walk; the next tip of the same ref extends it.
 */
export function firstParentHistory(mirrorPath: string, ref: string, tip: string): Promise<FirstParentHistory> {
  const key = `${mirrorPath}\0${ref}`;
  const hit = indexes.get(key);
  if (hit && hit.tip === tip) return hit.history;
  const previous = hit ? hit.history.catch(() => undefined) : Promise.resolve(undefined);
  const limit = walkLimit;
  const history = previous.then((p) => buildHistory(mirrorPath, tip, p, limit));
  const entry = { tip, history };
  indexes.set(key, entry);
  history.then(
    (h) => {
      if (indexes.peek(key) !== entry) return;
      indexes.delete(key);
      // A history heavier than the whole budget is still kept (alone): dropping it would walk again for every application.
      indexes.set(key, entry, { size: Math.min(MAX_WEIGHT, Math.max(1, h.weight)) });
    },
    () => {
      if (indexes.peek(key) === entry) indexes.delete(key);
    },
  );
  return history;
}

/** The approved revision at `tip` (see revisions.ts approvedRevision), from the index, else from git. */
export async function approvedRevisionAt(mirrorPath: string, ref: string, tip: string, path: string, inputs: readonly string[] = []): Promise<string | null> {
  const known = (await firstParentHistory(mirrorPath, ref, tip)).approved(path, inputs);
  return known !== undefined ? known : approvedRevisionFrom(mirrorPath, tip, path, inputs, ref);
}

/** Whether `ancestor` is in the history of `descendant`: from the index when both are on the ref's first-parent line, else from git. */
export async function isAncestorAt(mirrorPath: string, ref: string, tip: string, ancestor: string, descendant: string): Promise<boolean> {
  const known = (await firstParentHistory(mirrorPath, ref, tip)).isAncestor(ancestor, descendant);
  return known ?? isAncestor(mirrorPath, ancestor, descendant);
}
