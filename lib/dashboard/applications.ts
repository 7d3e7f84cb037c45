// An environment's applications for the API and pages: the list (with the
// environment's rollup, filtered and searched in memory — an environment
// holds hundreds, not millions) and one application with its drift and lineage.
import type { Prisma, PrismaClient } from "@/lib/db/generated/client";
import { notFound } from "@/lib/api/errors";
import { APPLICATION_STATUSES, applicationStatus, rollupApplications, rollupInputs, type RollupApplication } from "@/lib/applications/rollup";
import { applicationKindSchema, type ApplicationKind } from "@/lib/applications/spec";
import { followsOf } from "@/lib/applications/refs";
import { followedRefOf } from "@/lib/git/followed-ref";
import { storedGitRef } from "./application-sources";
import { applicationCommits } from "./application-revisions";
import { rollbackGuidance } from "./rollback";
import type { ApplicationDetailDto, ApplicationListDto, ApplicationListQuery, ApplicationSummaryDto } from "@/lib/api/contract";
import { controllerStatus, envSpec, iso, rec, str } from "./mappers";
import { findEnvironment } from "./environments";

type Db = Pick<PrismaClient, "application" | "environment" | "pause" | "driftItem" | "appliedRevision" | "branchHead" | "repository" | "revision" | "$queryRaw">;

const SELECT = {
  id: true,
  name: true,
  kind: true,
  promotionKey: true,
  controllerRef: true,
  sources: true,
  approvedSha: true,
  approvedAt: true,
  appliedSha: true,
  appliedBehind: true,
  appliedSource: true,
  appliedSince: true,
  controller: true,
  objectCount: true,
  driftCount: true,
  lastError: true,
  firstSeenAt: true,
  lastSeenAt: true,
  removedAt: true,
} as const satisfies Prisma.ApplicationSelect;

type Row = Prisma.ApplicationGetPayload<{ select: typeof SELECT }>;

/** A ref as one word: the branch, else the tag, range, commit or ref name. */
function refText(ref: unknown): string {
  const r = rec(ref);
  return str(r.branch) ?? str(r.tag) ?? str(r.semver) ?? str(r.commit) ?? str(r.name) ?? "";
}

function kindOf(v: string): ApplicationKind {
  const parsed = applicationKindSchema.safeParse(v);
  return parsed.success ? parsed.data : "declared";
}

/** What each repository's followed refs resolved to on the last runs, by `repository\0followed ref`. */
type Resolutions = Map<string, string | null>;

const resolutionKey = (repository: string, followed: string) => `${repository}\0${followed}`;

async function resolutionsOf(db: Db, rows: readonly Row[]): Promise<Resolutions> {
  const repositories = new Set<string>();
  for (const r of rows) for (const s of Array.isArray(r.sources) ? r.sources : []) if (str(rec(s).repository)) repositories.add(str(rec(s).repository)!);
  if (repositories.size === 0) return new Map();
  // Only refs a range or the default branch resolves carry one; branches followed by name have none to show.
  const heads = await db.branchHead.findMany({ where: { resolvedRef: { not: null }, repository: { name: { in: [...repositories] } } }, select: { branch: true, resolvedRef: true, repository: { select: { name: true } } } });
  return new Map(heads.map((h) => [resolutionKey(h.repository.name, h.branch), h.resolvedRef]));
}

/**
 * Each source with what it follows and its revisions: a multi-source
 * application's own per source, a single source's the application's.
 */
function sourcesOf(row: Row, resolutions: Resolutions): ApplicationSummaryDto["sources"] {
  const stored = (Array.isArray(row.sources) ? row.sources : []).map(rec);
  const single = stored.length === 1;
  return stored.map((o) => {
    const ref = storedGitRef(o.ref);
    const repository = str(o.repository);
    const resolved = repository ? (resolutions.get(resolutionKey(repository, followedRefOf(ref))) ?? null) : null;
    const refOnly = o.refOnly === true;
    return {
      url: str(o.url) ?? "",
      repository,
      ref: refText(o.ref),
      follows: followsOf(ref, resolved),
      path: str(o.path) ?? ".",
      render: str(o.render) ?? "plain",
      chart: str(o.chart),
      refName: str(o.refName),
      refOnly,
      approved: str(o.approved) ?? (single ? row.approvedSha : null),
      applied: (o.applied === null ? null : str(o.applied)) ?? (single ? row.appliedSha : null),
    };
  });
}

function summary(row: Row, rollupRow: RollupApplication, now: Date, staleAfterMs: number, resolutions: Resolutions): ApplicationSummaryDto {
  const c = rec(row.controllerRef);
  const error = rec(row.lastError);
  return {
    name: row.name,
    kind: kindOf(row.kind),
    promotionKey: row.promotionKey,
    status: applicationStatus(rollupRow, now, staleAfterMs),
    controller: c.type === "flux" || c.type === "argocd" ? { type: c.type, kind: str(c.kind) ?? "", namespace: str(c.namespace) ?? "", name: str(c.name) ?? "" } : null,
    sources: sourcesOf(row, resolutions),
    approvedSha: row.approvedSha,
    approvedAt: iso(row.approvedAt),
    appliedSha: row.appliedSha,
    appliedSource: row.appliedSource,
    appliedSince: iso(row.appliedSince),
    objectCount: row.objectCount,
    driftCount: row.driftCount,
    lastError: row.lastError ? { message: str(error.message) ?? "collection failed", at: str(error.at) } : null,
    firstSeenAt: row.firstSeenAt.toISOString(),
    lastSeenAt: iso(row.lastSeenAt),
    removedAt: iso(row.removedAt),
  };
}

