// Resume: ends the pause, and resumes the controller where Driftwatch can.
import { z } from "zod";
import { mutationRoute } from "@/lib/api/route";
import { actorOf } from "@/lib/auth/guard";
import { resumePause, resumePauseSchema } from "@/lib/pauses";

export const dynamic = "force-dynamic";

export const POST = mutationRoute(
  { role: "operator", params: z.object({ id: z.uuid("not a pause id") }), body: resumePauseSchema },
  async ({ db, params, body, user }) => ({ pause: await resumePause(db, params.id, actorOf(user), { reason: body?.reason }) }),
);
