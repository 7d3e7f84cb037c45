import { jsonRoute } from "@/lib/api/route";
import { getPrisma } from "@/lib/db";
import { compareEnvironments, compareQuerySchema } from "@/lib/dashboard";

export const dynamic = "force-dynamic";

export const GET = jsonRoute({ query: compareQuerySchema }, async ({ query }) => compareEnvironments(getPrisma(), query));
