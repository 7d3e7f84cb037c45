import { jsonRoute } from "@/lib/api/route";
import { openApiDocument } from "@/lib/dashboard/openapi";

export const dynamic = "force-static";

export const GET = jsonRoute({}, async () => openApiDocument());
