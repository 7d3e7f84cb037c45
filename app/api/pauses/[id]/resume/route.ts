// Resume: ends the pause, and resumes the controller where Driftwatch can.
import { mutationRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { actorOf } from "@/lib/auth/guard";
import { resumePause } from "@/lib/pauses";

export const dynamic = "force-dynamic";

export const POST = mutationRoute(
  operations.resumePause,
  async ({ db, params, body, user }) => ({ pause: await resumePause(db, params.id, actorOf(user), { reason: body?.reason }) }),
);
