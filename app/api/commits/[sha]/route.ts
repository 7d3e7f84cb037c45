import { jsonRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { getPrisma } from "@/lib/db";
import { lookupCommit } from "@/lib/dashboard";

export const dynamic = "force-dynamic";

/** 200 with `match: "exact"` and the commit, or `match: "ambiguous"` and the candidates for a short sha. */
export const GET = jsonRoute(operations.lookupCommit, async ({ params }) => lookupCommit(getPrisma(), params.sha));
