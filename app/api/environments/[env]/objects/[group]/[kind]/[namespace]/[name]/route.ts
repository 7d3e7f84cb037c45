import { jsonRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { getPrisma } from "@/lib/db";
import { getObjectDetail } from "@/lib/dashboard";
import { keyOf } from "@/lib/dashboard/object-key";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(operations.getObject, async ({ params }) => {
  const key = keyOf({
    group: params.group === "_" ? "" : params.group,
    kind: params.kind,
    namespace: params.namespace === "_" ? "" : params.namespace,
    name: params.name,
  });
  return getObjectDetail(getPrisma(), params.env, key);
});
