import { mutationRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { actorOf } from "@/lib/auth/guard";
import { transferClaim } from "@/lib/claims";

export const dynamic = "force-dynamic";

export const POST = mutationRoute(
  operations.transferClaim,
  async ({ db, params, body, user }) => ({ claim: await transferClaim(db, params.id, body, actorOf(user)) }),
);
