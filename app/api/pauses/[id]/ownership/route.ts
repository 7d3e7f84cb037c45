// Take ownership of a detected (unattributed) pause: reason and expiry.
import { mutationRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { actorOf } from "@/lib/auth/guard";
import { takeOwnership } from "@/lib/pauses";

export const dynamic = "force-dynamic";

export const POST = mutationRoute(
  operations.takePauseOwnership,
  async ({ db, params, body, user }) => ({ pause: await takeOwnership(db, params.id, body, actorOf(user)) }),
);
