// Alert rules: pure functions from a snapshot of what Driftwatch knows to the
// set of alerts that should be open now. Opening, resolving and delivering
// them is sync.ts's job; these rules only say what is wrong.
import type { ControllerStatus, EnvironmentError } from "@/lib/domain/types";
import { applicationFlags } from "@/lib/applications/rollup";
import { groupByFailingObject } from "@/lib/applications/controller-objects";

export const ALERT_TYPES = [
  "environment_stale",
  "convergence_failing",
  "drift_unowned",
  "claim_expired",
  "pause_expired",
  "pause_unattributed",
  "collection_failing",
] as const;
export type AlertType = (typeof ALERT_TYPES)[number];
export type Severity = "critical" | "warning" | "info";

export interface SnapshotEnvironment {
  id: string;
  name: string;
  intervalMs: number;
  staleAfterMs: number;
  /** Production-style environments (confirmPause) page louder. */
  critical: boolean;
  approvedSha: string | null;
  approvedAt: Date | null;
  appliedSha: string | null;
  /** The applied revision is a later commit that contains the approved one (not behind). */
  appliedContainsApproved?: boolean;
  appliedSince: Date | null;
  controller: ControllerStatus | null;
  lastError: EnvironmentError | null;
  lastCollectedAt: Date | null;
  lastGoodCollectedAt: Date | null;
  /**
   * Set for an environment whose applications have sources of their own
   * (`discover:` or an `applications:` list rather than one `source:`,
   * lib/applications/per-application.ts): its env-level approved/applied/
   * controller are only its first application's, so staleness and convergence
   * are judged per application instead (an empty list raises neither). Unset
   * for a single-source environment, whose alerts stay the environment's,
   * fingerprints unchanged.
   */
  applications?: SnapshotApplication[];
}

/** One live (not removed) application of an environment, as the collector last stored it. */
export interface SnapshotApplication {
  id: string;
  name: string;
  approvedSha: string | null;
  approvedAt: Date | null;
  appliedSha: string | null;
  /** The applied revision does not contain the approved one (git ancestry, as the collector found). */
  appliedBehind: boolean;
  controller: ControllerStatus | null;
  /** An active pause targets it or its whole environment. */
  paused: boolean;
  /** Its sources' repository URLs, in its controller's order: which repository an Argo CD Application cannot read (lib/applications/controller-objects.ts). */
  sourceUrls?: string[];
}

export interface SnapshotDrift {
  id: string;
  environmentId: string;
  key: string;
  type: string;
  openedAt: Date;
  claimed: boolean;
}

export interface SnapshotClaim {
  id: string;
  owner: string;
  reason: string;
  expiresAt: Date;
  environmentIds: string[];
  keys: string[];
}

export interface SnapshotPause {
  id: string;
  environmentId: string;
  origin: "dashboard" | "detected";
  owner: string | null;
  reason: string | null;
  expiresAt: Date | null;
  controllerRef: string | null;
  detectedManager: string | null;
  detectedAt: Date | null;
  startedAt: Date;
  /** The application it pauses (null: the whole environment); alerts name it where the environment is judged per application. */
  applicationId?: string | null;
}

export interface AlertSnapshot {
  environments: SnapshotEnvironment[];
  openDrift: SnapshotDrift[];
  activeClaims: SnapshotClaim[];
  activePauses: SnapshotPause[];
}

export interface DesiredAlert {
  type: AlertType;
  /** One open alert per fingerprint; the same problem keeps the same fingerprint. */
  fingerprint: string;
  environmentId: string | null;
  environment: string | null;
  severity: Severity;
  title: string;
  /** Plain data; a change in it is a change worth re-sending. */
  details: Record<string, unknown>;
}

/**
 * An alert about `subject` (the id of the environment, claim or pause it is
 * about, or `<environment id>:<application id>` for one application): its
 * fingerprint is its type and that subject, so the same problem stays one
 * alert. Severity follows the environment unless given: critical where the
 * environment is marked critical.
 */
function alertAbout(
  type: AlertType,
  subject: string,
  env: { id: string; name: string | null; critical?: boolean } | null,
  alert: { severity?: Severity; title: string; details: Record<string, unknown> },
): DesiredAlert {
  return {
    type,
    fingerprint: `${type}:${subject}`,
    environmentId: env?.id ?? null,
    environment: env?.name ?? null,
    severity: alert.severity ?? (env?.critical ? "critical" : "warning"),
    title: alert.title,
    details: alert.details,
  };
}

const short = (sha: string | null) => (sha ? sha.slice(0, 12) : "unknown");
const iso = (d: Date | null) => d?.toISOString() ?? null;

function minutes(ms: number): string {
  const m = Math.round(ms / 60_000);
  return m < 120 ? `${m} min` : `${Math.round(m / 60)} h`;
}

