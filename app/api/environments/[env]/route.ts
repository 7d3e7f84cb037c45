import { sharedReadRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { cachedEnvironmentDetail } from "@/lib/dashboard/cached";

export const dynamic = "force-dynamic";

export const GET = sharedReadRoute(operations.getEnvironment, ({ params }) => cachedEnvironmentDetail(params.env));
