// Shapes of the JSON columns the collector writes and the dashboard reads.
// One definition so both sides agree; the database stores them as jsonb.
import type { ControllerStatus } from "@/lib/kube/controller-status";

export type { ControllerStatus };

export type RunErrorCategory =
  | "unreachable"
  | "timeout"
  | "unauthorised"
  | "forbidden"
  | "git-auth"
  | "git-fetch"
  | "render"
  | "parse"
  | "database"
  | "worker-lost"
  | "internal";

/** One problem of a collection run. Never contains a credential or a secret value. */
export interface RunError {
  category: RunErrorCategory;
  message: string;
  /** File in Git (render/parse problems). */
  path?: string;
  line?: number;
  /** Kubernetes resource (forbidden/not-found on one kind). */
  resource?: string;
  severity?: "error" | "warning";
}

/** CollectionRun.progress while a run goes, for the "Refresh now" indicator. */
export interface RunProgress {
  phase: "git" | "render" | "discover" | "list" | "compare" | "store" | "done";
  objectsRead: number;
  kindsDone: number;
  kindsTotal: number;
}

/** CollectionRun.stats of a finished run. */
export interface RunStats {
  durationMs: number;
  desired: number;
  live: number;
  drift: { Modified: number; Missing: number; Extra: number };
  ignored: number;
  blobsWritten: number;
  objectsChanged: number;
  /** Applications the run went through (collected or skipped). */
  applications?: number;
  /** Repositories fetched: each once per run, however many applications follow it. */
  repositoriesFetched?: number;
  /**
   * Live objects the run took in: every one it read, or, for a watch-triggered run continuing from the last good
   * run's, only those the watch cache changed since.
   */
  liveTakenIn?: number;
}

/** Environment.lastError: why the environment is stale, shown with the last good state. */
export interface EnvironmentError {
  category: RunErrorCategory;
  message: string;
  at: string;
  runId: number;
}

/** One workload's rollout, from live status (RolloutSummary lists these). */
export interface RolloutStatus {
  key: string;
  kind: string;
  namespace: string;
  name: string;
  generation: number | null;
  observedGeneration: number | null;
  replicas: number | null;
  updatedReplicas: number | null;
  readyReplicas: number | null;
  availableReplicas: number | null;
  images: string[];
  /** The applied spec is fully rolled out (observed, updated, available). */
  rolledOut: boolean;
  message: string | null;
}

/**
 * The rollout health of an environment or application as stored (Environment.rollout, Application.rollout):
 * counts over every workload, and the workloads worth a look, bounded (summariseRollout).
 */
export interface RolloutSummary {
  /** Workloads (Deployments, StatefulSets, DaemonSets) seen live. */
  total: number;
  /** Of those, not rolled out. */
  rollingOut: number;
  /** Every workload while there are few; else only those not rolled out, at most ROLLOUT_LISTED. */
  workloads: RolloutStatus[];
}

/** Audit event actions. Human actions and observed state changes alike. */
export const AUDIT_ACTIONS = [
  "drift.opened",
  "drift.resolved",
  "revision.applied",
  "revision.approved",
  "pause.created",
  "pause.detected",
  "pause.claimed",
  "pause.ended",
  "claim.created",
  "claim.resolved",
  "claim.released",
  "claim.transferred",
  "claim.expired",
  "alert.opened",
  "alert.resolved",
  "run.failed",
  "run.recovered",
  "run.requested",
  "auth.signin",
  "auth.signin_failed",
  "auth.signout",
  "user.created",
  "user.updated",
  "webhook.rejected",
  "webhook.accepted",
  /** The audit chain's hashes are HMACs keyed with the instance key from this event on (earlier ones: plain SHA-256). */
  "audit.keyed",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
