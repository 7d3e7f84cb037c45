// The change that makes Git match live, for the claim's owner to commit:
// a unified diff to download (default) or, with ?format=json, the files and notes.
import { NextResponse } from "next/server";
import { jsonRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { getPrisma } from "@/lib/db";
import { buildAdoptPatch } from "@/lib/claims";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(
  operations.getAdoptPatch,
  async ({ params, query }) => {
    const result = await buildAdoptPatch(getPrisma(), params.id);
    if (query.format === "json") return result;
    const header = [
      `# Driftwatch adopt patch for claim ${result.claimId}`,
      result.repository ? `# repository: ${result.repository}${result.revision ? ` at ${result.revision}` : ""}` : null,
      ...result.notes.map((n) => `# note: ${n.replace(/\n/g, " ")}`),
      "# apply with: git apply -p1 <this file>",
      "",
    ]
      .filter((l): l is string => l !== null)
      .join("\n");
    return new NextResponse(header + "\n" + result.patch, {
      headers: {
        "content-type": "text/x-diff; charset=utf-8",
        "content-disposition": `attachment; filename="driftwatch-claim-${result.claimId.slice(0, 8)}-adopt.patch"`,
        "cache-control": "no-store",
      },
    });
  },
);
