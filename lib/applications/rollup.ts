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

/**
 * An application counts in every bucket that applies (stale and drifted at
 * once is common), and as in sync only when none does. Stale: the approved
 * revision is not the applied one and was approved longer than `staleAfterMs`
 * ago, so a rollout in progress is not an alarm.
 */
export function rollupApplications(apps: readonly RollupApplication[], now: Date, staleAfterMs: number): ApplicationRollup {
  const out: ApplicationRollup = { total: 0, inSync: 0, drifted: 0, stale: 0, paused: 0, failing: 0 };
  for (const a of apps) {
    if (a.removedAt) continue;
    out.total++;
    const drifted = a.driftCount > 0;
    const stale = a.approvedSha !== null && a.appliedSha !== null && a.approvedSha !== a.appliedSha && a.approvedAt !== null && now.getTime() - a.approvedAt.getTime() > staleAfterMs;
    const paused = a.paused || a.suspended;
    if (drifted) out.drifted++;
    if (stale) out.stale++;
    if (paused) out.paused++;
    if (a.failing) out.failing++;
    if (!drifted && !stale && !paused && !a.failing) out.inSync++;
  }
  return out;
}
