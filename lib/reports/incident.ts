// The incident report: what happened in one environment during one window,
// assembled for a manager to read on paper. Pure: the loader hands in rows,
// `now` and the window; nothing here reads a clock or a database.
import { formatDuration, plural } from "@/lib/dashboard/format";
import type { TimelineEvent } from "@/lib/timeline";

export interface ReportWindow {
  from: string;
  to: string;
}

export type DriftResolution = "reverted" | "adopted" | "deleted" | "ignored";
export type ReturnPath = "revert" | "adopt";

export interface ClaimRow {
  owner: string;
  returnPath: ReturnPath;
  status: string;
  reason: string;
  createdAt: string;
  expiresAt: string;
  incidentUrl: string | null;
}

export interface DriftRow {
  key: string;
  kind: string;
  namespace: string;
  name: string;
  type: "Modified" | "Missing" | "Extra";
  /** The field manager the cluster recorded; never a guessed person. */
  attributionManager: string | null;
  attributionClass: string | null;
  openedAt: string;
  resolvedAt: string | null;
  resolution: DriftResolution | null;
  resolutionSha: string | null;
  claims: ClaimRow[];
}

export interface PauseRow {
  controllerRef: string | null;
  origin: "dashboard" | "detected";
  createdBy: string | null;
  owner: string | null;
  detectedManager: string | null;
  reason: string | null;
  incidentUrl: string | null;
  startedAt: string;
  expiresAt: string | null;
  endedAt: string | null;
  endedBy: string | null;
  endReason: string | null;
}

export interface AlertRow {
  type: string;
  severity: string;
  title: string;
  openedAt: string;
  resolvedAt: string | null;
}

/** A commit that changes the environment's path, with when it (or a later commit containing it) first ran there. */
export interface LiveCommitRow {
  sha: string;
  message: string;
  authorName: string;
  committedAt: string;
  /**
   * Environments whose path it changes (where it was made, for a change later
   * promoted); for an environment whose applications have sources of their
   * own, the applications whose files (or declared spec, in an app-of-apps)
   * it changes that ran it.
   */
  changes: string[];
  firstLiveAt: string | null;
  /**
   * The application ran the commit only as an app-of-apps parent applying a
   * manifest it changed that declares another application (whose declared
   * spec changed): what the commit changes runs when that other one runs it.
   */
  appliedForAnother?: boolean;
}

export interface IncidentReportInput {
  environment: string;
  window: ReportWindow;
  now: string;
  generatedBy: string;
  timeline: TimelineEvent[];
  timelineTruncated: boolean;
  drift: DriftRow[];
  pauses: PauseRow[];
  alerts: AlertRow[];
  commits: LiveCommitRow[];
}

export interface ReportDrift extends DriftRow {
  object: string;
  openedInWindow: boolean;
  resolvedInWindow: boolean;
  /** Who changed it, as far as the cluster knows. */
  changedBy: string;
  /** The newest claim's owner, or null when nobody owns it. */
  owner: string | null;
  returnPath: ReturnPath | null;
  /** How it ended, in words: "reverted to Git", "adopted into Git (abc1234)", "still open". */
  outcome: string;
}

export interface ReportPause extends PauseRow {
  scope: string;
  /** Who is answerable for it: the owner, else who made it, else the manager that suspended it. */
  who: string;
  /** Paused time inside the window. */
  durationInWindowMs: number;
  ongoing: boolean;
}

export interface ReportAlert extends AlertRow {
  durationMs: number;
  ongoing: boolean;
  openedInWindow: boolean;
}

export interface ReportLeadTime {
  sha: string;
  shortSha: string;
  message: string;
  authorName: string;
  committedAt: string;
  changes: string[];
  liveAt: string;
  leadTimeMs: number;
}

export interface IncidentReport {
  environment: string;
  window: ReportWindow;
  generatedAt: string;
  generatedBy: string;
  summary: string;
  counts: {
    driftOpened: number;
    driftResolved: number;
    resolutions: Record<DriftResolution, number>;
    pauses: number;
    pausedMs: number;
    alerts: number;
    commitsLive: number;
    medianLeadTimeMs: number | null;
  };
  timeline: TimelineEvent[];
  timelineTruncated: boolean;
  drift: ReportDrift[];
  pauses: ReportPause[];
  alerts: ReportAlert[];
  leadTimes: ReportLeadTime[];
}

