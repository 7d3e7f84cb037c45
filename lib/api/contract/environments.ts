// Environments: the cards of the environments page, one environment's detail,
// its collection runs.
import { z } from "zod";
import { ENVIRONMENT_STATUSES, type EnvironmentStatus as DomainEnvironmentStatus, type StatusFlag as DomainStatusFlag } from "@/lib/environments/status";
import type { ControllerCondition as DomainCondition } from "@/lib/kube/controller-status";
import type { EnvironmentError as DomainEnvironmentError, RolloutStatus as DomainRolloutStatus, RunError as DomainRunError, RunProgress as DomainRunProgress } from "@/lib/domain/types";
import { CONTROLLER_OBJECT_STATES, type ControllerObjectState as DomainControllerObjectState } from "@/lib/applications/controller-objects";
import { ROLLOUT_LISTED } from "@/lib/kube/rollout";
import { ApplicationRollupDto, WorstApplicationDto } from "./application-rollup";
import { assertSameShape, count, isoTime, named, object, type SameShape } from "./schema";

export const RevisionDto = named(
  "Revision",
  object({
    sha: z.string(),
    shortSha: z.string(),
    message: z.string().nullable().describe("First line of the commit message; null when the commit is not in the store yet"),
    authorName: z.string().nullable(),
    committedAt: isoTime.nullable(),
  }),
);
export type RevisionDto = z.infer<typeof RevisionDto>;

export const UserRefDto = named("UserRef", object({ id: z.string(), username: z.string(), displayName: z.string().nullable() }));
export type UserRefDto = z.infer<typeof UserRefDto>;

export const EnvironmentStatus = z.enum(ENVIRONMENT_STATUSES);
export type EnvironmentStatus = z.infer<typeof EnvironmentStatus>;
export const StatusFlag = object({ status: EnvironmentStatus, reason: z.string() });
export type StatusFlag = z.infer<typeof StatusFlag>;

export const ControllerCondition = named(
  "Condition",
  object({
    object: z.string().describe('"Kustomization/flux-system/shop", "GitRepository/…" or "Application/…"'),
    type: z.string(),
    status: z.string(),
    reason: z.string().nullable(),
    message: z.string().nullable(),
    lastTransitionTime: isoTime.nullable(),
  }),
);
export type ControllerCondition = z.infer<typeof ControllerCondition>;

const RUN_ERROR_CATEGORIES = ["unreachable", "timeout", "unauthorised", "forbidden", "git-auth", "git-fetch", "render", "parse", "database", "worker-lost", "internal"] as const;

export const RunError = object({
  category: z.enum(RUN_ERROR_CATEGORIES),
  message: z.string(),
  path: z.string().optional().describe("File in Git (render/parse problems)"),
  line: count.optional(),
  resource: z.string().optional().describe("Kubernetes resource (forbidden/not-found on one kind)"),
  severity: z.enum(["error", "warning"]).optional(),
});
export type RunError = z.infer<typeof RunError>;

export const RunProgress = object({
  phase: z.enum(["git", "render", "discover", "list", "compare", "store", "done"]),
  objectsRead: count,
  kindsDone: count,
  kindsTotal: count,
});
export type RunProgress = z.infer<typeof RunProgress>;

export const EnvironmentError = object({ category: RunError.shape.category, message: z.string(), at: isoTime, runId: count });
export type EnvironmentError = z.infer<typeof EnvironmentError>;

export const RolloutStatus = object({
  key: z.string(),
  kind: z.string(),
  namespace: z.string(),
  name: z.string(),
  generation: count.nullable(),
  observedGeneration: count.nullable(),
  replicas: count.nullable(),
  updatedReplicas: count.nullable(),
  readyReplicas: count.nullable(),
  availableReplicas: count.nullable(),
  images: z.array(z.string()),
  rolledOut: z.boolean().describe("The applied spec is fully rolled out (observed, updated, available)"),
  message: z.string().nullable(),
});
export type RolloutStatus = z.infer<typeof RolloutStatus>;

// Owned by the collector and the status rules; the wire must say the same.
assertSameShape<SameShape<EnvironmentStatus, DomainEnvironmentStatus>>();
assertSameShape<SameShape<StatusFlag, DomainStatusFlag>>();
assertSameShape<SameShape<ControllerCondition, DomainCondition>>();
assertSameShape<SameShape<RunError, DomainRunError>>();
assertSameShape<SameShape<RunProgress, DomainRunProgress>>();
assertSameShape<SameShape<EnvironmentError, DomainEnvironmentError>>();
assertSameShape<SameShape<RolloutStatus, DomainRolloutStatus>>();

