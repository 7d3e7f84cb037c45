// How an environment's applications add up on its card: how many are in
// sync, drifted, stale, paused or failing. Pure, `now` passed in; the
// collector stores the counts on the Environment row after every good run.

export interface RollupApplication {
  removedAt: Date | null;
  driftCount: number;
  approvedSha: string | null;
  approvedAt: Date | null;
  appliedSha: string | null;
  /** The applied revision does not contain the approved one (by git ancestry, as the collector found). */
  appliedBehind: boolean;
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
 * common). Stale: the applied revision does not contain the approved one,
 * approved longer than `staleAfterMs` ago, so a rollout in progress is not an
 * alarm, nor is a newer commit to another application's files.
 */
export function applicationFlags(a: RollupApplication, now: Date, staleAfterMs: number): { drifted: boolean; stale: boolean; paused: boolean; failing: boolean } {
  return {
    drifted: a.driftCount > 0,
    stale: a.appliedBehind && a.approvedSha !== null && a.appliedSha !== null && a.approvedAt !== null && now.getTime() - a.approvedAt.getTime() > staleAfterMs,
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

/** What an application row and the environment's active pauses say, as stored; `controller` and `lastError` are the JSON columns. */
export interface RollupRow {
  id: string;
  removedAt: Date | null;
  driftCount: number;
  approvedSha: string | null;
  approvedAt: Date | null;
  appliedSha: string | null;
  appliedBehind: boolean;
  controller: unknown;
  lastError: unknown;
}

/** An active pause: `applicationId` null pauses the whole environment. */
export interface PauseTarget {
  applicationId: string | null;
  startedAt: Date;
}

/**
 * The rollup's view of stored application rows, by row id. The collector (after
 * a run), the applications list and the environments page all read it here, so
 * an application is paused or failing by the same rule everywhere. A pause that
 * starts in the future does not count yet.
 */
export function rollupInputs(rows: readonly RollupRow[], pauses: readonly PauseTarget[], now: Date): Map<string, RollupApplication> {
  const active = pauses.filter((p) => p.startedAt.getTime() <= now.getTime());
  const wholeEnvironmentPaused = active.some((p) => p.applicationId === null);
  const pausedApps = new Set(active.map((p) => p.applicationId));
  return new Map(
    rows.map((r) => [
      r.id,
      {
        removedAt: r.removedAt,
        driftCount: r.driftCount,
        approvedSha: r.approvedSha,
        approvedAt: r.approvedAt,
        appliedSha: r.appliedSha,
        appliedBehind: r.appliedBehind,
        suspended: typeof r.controller === "object" && r.controller !== null && (r.controller as { suspended?: unknown }).suspended === true,
        paused: wholeEnvironmentPaused || pausedApps.has(r.id),
        failing: r.lastError !== null && r.lastError !== undefined,
      },
    ]),
  );
}

/** The statuses that need someone's attention, most urgent first. */
export type AttentionStatus = Exclude<ApplicationStatus, "In sync" | "Removed">;

export interface WorstApplication {
  name: string;
  status: AttentionStatus;
  driftCount: number;
}

/**
 * The applications to look at first: those not in sync (removed ones left out),
 * by status urgency (failing, paused, stale, drifted), then the most drift,
 * then by name so the card does not reshuffle between polls.
 */
export function worstApplications(apps: readonly (RollupApplication & { name: string })[], now: Date, staleAfterMs: number, limit = 3): WorstApplication[] {
  const out: WorstApplication[] = [];
  for (const a of apps) {
    const status = applicationStatus(a, now, staleAfterMs);
    if (status === "In sync" || status === "Removed") continue;
    out.push({ name: a.name, status, driftCount: a.driftCount });
  }
  const rank = (s: AttentionStatus) => APPLICATION_STATUSES.indexOf(s);
  out.sort((a, b) => rank(a.status) - rank(b.status) || b.driftCount - a.driftCount || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return out.slice(0, Math.max(0, limit));
}

export type RollupBucket = "inSync" | "drifted" | "stale" | "paused" | "failing";

/** Each bucket's words and status, in the order the card reads them: the good news first, then by urgency, lowest first. */
const BUCKETS: ReadonlyArray<readonly [RollupBucket, string, ApplicationStatus]> = [
  ["inSync", "in sync", "In sync"],
  ["drifted", "drifted", "Drifted"],
  ["stale", "stale", "Stale"],
  ["paused", "paused", "Paused"],
  ["failing", "failing", "Collection failing"],
];

/** The nonzero buckets, each with its words ("2 drifted") and status, for a line whose parts are styled apart. */
export function rollupParts(r: ApplicationRollup): Array<{ bucket: RollupBucket; status: ApplicationStatus; count: number; text: string }> {
  return BUCKETS.filter(([b]) => r[b] > 0).map(([bucket, words, status]) => ({ bucket, status, count: r[bucket], text: `${r[bucket]} ${words}` }));
}

/** "12 applications", "1 application", "No applications". */
export function rollupHeadline(r: ApplicationRollup): string {
  if (r.total === 0) return "No applications";
  return `${r.total} ${r.total === 1 ? "application" : "applications"}`;
}

/** The rollup in words: "12 applications: 9 in sync, 2 drifted, 1 stale" (empty buckets left out). */
export function rollupWords(r: ApplicationRollup): string {
  const parts = rollupParts(r);
  return parts.length === 0 ? rollupHeadline(r) : `${rollupHeadline(r)}: ${parts.map((p) => p.text).join(", ")}`;
}
