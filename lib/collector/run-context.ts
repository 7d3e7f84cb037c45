// What a collection run is given (the collector's context, the run) and what it
// answers, and the one way a run fails: a RunFailure carrying the errors the run
// records. Shared by the run's phases (collect-environment.ts and the files it
// calls), the worker and the watcher.
import type { PrismaClient } from "@/lib/db/generated/client";
import type { DriftwatchConfig, EnvironmentConfig } from "@/lib/config";
import type { ApplicationSpec } from "@/lib/applications/spec";
import type { ClusterClient } from "@/lib/kube/client";
import type { RunError, RunStats } from "@/lib/domain/types";
import type { ApiResource, Discovery } from "@/lib/kube/discovery";
import { KubeError } from "@/lib/kube/errors";
import type { Logger } from "@/lib/log";

export interface CollectorContext {
  db: PrismaClient;
  config: DriftwatchConfig;
  mirrorsDir: string;
  secretKey: Buffer;
  kustomizeBin?: string;
  now: () => Date;
  log: Logger;
  clusterTimeoutMs?: number;
  gitTimeoutMs?: number;
  /** How many recent revisions to try when inferring the applied one (no controller). */
  inferDepth?: number;
  /**
   * Watch mode: live objects from an informer cache instead of listing. The
   * watcher answers runs it queued and webhook runs; scheduled runs still
   * list, so polling stays a safety net under the watches.
   */
  liveSource?: LiveSource;
  /**
   * The applications of an environment for this run. Unset: the ones
   * driftwatch.yaml declares (lib/applications/declared.ts). Discovery plugs in
   * here: it reads the controller objects through the run's cluster client.
   */
  applicationsFor?: (env: EnvironmentConfig, cluster: { client: ClusterClient; discovery: Discovery }) => Promise<ApplicationSpec[]>;
}

/**
 * The live objects of these kinds within these namespace scopes (undefined =
 * all namespaces) as a watch cache holds them; or null, and the run lists.
 * Asked by every run, so a watcher learns which kinds to keep; answered only
 * when the watcher trusts its cache for this run.
 */
export type LiveSource = (request: {
  environment: string;
  trigger: string | undefined;
  resources: readonly ApiResource[];
  namespaces: ReadonlyArray<string | undefined>;
}) => Promise<CacheRead | null>;

/** One object a watch cache changed: as it holds it now, or null when it is gone. */
export interface CacheChange {
  key: string;
  resource: ApiResource;
  object: Record<string, unknown> | null;
}

/** A watch cache as a run reads it: every object, or only those changed since an earlier read of the same epoch. */
export interface CacheRead {
  /** Every cached object, keyed by `${group}/${kind}`, with apiVersion and kind set. */
  objects(): Map<string, Iterable<Record<string, unknown>>>;
  /** The cache's informers: a change log is only known within one epoch (an informer that starts or stops moves it). */
  epoch: number;
  /** The change log's position at this read. */
  cursor: number;
  /** What changed after `cursor` of an earlier read of this epoch; null when that is not known (another epoch, a released position). */
  changesSince(cursor: number): CacheChange[] | null;
  /** A run kept the cache as it was at `cursor`: the log up to there is not asked for again. */
  release(cursor: number): void;
}

/** The trigger of a run a watched cluster change queued (worker.ts), as opposed to schedule, webhook, manual… */
export const WATCH_TRIGGER = "watch";

export interface RunRef {
  id: number;
  environmentId: string;
  environmentName: string;
  /** Why the run was queued (schedule, webhook, manual, watch, …). */
  trigger?: string;
}

export interface RunOutcome {
  status: "succeeded" | "partial" | "failed";
  /** The run lost the environment to another before it wrote (RunSuperseded): its failure is its own, not the environment's. */
  superseded?: boolean;
  errors: RunError[];
  stats: RunStats | null;
  approvedSha: string | null;
  appliedSha: string | null;
}

export class RunFailure extends Error {
  constructor(readonly errors: RunError[]) {
    super(errors.map((e) => e.message).join("; "));
  }
}

/**
 * A run that found, when it came to write, that the environment is no longer
 * its to write: its lease was reaped (its worker stalled) and the retry, or
 * another run, wrote since it read the last good run's rows. Its results are
 * deltas against rows that are no longer current, so nothing of it is kept.
 */
export class RunSuperseded extends RunFailure {
  constructor(reason: string) {
    super([{ category: "worker-lost", message: `this run's results were discarded: ${reason}` }]);
  }
}

export function kubeRunError(e: unknown, resource?: string): RunError {
  if (e instanceof KubeError) {
    const category = e.category === "not-found" || e.category === "server" || e.category === "protocol" ? "unreachable" : e.category;
    return { category, message: e.message, resource: resource ?? e.resource };
  }
  return { category: "internal", message: e instanceof Error ? e.message : String(e), resource };
}
