import { jsonRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { getPrisma } from "@/lib/db";
import { getLineage } from "@/lib/dashboard";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(operations.getLineage, async ({ query }) => getLineage(getPrisma(), { perBranch: query.limit }));
