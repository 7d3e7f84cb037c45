// The write half of a run that collects no application: a discover-only
// environment whose discovery read the cluster and found nothing it selects.
// That is an answer, not a failure: the applications it held are marked
// removed (rows, drift and lineage kept as history), their current objects
// leave the environment (a null version each, so history shows when), and
// their open drift ends as "deleted". Applications kept for a kind that could
// not be listed are unknown this run, not gone: they and their objects stay.
import { Prisma } from "@/lib/db/generated/client";
import type { RunStats } from "@/lib/domain/types";
import type { CollectorContext } from "./run-context";
import { appendVersions, deleteRows, readCurrent, type Tx } from "./store";
import { recordEvents, type ObservedEvent } from "./events";
import type { RolloutSummary } from "@/lib/domain/types";
import { forgetRows } from "./run-memo";
import { closeClaimsForResolvedDrift } from "@/lib/claims";
import { holdEnvironment, rollupOf, type PersistInputs, type SkippedApplication } from "./persist";

export interface NothingCollected {
  environmentId: string;
  runId: number;
  /** Known applications kept as they were (their kind could not be listed this run). */
  kept: SkippedApplication[];
  staleAfterMs: number;
  inputs: Promise<PersistInputs>;
}

export async function persistNoApplications(ctx: CollectorContext, state: NothingCollected): Promise<Omit<RunStats, "durationMs">> {
  const now = ctx.now();
  const { db } = ctx;
  const envId = state.environmentId;
  const { lastGoodRows, openItems, applicationRows } = await state.inputs;
  const lastGood = lastGoodRows[0];
  if (!lastGood) throw new Error(`environment ${envId} does not exist`);
  const keptIds = new Set(state.kept.map((k) => k.id));
  const keep = (applicationId: string | null) => applicationId !== null && keptIds.has(applicationId);
  const [prevLive, prevDesired] = await Promise.all([readCurrent(db, "LiveObject", envId), readCurrent(db, "DesiredObject", envId)]);
  // This module writes rows without the run memo: the next run reads them from Postgres.
  forgetRows(envId);
  const gone = (rows: Map<string, { applicationId?: string | null }>) => [...rows].filter(([, r]) => !keep(r.applicationId ?? null)).map(([key]) => key);
  const liveGone = gone(prevLive);
  const desiredGone = gone(prevDesired);
  const ending = openItems.filter((i) => !keep(i.applicationId));
  const nameOf = new Map(applicationRows.map((a) => [a.id, a.name]));
  const events: ObservedEvent[] = ending.map((i) => ({
    action: "drift.resolved",
    targetId: i.id,
    key: i.key,
    before: { type: i.type },
    after: { resolution: "deleted", sha: null, durationMs: Math.max(0, now.getTime() - i.openedAt.getTime()), ...(i.applicationId ? { application: nameOf.get(i.applicationId) ?? null } : {}) },
  }));
  const stats = {
    desired: prevDesired.size - desiredGone.length,
    live: prevLive.size - liveGone.length,
    drift: { Modified: 0, Missing: 0, Extra: 0 },
    ignored: 0,
    blobsWritten: 0,
    objectsChanged: liveGone.length + desiredGone.length,
    applications: state.kept.length,
  };
  await db.$transaction(
    async (tx: Tx) => {
      await holdEnvironment(tx, envId, state.runId, lastGood.lastGoodRunId);
      await tx.application.updateMany({ where: { environmentId: envId, removedAt: null, id: { notIn: [...keptIds] } }, data: { removedAt: now } });
      for (const k of state.kept) await tx.application.update({ where: { id: k.id }, data: { lastError: { ...k.error, at: now.toISOString() }, updatedAt: now } });
      await deleteRows(tx, "LiveObject", envId, liveGone);
      await appendVersions(tx, envId, state.runId, "live", liveGone.map((key) => ({ key, blobHash: null })), now);
      await deleteRows(tx, "DesiredObject", envId, desiredGone);
      await appendVersions(tx, envId, state.runId, "desired", desiredGone.map((key) => ({ key, blobHash: null })), now);
      const endingIds = ending.map((i) => i.id);
      if (endingIds.length > 0) {
        await tx.driftItem.updateMany({ where: { id: { in: endingIds } }, data: { resolvedAt: now, resolution: "deleted", resolutionSha: null, lastSeenAt: now } });
        await closeClaimsForResolvedDrift(tx, endingIds, { resolution: "deleted", sha: null }, now);
      }
      const rollup = await rollupOf(tx, envId, now, state.staleAfterMs);
      // Nothing kept: no application stands for the environment's revisions, controller or workloads any more.
      const emptied = state.kept.length === 0;
      await tx.collectionRun.update({ where: { id: state.runId }, data: { stats } });
      await tx.environment.update({
        where: { id: envId },
        data: {
          ...(emptied ? { approvedSha: null, approvedAt: null, appliedSha: null, appliedSource: null, appliedSince: null, controller: Prisma.DbNull, rollout: { total: 0, rollingOut: 0, workloads: [] } satisfies RolloutSummary } : {}),
          objectCount: stats.live,
          lastRunId: state.runId,
          lastGoodRunId: state.runId,
          lastCollectedAt: now,
          lastGoodCollectedAt: now,
          lastError: Prisma.DbNull,
          applicationsTotal: rollup.total,
          applicationsInSync: rollup.inSync,
          applicationsDrifted: rollup.drifted,
          applicationsStale: rollup.stale,
          applicationsPaused: rollup.paused,
          applicationsFailing: rollup.failing,
          updatedAt: now,
        },
      });
      await recordEvents(tx, lastGood.name, events, now);
    },
    { timeout: 120_000, maxWait: 30_000 },
  );
  return stats;
}
