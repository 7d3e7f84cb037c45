// Liveness: the process serves HTTP. Never touches the database, so a
// database outage does not get healthy web processes restarted.
import { NextResponse } from "next/server";
import { liveness } from "@/lib/server/health";

export const dynamic = "force-dynamic";

export function GET(): NextResponse {
  return NextResponse.json(liveness(new Date()), { headers: { "cache-control": "no-store" } });
}
