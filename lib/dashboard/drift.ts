// The drift table: filters, search, sorting and keyset pagination over
// DriftItem. Keyset (sort value, id) instead of OFFSET so page 200 of 10,000
// items costs what page 1 costs; the default sort (key) walks the partial
// unique index on open items ("environmentId", key) WHERE "resolvedAt" IS NULL.
import { Prisma, type PrismaClient } from "@/lib/db/generated/client";
import { badRequest } from "@/lib/api/errors";
import { CursorError, decodeCursor, encodeCursor } from "./cursor";
import type { DriftListDto, DriftQuery, DriftSort } from "@/lib/api/contract/drift";
import { claimRef, driftItemDto, type DriftRow } from "./mappers";
import { findEnvironment, openDriftCounts } from "./environments";


const COLUMNS: Record<DriftSort, { sql: Prisma.Sql; nullable: boolean; time: boolean }> = {
  key: { sql: Prisma.sql`d.key`, nullable: false, time: false },
  kind: { sql: Prisma.sql`d.kind`, nullable: false, time: false },
  namespace: { sql: Prisma.sql`d.namespace`, nullable: false, time: false },
  name: { sql: Prisma.sql`d.name`, nullable: false, time: false },
  type: { sql: Prisma.sql`d.type::text`, nullable: false, time: false },
  openedAt: { sql: Prisma.sql`d."openedAt"`, nullable: false, time: true },
  lastSeenAt: { sql: Prisma.sql`d."lastSeenAt"`, nullable: false, time: true },
  attributionTime: { sql: Prisma.sql`d."attributionTime"`, nullable: true, time: true },
  manager: { sql: Prisma.sql`d."attributionManager"`, nullable: true, time: false },
};

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function filters(envId: string, q: DriftQuery): Prisma.Sql[] {
  const where: Prisma.Sql[] = [Prisma.sql`d."environmentId" = ${envId}::uuid`];
  if (q.status === "open") where.push(Prisma.sql`d."resolvedAt" IS NULL`);
  if (q.status === "resolved") where.push(Prisma.sql`d."resolvedAt" IS NOT NULL`);
  if (q.kind?.length) where.push(Prisma.sql`d.kind = ANY(${q.kind}::text[])`);
  if (q.namespace?.length) where.push(Prisma.sql`d.namespace = ANY(${q.namespace.map((n) => (n === "_" ? "" : n))}::text[])`);
  if (q.type?.length) where.push(Prisma.sql`d.type::text = ANY(${q.type}::text[])`);
  if (q.application?.length) {
    where.push(Prisma.sql`d."applicationId" IN (SELECT a.id FROM "Application" a WHERE a."environmentId" = ${envId}::uuid AND a.name = ANY(${q.application}::text[]))`);
  }
  if (q.actor?.length) {
    const classes = q.actor.filter((a) => a !== "unknown");
    where.push(
      q.actor.includes("unknown")
        ? Prisma.sql`(d."attributionClass" IS NULL OR d."attributionClass" = 'unknown' OR d."attributionClass" = ANY(${classes}::text[]))`
        : Prisma.sql`d."attributionClass" = ANY(${classes}::text[])`,
    );
  }
  if (q.owner) {
    const owned = Prisma.sql`EXISTS (SELECT 1 FROM "ClaimItem" ci JOIN "DivergenceClaim" c ON c.id = ci."claimId" WHERE ci."driftItemId" = d.id AND c.status = 'active')`;
    where.push(q.owner === "owned" ? owned : Prisma.sql`NOT ${owned}`);
  }
  if (q.q) {
    const p = `%${likeEscape(q.q)}%`;
    where.push(Prisma.sql`(d.key ILIKE ${p} OR d."attributionManager" ILIKE ${p} OR d.changes::text ILIKE ${p})`);
  }
  return where;
}

/** Rows after the cursor in (sort value, id) order; nulls sort last in both directions. */
function afterCursor(sort: DriftSort, dir: "asc" | "desc", cursor: { value: string | null; id: string }): Prisma.Sql {
  const col = COLUMNS[sort];
  const op = dir === "asc" ? Prisma.sql`>` : Prisma.sql`<`;
  const id = Prisma.sql`${cursor.id}::uuid`;
  if (cursor.value === null) return Prisma.sql`(${col.sql} IS NULL AND d.id ${op} ${id})`;
  const v = col.time ? Prisma.sql`${cursor.value}::timestamptz` : Prisma.sql`${cursor.value}`;
  const keyset = Prisma.sql`(${col.sql}, d.id) ${op} (${v}, ${id})`;
  return col.nullable ? Prisma.sql`(${keyset} OR ${col.sql} IS NULL)` : keyset;
}

