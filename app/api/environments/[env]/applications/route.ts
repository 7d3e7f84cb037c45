import { sharedReadRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { getPrisma } from "@/lib/db";
import { listApplications } from "@/lib/dashboard/applications";

export const dynamic = "force-dynamic";

export const GET = sharedReadRoute(operations.listApplications, ({ params, query }) => listApplications(getPrisma(), params.env, query));
