// What the dashboard's JSON API returns and its pages render. Plain data:
// every time is an ISO-8601 UTC string, nothing from Prisma leaks, and client
// components import these types without pulling in the database.
import type { ControllerCondition, ControllerStatus } from "@/lib/kube/controller-status";
import type { RolloutStatus, RunError, RunProgress, EnvironmentError } from "@/lib/domain/types";
import type { EnvironmentStatus, StatusFlag } from "@/lib/environments/status";
import type { Hop } from "@/lib/lineage/promotion";
import type { TimelineEvent, TimelineType } from "@/lib/timeline/merge";

export type { EnvironmentStatus, StatusFlag, ControllerCondition, ControllerStatus, RolloutStatus, RunError, RunProgress, Hop, TimelineEvent, TimelineType };

export type DriftTypeName = "Modified" | "Missing" | "Extra";
export type ManagerClassName = "human" | "controller" | "system" | "unknown";

export interface RevisionDto {
  sha: string;
  shortSha: string;
  /** First line of the commit message; null when the commit is not in the store yet. */
  message: string | null;
  authorName: string | null;
  committedAt: string | null;
}

export interface UserRefDto {
  id: string;
  username: string;
  displayName: string | null;
}

export interface PauseDto {
  id: string;
  environment: string;
  /** "kind/namespace/name" of one controller object, or null for the whole environment. */
  controllerRef: string | null;
  origin: "dashboard" | "detected";
  /** Detected in the cluster with no owner: someone must take it over. */
  unattributed: boolean;
  createdBy: UserRefDto | null;
  owner: UserRefDto | null;
  reason: string | null;
  incidentUrl: string | null;
  startedAt: string;
  expiresAt: string | null;
  expired: boolean;
  executed: boolean;
  detectedManager: string | null;
  detectedAt: string | null;
  endedAt: string | null;
  endReason: string | null;
}

export interface AlertDto {
  id: string;
  environment: string | null;
  type: string;
  severity: string;
  title: string;
  openedAt: string;
  updatedAt: string;
  /** The built-in (or configured) runbook text or URL, when the alerter stored one in details. */
  runbook: string | null;
  summary: string | null;
}

export interface DriftCountsDto {
  total: number;
  Modified: number;
  Missing: number;
  Extra: number;
  unowned: number;
}

export interface RunDto {
  id: number;
  environment: string;
  status: "queued" | "running" | "succeeded" | "partial" | "failed";
  trigger: string;
  requestedBy: string | null;
  queuedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  progress: RunProgress | null;
  stats: {
    durationMs: number | null;
    desired: number | null;
    live: number | null;
    drift: { Modified: number; Missing: number; Extra: number } | null;
    ignored: number | null;
    objectsChanged: number | null;
  } | null;
  errors: RunError[];
}

export interface EnvironmentSummaryDto {
  name: string;
  description: string | null;
  position: number;
  status: EnvironmentStatus;
  statusReason: string;
  flags: StatusFlag[];
  source: { repository: string | null; branch: string; path: string; render: string | null };
  approved: RevisionDto | null;
  applied: RevisionDto | null;
  /** "controller" when the GitOps controller reports it; "inferred" when matched from live state. */
  appliedSource: "controller" | "inferred" | null;
  appliedSince: string | null;
  /** The approved revision is not contained in the applied one: since when, and how many approved commits are missing. */
  behind: { since: string; commits: number } | null;
  drift: DriftCountsDto;
  controller: {
    type: "flux" | "argocd";
    ref: string;
    found: boolean;
    ready: "True" | "False" | "Unknown";
    health: string | null;
    suspended: boolean;
    suspendedBy: { manager: string; time: string | null } | null;
    failure: ControllerCondition | null;
    conditions: ControllerCondition[];
  } | null;
  objectCount: number;
  lastCollectedAt: string | null;
  lastGoodCollectedAt: string | null;
  lastError: EnvironmentError | null;
  alerts: AlertDto[];
  /** Active pauses, the whole-environment one first. */
  pauses: PauseDto[];
  /** A run queued or going now, for the progress indicator. */
  activeRun: RunDto | null;
  intervalMs: number;
  staleAfterMs: number;
}

export interface EnvironmentListDto {
  environments: EnvironmentSummaryDto[];
  /** Server time, so ages are computed against one clock. */
  now: string;
  config: { path: string; exists: boolean; declared: number };
}

export interface RollbackTargetDto {
  revision: RevisionDto;
  source: string;
  firstSeenAt: string;
  endedAt: string | null;
  /** `git revert --no-edit <target>..<current>`; null when target is not an ancestor of current (history rewritten). */
  revertCommand: string | null;
  /** Commits the revert would undo. */
  commits: number;
  /** Some of those commits also change paths outside this environment: reverting them affects other environments too. */
  touchesOtherPaths: number;
  mergeCommits: number;
  /** Restores only this environment's path: safer when the range touches other paths. */
  restoreCommand: string;
}

export interface EnvironmentDetailDto extends EnvironmentSummaryDto {
  rollout: RolloutStatus[];
  lastRun: RunDto | null;
  /** Differences hidden by ignore rules: per rule name over open drift items, and the run total. */
  ignored: { total: number | null; byRule: Record<string, number> };
  rollback: { current: RevisionDto | null; targets: RollbackTargetDto[] };
  facets: { kinds: string[]; namespaces: string[] };
  now: string;
}

export interface ChangeDto {
  path: Array<string | number>;
  display: string;
  kind: "changed" | "added" | "removed" | "unpruned";
  /** Values as JSON; "(hidden)" for Secret data. */
  desired?: unknown;
  live?: unknown;
  attribution: { manager: string | null; operation: string | null; subresource: string | null; time: string | null; class: ManagerClassName };
  masked?: boolean;
}

