// Prometheus scrape endpoint: the bearer token from DRIFTWATCH_METRICS_TOKEN
// (docs/operations.md, "Metrics", shows the scrape config), or a signed-in
// session. Counts and environment names, no object content.
import { NextResponse, type NextRequest } from "next/server";
import { getPrisma } from "@/lib/db";
import { env } from "@/lib/env";
import { logger } from "@/lib/log";
import { SESSION_COOKIE } from "@/lib/auth/session";
import { readSessionCached } from "@/lib/auth/session-cache";
import { METRICS_CONTENT_TYPE, metricsAccessProblem, metricsRenderer } from "@/lib/metrics";

export const dynamic = "force-dynamic";

const render = metricsRenderer();
const NO_STORE = { "cache-control": "no-store" };

export async function GET(req: NextRequest): Promise<NextResponse> {
  try {
    const token = env().DRIFTWATCH_METRICS_TOKEN;
    const authorization = req.headers.get("authorization");
    // The session is looked up only when the token did not already settle it.
    const byToken = metricsAccessProblem({ authorization, token, signedIn: false }) === null;
    const signedIn = !byToken && (await readSessionCached(req.cookies.get(SESSION_COOKIE)?.value)) !== null;
    const problem = byToken ? null : metricsAccessProblem({ authorization, token, signedIn });
    if (problem) {
      return NextResponse.json({ error: { code: "unauthorized", message: problem } }, { status: 401, headers: { ...NO_STORE, "www-authenticate": 'Bearer realm="driftwatch-metrics"' } });
    }
    const text = await render(getPrisma());
    return new NextResponse(text, { status: 200, headers: { "content-type": METRICS_CONTENT_TYPE, ...NO_STORE } });
  } catch (e) {
    logger.error({ err: e instanceof Error ? e.message : String(e) }, "metrics scrape failed");
    return new NextResponse("# metrics unavailable: the database did not answer\n", { status: 503, headers: { "content-type": METRICS_CONTENT_TYPE, ...NO_STORE } });
  }
}
