// Prometheus scrape endpoint. Public like /api/health (counts and environment
// names, no object content): restrict it at the ingress when the dashboard is
// reachable from untrusted networks (docs/operations.md).
import { NextResponse } from "next/server";
import { getPrisma } from "@/lib/db";
import { logger } from "@/lib/log";
import { METRICS_CONTENT_TYPE, metricsRenderer } from "@/lib/metrics";

export const dynamic = "force-dynamic";

const render = metricsRenderer();

export async function GET(): Promise<NextResponse> {
  try {
    const text = await render(getPrisma());
    return new NextResponse(text, { status: 200, headers: { "content-type": METRICS_CONTENT_TYPE, "cache-control": "no-store" } });
  } catch (e) {
    logger.error({ err: e instanceof Error ? e.message : String(e) }, "metrics scrape failed");
    return new NextResponse("# metrics unavailable: the database did not answer\n", { status: 503, headers: { "content-type": METRICS_CONTENT_TYPE, "cache-control": "no-store" } });
  }
}
