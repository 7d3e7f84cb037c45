import { z } from "zod";
import { jsonRoute } from "@/lib/api/route";
import { getPrisma } from "@/lib/db";
import { getClaim } from "@/lib/claims";

export const dynamic = "force-dynamic";

export const GET = jsonRoute({ params: z.object({ id: z.uuid("not a claim id") }) }, async ({ params }) => ({
  claim: await getClaim(getPrisma(), params.id),
}));
