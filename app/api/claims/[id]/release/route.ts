import { z } from "zod";
import { mutationRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/guard";
import { releaseClaim, releaseClaimSchema } from "@/lib/claims";

export const dynamic = "force-dynamic";

export const POST = mutationRoute(
  { role: "operator", params: z.object({ id: z.uuid("not a claim id") }), body: releaseClaimSchema },
  async ({ db, params, body, user }) => ({ claim: await releaseClaim(db, params.id, body, actorOf(user)) }),
);
