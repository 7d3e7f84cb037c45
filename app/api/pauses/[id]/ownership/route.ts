// Take ownership of a detected (unattributed) pause: reason and expiry.
import { z } from "zod";
import { mutationRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/guard";
import { takeOwnership, takeOwnershipSchema } from "@/lib/pauses";

export const dynamic = "force-dynamic";

export const POST = mutationRoute(
  { role: "operator", params: z.object({ id: z.uuid("not a pause id") }), body: takeOwnershipSchema },
  async ({ db, params, body, user }) => ({ pause: await takeOwnership(db, params.id, body, actorOf(user)) }),
);
