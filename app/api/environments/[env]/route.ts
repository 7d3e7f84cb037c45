import { jsonRoute } from "@/lib/api/route";
import { getPrisma } from "@/lib/db";
import { getEnvironmentDetail } from "@/lib/dashboard";
import { envParams } from "@/lib/dashboard/params";

export const dynamic = "force-dynamic";

export const GET = jsonRoute({ params: envParams }, async ({ params }) => getEnvironmentDetail(getPrisma(), params.env));
