import { jsonRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { getPrisma } from "@/lib/db";
import { search } from "@/lib/search/search";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(operations.search, async ({ query }) => ({ query: query.q, hits: await search(getPrisma(), query.q) }));