/** A failure that has lasted two collection intervals (at least five minutes), so one failed reconcile is not a page. */
function sustainedFailure(controller: ControllerStatus | null, intervalMs: number, t: number): ControllerStatus["failure"] {
  const failure = controller?.failure ?? null;
  if (!failure || !controller?.found) return null;
  const since = failure.lastTransitionTime ? Date.parse(failure.lastTransitionTime) : Number.NaN;
  // Without a transition time the failure has lasted at least since the last collection saw it.
  return Number.isNaN(since) || t - since >= Math.max(2 * intervalMs, 5 * 60_000) ? failure : null;
}

/**
 * Stale and failing applications of an environment that holds several. Each
 * stale application is its own alert (the fingerprint names the application,
 * the title the environment and the application); a failing object is one
 * alert listing the applications it holds up (one GitRepository feeding eight
 * Kustomizations is one problem, not eight pages). Stale is the applications list's rule
 * (lib/applications/rollup.ts applicationFlags), so an application the list
 * shows as Paused (a pause on it or on its environment, or its controller
 * suspended) raises none, and a newer commit to another application's files is
 * not behind. An open env-level alert of such an environment (raised before
 * its applications were judged apart, from its first application's fields) is
 * never desired again, so the next sync of the environment resolves it.
 */
function applicationAlerts(env: SnapshotEnvironment, apps: readonly SnapshotApplication[], t: number): DesiredAlert[] {
  const out: DesiredAlert[] = [];
  const now = new Date(t);
  for (const app of apps) {
    const subject = `${env.id}:${app.id}`;
    const label = `${env.name}/${app.name}`;
    const failure = app.controller?.failure ?? null;
    const suspended = app.controller?.suspended === true;
    const flags = applicationFlags(
      { removedAt: null, driftCount: 0, approvedSha: app.approvedSha, approvedAt: app.approvedAt, appliedSha: app.appliedSha, appliedBehind: app.appliedBehind, suspended, paused: app.paused, failing: false },
      now,
      env.staleAfterMs,
    );
    if (flags.stale && !flags.paused) {
      const behind = t - app.approvedAt!.getTime();
      out.push(alertAbout("environment_stale", subject, env, {
        severity: env.critical || failure ? "critical" : "warning",
        title: `${label} is stale: ${short(app.approvedSha)} approved ${minutes(behind)} ago, ${short(app.appliedSha)} still applied`,
        details: {
          application: app.name,
          approvedSha: app.approvedSha,
          appliedSha: app.appliedSha,
          approvedAt: iso(app.approvedAt),
          staleAfterMs: env.staleAfterMs,
          controllerError: failure ? { object: failure.object, type: failure.type, reason: failure.reason, message: failure.message } : null,
        },
      }));
    }
  }
  // One failing object is one problem however many applications it holds up (a GitRepository feeding them all, a
  // repository every Argo CD Application of it cannot read); the fingerprint stays while applications join and leave.
  for (const { key, object, failure, applications: sorted, repository } of groupByFailingObject(apps, (app) => sustainedFailure(app.controller, env.intervalMs, t))) {
    const one = sorted.length === 1 ? sorted[0] : undefined;
    const what = repository === undefined ? object : `repository ${repository}`;
    out.push(alertAbout("convergence_failing", `${env.id}:${key}`, env, {
      title: one
        ? `${env.name}/${one}: ${what} is failing (${failure.reason ?? failure.type})`
        : `${env.name}: ${what} is failing (${failure.reason ?? failure.type}), holding up ${sorted.length} applications`,
      details: {
        ...(one ? { application: one } : {}),
        applications: sorted.slice(0, 20),
        applicationCount: sorted.length,
        object,
        ...(repository === undefined ? {} : { repository }),
        condition: failure.type,
        reason: failure.reason,
        message: failure.message,
        since: failure.lastTransitionTime,
      },
    }));
  }
  return out;
}

