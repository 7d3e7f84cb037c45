// Pauses: list (any signed-in user) and create (operator).
import { z } from "zod";
import { jsonRoute, mutationRoute } from "@/lib/api/route";
import { getPrisma } from "@/lib/db";
import { actorOf } from "@/lib/auth/guard";
import { createPause, createPauseSchema, listPauses } from "@/lib/pauses";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(
  {
    query: z.object({
      environment: z.string().max(100).optional(),
      active: z.enum(["true", "false"]).optional(),
      limit: z.coerce.number().int().min(1).max(1000).optional(),
    }),
  },
  async ({ query }) => ({
    pauses: await listPauses(getPrisma(), {
      environment: query.environment,
      active: query.active === undefined ? undefined : query.active === "true",
      limit: query.limit,
    }),
  }),
);

export const POST = mutationRoute(
  { role: "operator", body: createPauseSchema.extend({ environment: z.string().min(1).max(100) }), status: 201 },
  async ({ db, body, user }) => {
    const { environment, ...input } = body;
    return { pause: await createPause(db, environment, input, actorOf(user)) };
  },
);
