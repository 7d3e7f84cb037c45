// What the pause form must ask for in an environment: the typed confirmation,
// the longest expiry, and whether Driftwatch will perform it on the controller.
import { jsonRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { ApiError } from "@/lib/api/errors";
import { getPrisma } from "@/lib/db";
import { controllerRefOf, environmentConfigOf } from "@/lib/pauses";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(operations.getPausePolicy, async ({ query }) => {
  const env = await getPrisma().environment.findUnique({ where: { name: query.environment }, select: { spec: true, removedAt: true } });
  if (!env || env.removedAt) throw new ApiError("not_found", `environment "${query.environment}" not found`);
  const config = environmentConfigOf(env.spec);
  return {
    environment: config.name,
    confirmPause: config.confirmPause,
    maxPauseMs: config.maxPause,
    autoResume: config.autoResume,
    controllerRef: controllerRefOf(config),
    executes: Boolean(config.write && config.controller),
  };
});
