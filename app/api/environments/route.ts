import { sharedReadRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { cachedEnvironments } from "@/lib/dashboard/cached";

export const dynamic = "force-dynamic";

export const GET = sharedReadRoute(operations.listEnvironments, () => cachedEnvironments());
