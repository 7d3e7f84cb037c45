import { NextResponse } from "next/server";
import { jsonRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { getPrisma } from "@/lib/db";
import { getTimeline } from "@/lib/dashboard";
import { toCsv, toJson, toMarkdown } from "@/lib/timeline";

export const dynamic = "force-dynamic";

const TYPES = { csv: "text/csv; charset=utf-8", md: "text/markdown; charset=utf-8", json: "application/json; charset=utf-8" } as const;

/** Without `format`, the page's JSON; with `format=csv|json|md`, a download of exactly what the page shows. */
export const GET = jsonRoute(operations.getTimeline, async ({ req, query }) => {
  const now = new Date();
  const t = await getTimeline(getPrisma(), query, now);
  if (!query.format) return t;
  const ctx = { generatedAt: now.toISOString(), from: t.from, to: t.to, environment: t.environment, application: t.application, types: t.types, truncated: t.truncated, baseUrl: req.nextUrl.origin };
  const body = query.format === "csv" ? toCsv(t.events, ctx) : query.format === "md" ? toMarkdown(t.events, ctx) : toJson(t.events, ctx);
  const file = `driftwatch-timeline-${t.environment ?? "all"}${t.application ? `-${t.application.replace(/[^A-Za-z0-9._-]+/g, "_")}` : ""}-${t.from.slice(0, 16).replace(/[:T]/g, "")}.${query.format}`;
  return new NextResponse(body, {
    headers: { "content-type": TYPES[query.format], "content-disposition": `attachment; filename="${file}"`, "cache-control": "no-store" },
  });
});