const RESOLUTION_WORDS: Record<DriftResolution, string> = {
  reverted: "reverted",
  adopted: "adopted into Git",
  deleted: "deleted",
  ignored: "ignored",
};

const ms = (iso: string) => Date.parse(iso);
const earliest = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : ms(b) < ms(a) ? b : a);
const within = (iso: string | null, w: ReportWindow) => iso !== null && ms(iso) >= ms(w.from) && ms(iso) <= ms(w.to);
/** Open for any part of [from, to]. */
const overlaps = (start: string, end: string | null, w: ReportWindow) => ms(start) <= ms(w.to) && (end === null || ms(end) >= ms(w.from));

/** The middle value (the mean of the two middle ones for an even count), as people expect of "median". */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** What the collector recorded of an application declared by an app-of-apps parent (Application.declaredChanges, declaringFiles). */
export interface DeclaredSpecRecord {
  declaredChanges: readonly string[];
  declaringFiles: readonly string[];
}

/**
 * Whether an application ran commit `sha` only as the app-of-apps parent applying other applications' changed manifests
 * (LiveCommitRow.appliedForAnother): the commit is not among its own declared changes, and every file it changed under the
 * application's source (`ownPaths`) declares or patches one of `others` that it is a declared change of. A commit that changed
 * a file of the application's own as well (another application's values edited alongside a child's image bump) went live
 * when the application ran it: it keeps its time. None of its own files changed (a change to its instance in another
 * environment): its own time stands too.
 */
export function appliedOnlyForOthers(sha: string, ownPaths: readonly string[], self: DeclaredSpecRecord, others: readonly DeclaredSpecRecord[]): boolean {
  if (ownPaths.length === 0 || self.declaredChanges.includes(sha)) return false;
  const declaring = new Set(others.filter((o) => o.declaredChanges.includes(sha)).flatMap((o) => o.declaringFiles));
  return ownPaths.every((p) => declaring.has(p));
}

/**
 * One row per commit from the rows of each application of an environment that
 * holds several (each row's `changes` naming its application): a commit that
 * went live in several applications went live in the environment once, when
 * the first of them ran it, and names every one of them. A parent that only
 * applied a child's changed manifest is named, but the commit went live when
 * the child ran it (the image bump runs then); only when no child has yet does
 * the parent's time stand.
 */
export function mergeApplicationCommits(rows: readonly LiveCommitRow[]): LiveCommitRow[] {
  const bySha = new Map<string, LiveCommitRow[]>();
  for (const r of rows) bySha.set(r.sha, [...(bySha.get(r.sha) ?? []), r]);
  return [...bySha.values()].map((same) => {
    const liveAt = (of: readonly LiveCommitRow[]) => of.reduce<string | null>((at, r) => earliest(at, r.firstLiveAt), null);
    const { sha, message, authorName, committedAt } = same[0]!;
    return {
      sha,
      message,
      authorName,
      committedAt,
      changes: [...new Set(same.flatMap((r) => r.changes))].sort(),
      firstLiveAt: liveAt(same.filter((r) => !r.appliedForAnother)) ?? liveAt(same),
    };
  });
}

function objectName(d: DriftRow): string {
  return `${d.kind} ${d.namespace ? `${d.namespace}/` : ""}${d.name}`;
}

function outcomeOf(d: DriftRow): string {
  if (!d.resolution || !d.resolvedAt) return "still open";
  const sha = d.resolutionSha ? ` (${d.resolutionSha.slice(0, 7)})` : "";
  return d.resolution === "reverted" ? "reverted to Git" : `${RESOLUTION_WORDS[d.resolution]}${sha}`;
}

function toReportDrift(d: DriftRow, w: ReportWindow): ReportDrift {
  const newest = [...d.claims].sort((a, b) => ms(b.createdAt) - ms(a.createdAt))[0] ?? null;
  const manager = d.attributionManager ? `${d.attributionManager}${d.attributionClass ? ` (${d.attributionClass})` : ""}` : "not recorded by the cluster";
  return {
    ...d,
    object: objectName(d),
    openedInWindow: within(d.openedAt, w),
    resolvedInWindow: within(d.resolvedAt, w),
    changedBy: manager,
    owner: newest?.owner ?? null,
    returnPath: newest?.returnPath ?? null,
    outcome: outcomeOf(d),
  };
}

