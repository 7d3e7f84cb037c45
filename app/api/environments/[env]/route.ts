import { sharedReadRoute } from "@/lib/api/route";
import { cachedEnvironmentDetail } from "@/lib/dashboard/cached";
import { envParams } from "@/lib/dashboard/params";

export const dynamic = "force-dynamic";

export const GET = sharedReadRoute({ params: envParams }, ({ params }) => cachedEnvironmentDetail(params.env));
