// How an environment's applications add up on its card: how many are in
// sync, drifted, stale, paused or failing. Pure, `now` passed in; the
// collector stores the counts on the Environment row after every good run.

export interface RollupApplication {
  removedAt: Date | null;
  driftCount: number;
  approvedSha: string | null;
  approvedAt: Date | null;
  appliedSha: string | null;
  /** The controller reports reconciliation suspended. */
  suspended: boolean;
  /** An active pause targets this application (or the whole environment). */
  paused: boolean;
  /** The last run could not collect this application. */
  failing: boolean;
}

export interface ApplicationRollup {
  total: number;
  inSync: number;
  drifted: number;
  stale: number;
  paused: number;
  failing: number;
}

export const APPLICATION_STATUSES = ["Collection failing", "Paused", "Stale", "Drifted", "In sync", "Removed"] as const;
export type ApplicationStatus = (typeof APPLICATION_STATUSES)[number];

/**
 * Which buckets apply to one application (stale and drifted at once is
 * common). Stale: the approved revision is not the applied one and was
 * approved longer than `staleAfterMs` ago, so a rollout in progress is not an alarm.
 */
export function applicationFlags(a: RollupApplication, now: Date, staleAfterMs: number): { drifted: boolean; stale: boolean; paused: boolean; failing: boolean } {
  return {
    drifted: a.driftCount > 0,
    stale: a.approvedSha !== null && a.appliedSha !== null && a.approvedSha !== a.appliedSha && a.approvedAt !== null && now.getTime() - a.approvedAt.getTime() > staleAfterMs,
    paused: a.paused || a.suspended,
    failing: a.failing,
  };
}

/** The most urgent bucket, as one word for a list row (the order of the environment status). */
export function applicationStatus(a: RollupApplication, now: Date, staleAfterMs: number): ApplicationStatus {
  if (a.removedAt) return "Removed";
  const f = applicationFlags(a, now, staleAfterMs);
  return f.failing ? "Collection failing" : f.paused ? "Paused" : f.stale ? "Stale" : f.drifted ? "Drifted" : "In sync";
}

/** An application counts in every bucket that applies, and as in sync only when none does; removed ones not at all. */
export function rollupApplications(apps: readonly RollupApplication[], now: Date, staleAfterMs: number): ApplicationRollup {
  const out: ApplicationRollup = { total: 0, inSync: 0, drifted: 0, stale: 0, paused: 0, failing: 0 };
  for (const a of apps) {
    if (a.removedAt) continue;
    out.total++;
    const f = applicationFlags(a, now, staleAfterMs);
    if (f.drifted) out.drifted++;
    if (f.stale) out.stale++;
    if (f.paused) out.paused++;
    if (f.failing) out.failing++;
    if (!f.drifted && !f.stale && !f.paused && !f.failing) out.inSync++;
  }
  return out;
}
