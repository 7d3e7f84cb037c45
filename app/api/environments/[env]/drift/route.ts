import { jsonRoute } from "@/lib/api/route";
import { getPrisma } from "@/lib/db";
import { driftQuerySchema, listDrift } from "@/lib/dashboard";
import { envParams } from "@/lib/dashboard/params";

export const dynamic = "force-dynamic";

export const GET = jsonRoute({ params: envParams, query: driftQuerySchema }, async ({ params, query }) => listDrift(getPrisma(), params.env, query));
