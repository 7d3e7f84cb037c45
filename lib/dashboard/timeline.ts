// The incident timeline: audit events and commits in one stream, filtered
// the same way for the page, the JSON API and every export.
import type { Prisma, PrismaClient } from "@/lib/db/generated/client";
import { notFound } from "@/lib/api/errors";
import { touchesPath } from "@/lib/lineage";
import { mergeTimeline, type AuditEventInput, type CommitInput, type TimelineType } from "@/lib/timeline";
import type { TimelineDto, TimelineQuery } from "@/lib/api/contract/timeline";
import { inPromotionOrder } from "./environments";


const DAY = 86_400_000;

/** Audit actions per timeline type, as prefixes for the index on (action, at). */
const ACTION_PREFIXES: Record<Exclude<TimelineType, "commit" | "access">, string[]> = {
  approved: ["revision.approved"],
  applied: ["revision.applied"],
  drift: ["drift."],
  pause: ["pause."],
  claim: ["claim."],
  alert: ["alert."],
  collection: ["run."],
};

export async function getTimeline(db: PrismaClient, q: TimelineQuery, now = new Date()): Promise<TimelineDto> {
  const to = q.to ? new Date(q.to) : now;
  const from = q.from ? new Date(q.from) : new Date(to.getTime() - DAY);
  const envs = await db.environment.findMany({ ...inPromotionOrder, select: { name: true, repositoryId: true, path: true } });
  if (q.environment && !envs.some((e) => e.name === q.environment)) throw notFound(`environment "${q.environment}"`);
  const types = q.type && q.type.length > 0 ? q.type : null;
  const wants = (t: TimelineType) => !types || types.includes(t);

  const auditWhere: Prisma.AuditEventWhereInput = { at: { gte: from, lte: to } };
  if (q.environment) auditWhere.environment = q.environment;
  if (types) {
    const or: Prisma.AuditEventWhereInput[] = [];
    for (const t of types) {
      if (t === "commit") continue;
      if (t === "access") or.push({ NOT: [{ action: { startsWith: "revision." } }, ...["drift.", "pause.", "claim.", "alert.", "run."].map((p) => ({ action: { startsWith: p } }))] });
      else for (const p of ACTION_PREFIXES[t]) or.push(p.endsWith(".") ? { action: { startsWith: p } } : { action: p });
    }
    auditWhere.OR = or.length ? or : [{ id: -1n }];
  }

  const [auditRows, commitRows] = await Promise.all([
    db.auditEvent.findMany({ where: auditWhere, orderBy: [{ at: "desc" }, { id: "desc" }], take: q.limit + 1 }),
    wants("commit")
      ? db.revision.findMany({
          where: { committedAt: { gte: from, lte: to }, repositoryId: { in: [...new Set(envs.map((e) => e.repositoryId).filter((r): r is string => r !== null))] } },
          orderBy: { committedAt: "desc" },
          take: q.limit + 1,
          select: { repositoryId: true, sha: true, committedAt: true, authorName: true, message: true, changedPaths: true },
        })
      : [],
  ]);

  const audit: AuditEventInput[] = auditRows.map((r) => ({
    id: r.id.toString(),
    at: r.at.toISOString(),
    actorType: r.actorType,
    actorName: r.actorName,
    action: r.action,
    targetType: r.targetType,
    targetId: r.targetId,
    environment: r.environment,
    reason: r.reason,
    before: r.before,
    after: r.after,
  }));
  const commits: CommitInput[] = commitRows.map((c) => ({
    sha: c.sha,
    committedAt: c.committedAt.toISOString(),
    authorName: c.authorName,
    message: c.message,
    environments: envs.filter((e) => e.repositoryId === c.repositoryId && touchesPath(c.changedPaths, e.path)).map((e) => e.name),
  }));

  const merged = mergeTimeline(audit, commits, { environment: q.environment ?? null, types });
  const truncated = auditRows.length > q.limit || commitRows.length > q.limit || merged.length > q.limit;
  return {
    events: merged.slice(-q.limit),
    from: from.toISOString(),
    to: to.toISOString(),
    environment: q.environment ?? null,
    types,
    truncated,
    environments: envs.map((e) => e.name),
  };
}
