import { jsonRoute } from "@/lib/api/route";
import { getPrisma } from "@/lib/db";
import { getMetrics, metricsQuerySchema } from "@/lib/dashboard";

export const dynamic = "force-dynamic";

export const GET = jsonRoute({ query: metricsQuerySchema }, async ({ query }) => getMetrics(getPrisma(), query.days));
