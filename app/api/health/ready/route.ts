// Readiness: database reachable through the pool and schema current; cached
// for up to 2 s; a reason code, never error text.
import { NextResponse } from "next/server";
import { readiness } from "@/lib/server/health";

export const dynamic = "force-dynamic";

export async function GET(): Promise<NextResponse> {
  const ready = await readiness();
  return NextResponse.json(ready, { status: ready.ready ? 200 : 503, headers: { "cache-control": "no-store" } });
}
