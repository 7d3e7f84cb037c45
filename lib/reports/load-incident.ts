// Loads the rows of one environment's incident report from Postgres and hands
// them to the pure assembly. Server only.
import type { PrismaClient } from "@/lib/db/generated/client";
import { notFound } from "@/lib/api/errors";
import { getTimeline } from "@/lib/dashboard";
import { iso } from "@/lib/dashboard/mappers";
import { repoHistory } from "@/lib/dashboard/revisions";
import { inPromotionOrder } from "@/lib/dashboard/environments";
import { liveness, normaliseHistory, touchesPath } from "@/lib/lineage";
import { assembleIncidentReport, type IncidentReport, type LiveCommitRow, type ReportWindow } from "./incident";

const TIMELINE_LIMIT = 1000;

export interface IncidentReportRequest {
  environment: string;
  window: ReportWindow;
  now: Date;
  generatedBy: string;
}

type Person = { username: string; displayName: string | null } | null;
const person = (u: Person) => (u ? (u.displayName ?? u.username) : null);

export async function loadIncidentReport(db: PrismaClient, req: IncidentReportRequest): Promise<IncidentReport> {
  const from = new Date(req.window.from);
  const to = new Date(req.window.to);
  const env = await db.environment.findFirst({
    where: { name: req.environment, removedAt: null },
    select: {
      id: true,
      name: true,
      repositoryId: true,
      path: true,
      appliedSha: true,
      appliedSince: true,
      appliedRevisions: { select: { sha: true, firstSeenAt: true, endedAt: true } },
    },
  });
  if (!env) throw notFound(`environment "${req.environment}"`);

  const [timeline, driftRows, pauseRows, alertRows] = await Promise.all([
    getTimeline(db, { environment: req.environment, from: req.window.from, to: req.window.to, limit: TIMELINE_LIMIT }, req.now),
    db.driftItem.findMany({
      where: { environmentId: env.id, OR: [{ openedAt: { gte: from, lte: to } }, { resolvedAt: { gte: from, lte: to } }] },
      include: { claims: { include: { claim: { include: { owner: { select: { username: true, displayName: true } } } } } } },
    }),
    db.pause.findMany({
      where: { environmentId: env.id, startedAt: { lte: to }, OR: [{ endedAt: null }, { endedAt: { gte: from } }] },
      include: { createdBy: { select: { username: true, displayName: true } }, owner: { select: { username: true, displayName: true } } },
    }),
    db.alert.findMany({ where: { environmentId: env.id, openedAt: { lte: to }, OR: [{ resolvedAt: null }, { resolvedAt: { gte: from } }] } }),
  ]);
  // Pause rows keep only the id of whoever ended them.
  const enderIds = [...new Set(pauseRows.map((p) => p.endedById).filter((id): id is string => id !== null))];
  const enders = new Map((await db.user.findMany({ where: { id: { in: enderIds } }, select: { id: true, username: true, displayName: true } })).map((u) => [u.id, person(u)]));

  return assembleIncidentReport({
    environment: req.environment,
    window: req.window,
    now: req.now.toISOString(),
    generatedBy: req.generatedBy,
    timeline: timeline.events,
    timelineTruncated: timeline.truncated,
    drift: driftRows.map((d) => ({
      key: d.key,
      kind: d.kind,
      namespace: d.namespace,
      name: d.name,
      type: d.type,
      attributionManager: d.attributionManager,
      attributionClass: d.attributionClass,
      openedAt: d.openedAt.toISOString(),
      resolvedAt: iso(d.resolvedAt),
      resolution: d.resolution,
      resolutionSha: d.resolutionSha,
      claims: d.claims.map(({ claim: c }) => ({
        owner: person(c.owner) ?? "?",
        returnPath: c.returnPath,
        status: c.status,
        reason: c.reason,
        createdAt: c.createdAt.toISOString(),
        expiresAt: c.expiresAt.toISOString(),
        incidentUrl: c.incidentUrl,
      })),
    })),
    pauses: pauseRows.map((p) => ({
      controllerRef: p.controllerRef,
      origin: p.origin,
      createdBy: person(p.createdBy),
      owner: person(p.owner),
      detectedManager: p.detectedManager,
      reason: p.reason,
      incidentUrl: p.incidentUrl,
      startedAt: p.startedAt.toISOString(),
      expiresAt: iso(p.expiresAt),
      endedAt: iso(p.endedAt),
      endedBy: p.endedById ? (enders.get(p.endedById) ?? null) : null,
      endReason: p.endReason,
    })),
    alerts: alertRows.map((a) => ({ type: a.type, severity: a.severity, title: a.title, openedAt: a.openedAt.toISOString(), resolvedAt: iso(a.resolvedAt) })),
    commits: env.repositoryId ? await commitsGoingLive(db, env, from, to) : [],
  });
}

/**
 * Commits that first ran in the environment inside the window. Lead time is
 * counted as the lineage page counts liveness: a commit is live once the
 * applied revision contains it, so a change made in test and promoted counts
 * from its first commit, not from the promotion commit. Only commits that
 * change some environment of the same repository count (a README edit is not
 * a change that goes live), and only revisions applied during the window can
 * carry such a commit, so the candidates are their ancestors.
 */
async function commitsGoingLive(
  db: PrismaClient,
  env: {
    name: string;
    repositoryId: string | null;
    path: string;
    appliedSha: string | null;
    appliedSince: Date | null;
    appliedRevisions: Array<{ sha: string; firstSeenAt: Date; endedAt: Date | null }>;
  },
  from: Date,
  to: Date,
): Promise<LiveCommitRow[]> {
  const [h, chain] = await Promise.all([
    repoHistory(db, env.repositoryId!),
    db.environment.findMany({ ...inPromotionOrder, where: { repositoryId: env.repositoryId, removedAt: null }, select: { name: true, path: true } }),
  ]);
  const history = normaliseHistory(
    env.appliedRevisions.map((a) => ({ sha: a.sha, firstSeenAt: a.firstSeenAt.toISOString(), endedAt: iso(a.endedAt) })),
    { sha: env.appliedSha, since: iso(env.appliedSince) },
  );
  const changes = (paths: readonly string[]) => chain.filter((e) => touchesPath(paths, e.path)).map((e) => e.name);
  const candidates = new Set<string>();
  for (const applied of history) {
    const t = Date.parse(applied.firstSeenAt);
    if (t < from.getTime() || t > to.getTime()) continue;
    for (const sha of h.graph.ancestors(applied.sha)) {
      const c = h.commits.get(sha);
      if (c && changes(c.changedPaths).length > 0) candidates.add(sha);
    }
  }
  return [...candidates].map((sha) => {
    const c = h.commits.get(sha)!;
    return {
      sha,
      message: c.message,
      authorName: c.authorName,
      committedAt: c.committedAt,
      changes: changes(c.changedPaths),
      firstLiveAt: liveness(h.graph, history, sha).firstLiveAt,
    };
  });
}
