import { jsonRoute } from "@/lib/api/route";
import { getPrisma } from "@/lib/db";
import { getRun } from "@/lib/dashboard";
import { runParams } from "@/lib/dashboard/params";

export const dynamic = "force-dynamic";

export const GET = jsonRoute({ params: runParams }, async ({ params }) => getRun(getPrisma(), params.id));
