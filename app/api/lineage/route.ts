import { z } from "zod";
import { jsonRoute } from "@/lib/api/route";
import { getPrisma } from "@/lib/db";
import { getLineage } from "@/lib/dashboard";

export const dynamic = "force-dynamic";

const query = z.object({ limit: z.coerce.number().int().min(1).max(200).default(30) });

export const GET = jsonRoute({ query }, async ({ query }) => getLineage(getPrisma(), { perBranch: query.limit }));