function toReportPause(p: PauseRow, w: ReportWindow, now: string): ReportPause {
  const end = Math.min(ms(p.endedAt ?? now), ms(w.to));
  const start = Math.max(ms(p.startedAt), ms(w.from));
  const scope = p.controllerRef ?? "whole environment";
  const who = p.owner ?? p.createdBy ?? (p.detectedManager ? `unattributed (manager ${p.detectedManager})` : "unattributed");
  return { ...p, scope, who, durationInWindowMs: Math.max(0, end - start), ongoing: p.endedAt === null };
}

function summarise(c: IncidentReport["counts"]): string {
  const resolvedHow = (Object.keys(RESOLUTION_WORDS) as DriftResolution[])
    .filter((r) => c.resolutions[r] > 0)
    .map((r) => `${c.resolutions[r]} ${RESOLUTION_WORDS[r]}`);
  const drift = `${plural(c.driftOpened, "drift item")} opened, ${c.driftResolved} resolved${resolvedHow.length ? ` (${resolvedHow.join(", ")})` : ""}`;
  const pauses = `${plural(c.pauses, "pause")}${c.pauses ? ` (${formatDuration(c.pausedMs)})` : ""}`;
  const alerts = plural(c.alerts, "alert");
  const lead =
    c.medianLeadTimeMs === null
      ? "no commit went live"
      : `median lead time ${formatDuration(c.medianLeadTimeMs)} over ${plural(c.commitsLive, "commit")} that went live`;
  return `${drift}, ${pauses}, ${alerts}; ${lead}.`;
}

export function assembleIncidentReport(input: IncidentReportInput): IncidentReport {
  const w = input.window;
  const drift = input.drift
    .filter((d) => within(d.openedAt, w) || within(d.resolvedAt, w))
    .map((d) => toReportDrift(d, w))
    .sort((a, b) => ms(a.openedAt) - ms(b.openedAt) || a.key.localeCompare(b.key));
  const pauses = input.pauses
    .filter((p) => overlaps(p.startedAt, p.endedAt, w))
    .map((p) => toReportPause(p, w, input.now))
    .sort((a, b) => ms(a.startedAt) - ms(b.startedAt));
  const alerts = input.alerts
    .filter((a) => overlaps(a.openedAt, a.resolvedAt, w))
    .map((a) => ({ ...a, durationMs: ms(a.resolvedAt ?? input.now) - ms(a.openedAt), ongoing: a.resolvedAt === null, openedInWindow: within(a.openedAt, w) }))
    .sort((a, b) => ms(a.openedAt) - ms(b.openedAt));
  const leadTimes = input.commits
    .filter((c): c is LiveCommitRow & { firstLiveAt: string } => within(c.firstLiveAt, w))
    .map((c) => ({
      sha: c.sha,
      shortSha: c.sha.slice(0, 7),
      message: c.message.split("\n", 1)[0] ?? "",
      authorName: c.authorName,
      committedAt: c.committedAt,
      changes: c.changes,
      liveAt: c.firstLiveAt,
      leadTimeMs: ms(c.firstLiveAt) - ms(c.committedAt),
    }))
    .sort((a, b) => ms(a.liveAt) - ms(b.liveAt) || ms(a.committedAt) - ms(b.committedAt));

  const resolved = drift.filter((d) => d.resolvedInWindow);
  const resolutions: Record<DriftResolution, number> = { reverted: 0, adopted: 0, deleted: 0, ignored: 0 };
  for (const d of resolved) if (d.resolution) resolutions[d.resolution]++;
  const counts: IncidentReport["counts"] = {
    driftOpened: drift.filter((d) => d.openedInWindow).length,
    driftResolved: resolved.length,
    resolutions,
    pauses: pauses.length,
    pausedMs: pauses.reduce((sum, p) => sum + p.durationInWindowMs, 0),
    alerts: alerts.length,
    commitsLive: leadTimes.length,
    medianLeadTimeMs: median(leadTimes.map((l) => l.leadTimeMs)),
  };

  return {
    environment: input.environment,
    window: w,
    generatedAt: input.now,
    generatedBy: input.generatedBy,
    summary: summarise(counts),
    counts,
    timeline: input.timeline.filter((e) => within(e.at, w)),
    timelineTruncated: input.timelineTruncated,
    drift,
    pauses,
    alerts,
    leadTimes,
  };
}