export const PauseDto = named(
  "Pause",
  object({
    id: z.string(),
    environment: z.string(),
    controllerRef: z.string().nullable().describe('"kind/namespace/name" of one controller object, or null for the whole environment'),
    origin: z.enum(["dashboard", "detected"]),
    unattributed: z.boolean().describe("Detected in the cluster with no owner: someone must take it over"),
    createdBy: UserRefDto.nullable(),
    owner: UserRefDto.nullable(),
    reason: z.string().nullable(),
    incidentUrl: z.string().nullable(),
    startedAt: isoTime,
    expiresAt: isoTime.nullable(),
    expired: z.boolean(),
    executed: z.boolean(),
    detectedManager: z.string().nullable(),
    detectedAt: isoTime.nullable(),
    endedAt: isoTime.nullable(),
    endReason: z.string().nullable(),
  }),
  "An active pause as the environment card shows it",
);
export type PauseDto = z.infer<typeof PauseDto>;

export const AlertDto = named(
  "AlertSummary",
  object({
    id: z.string(),
    environment: z.string().nullable(),
    type: z.string(),
    severity: z.string(),
    title: z.string(),
    application: z.string().nullable().describe("The application it is about (an environment that discovers or lists its applications alerts on each), when one"),
    openedAt: isoTime,
    updatedAt: isoTime,
    runbook: z.string().nullable().describe("The built-in (or configured) runbook text or URL"),
    summary: z.string().nullable(),
  }),
  "An open alert as the environment card shows it",
);
export type AlertDto = z.infer<typeof AlertDto>;

export const DriftCountsDto = named("DriftCounts", object({ total: count, Modified: count, Missing: count, Extra: count, unowned: count }));
export type DriftCountsDto = z.infer<typeof DriftCountsDto>;

const driftByType = object({ Modified: count, Missing: count, Extra: count });

export const RunDto = named(
  "Run",
  object({
    id: count,
    environment: z.string(),
    status: z.enum(["queued", "running", "succeeded", "partial", "failed"]),
    trigger: z.string(),
    requestedBy: z.string().nullable(),
    queuedAt: isoTime,
    startedAt: isoTime.nullable(),
    finishedAt: isoTime.nullable(),
    progress: RunProgress.nullable(),
    stats: object({
      durationMs: count.nullable(),
      desired: count.nullable(),
      live: count.nullable(),
      drift: driftByType.nullable(),
      ignored: count.nullable(),
      objectsChanged: count.nullable(),
    }).nullable(),
    errors: z.array(RunError),
  }),
  "A collection run: status, progress while it goes, figures when done",
);
export type RunDto = z.infer<typeof RunDto>;

export const HelmReleaseDto = named(
  "HelmRelease",
  object({
    releaseName: z.string(),
    releaseNamespace: z.string(),
    storageNamespace: z.string(),
    released: object({
      revision: count,
      status: z.string(),
      chart: object({ name: z.string(), version: z.string(), appVersion: z.string().nullable() }),
      deployedAt: z.string().nullable(),
    }).nullable().describe("The release Helm last installed (its manifest is the desired state); null when nothing is installed"),
    declared: object({ chart: z.string().nullable(), version: z.string(), chartRef: z.string().nullable() }).nullable().describe("The chart and version the HelmRelease in Git asks for"),
    verdict: object({ state: z.enum(["released", "pending", "unknown"]), changes: z.array(z.string()), reason: z.string().nullable() })
      .nullable()
      .describe('"pending": changed in Git, not released yet (what changed, and helm-controller\'s reason)'),
    valuesDiff: object({
      entries: z.array(object({ path: z.string(), change: z.enum(["added", "removed", "changed"]), git: z.string().nullable().describe('Git\'s value as JSON, or "(masked)" where it could be a secret; released values are never shown') })),
      total: count,
    }).nullable(),
    history: z.array(object({ revision: count, status: z.string(), chartVersion: z.string().nullable(), deployedAt: z.string().nullable() })),
  }),
  "A Flux HelmRelease's release: chart, version, Git vs released values (by path, masked) and release history",
);
export type HelmReleaseDto = z.infer<typeof HelmReleaseDto>;

