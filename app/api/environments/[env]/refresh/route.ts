// "Refresh now": queues a collection run (or moves the queued one forward).
import { mutationRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { ApiError } from "@/lib/api/errors";
import { appendAudit } from "@/lib/audit";
import { actorOf } from "@/lib/auth/guard";
import { enqueueRun } from "@/lib/collector/jobs";

export const dynamic = "force-dynamic";

export const POST = mutationRoute(
  operations.refreshEnvironment,
  async ({ db, params, user }) => {
    const env = await db.environment.findUnique({ where: { name: params.env }, select: { id: true, name: true, removedAt: true } });
    if (!env || env.removedAt) throw new ApiError("not_found", `environment "${params.env}" not found`);
    const runId = await enqueueRun(db, env.id, "manual", { requestedBy: user.username });
    await appendAudit(db, { actor: actorOf(user), action: "run.requested", targetType: "run", targetId: String(runId), environment: env.name });
    return { runId };
  },
);