export function evaluateAlerts(snapshot: AlertSnapshot, now: Date): DesiredAlert[] {
  const out: DesiredAlert[] = [];
  const t = now.getTime();
  const envById = new Map(snapshot.environments.map((e) => [e.id, e]));
  const pausedEnvs = new Set(snapshot.activePauses.map((p) => p.environmentId));

  for (const env of snapshot.environments) {
    if (env.applications) out.push(...applicationAlerts(env, env.applications, t));
    const failure = env.controller?.failure ?? null;
    // A paused environment is behind on purpose; its pause has its own expiry alert.
    if (
      !env.applications &&
      !pausedEnvs.has(env.id) &&
      env.approvedSha &&
      env.appliedSha &&
      env.approvedSha !== env.appliedSha &&
      !env.appliedContainsApproved &&
      env.approvedAt &&
      t - env.approvedAt.getTime() > env.staleAfterMs
    ) {
      const behind = t - env.approvedAt.getTime();
      out.push(alertAbout("environment_stale", env.id, env, {
        severity: env.critical || failure ? "critical" : "warning",
        title: `${env.name} is stale: ${short(env.approvedSha)} approved ${minutes(behind)} ago, ${short(env.appliedSha)} still applied`,
        details: {
          approvedSha: env.approvedSha,
          appliedSha: env.appliedSha,
          approvedAt: iso(env.approvedAt),
          staleAfterMs: env.staleAfterMs,
          controllerError: failure ? { object: failure.object, type: failure.type, reason: failure.reason, message: failure.message } : null,
        },
      }));
    }

    const failing = env.applications ? null : sustainedFailure(env.controller, env.intervalMs, t);
    if (failing) {
      out.push(alertAbout("convergence_failing", env.id, env, {
        title: `${env.name}: ${failing.object} is failing (${failing.reason ?? failing.type})`,
        details: {
          object: failing.object,
          condition: failing.type,
          reason: failing.reason,
          message: failing.message,
          since: failing.lastTransitionTime,
        },
      }));
    }

    if (env.lastError && (!env.lastGoodCollectedAt || t - env.lastGoodCollectedAt.getTime() > 2 * env.intervalMs)) {
      out.push(alertAbout("collection_failing", env.id, env, {
        severity: "warning",
        title: `${env.name}: collection failing (${env.lastError.category})`,
        details: {
          category: env.lastError.category,
          message: env.lastError.message,
          lastGoodCollectedAt: iso(env.lastGoodCollectedAt),
        },
      }));
    }
  }

  const unowned = new Map<string, SnapshotDrift[]>();
  for (const d of snapshot.openDrift) {
    const env = envById.get(d.environmentId);
    if (!env || d.claimed || t - d.openedAt.getTime() <= env.intervalMs) continue;
    unowned.set(d.environmentId, [...(unowned.get(d.environmentId) ?? []), d]);
  }
  for (const [envId, items] of unowned) {
    const env = envById.get(envId)!;
    const sorted = [...items].sort((a, b) => a.key.localeCompare(b.key));
    out.push(alertAbout("drift_unowned", envId, env, {
      title: `${env.name}: ${items.length} drifted object${items.length === 1 ? "" : "s"} with no owner`,
      details: {
        count: items.length,
        keys: sorted.slice(0, 20).map((d) => d.key),
        driftItemIds: sorted.map((d) => d.id),
        oldestOpenedAt: new Date(Math.min(...items.map((d) => d.openedAt.getTime()))).toISOString(),
      },
    }));
  }

  for (const c of snapshot.activeClaims) {
    if (c.expiresAt.getTime() > t) continue;
    const envId = c.environmentIds.length === 1 ? (c.environmentIds[0] ?? null) : null;
    const env = envId ? envById.get(envId) : undefined;
    out.push(alertAbout("claim_expired", c.id, envId ? { id: envId, name: env?.name ?? null } : null, {
      severity: "warning",
      title: `Claim by ${c.owner} expired${env ? ` in ${env.name}` : ""}: ${c.keys.length} object${c.keys.length === 1 ? "" : "s"} still drifted`,
      details: { claimId: c.id, owner: c.owner, reason: c.reason, expiresAt: c.expiresAt.toISOString(), keys: c.keys.slice(0, 20) },
    }));
  }

  for (const p of snapshot.activePauses) {
    const env = envById.get(p.environmentId);
    if (!env) continue;
    // Among an environment's several applications, which one is paused is the news (as in its stale alert).
    const app = p.applicationId ? env.applications?.find((a) => a.id === p.applicationId) : undefined;
    const label = app ? `${env.name}/${app.name}` : env.name;
    const about = app ? { application: app.name } : {};
    if (p.origin === "detected" && p.owner === null) {
      out.push(alertAbout("pause_unattributed", p.id, env, {
        title: `${label}: reconciliation paused outside Driftwatch${p.detectedManager ? ` (by ${p.detectedManager})` : ""}`,
        details: { ...about, pauseId: p.id, controllerRef: p.controllerRef, manager: p.detectedManager, detectedAt: iso(p.detectedAt) },
      }));
    }
    if (p.expiresAt && p.expiresAt.getTime() <= t) {
      out.push(alertAbout("pause_expired", p.id, env, {
        title: `${label}: pause by ${p.owner ?? "unknown"} expired; reconciliation is still off`,
        details: { ...about, pauseId: p.id, owner: p.owner, reason: p.reason, expiresAt: p.expiresAt.toISOString(), controllerRef: p.controllerRef },
      }));
    }
  }

  return out;
}
