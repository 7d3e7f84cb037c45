// Where a commit is live, since when, and how long each promotion hop took.
// Ancestry-aware throughout: an environment running a later commit that
// contains X runs X's change, so X counts as live there.
import type { CommitGraph } from "./graph";

/** One AppliedRevision row: the environment ran `sha` from firstSeenAt until endedAt (null: still). */
export interface AppliedInterval {
  sha: string;
  firstSeenAt: string;
  endedAt: string | null;
}

export interface Liveness {
  live: boolean;
  /** Start of the current unbroken stretch of applied revisions that contain the commit. */
  since: string | null;
  /** The applied revision now, through which the commit is (or is not) live. */
  through: string | null;
  /** The applied revision is the commit itself, not a later one containing it. */
  exact: boolean;
  /** First time any applied revision contained the commit, even if later rolled back: the lead-time end point. */
  firstLiveAt: string | null;
}

const byStart = (a: AppliedInterval, b: AppliedInterval) => a.firstSeenAt.localeCompare(b.firstSeenAt);

/**
 * The environment's applied history, oldest first. When the history table has
 * nothing yet but the environment row names an applied revision, that revision
 * stands as a single open interval.
 */
export function normaliseHistory(history: AppliedInterval[], current: { sha: string | null; since: string | null } | null): AppliedInterval[] {
  const sorted = [...history].sort(byStart);
  if (current?.sha && !sorted.some((h) => h.endedAt === null && h.sha === current.sha)) {
    const last = sorted[sorted.length - 1];
    if (!last || last.sha !== current.sha) sorted.push({ sha: current.sha, firstSeenAt: current.since ?? last?.endedAt ?? new Date(0).toISOString(), endedAt: null });
  }
  return sorted;
}

export function liveness(graph: CommitGraph, history: AppliedInterval[], commit: string): Liveness {
  const sorted = [...history].sort(byStart);
  const current = sorted[sorted.length - 1];
  let firstLiveAt: string | null = null;
  for (const h of sorted) {
    if (graph.contains(h.sha, commit)) {
      firstLiveAt = h.firstSeenAt;
      break;
    }
  }
  if (!current || current.endedAt !== null || !graph.contains(current.sha, commit)) {
    return { live: false, since: null, through: current && current.endedAt === null ? current.sha : null, exact: false, firstLiveAt };
  }
  // Walk back while each earlier revision also contained the commit: a rollback breaks the stretch.
  let since = current.firstSeenAt;
  for (let i = sorted.length - 2; i >= 0; i--) {
    const h = sorted[i]!;
    if (!graph.contains(h.sha, commit)) break;
    since = h.firstSeenAt;
  }
  return { live: true, since, through: current.sha, exact: current.sha === commit, firstLiveAt };
}

export interface Hop {
  /** null for the first hop, which starts at the commit itself. */
  from: string | null;
  to: string;
  startedAt: string | null;
  reachedAt: string | null;
  durationMs: number | null;
}

/** Time from commit to the first environment, then from each environment to the next in promotion order. */
export function promotionHops(committedAt: string, chain: Array<{ environment: string; firstLiveAt: string | null }>): Hop[] {
  const hops: Hop[] = [];
  let prev: { environment: string | null; at: string | null } = { environment: null, at: committedAt };
  for (const step of chain) {
    const duration = prev.at && step.firstLiveAt ? Math.max(0, Date.parse(step.firstLiveAt) - Date.parse(prev.at)) : null;
    hops.push({ from: prev.environment, to: step.environment, startedAt: prev.at, reachedAt: step.firstLiveAt, durationMs: duration });
    prev = { environment: step.environment, at: step.firstLiveAt };
  }
  return hops;
}

/**
 * When the environment fell behind: the oldest approved commit (touching its
 * path, reachable from the approved revision) that the applied revision does
 * not contain. Null when the applied revision contains the approved one.
 */
export function behindSince(
  graph: CommitGraph,
  approvedSha: string | null,
  appliedSha: string | null,
  committedAt: (sha: string) => string | null,
  touchesPath: (sha: string) => boolean,
): { since: string; commits: number } | null {
  if (!approvedSha || !appliedSha) return null;
  if (graph.contains(appliedSha, approvedSha)) return null;
  const missing = graph.has(approvedSha) ? graph.range(appliedSha, approvedSha) : [approvedSha];
  let since: string | null = null;
  let commits = 0;
  for (const sha of missing) {
    if (!touchesPath(sha) && sha !== approvedSha) continue;
    commits++;
    const at = committedAt(sha);
    if (at && (since === null || at < since)) since = at;
  }
  return since ? { since, commits } : null;
}

/**
 * Total time in [from, to] during which some approved commit was not yet live:
 * the union of [committedAt, firstLiveAt ?? to] over the approved commits.
 */
export function staleTime(
  approved: Array<{ committedAt: string; firstLiveAt: string | null }>,
  window: { from: string; to: string },
): { totalMs: number; intervals: Array<{ start: string; end: string }> } {
  const lo = Date.parse(window.from);
  const hi = Date.parse(window.to);
  return unionOfIntervals(approved.map((a) => [Math.max(lo, Date.parse(a.committedAt)), Math.min(hi, a.firstLiveAt ? Date.parse(a.firstLiveAt) : hi)] as const));
}

/**
 * The time covered by any of the intervals (epoch milliseconds, [start, end]),
 * overlaps counted once; empty or reversed intervals are dropped.
 */
export function unionOfIntervals(spans: Iterable<readonly [number, number]>): { totalMs: number; intervals: Array<{ start: string; end: string }> } {
  const raw = [...spans].filter(([s, e]) => e > s).sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [s, e] of raw) {
    const last = merged[merged.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else merged.push([s, e]);
  }
  return {
    totalMs: merged.reduce((sum, [s, e]) => sum + (e - s), 0),
    intervals: merged.map(([s, e]) => ({ start: new Date(s).toISOString(), end: new Date(e).toISOString() })),
  };
}

/**
 * The revert that returns the path to `target` through a normal review:
 * every commit after target up to current, undone newest first. Driftwatch
 * prints it; it never pushes.
 */
export function revertCommand(target: string, current: string): string {
  return `git revert --no-edit ${target}..${current}`;
}
