// Claims of drift (temporary divergences): list and create.
import { jsonRoute, mutationRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { getPrisma } from "@/lib/db";
import { actorOf } from "@/lib/auth/guard";
import { createClaim, listClaims } from "@/lib/claims";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(
  operations.listClaims,
  async ({ query }) => ({ claims: await listClaims(getPrisma(), query) }),
);

export const POST = mutationRoute(operations.createClaim, async ({ db, body, user }) => ({
  claim: await createClaim(db, body, actorOf(user)),
}));
