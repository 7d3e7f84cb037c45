import { jsonRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { openApiDocument } from "@/lib/api/contract/openapi";

export const dynamic = "force-static";

export const GET = jsonRoute(operations.getOpenApi, async () => openApiDocument());
