// Pauses the collector observes rather than an operator makes: a controller
// found suspended with no record (a detected pause), a controller found
// running again (its pauses end), and expired pauses of environments that
// resume automatically.
import type { PrismaClient } from "@/lib/db/generated/client";
import type { ArgoSyncMode, ControllerStatus } from "@/lib/kube/controller-status";
import { appendAudit, SYSTEM } from "@/lib/audit";
import { isUniqueViolation, resumePause, type PauseDeps } from "./pauses";
import { applicationIdForControllerRef } from "@/lib/applications/controller-ref";
import { eachPolicyOf } from "./controller";

type Db = PrismaClient;

type ActivePause = Awaited<ReturnType<Db["pause"]["findMany"]>>[number];

/**
 * What turned an Argo CD Application's reconciliation off, for the audit trail. An Application that syncs by hand by
 * design (no automated policy live nor in Git) is not suspended and never reaches here (argoSyncMode).
 */
const ARGO_PAUSE_WORDS: Partial<Record<ArgoSyncMode, string>> = {
  "skip-reconcile": "reconcile skipped (argocd.argoproj.io/skip-reconcile)",
  "automated-disabled": "automated sync switched off (syncPolicy.automated.enabled: false)",
  "automated-removed": "automated sync removed, though Git declares it",
};

const MANUAL_BY_DESIGN = "syncs by hand by design: no automated sync policy live nor declared in Git";

const refOf = (status: ControllerStatus) => `${status.kind ?? (status.type === "flux" ? "Kustomization" : "Application")}/${status.namespace}/${status.name}`;

/**
 * Called by the collector after each run with the controller status it read.
 * A controller seen suspended with no active pause becomes a detected
 * (unattributed) pause, led by the managedFields manager and time; a
 * controller seen running again ends the detected pauses, and dashboard
 * pauses that had been executed (someone resumed behind our back).
 */
export async function reconcileDetectedPauses(
  db: Db,
  environment: { id: string; name: string },
  status: ControllerStatus | null,
  now: Date = new Date(),
): Promise<{ detected: string[]; ended: string[] }> {
  const result = { detected: [] as string[], ended: [] as string[] };
  if (!status || !status.found) return result;
  const active = await db.pause.findMany({ where: { environmentId: environment.id, endedAt: null } });
  await reconcileOne(db, environment, status, { covering: active, endable: active }, now, result);
  return result;
}

/**
 * The same for an environment of several applications, each controller
 * object on its own: one suspended with no pause of its own (nor one of the
 * whole environment) is a detected pause of that application; one running
 * again ends its own pauses only.
 */
export async function reconcileApplicationPauses(
  db: Db,
  environment: { id: string; name: string },
  applications: ReadonlyArray<{ id: string; status: ControllerStatus | null }>,
  now: Date = new Date(),
): Promise<{ detected: string[]; ended: string[] }> {
  const result = { detected: [] as string[], ended: [] as string[] };
  const active = await db.pause.findMany({ where: { environmentId: environment.id, endedAt: null } });
  for (const app of applications) {
    if (!app.status?.found) continue;
    const ref = refOf(app.status);
    const own = active.filter((p) => p.controllerRef === ref || p.applicationId === app.id);
    // A pause of the whole environment covers the suspensions it made, not one it found: an object someone had
    // suspended by hand before it began stays suspended after it (resume puts it back so), and is that someone's.
    const wholeEnvironment = active.filter((p) => p.applicationId === null && p.controllerRef === null && !suspendedApart(p, app.status!, ref));
    await reconcileOne(db, environment, app.status, { covering: [...own, ...wholeEnvironment], endable: own }, now, result);
  }
  return result;
}

/**
 * Whether an object is suspended apart from an environment-wide pause: a Flux object the pause found already
 * suspended (its recorded spec.suspend was true), or an Argo CD Application whose reconcile someone skipped (the
 * pause never sets that annotation). An Application's automated policy the pause found removed or switched off is
 * not told apart: without Git's word at that time it may be manual sync by design, which is no pause.
 */
function suspendedApart(pause: ActivePause, status: ControllerStatus, ref: string): boolean {
  if (status.argoSync === "skip-reconcile") return true;
  const found = eachPolicyOf(pause.previousPolicy)?.each.find((e) => e.ref === ref)?.previousPolicy;
  return !!found && typeof found === "object" && (found as { suspend?: unknown }).suspend === true;
}

