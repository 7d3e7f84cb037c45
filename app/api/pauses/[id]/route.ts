import { z } from "zod";
import { jsonRoute } from "@/lib/api/route";
import { getPrisma } from "@/lib/db";
import { getPause } from "@/lib/pauses";

export const dynamic = "force-dynamic";

export const GET = jsonRoute({ params: z.object({ id: z.uuid("not a pause id") }) }, async ({ params }) => ({
  pause: await getPause(getPrisma(), params.id),
}));