export interface ClaimRefDto {
  id: string;
  owner: UserRefDto;
  reason: string;
  incidentUrl: string | null;
  expiresAt: string;
  expired: boolean;
  returnPath: "revert" | "adopt";
}

export interface DriftItemDto {
  id: string;
  environment: string;
  key: string;
  apiVersion: string;
  group: string;
  kind: string;
  namespace: string;
  name: string;
  type: DriftTypeName;
  changes: ChangeDto[];
  attribution: { manager: string | null; class: ManagerClassName | null; time: string | null };
  ignored: Record<string, number>;
  conflict: { path: string | null; managers: string[]; flips: number } | null;
  openedAt: string;
  lastSeenAt: string;
  resolvedAt: string | null;
  resolution: "reverted" | "adopted" | "deleted" | "ignored" | null;
  resolutionSha: string | null;
  reopenCount: number;
  claim: ClaimRefDto | null;
}

export const DRIFT_SORTS = ["key", "kind", "namespace", "name", "type", "openedAt", "lastSeenAt", "attributionTime", "manager"] as const;
export type DriftSort = (typeof DRIFT_SORTS)[number];

export interface DriftListDto {
  environment: string;
  items: DriftItemDto[];
  /** Opaque; pass as `cursor` for the next page. Null on the last page. */
  nextCursor: string | null;
  /** Items matching the filters (all pages); on the first page only (null when a cursor was given). */
  total: number | null;
  /** Counts over the environment's open drift, ignoring the filters, for the filter chips; first page only. */
  counts: (DriftCountsDto & { human: number; controller: number }) | null;
}

export interface DiffLineDto {
  line: number;
  text: string;
}

export interface DiffRowDto {
  left: DiffLineDto | null;
  right: DiffLineDto | null;
  kind: "same" | "changed" | "removed" | "added";
  /** Index into the object's `changes` that explains this row, if any. */
  change: number | null;
}

export interface ObjectDetailDto {
  environment: string;
  key: string;
  group: string;
  kind: string;
  namespace: string;
  name: string;
  apiVersion: string;
  desired: {
    yaml: string;
    revision: RevisionDto | null;
    sourcePath: string;
    updatedAt: string;
    /** Where the file lives: the environment's repository, when it has a browsable URL. */
    repositoryUrl: string | null;
  } | null;
  live: { yaml: string; resourceVersion: string | null; updatedAt: string } | null;
  /** Side by side, normalised; Secret values are "(hidden)". */
  rows: DiffRowDto[];
  changes: ChangeDto[];
  drift: DriftItemDto | null;
  history: DriftItemDto[];
  secret: boolean;
  now: string;
}

export interface EnvironmentBadgeDto {
  environment: string;
  position: number;
  state: "live" | "pending" | "not-approved" | "unknown";
  /** Live: since when (start of the unbroken stretch). */
  since: string | null;
  /** The applied revision the answer is through. */
  through: RevisionDto | null;
  /** Live through a later commit that contains this one. */
  viaDescendant: boolean;
  /** The applied revision was inferred from live state (no controller reports one), not reported. */
  inferred: boolean;
  firstLiveAt: string | null;
  /** Pending: why, in words ("source AuthenticationFailed for 2h"). */
  reason: string | null;
  reasonSince: string | null;
}

export interface CommitDto {
  revision: RevisionDto & { parents: string[]; authorEmail: string; fullMessage: string; changedPaths: string[] };
  repository: string;
  environments: EnvironmentBadgeDto[];
  hops: Hop[];
}

export type CommitLookupDto = { match: "exact"; commit: CommitDto } | { match: "ambiguous"; candidates: RevisionDto[] };

export interface LineageDto {
  repositories: Array<{
    name: string;
    branches: Array<{
      branch: string;
      head: string | null;
      environments: string[];
      commits: Array<RevisionDto & { badges: EnvironmentBadgeDto[] }>;
    }>;
  }>;
  environments: Array<{ name: string; position: number; applied: RevisionDto | null }>;
  now: string;
}

export interface TimelineDto {
  events: TimelineEvent[];
  from: string;
  to: string;
  environment: string | null;
  types: TimelineType[] | null;
  /** More events matched than returned: the newest were kept. */
  truncated: boolean;
  environments: string[];
}

export interface CompareFieldDto {
  path: string;
  from: unknown;
  to: unknown;
  kind: "changed" | "added" | "removed";
}

export interface CompareObjectDto {
  key: string;
  kind: string;
  namespace: string;
  name: string;
  state: "differs" | "only-from" | "only-to";
  fields: CompareFieldDto[];
}

export interface CompareDto {
  from: { environment: string; revision: RevisionDto | null };
  to: { environment: string; revision: RevisionDto | null };
  mode: "live" | "desired";
  objects: CompareObjectDto[];
  same: number;
  differs: number;
  onlyFrom: number;
  onlyTo: number;
  /** More differing objects than returned. */
  truncated: boolean;
  environments: string[];
}

export interface MetricsDto {
  window: { from: string; to: string; days: number };
  leadTime: Array<{ from: string | null; to: string; samples: number; medianMs: number | null; p90Ms: number | null; maxMs: number | null }>;
  driftLifetime: { buckets: Array<{ label: string; upToMs: number | null; count: number }>; resolved: number; open: number; medianMs: number | null };
  manualEdits: { weeks: string[]; managers: Array<{ manager: string; counts: number[] }> };
  pauses: Array<{ environment: string; controllerRef: string | null; origin: "dashboard" | "detected"; startedAt: string; endedAt: string | null; durationMs: number; reason: string | null }>;
  staleTime: Array<{ environment: string; totalMs: number; intervals: Array<{ start: string; end: string }> }>;
  environments: string[];
}
