// The incident timeline: audit events and commits in one stream, filtered
// the same way for the page, the JSON API and every export.
import type { Prisma, PrismaClient } from "@/lib/db/generated/client";
import { notFound } from "@/lib/api/errors";
import { touchesPath } from "@/lib/lineage";
import { mergeTimeline, type AuditEventInput, type CommitInput, type TimelineType } from "@/lib/timeline";
import type { TimelineDto, TimelineQuery } from "@/lib/api/contract/timeline";
import { inPromotionOrder } from "./environments";
import { repositoryIdsByName, storedSources } from "./application-sources";


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

/** Where an environment's desired state comes from: its own source, and each of its applications'. */
interface SourceScope {
  environment: string;
  /** null: the environment's own source (every application of a single-source environment). */
  application: string | null;
  repositoryId: string;
  path: string;
}

/** Every (repository, path) an environment or one of its applications reads; removed applications too, for history. */
async function sourceScopes(db: PrismaClient, envs: Array<{ id: string; name: string; repositoryId: string | null; path: string }>): Promise<SourceScope[]> {
  const [apps, repositoryIds] = await Promise.all([
    db.application.findMany({ where: { environmentId: { in: envs.map((e) => e.id) } }, select: { environmentId: true, name: true, sources: true } }),
    repositoryIdsByName(db),
  ]);
  const envName = new Map(envs.map((e) => [e.id, e.name]));
  const scopes: SourceScope[] = envs.flatMap((e) => (e.repositoryId ? [{ environment: e.name, application: null, repositoryId: e.repositoryId, path: e.path }] : []));
  for (const a of apps) {
    for (const src of storedSources(a.sources, repositoryIds)) scopes.push({ environment: envName.get(a.environmentId)!, application: a.name, repositoryId: src.repositoryId, path: src.path });
  }
  return scopes;
}

export async function getTimeline(db: PrismaClient, q: TimelineQuery, now = new Date()): Promise<TimelineDto> {
  const to = q.to ? new Date(q.to) : now;
  const from = q.from ? new Date(q.from) : new Date(to.getTime() - DAY);
  const envs = await db.environment.findMany({ ...inPromotionOrder, select: { id: true, name: true, repositoryId: true, path: true } });
  const env = q.environment ? envs.find((e) => e.name === q.environment) : undefined;
  if (q.environment && !env) throw notFound(`environment "${q.environment}"`);
  const applications = env ? (await db.application.findMany({ where: { environmentId: env.id }, select: { name: true }, orderBy: { name: "asc" } })).map((a) => a.name) : [];
  if (q.application && !applications.includes(q.application)) throw notFound(`application "${q.application}" in environment "${q.environment}"`);
  // One application of several: its events name it (the collector tags them once an environment holds more than one).
  const oneOfMany = q.application !== undefined && applications.length > 1;
  const types = q.type && q.type.length > 0 ? q.type : null;
  const wants = (t: TimelineType) => !types || types.includes(t);

  const auditWhere: Prisma.AuditEventWhereInput = { at: { gte: from, lte: to } };
  if (q.environment) auditWhere.environment = q.environment;
  if (oneOfMany) {
    auditWhere.AND = [{ OR: [{ after: { path: ["application"], equals: q.application } }, { before: { path: ["application"], equals: q.application } }] }];
  }
  if (types) {
    const or: Prisma.AuditEventWhereInput[] = [];
    for (const t of types) {
      if (t === "commit") continue;
      if (t === "access") or.push({ NOT: [{ action: { startsWith: "revision." } }, ...["drift.", "pause.", "claim.", "alert.", "run."].map((p) => ({ action: { startsWith: p } }))] });
      else for (const p of ACTION_PREFIXES[t]) or.push(p.endsWith(".") ? { action: { startsWith: p } } : { action: p });
    }
    auditWhere.OR = or.length ? or : [{ id: -1n }];
  }

  const scopes = wants("commit") ? await sourceScopes(db, envs) : [];
  // With an application chosen, a commit counts when it changes that application's files (or, for a single-source
  // environment, the environment's).
  const commitScopes = q.application ? scopes.filter((sc) => sc.environment === q.environment && (sc.application === q.application || !oneOfMany)) : scopes;
  const [auditRows, commitRows] = await Promise.all([
    db.auditEvent.findMany({ where: auditWhere, orderBy: [{ at: "desc" }, { id: "desc" }], take: q.limit + 1 }),
    wants("commit")
      ? db.revision.findMany({
          where: { committedAt: { gte: from, lte: to }, repositoryId: { in: [...new Set(commitScopes.map((sc) => sc.repositoryId))] } },
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
  const touched = (c: (typeof commitRows)[number], within: SourceScope[]) => new Set(within.filter((sc) => sc.repositoryId === c.repositoryId && touchesPath(c.changedPaths, sc.path)).map((sc) => sc.environment));
  const commits: CommitInput[] = commitRows
    .filter((c) => touched(c, commitScopes).size > 0 || !q.application)
    .map((c) => {
      const changes = touched(c, scopes);
      return {
        sha: c.sha,
        committedAt: c.committedAt.toISOString(),
        authorName: c.authorName,
        message: c.message,
        environments: envs.filter((e) => changes.has(e.name)).map((e) => e.name),
      };
    });

  const merged = mergeTimeline(audit, commits, { environment: q.environment ?? null, types });
  const truncated = auditRows.length > q.limit || commitRows.length > q.limit || merged.length > q.limit;
  return {
    events: merged.slice(-q.limit),
    from: from.toISOString(),
    to: to.toISOString(),
    environment: q.environment ?? null,
    application: q.application ?? null,
    types,
    truncated,
    environments: envs.map((e) => e.name),
    applications,
  };
}
