import { jsonRoute } from "@/lib/api/route";
import { getPrisma } from "@/lib/db";
import { getObjectDetail } from "@/lib/dashboard";
import { keyOf } from "@/lib/dashboard/object-key";
import { objectParams } from "@/lib/dashboard/params";

export const dynamic = "force-dynamic";

export const GET = jsonRoute({ params: objectParams }, async ({ params }) => {
  const key = keyOf({
    group: params.group === "_" ? "" : params.group,
    kind: params.kind,
    namespace: params.namespace === "_" ? "" : params.namespace,
    name: params.name,
  });
  return getObjectDetail(getPrisma(), params.env, key);
});
