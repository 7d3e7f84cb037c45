import { mutationRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { actorOf } from "@/lib/auth/guard";
import { releaseClaim } from "@/lib/claims";

export const dynamic = "force-dynamic";

export const POST = mutationRoute(
  operations.releaseClaim,
  async ({ db, params, body, user }) => ({ claim: await releaseClaim(db, params.id, body, actorOf(user)) }),
);
