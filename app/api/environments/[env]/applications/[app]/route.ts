import { sharedReadRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { getPrisma } from "@/lib/db";
import { getApplication } from "@/lib/dashboard/applications";

export const dynamic = "force-dynamic";

export const GET = sharedReadRoute(operations.getApplication, ({ params }) => getApplication(getPrisma(), params.env, params.app));
