import { jsonRoute } from "@/lib/api/route";
import { getPrisma } from "@/lib/db";
import { listEnvironments } from "@/lib/dashboard";
import { configSummary } from "@/lib/dashboard/params";

export const dynamic = "force-dynamic";

export const GET = jsonRoute({}, async () => listEnvironments(getPrisma(), configSummary()));
