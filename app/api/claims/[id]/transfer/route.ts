import { z } from "zod";
import { mutationRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/guard";
import { transferClaim, transferClaimSchema } from "@/lib/claims";

export const dynamic = "force-dynamic";

export const POST = mutationRoute(
  { role: "operator", params: z.object({ id: z.uuid("not a claim id") }), body: transferClaimSchema },
  async ({ db, params, body, user }) => ({ claim: await transferClaim(db, params.id, body, actorOf(user)) }),
);