function orderBy(sort: DriftSort, dir: "asc" | "desc"): Prisma.Sql {
  const col = COLUMNS[sort];
  const d = dir === "asc" ? Prisma.sql`ASC` : Prisma.sql`DESC`;
  return col.nullable ? Prisma.sql`${col.sql} ${d} NULLS LAST, d.id ${d}` : Prisma.sql`${col.sql} ${d}, d.id ${d}`;
}

function sortValue(row: DriftRow, sort: DriftSort): string | null {
  switch (sort) {
    case "openedAt":
      return row.openedAt.toISOString();
    case "lastSeenAt":
      return row.lastSeenAt.toISOString();
    case "attributionTime":
      return row.attributionTime ? row.attributionTime.toISOString() : null;
    case "manager":
      return row.attributionManager;
    default:
      return row[sort];
  }
}

/** The SQL of one page, exposed for EXPLAIN in the benchmark. */
export function driftPageSql(envId: string, q: DriftQuery): Prisma.Sql {
  const where = filters(envId, q);
  if (q.cursor) {
    let c;
    try {
      c = decodeCursor(q.cursor, { sort: q.sort, dir: q.dir });
    } catch (e) {
      if (e instanceof CursorError) throw badRequest(`cursor: ${e.message}`);
      throw e;
    }
    where.push(afterCursor(q.sort, q.dir, c));
  }
  return Prisma.sql`
    SELECT d.id, d.key, d."apiVersion", d.kind, d.namespace, d.name, (SELECT a.name FROM "Application" a WHERE a.id = d."applicationId") AS "applicationName", d.type::text AS type, d.changes, d.ignored, d.conflict,
      d."attributionManager", d."attributionClass", d."attributionTime", d."openedAt", d."lastSeenAt", d."resolvedAt",
      d.resolution::text AS resolution, d."resolutionSha", d."reopenCount"
    FROM "DriftItem" d
    WHERE ${Prisma.join(where, " AND ")}
    ORDER BY ${orderBy(q.sort, q.dir)}
    LIMIT ${q.limit + 1}`;
}

export async function listDrift(db: PrismaClient, environment: string, q: DriftQuery, now = new Date()): Promise<DriftListDto> {
  const env = await findEnvironment(db, environment);
  // Totals are a full scan of the filtered set: computed for the first page only, which the client keeps.
  const first = !q.cursor;
  const [rows, total, counts] = await Promise.all([
    db.$queryRaw<DriftRow[]>(driftPageSql(env.id, q)),
    first ? db.$queryRaw<Array<{ n: number }>>`SELECT count(*)::int AS n FROM "DriftItem" d WHERE ${Prisma.join(filters(env.id, q), " AND ")}` : null,
    first ? openDriftCounts(db, [env.id]) : null,
  ]);
  const page = rows.slice(0, q.limit);
  const claims = page.length
    ? await db.claimItem.findMany({
        where: { driftItemId: { in: page.map((r) => r.id) }, claim: { status: "active" } },
        select: { driftItemId: true, claim: { select: { id: true, reason: true, incidentUrl: true, expiresAt: true, returnPath: true, owner: { select: { id: true, username: true, displayName: true } } } } },
      })
    : [];
  const claimByItem = new Map(claims.map((c) => [c.driftItemId, claimRef(c.claim, now)]));
  const last = page[page.length - 1];
  const c = counts?.get(env.id);
  return {
    environment: env.name,
    items: page.map((r) => driftItemDto(env.name, r, claimByItem.get(r.id) ?? null)),
    nextCursor: rows.length > q.limit && last ? encodeCursor({ sort: q.sort, dir: q.dir, value: sortValue(last, q.sort), id: last.id }) : null,
    total: total ? (total[0]?.n ?? 0) : null,
    counts: counts ? (c ?? { total: 0, Modified: 0, Missing: 0, Extra: 0, unowned: 0, human: 0, controller: 0 }) : null,
  };
}