async function applicationsOf(db: Db, environment: string, now: Date, where: { name?: string } = {}) {
  const env = await findEnvironment(db as PrismaClient, environment);
  const [spec, rows, pauses] = await Promise.all([
    db.environment.findUniqueOrThrow({ where: { id: env.id }, select: { spec: true, lastGoodCollectedAt: true } }),
    db.application.findMany({ where: { environmentId: env.id, ...where }, select: SELECT, orderBy: { name: "asc" } }),
    db.pause.findMany({ where: { environmentId: env.id, endedAt: null, startedAt: { lte: now } }, select: { applicationId: true, startedAt: true } }),
  ]);
  const staleAfterMs = envSpec(spec.spec).staleAfterMs;
  const rollupRows = rollupInputs(rows, pauses, now);
  const resolutions = await resolutionsOf(db, rows);
  return { env, rows, rollupRows, staleAfterMs, resolutions, collectedAt: iso(spec.lastGoodCollectedAt) };
}

export async function listApplications(db: Db, environment: string, q: ApplicationListQuery, now = new Date()): Promise<ApplicationListDto> {
  const { env, rows, rollupRows, staleAfterMs, resolutions, collectedAt } = await applicationsOf(db, environment, now);
  const all = rows.map((r) => summary(r, rollupRows.get(r.id)!, now, staleAfterMs, resolutions));
  const text = q.q?.toLowerCase();
  const statuses = q.status ? new Set(q.status) : null;
  const matching = all.filter((a) => {
    if (q.removed === "exclude" && a.removedAt) return false;
    if (q.removed === "only" && !a.removedAt) return false;
    if (statuses && !statuses.has(a.status)) return false;
    if (q.kind && a.kind !== q.kind) return false;
    if (text && ![a.name, a.promotionKey, ...a.sources.flatMap((s) => [s.path, s.repository ?? "", s.url])].some((v) => v.toLowerCase().includes(text))) return false;
    return true;
  });
  // Worst first: the order of the statuses, then the name.
  const rank = (a: ApplicationSummaryDto) => APPLICATION_STATUSES.indexOf(a.status);
  matching.sort((a, b) => rank(a) - rank(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { environment: env.name, collectedAt, rollup: rollupApplications([...rollupRows.values()], now, staleAfterMs), total: matching.length, applications: matching };
}

export async function getApplication(db: Db, environment: string, name: string, now = new Date()): Promise<ApplicationDetailDto> {
  const { env, rows, rollupRows, staleAfterMs, resolutions } = await applicationsOf(db, environment, now, { name });
  const row = rows[0];
  if (!row) throw notFound(`application "${name}" in environment "${environment}"`);
  const [drift, revisions, commits] = await Promise.all([
    db.driftItem.findMany({
      where: { applicationId: row.id, resolvedAt: null },
      select: { key: true, type: true, kind: true, namespace: true, name: true, openedAt: true, attributionManager: true },
      orderBy: { key: "asc" },
      take: 500,
    }),
    db.appliedRevision.findMany({ where: { applicationId: row.id }, select: { sha: true, source: true, firstSeenAt: true, lastSeenAt: true, endedAt: true }, orderBy: { firstSeenAt: "desc" }, take: 50 }),
    applicationCommits(db, [row.sources]),
  ]);
  const application = summary(row, rollupRows.get(row.id)!, now, staleAfterMs, resolutions);
  // Rollback on the application's own source: its repository, path and applied history. Its controller may report
  // every push's head (Flux does), so only the commits that changed its path are reverted, never its neighbours'.
  // A revert lands on a branch: a tag, range or pinned commit is rolled back where its ref is declared instead.
  const follows = application.sources.find((s) => !s.refOnly)?.follows.kind;
  const primary = follows === "branch" || follows === "default-branch" ? commits.primary(row.sources) : null;
  const rollback = primary
    ? rollbackGuidance({ name: row.name, path: primary.source.path, approvedSha: row.approvedSha, appliedSha: row.appliedSha }, primary.history, revisions, { ownCommitsOnly: true })
    : null;
  return {
    environment: env.name,
    application,
    approved: commits.revision(row.sources, row.approvedSha),
    applied: commits.revision(row.sources, row.appliedSha),
    drift: drift.map((d) => ({ ...d, openedAt: d.openedAt.toISOString() })),
    revisions: revisions.map((r) => ({ sha: r.sha, revision: /^[0-9a-f]{40}$/.test(r.sha) ? commits.revision(row.sources, r.sha) : null, source: r.source, firstSeenAt: r.firstSeenAt.toISOString(), lastSeenAt: r.lastSeenAt.toISOString(), endedAt: iso(r.endedAt) })),
    rollback,
    helm: controllerStatus(row.controller)?.helm ?? null,
    manualSync: controllerStatus(row.controller)?.argoSync === "manual",
  };
}
