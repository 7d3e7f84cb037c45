// Pauses: list (any signed-in user) and create (operator).
import { jsonRoute, mutationRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { getPrisma } from "@/lib/db";
import { actorOf } from "@/lib/auth/guard";
import { createPause, listPauses } from "@/lib/pauses";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(
  operations.listPauses,
  async ({ query }) => ({
    pauses: await listPauses(getPrisma(), {
      environment: query.environment,
      active: query.active === undefined ? undefined : query.active === "true",
      limit: query.limit,
    }),
  }),
);

export const POST = mutationRoute(
  operations.createPause,
  async ({ db, body, user }) => {
    const { environment, ...input } = body;
    return { pause: await createPause(db, environment, input, actorOf(user)) };
  },
);
