import { jsonRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { getPrisma } from "@/lib/db";
import { getClaim } from "@/lib/claims";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(operations.getClaim, async ({ params }) => ({
  claim: await getClaim(getPrisma(), params.id),
}));
