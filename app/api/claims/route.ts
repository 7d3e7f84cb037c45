// Claims of drift (temporary divergences): list and create.
import { z } from "zod";
import { jsonRoute, mutationRoute } from "@/lib/api/route";
import { getPrisma } from "@/lib/db";
import { actorOf } from "@/lib/auth/guard";
import { createClaim, createClaimSchema, listClaims } from "@/lib/claims";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(
  {
    query: z.object({
      environment: z.string().max(100).optional(),
      status: z.enum(["active", "released", "resolved", "transferred"]).optional(),
      owner: z.string().max(100).optional(),
      driftItemId: z.uuid().optional(),
      limit: z.coerce.number().int().min(1).max(1000).optional(),
    }),
  },
  async ({ query }) => ({ claims: await listClaims(getPrisma(), query) }),
);

export const POST = mutationRoute({ role: "operator", body: createClaimSchema, status: 201 }, async ({ db, body, user }) => ({
  claim: await createClaim(db, body, actorOf(user)),
}));