const controllerSummary = object({
  type: z.enum(["flux", "argocd"]),
  ref: z.string(),
  found: z.boolean(),
  ready: z.enum(["True", "False", "Unknown"]),
  health: z.string().nullable(),
  suspended: z.boolean(),
  suspendedBy: object({ manager: z.string(), time: isoTime.nullable() }).nullable(),
  manualSync: z.boolean().describe("An Argo CD Application that syncs by hand by design (no automated sync policy live nor declared in Git): not suspended"),
  failure: ControllerCondition.nullable(),
  conditions: z.array(ControllerCondition),
  helm: HelmReleaseDto.nullable(),
});

export const ControllerObjectState = z.enum(CONTROLLER_OBJECT_STATES);
assertSameShape<SameShape<z.infer<typeof ControllerObjectState>, DomainControllerObjectState>>();

export const ControllerRollupDto = named(
  "ControllerRollup",
  object({
    objects: count.describe("Distinct controller objects: each application's own (Kustomization, HelmRelease, Application) and each failing object they share (a GitRepository)"),
    ready: count,
    failing: count,
    suspended: count,
    notReady: count.describe("Not found in the cluster, or not (yet) reporting Ready"),
    attention: z
      .array(
        object({
          object: z.string().describe('"GitRepository/flux-system/flux-system"'),
          kind: z.string(),
          namespace: z.string(),
          name: z.string(),
          state: ControllerObjectState,
          condition: ControllerCondition.nullable().describe("Why: the failing condition, or a not-ready object's own Ready condition; null when none says"),
          suspendedBy: object({ manager: z.string(), time: isoTime.nullable() }).nullable(),
          applications: z.array(object({ name: z.string(), href: z.string().describe("The application's page") })).max(20).describe("The applications it holds up (failing) or runs, by name, up to 20"),
          applicationCount: count,
        }),
      )
      .describe("Every controller object that is not ready, worst first: failing ones holding up the most applications, then the longest failing; then not found, not ready, suspended"),
  }),
  "An environment of many applications: its applications' controller objects by state, a failing object shared by several applications listed once",
);
export type ControllerRollupDto = z.infer<typeof ControllerRollupDto>;

const environmentSummaryShape = {
  name: z.string(),
  description: z.string().nullable(),
  position: count,
  status: EnvironmentStatus,
  statusReason: z.string(),
  flags: z.array(StatusFlag),
  source: object({ repository: z.string().nullable(), branch: z.string(), path: z.string(), render: z.string().nullable() }),
  approved: RevisionDto.nullable().describe("null for an environment whose applications follow sources of their own (discover:): each has its own, see applicationRevisions"),
  applied: RevisionDto.nullable().describe("null for an environment whose applications follow sources of their own (discover:)"),
  appliedSource: z.enum(["controller", "inferred"]).nullable().describe('"controller" when the GitOps controller reports it; "inferred" when matched from live state'),
  appliedSince: isoTime.nullable(),
  behind: object({ since: isoTime, commits: count })
    .nullable()
    .describe("The approved revision is not contained in the applied one: since when, and how many approved commits are missing"),
  drift: DriftCountsDto,
  controller: controllerSummary.nullable().describe("Its controller object; an environment of many applications has none of its own (this is its first application's): see controllerRollup on its detail"),
  objectCount: count,
  lastCollectedAt: isoTime.nullable(),
  lastGoodCollectedAt: isoTime.nullable(),
  lastError: EnvironmentError.nullable(),
  alerts: z.array(AlertDto),
  pauses: z.array(PauseDto).describe("Active pauses, the whole-environment one first"),
  activeRun: RunDto.nullable().describe("A run queued or going now, for the progress indicator"),
  intervalMs: count,
  staleAfterMs: count,
  applications: ApplicationRollupDto.nullable().describe("Its applications by state; null when it holds one application or none (the card then reads as the environment's own)"),
  worstApplications: z.array(WorstApplicationDto).max(3).describe("Up to three applications that are not in sync, most urgent first (failing, paused, stale, drifted), then most drift; empty when applications is null"),
};

export const EnvironmentSummaryDto = named(
  "EnvironmentSummary",
  object(environmentSummaryShape),
  "Status, approved vs applied revision, drift counts, controller health, last collection, open alerts, active pauses",
);
export type EnvironmentSummaryDto = z.infer<typeof EnvironmentSummaryDto>;

