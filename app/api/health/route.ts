// Kept for existing probes and monitors: readiness plus collection counts.
// New probes should use /api/health/live and /api/health/ready.
import { NextResponse } from "next/server";
import { checkHealth } from "@/lib/server/health";

export const dynamic = "force-dynamic";

export async function GET(): Promise<NextResponse> {
  const health = await checkHealth();
  return NextResponse.json(health, { status: health.ready ? 200 : 503, headers: { "cache-control": "no-store" } });
}
