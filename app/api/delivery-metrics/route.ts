import { jsonRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { getPrisma } from "@/lib/db";
import { getMetrics } from "@/lib/dashboard";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(operations.getDeliveryMetrics, async ({ query }) => getMetrics(getPrisma(), query.days, new Date(), query.application));
