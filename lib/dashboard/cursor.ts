// Keyset pagination cursors: the sort column's value and the id of the last
// row shown. Opaque to clients (base64url JSON) but checked on the way back in,
// so a tampered or stale cursor is a 400, never a 500 or a wrong page.
import { z } from "zod";
import { DRIFT_SORTS, type DriftSort } from "@/lib/api/contract";

export interface DriftCursor {
  sort: DriftSort;
  dir: "asc" | "desc";
  /** The last row's sort value (string or ISO time); null when that row had none. */
  value: string | null;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const wire = z.object({
  s: z.enum(DRIFT_SORTS),
  d: z.enum(["asc", "desc"]),
  v: z.string().max(2000).nullable(),
  i: z.string().regex(UUID),
});

export function encodeCursor(c: DriftCursor): string {
  return Buffer.from(JSON.stringify({ s: c.sort, d: c.dir, v: c.value, i: c.id }), "utf8").toString("base64url");
}

export class CursorError extends Error {}

export function decodeCursor(raw: string, expected: { sort: DriftSort; dir: "asc" | "desc" }): DriftCursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    throw new CursorError("cursor is not one this API issued");
  }
  const r = wire.safeParse(parsed);
  if (!r.success) throw new CursorError("cursor is not one this API issued");
  if (r.data.s !== expected.sort || r.data.d !== expected.dir) {
    throw new CursorError(`cursor was issued for sort=${r.data.s}&dir=${r.data.d}; start again without a cursor after changing the sort`);
  }
  return { sort: r.data.s, dir: r.data.d, value: r.data.v, id: r.data.i };
}
