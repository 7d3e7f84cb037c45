// `npm run collect -- --once`: one run per environment, in this process, now.
import type { CollectorContext, RunOutcome } from "./collect-environment";
import { enqueueRun, leaseRunById } from "./jobs";
import { executeRun, newWorkerId } from "./worker";

export interface OnceResult {
  environment: string;
  runId: number | null;
  outcome: RunOutcome | null;
  skipped?: string;
}

export async function runOnce(ctx: CollectorContext, only?: string): Promise<OnceResult[]> {
  const envs = await ctx.db.environment.findMany({ where: { removedAt: null, ...(only ? { name: only } : {}) }, orderBy: { position: "asc" } });
  if (only && envs.length === 0) throw new Error(`unknown environment "${only}" (configured: ${ctx.config.environments.map((e) => e.name).join(", ") || "none"})`);
  const workerId = newWorkerId();
  const results: OnceResult[] = [];
  for (const env of envs) {
    const runId = await enqueueRun(ctx.db, env.id, "cli");
    const run = await leaseRunById(ctx.db, runId, workerId, 120_000, ctx.now());
    if (!run) {
      results.push({ environment: env.name, runId, outcome: null, skipped: "another collector is running this environment right now" });
      continue;
    }
    results.push({ environment: env.name, runId, outcome: await executeRun(ctx, run, workerId, 120_000) });
  }
  return results;
}
