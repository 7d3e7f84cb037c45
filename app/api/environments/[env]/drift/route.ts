import { sharedReadRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { cachedDrift } from "@/lib/dashboard/cached";

export const dynamic = "force-dynamic";

export const GET = sharedReadRoute(operations.listDrift, ({ params, query }) => cachedDrift(params.env, query));