export const EnvironmentListDto = named(
  "EnvironmentList",
  object({
    environments: z.array(EnvironmentSummaryDto),
    now: isoTime.describe("Server time, so ages are computed against one clock"),
    config: object({ path: z.string(), exists: z.boolean(), declared: count }),
  }),
);
export type EnvironmentListDto = z.infer<typeof EnvironmentListDto>;

export const RollbackTargetDto = object({
  revision: RevisionDto,
  source: z.string(),
  firstSeenAt: isoTime,
  endedAt: isoTime.nullable(),
  revertCommand: z
    .string()
    .nullable()
    .describe(
      "`git revert --no-edit <target>..<current>`; for an application whose range holds other applications' commits, `git revert --no-edit <sha>…` of the commits that change its path, newest first; null when target is not an ancestor of current (history rewritten)",
    ),
  commits: count.describe("Commits the revert would undo"),
  touchesOtherPaths: count.describe("Of those, commits that also change paths outside this environment's (or application's) path"),
  mergeCommits: count,
  restoreCommand: z.string().describe("Restores only this environment's (or application's) path: safer when the range touches other paths"),
});
export type RollbackTargetDto = z.infer<typeof RollbackTargetDto>;

export const RollbackDto = named(
  "Rollback",
  object({ current: RevisionDto.nullable().describe("What a revert lands on: the newest approved revision, or what runs now"), targets: z.array(RollbackTargetDto) }),
  "Earlier applied revisions to return to, newest first (up to 10), each with the revert Driftwatch prints and never pushes",
);
export type RollbackDto = z.infer<typeof RollbackDto>;

export const ApplicationRevisionsDto = object({
  name: z.string(),
  href: z.string().describe("The application's page"),
  approved: RevisionDto.nullable().describe("Its approved revision; for a chart application see chart (a Flux HelmRelease's is the commit of the Kustomization declaring it)"),
  applied: RevisionDto.nullable(),
  chart: object({
    name: z.string(),
    applied: object({ version: z.string(), appVersion: z.string().nullable() }).nullable().describe("The release Helm last installed (Flux), or the version Argo CD synced; null when nothing is released yet"),
    approved: z.string().nullable().describe("The version (or range) Git asks for, only where it is not the one applied"),
  })
    .nullable()
    .describe("An application released from a chart repository (Flux HelmRelease from a HelmRepository, Argo CD chart source): what it runs is a chart version, not a commit; null for a Git source"),
  appliedSince: isoTime.nullable(),
  behind: z.boolean().describe("The approved revision is not contained in the applied one, by the ancestry the collector checked"),
});
export type ApplicationRevisionsDto = z.infer<typeof ApplicationRevisionsDto>;

export const EnvironmentDetailDto = named(
  "EnvironmentDetail",
  object({
    ...environmentSummaryShape,
    rollout: z
      .array(RolloutStatus)
      .describe(`Every workload while there are at most ${ROLLOUT_LISTED}; else only those not rolled out, ${ROLLOUT_LISTED} at most (rolloutCounts counts them all)`),
    rolloutCounts: object({ total: count.describe("Workloads seen live"), rollingOut: count.describe("Of those, not rolled out") }).describe("Rollout health over every workload of the environment"),
    lastRun: RunDto.nullable(),
    ignored: object({ total: count.nullable(), byRule: z.record(z.string(), count) }).describe("Differences hidden by ignore rules: per rule name over open drift items, and the run total"),
    rollback: RollbackDto.describe("Empty for an environment whose applications follow sources of their own: each application's page gives its own"),
    controllerRollup: ControllerRollupDto.nullable().describe(
      "An environment whose applications follow sources of their own (discover: or applications:): their controller objects rolled up; null for an environment with one source (controller is its own)",
    ),
    applicationRevisions: z
      .array(ApplicationRevisionsDto)
      .nullable()
      .describe("An environment whose applications follow sources of their own (discover:): each application's approved and applied revisions, resolved in its own repository, by name; null for an environment with one source"),
    facets: object({ kinds: z.array(z.string()), namespaces: z.array(z.string()), applications: z.array(z.string()).describe("The applications with open drift, when the environment holds more than one") }),
    now: isoTime,
  }),
  "The environment card plus rollout health, last run, ignored-by-rule counts, rollback guidance and the kinds/namespaces/applications that have drift",
);
export type EnvironmentDetailDto = z.infer<typeof EnvironmentDetailDto>;

export const RefreshQueuedDto = named("RefreshQueued", object({ runId: count.describe("Poll /api/runs/{runId} for progress") }));
