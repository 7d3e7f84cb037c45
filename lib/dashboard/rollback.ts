// Rollback guidance: the earlier applied revisions of one path on one branch,
// each with the revert that returns the path to it through a normal review.
// An environment with one source gets it for its path; an application whose
// environment discovers it, for its own source's path in its own repository.
import { revertCommand, touchesPath } from "@/lib/lineage";
import type { RevisionDto, RollbackTargetDto } from "@/lib/api/contract";
import { revisionDto, type RepoHistory } from "./revisions";

export interface AppliedRow {
  sha: string;
  source: string;
  firstSeenAt: Date;
  endedAt: Date | null;
}

export interface RollbackSubject {
  /** Named in the restore command's commit message ("Roll back <name> to abc1234"). */
  name: string;
  /** The path in the repository the subject renders (a leading ./ is fine). */
  path: string;
  approvedSha: string | null;
  appliedSha: string | null;
}

export interface Rollback {
  current: RevisionDto | null;
  targets: RollbackTargetDto[];
}

export const NO_ROLLBACK: Rollback = { current: null, targets: [] };

function shellQuote(s: string): string {
  return /^[A-Za-z0-9._/-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Up to ten earlier applied revisions (newest first, as `applied` is given)
 * to return to. Reverting must land on what the branch will apply next: the
 * newest approved revision, or what runs now.
 *
 * `ownCommitsOnly` is for an application sharing its repository and branch
 * with others: its controller reports every push's head, so its applied
 * history holds revisions that differ from the current one only in other
 * applications' files, and a range revert would undo their commits too. It
 * keeps the targets whose return undoes a commit changing the application's
 * path (the newest applied revision of each), and reverts those commits only.
 */
export function rollbackGuidance(subject: RollbackSubject, h: RepoHistory | undefined, applied: readonly AppliedRow[], opts: { ownCommitsOnly?: boolean } = {}): Rollback {
  const current = subject.approvedSha ?? subject.appliedSha;
  if (!current) return NO_ROLLBACK;
  const seen = new Set<string>([current, ...(subject.appliedSha ? [subject.appliedSha] : [])]);
  const undone = new Set<string>();
  const targets: RollbackTargetDto[] = [];
  const path = subject.path.replace(/^\.\//, "") || ".";
  for (const a of applied) {
    if (seen.has(a.sha)) continue;
    seen.add(a.sha);
    const contained = h ? h.graph.contains(current, a.sha) : false;
    const range = contained && h ? h.graph.range(a.sha, current) : [];
    const own = opts.ownCommitsOnly ? range.filter((sha) => touchesPath(h?.commits.get(sha)?.changedPaths ?? [], subject.path)) : range;
    if (opts.ownCommitsOnly && contained) {
      // Returning here changes none of the application's files, or the same ones as a newer target already listed.
      const key = own.join(" ");
      if (own.length === 0 || undone.has(key)) continue;
      undone.add(key);
    }
    let touchesOther = 0;
    let merges = 0;
    for (const sha of own) {
      const c = h?.commits.get(sha);
      if (!c) continue;
      if (c.parents.length > 1) merges++;
      if (c.changedPaths.some((p) => !touchesPath([p], subject.path))) touchesOther++;
    }
    const short = a.sha.slice(0, 7);
    targets.push({
      revision: revisionDto(a.sha, h?.commits.get(a.sha)),
      source: a.source,
      firstSeenAt: a.firstSeenAt.toISOString(),
      endedAt: a.endedAt ? a.endedAt.toISOString() : null,
      revertCommand: !contained ? null : own.length === range.length ? revertCommand(a.sha, current) : `git revert --no-edit ${own.join(" ")}`,
      commits: own.length,
      touchesOtherPaths: touchesOther,
      mergeCommits: merges,
      restoreCommand: `git restore --source=${a.sha} -- ${shellQuote(path)} && git commit -m ${shellQuote(`Roll back ${subject.name} to ${short}`)}`,
    });
    if (targets.length >= 10) break;
  }
  return { current: revisionDto(current, h?.commits.get(current)), targets };
}
