// What follows every run, and what a worker sweeps periodically: detected
// pauses and alerts are re-evaluated from the state the run stored; expired
// pauses are resumed where the environment asks for it.
import type { ControllerStatus } from "@/lib/domain/types";
import { reconcileApplicationPauses, reconcileDetectedPauses, resumeExpiredPauses } from "@/lib/pauses";
import { refreshAlerts, alertOptionsFrom } from "@/lib/alerts";
import type { CollectorContext } from "./collect-environment";
import { retentionSweeper } from "./retention";

// One sweeper per process: it prunes at most once an hour whatever the sweep interval.
const pruneRetention = retentionSweeper();

export async function afterRunHooks(ctx: CollectorContext, environmentId: string): Promise<void> {
  const env = await ctx.db.environment.findUniqueOrThrow({ where: { id: environmentId }, select: { id: true, name: true, controller: true } });
  const now = ctx.now();
  // Several applications: each controller object's suspension is its own (the environment's status is its first's).
  const apps = await ctx.db.application.findMany({ where: { environmentId, removedAt: null }, select: { id: true, controller: true } });
  if (apps.length > 1) await reconcileApplicationPauses(ctx.db, env, apps.map((a) => ({ id: a.id, status: a.controller as ControllerStatus | null })), now);
  else await reconcileDetectedPauses(ctx.db, env, env.controller as ControllerStatus | null, now);
  await refreshAlerts(ctx.db, environmentId, now, alertOptionsFrom(ctx.config));
}

/** Time-based transitions no run triggers: claims and pauses expiring, unowned drift ageing. */
export async function periodicSweep(ctx: CollectorContext): Promise<void> {
  const now = ctx.now();
  await resumeExpiredPauses(ctx.db, { now });
  await refreshAlerts(ctx.db, null, now, alertOptionsFrom(ctx.config));
  const pruned = await pruneRetention(ctx.db, ctx.config.retention.rawSnapshots, now);
  if (pruned) ctx.log.info(pruned, "raw snapshots pruned");
}
