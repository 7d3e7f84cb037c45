import { sharedReadRoute } from "@/lib/api/route";
import { cachedEnvironments } from "@/lib/dashboard/cached";

export const dynamic = "force-dynamic";

export const GET = sharedReadRoute({}, () => cachedEnvironments());
