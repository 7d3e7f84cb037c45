// Loads the rows of one environment's incident report from Postgres and hands
// them to the pure assembly. Server only.
import type { PrismaClient } from "@/lib/db/generated/client";
import { notFound } from "@/lib/api/errors";
import { getTimeline } from "@/lib/dashboard";
import { iso } from "@/lib/dashboard/mappers";
import { repoHistory, type CommitInfo, type RepoHistory } from "@/lib/dashboard/revisions";
import { inPromotionOrder } from "@/lib/dashboard/environments";
import { repositoryIdsByName, storedSources } from "@/lib/dashboard/application-sources";
import { judgedPerApplication } from "@/lib/applications/per-application";
import { liveness, normaliseHistory, touchesPath, type AppliedInterval } from "@/lib/lineage";
import { appliedOnlyForOthers, assembleIncidentReport, mergeApplicationCommits, type IncidentReport, type LiveCommitRow, type ReportWindow } from "./incident";

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
      spec: true,
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
    // An environment of applications with sources of their own (`discover:`, an `applications:` list): theirs.
    commits: env.repositoryId && !judgedPerApplication(env.spec) ? await commitsGoingLive(db, env, from, to) : await applicationCommitsGoingLive(db, env.id, from, to),
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
  return liveCandidates(h, history, from, to, (c) => changes(c.changedPaths).length > 0).map(({ sha, commit: c }) => ({
    sha,
    message: c.message,
    authorName: c.authorName,
    committedAt: c.committedAt,
    changes: changes(c.changedPaths),
    firstLiveAt: liveness(h.graph, history, sha).firstLiveAt,
  }));
}

/**
 * The commits an applied revision first seen in [from, to] carries that count
 * as a change (`counts`): only revisions applied during the window can carry
 * a commit going live in it, so the candidates are their ancestors.
 */
function liveCandidates(h: RepoHistory, history: AppliedInterval[], from: Date, to: Date, counts: (c: CommitInfo) => boolean): Array<{ sha: string; commit: CommitInfo }> {
  const out = new Map<string, CommitInfo>();
  for (const applied of history) {
    const t = Date.parse(applied.firstSeenAt);
    if (t < from.getTime() || t > to.getTime()) continue;
    for (const sha of h.graph.ancestors(applied.sha)) {
      const c = h.commits.get(sha);
      if (c && !out.has(sha) && counts(c)) out.set(sha, c);
    }
  }
  return [...out].map(([sha, commit]) => ({ sha, commit }));
}

/**
 * Commits going live in an environment whose applications have sources of
 * their own: each application's, from its own repository and applied
 * revisions. A commit counts when it changes the application's files or its
 * declared spec (the commits the collector recorded as changing its manifest
 * in an app-of-apps parent's files), or the files of the same application
 * (by promotion key) in another environment of the repository: a change made
 * in test and promoted is live here from its first commit, as on the lineage
 * page. A commit to another application's files goes live when that one
 * runs it, not when this one's controller happens to apply the same branch
 * head. `changes` names what the commit changed: this environment's
 * application, or the other environment. A commit several applications ran
 * is one row, at the first of them, naming them all (a parent applying a
 * child's manifest and the child rendering it, both). Applications removed
 * before the window ran nothing in it.
 */
async function applicationCommitsGoingLive(db: PrismaClient, environmentId: string, from: Date, to: Date): Promise<LiveCommitRow[]> {
  const [apps, repositoryIds] = await Promise.all([
    db.application.findMany({
      where: { environmentId, OR: [{ removedAt: null }, { removedAt: { gte: from } }] },
      select: { name: true, promotionKey: true, sources: true, declaredChanges: true, declaringFiles: true, appliedSha: true, appliedSince: true, appliedRevisions: { select: { sha: true, firstSeenAt: true, endedAt: true } } },
      orderBy: { name: "asc" },
    }),
    repositoryIdsByName(db),
  ]);
  // The same applications in the other environments: where their changes are made before they are promoted here.
  const elsewhere = await db.application.findMany({
    where: { environmentId: { not: environmentId }, removedAt: null, promotionKey: { in: [...new Set(apps.map((a) => a.promotionKey))] }, environment: { removedAt: null } },
    select: { promotionKey: true, sources: true, environment: { select: { name: true } } },
  });
  const instancesOf = new Map<string, Array<{ environment: string; repositoryId: string; path: string }>>();
  for (const other of elsewhere) {
    const list = instancesOf.get(other.promotionKey) ?? [];
    for (const src of storedSources(other.sources, repositoryIds)) list.push({ environment: other.environment.name, repositoryId: src.repositoryId, path: src.path });
    instancesOf.set(other.promotionKey, list);
  }
  const histories = new Map<string, RepoHistory>();
  const rows: LiveCommitRow[] = [];
  // The applications each commit changed the declared spec of (see below).
  const declaredIn = new Map<string, Array<(typeof apps)[number]>>();
  for (const app of apps) for (const sha of app.declaredChanges) declaredIn.set(sha, [...(declaredIn.get(sha) ?? []), app]);
  for (const app of apps) {
    // Commits to its controller object's manifest where a parent declares it (app-of-apps) are its changes too,
    // though outside its path: they go live when it syncs them. A neighbour's commit to the same file is not among them.
    const declared = new Set(app.declaredChanges);
    const history = normaliseHistory(
      app.appliedRevisions.map((a) => ({ sha: a.sha, firstSeenAt: a.firstSeenAt.toISOString(), endedAt: iso(a.endedAt) })),
      { sha: app.appliedSha, since: iso(app.appliedSince) },
    );
    for (const source of storedSources(app.sources, repositoryIds)) {
      const h = histories.get(source.repositoryId) ?? (await repoHistory(db, source.repositoryId));
      histories.set(source.repositoryId, h);
      const others = (instancesOf.get(app.promotionKey) ?? []).filter((i) => i.repositoryId === source.repositoryId);
      const changed = (c: CommitInfo) => [
        ...(touchesPath(c.changedPaths, source.path) || declared.has(c.sha) ? [app.name] : []),
        ...others.filter((i) => touchesPath(c.changedPaths, i.path)).map((i) => i.environment),
      ];
      for (const { sha, commit: c } of liveCandidates(h, history, from, to, (c) => changed(c).length > 0)) {
        // Its parent ran such a commit too, applying the manifest: named, but not when the child's change went live.
        const ownPaths = c.changedPaths.filter((p) => touchesPath([p], source.path));
        const appliedForAnother = appliedOnlyForOthers(sha, ownPaths, app, declaredIn.get(sha) ?? []);
        rows.push({ sha, message: c.message, authorName: c.authorName, committedAt: c.committedAt, changes: changed(c), firstLiveAt: liveness(h.graph, history, sha).firstLiveAt, appliedForAnother });
      }
    }
  }
  return mergeApplicationCommits(rows);
}
