// What the pause form must ask for in an environment (or one application of
// it): the typed confirmation, the longest expiry, and whether Driftwatch
// will perform it on the controller.
import { jsonRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { getPrisma } from "@/lib/db";
import { pausePolicy } from "@/lib/pauses";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(operations.getPausePolicy, async ({ query }) => pausePolicy(getPrisma(), query.environment, query.application));
