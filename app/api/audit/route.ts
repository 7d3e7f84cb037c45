// The audit log: a page of events as JSON, or every matching event as CSV or
// JSON lines (?format=csv|jsonl), streamed so an export of any size is cheap.
import { NextResponse } from "next/server";
import { jsonRoute } from "@/lib/api/route";
import { operations } from "@/lib/api/contract/operations";
import { getPrisma } from "@/lib/db";
import { csvHeader, csvLine, iterateAuditEvents, jsonLine, listAuditEvents } from "@/lib/audit";

export const dynamic = "force-dynamic";

export const GET = jsonRoute(operations.listAuditEvents, async ({ query: q }) => {
  const { format, before, limit, ...filter } = q;
  const db = getPrisma();
  if (format === "json") return listAuditEvents(db, filter, { before, limit });
  const encoder = new TextEncoder();
  const events = iterateAuditEvents(db, filter);
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      if (format === "csv") controller.enqueue(encoder.encode(csvHeader()));
    },
    async pull(controller) {
      const next = await events.next();
      if (next.done) return controller.close();
      controller.enqueue(encoder.encode(format === "csv" ? csvLine(next.value) : jsonLine(next.value)));
    },
  });
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  return new NextResponse(stream, {
    headers: {
      "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="driftwatch-audit-${stamp}.${format === "csv" ? "csv" : "jsonl"}"`,
      "cache-control": "no-store",
    },
  });
});
