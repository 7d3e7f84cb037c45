import { jsonRoute } from "@/lib/api/route";
import { getPrisma } from "@/lib/db";
import { lookupCommit } from "@/lib/dashboard";
import { shaParam } from "@/lib/dashboard/params";

export const dynamic = "force-dynamic";

/** 200 with `match: "exact"` and the commit, or `match: "ambiguous"` and the candidates for a short sha. */
export const GET = jsonRoute({ params: shaParam }, async ({ params }) => lookupCommit(getPrisma(), params.sha));
