import { sharedReadRoute } from "@/lib/api/route";
import { driftQuerySchema } from "@/lib/dashboard";
import { cachedDrift } from "@/lib/dashboard/cached";
import { envParams } from "@/lib/dashboard/params";

export const dynamic = "force-dynamic";

export const GET = sharedReadRoute({ params: envParams, query: driftQuerySchema }, ({ params, query }) => cachedDrift(params.env, query));
