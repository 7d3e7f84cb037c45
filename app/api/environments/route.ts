import { jsonRoute } from "@/lib/api/route";
import { cachedEnvironments } from "@/lib/dashboard/cached";

export const dynamic = "force-dynamic";

export const GET = jsonRoute({}, () => cachedEnvironments());
