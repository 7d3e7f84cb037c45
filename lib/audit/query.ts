// Reading the audit log: filters shared by the page, the JSON API and the
// exports, so what you export is exactly what you were looking at.
import { auditContentOf, type AuditContent } from "./chain";
import { z } from "zod";
import type { Prisma, PrismaClient } from "@/lib/db/generated/client";

type Db = PrismaClient | Prisma.TransactionClient;

const isoDate = z
  .string()
  .max(64)
  .refine((s) => {
    const t = Date.parse(s);
    // Postgres and people both live between these years; anything else is a typo or a probe.
    return !Number.isNaN(t) && t >= Date.UTC(1970, 0, 1) && t < Date.UTC(10000, 0, 1);
  }, { message: "expected a date/time such as 2024-05-01T14:00:00Z" })
  .transform((s) => new Date(s));

export const auditFilterSchema = z.object({
  from: isoDate.optional(),
  to: isoDate.optional(),
  actor: z.string().max(200).optional(),
  /** Exact action, or a family such as `pause.`. */
  action: z.string().max(100).optional(),
  environment: z.string().max(100).optional(),
  targetType: z.string().max(100).optional(),
  targetId: z.string().max(500).optional(),
  /** Free text in the reason or the target. */
  q: z.string().max(200).optional(),
});
export type AuditFilter = z.infer<typeof auditFilterSchema>;

/** An audit event as the API returns it: the hashed content with its time as ISO text, plus its place in the chain. */
export type AuditEventDto = Omit<AuditContent, "at"> & { id: string; at: string; prevHash: string; hash: string };

export function auditWhere(f: AuditFilter): Prisma.AuditEventWhereInput {
  const and: Prisma.AuditEventWhereInput[] = [];
  if (f.from) and.push({ at: { gte: f.from } });
  if (f.to) and.push({ at: { lte: f.to } });
  if (f.actor) and.push({ actorName: { contains: f.actor, mode: "insensitive" } });
  if (f.action) and.push(f.action.endsWith(".") ? { action: { startsWith: f.action } } : { action: f.action });
  if (f.environment) and.push({ environment: f.environment });
  if (f.targetType) and.push({ targetType: f.targetType });
  if (f.targetId) and.push({ targetId: f.targetId });
  if (f.q) {
    and.push({
      OR: [
        { reason: { contains: f.q, mode: "insensitive" } },
        { targetId: { contains: f.q, mode: "insensitive" } },
        { actorName: { contains: f.q, mode: "insensitive" } },
      ],
    });
  }
  return and.length ? { AND: and } : {};
}

type Row = Awaited<ReturnType<PrismaClient["auditEvent"]["findFirstOrThrow"]>>;

export function toAuditDto(row: Row): AuditEventDto {
  return { id: row.id.toString(), ...auditContentOf(row), at: row.at.toISOString(), prevHash: row.prevHash, hash: row.hash };
}

/** Newest first; `before` is the id of the last event of the previous page. */
export async function listAuditEvents(
  db: Db,
  filter: AuditFilter,
  page: { before?: string; limit?: number } = {},
): Promise<{ events: AuditEventDto[]; nextBefore: string | null }> {
  const limit = Math.min(Math.max(page.limit ?? 100, 1), 500);
  const where = auditWhere(filter);
  const cursor = page.before && /^\d{1,18}$/.test(page.before) ? BigInt(page.before) : null;
  const rows = await db.auditEvent.findMany({
    where: cursor === null ? where : { AND: [where, { id: { lt: cursor } }] },
    orderBy: { id: "desc" },
    take: limit + 1,
  });
  const more = rows.length > limit;
  const events = rows.slice(0, limit).map(toAuditDto);
  return { events, nextBefore: more ? (events[events.length - 1]?.id ?? null) : null };
}

/** Every matching event, oldest first, in batches (exports of any size). */
export async function* iterateAuditEvents(db: Db, filter: AuditFilter, batchSize = 1000): AsyncGenerator<AuditEventDto> {
  const where = auditWhere(filter);
  let cursor: bigint | null = null;
  for (;;) {
    const rows: Row[] = await db.auditEvent.findMany({
      where: cursor === null ? where : { AND: [where, { id: { gt: cursor } }] },
      orderBy: { id: "asc" },
      take: batchSize,
    });
    for (const row of rows) yield toAuditDto(row);
    if (rows.length < batchSize) return;
    cursor = rows[rows.length - 1]?.id ?? null;
  }
}

export const CSV_COLUMNS = [
  "id",
  "at",
  "actorType",
  "actorName",
  "action",
  "targetType",
  "targetId",
  "environment",
  "reason",
  "before",
  "after",
  "prevHash",
  "hash",
] as const;

function csvCell(value: unknown): string {
  let s = value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
  // A spreadsheet would run a cell starting with = + - @ as a formula.
  if (/^[=+\-@\t\r]/.test(s)) s = "'" + s;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvHeader(): string {
  return CSV_COLUMNS.join(",") + "\r\n";
}

export function csvLine(e: AuditEventDto): string {
  return CSV_COLUMNS.map((c) => csvCell(e[c])).join(",") + "\r\n";
}

export function jsonLine(e: AuditEventDto): string {
  return JSON.stringify(e) + "\n";
}
