import { jsonRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { getPrisma } from "@/lib/db";
import { getPause } from "@/lib/pauses";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(operations.getPause, async ({ params }) => ({
  pause: await getPause(getPrisma(), params.id),
}));