async function reconcileOne(
  db: Db,
  environment: { id: string; name: string },
  status: ControllerStatus,
  pauses: { covering: ActivePause[]; endable: ActivePause[] },
  now: Date,
  result: { detected: string[]; ended: string[] },
): Promise<void> {
  const ref = refOf(status);
  if (status.suspended && pauses.covering.length === 0) {
    const how = status.argoSync ? ARGO_PAUSE_WORDS[status.argoSync] : undefined;
    try {
      await db.$transaction(async (tx) => {
        const detectedAt = status.suspendedBy?.time ? new Date(status.suspendedBy.time) : now;
        const validAt = Number.isNaN(detectedAt.getTime()) ? now : detectedAt;
        const pause = await tx.pause.create({
          data: {
            environmentId: environment.id,
            controllerRef: ref,
            applicationId: await applicationIdForControllerRef(tx, environment.id, ref),
            origin: "detected",
            startedAt: validAt,
            detectedManager: status.suspendedBy?.manager ?? null,
            detectedAt: validAt,
          },
        });
        await appendAudit(tx, {
          actor: SYSTEM,
          action: "pause.detected",
          targetType: "pause",
          targetId: pause.id,
          environment: environment.name,
          reason: `${ref} suspended outside Driftwatch${how ? ` (${how})` : ""}${status.suspendedBy ? `; last written by ${status.suspendedBy.manager}${status.suspendedBy.time ? ` at ${status.suspendedBy.time}` : ""}` : ""}`,
          after: { controllerRef: ref, manager: status.suspendedBy?.manager ?? null, time: status.suspendedBy?.time ?? null, automatedSync: status.automatedSync, argoSync: status.argoSync ?? null },
          at: now,
        });
        result.detected.push(pause.id);
      });
    } catch (e) {
      // A pause was recorded concurrently (an operator's, committing now): it owns this suspension.
      if (!isUniqueViolation(e)) throw e;
    }
    return;
  }
  if (!status.suspended) {
    // A detected pause of an Application that syncs by hand by design (Git declares no automated policy, or no longer
    // does) was never a pause: it ends saying so, not as if someone had resumed it.
    const manual = status.argoSync === "manual";
    for (const p of pauses.endable) {
      if (p.origin === "dashboard" && !p.executed) continue; // recorded only; the cluster never agreed
      await db.$transaction(async (tx) => {
        const n = await tx.pause.updateMany({ where: { id: p.id, endedAt: null }, data: { endedAt: now, endReason: manual ? MANUAL_BY_DESIGN : "resumed in the cluster, outside Driftwatch" } });
        if (n.count === 0) return;
        await appendAudit(tx, {
          actor: SYSTEM,
          action: "pause.ended",
          targetType: "pause",
          targetId: p.id,
          environment: environment.name,
          reason: manual ? `${ref} ${MANUAL_BY_DESIGN}` : `${ref} is reconciling again`,
          before: { origin: p.origin, reason: p.reason },
          after: { resumedOnController: false, observed: true },
          at: now,
        });
        result.ended.push(p.id);
      });
    }
  }
}

/** Resumes expired pauses of environments that ask for it (`autoResume: true`). Returns the pauses resumed. */
export async function resumeExpiredPauses(db: Db, deps: PauseDeps = {}): Promise<{ resumed: string[]; failed: Array<{ id: string; message: string }> }> {
  const now = deps.now ?? new Date();
  const expired = await db.pause.findMany({
    where: { endedAt: null, expiresAt: { lte: now } },
    include: { environment: { select: { spec: true, removedAt: true } } },
  });
  const out = { resumed: [] as string[], failed: [] as Array<{ id: string; message: string }> };
  for (const p of expired) {
    const spec = p.environment.spec as { autoResume?: unknown } | null;
    if (p.environment.removedAt || spec?.autoResume !== true) continue;
    try {
      await resumePause(db, p.id, { type: "system", name: "auto-resume" }, { ...deps, now, reason: "expired (automatic resume)" });
      out.resumed.push(p.id);
    } catch (e) {
      out.failed.push({ id: p.id, message: e instanceof Error ? e.message : String(e) });
    }
  }
  return out;
}
