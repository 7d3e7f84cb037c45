// Environment cards and the environment page header: everything the
// collector last wrote about each environment, with its status derived.
import { Prisma, type PrismaClient } from "@/lib/db/generated/client";
import { notFound } from "@/lib/api/errors";
import { rollupApplications, rollupInputs, worstApplications, type PauseTarget } from "@/lib/applications/rollup";
import { controllerRollup, objectParts, sourceUrlsOf } from "@/lib/applications/controller-objects";
import { judgedPerApplication } from "@/lib/applications/per-application";
import { applicationPagePath } from "./object-key";
import { controllerKindOf } from "@/lib/config";
import { deriveStatus } from "@/lib/environments/status";
import { behindSince, touchesPath } from "@/lib/lineage";
import type { ApplicationRevisionsDto, ControllerRollupDto, DriftCountsDto, EnvironmentDetailDto, EnvironmentListDto, EnvironmentSummaryDto, RevisionDto } from "@/lib/api/contract";
import { alertDto, controllerStatus, envSpec, environmentError, iso, pauseDto, rec, rolloutSummary, runDto, type PauseRow } from "./mappers";
import type { RolloutSummary } from "@/lib/domain/types";
import { repoHistory, revisionDto, type CommitInfo, type RepoHistory } from "./revisions";
import { applicationCommits } from "./application-revisions";
import { chartRevisionOf } from "./chart-revision";
import { NO_ROLLBACK, rollbackGuidance, type AppliedRow, type Rollback } from "./rollback";

type Db = PrismaClient;

/** The environments still configured, in promotion order (test before staging before production). */
export const inPromotionOrder = { where: { removedAt: null }, orderBy: [{ position: "asc" }, { name: "asc" }] } satisfies Prisma.EnvironmentFindManyArgs;

const envSelect = {
  id: true,
  name: true,
  position: true,
  repositoryId: true,
  branch: true,
  path: true,
  spec: true,
  approvedSha: true,
  approvedAt: true,
  appliedSha: true,
  appliedSource: true,
  appliedSince: true,
  controller: true,
  rollout: true,
  objectCount: true,
  lastRunId: true,
  lastGoodRunId: true,
  lastCollectedAt: true,
  lastGoodCollectedAt: true,
  lastError: true,
  repository: { select: { name: true, url: true } },
} satisfies Prisma.EnvironmentSelect;

type EnvRow = Prisma.EnvironmentGetPayload<{ select: typeof envSelect }>;

const pauseInclude = {
  createdBy: { select: { id: true, username: true, displayName: true } },
  owner: { select: { id: true, username: true, displayName: true } },
} satisfies Prisma.PauseInclude;

const EMPTY_COUNTS = (): DriftCountsDto & { human: number; controller: number } => ({ total: 0, Modified: 0, Missing: 0, Extra: 0, unowned: 0, human: 0, controller: 0 });

/** Open drift per environment by type, with how many have no active claim and who made them. */
export async function openDriftCounts(db: Db, envIds: string[]): Promise<Map<string, DriftCountsDto & { human: number; controller: number }>> {
  const out = new Map<string, DriftCountsDto & { human: number; controller: number }>();
  if (envIds.length === 0) return out;
  const rows = await db.$queryRaw<Array<{ env: string; type: "Modified" | "Missing" | "Extra"; n: number; unowned: number; human: number; controller: number }>>`
    SELECT d."environmentId"::text AS env, d.type::text AS type, count(*)::int AS n,
      count(*) FILTER (WHERE NOT EXISTS (
        SELECT 1 FROM "ClaimItem" ci JOIN "DivergenceClaim" c ON c.id = ci."claimId"
        WHERE ci."driftItemId" = d.id AND c.status = 'active'))::int AS unowned,
      count(*) FILTER (WHERE d."attributionClass" = 'human')::int AS human,
      count(*) FILTER (WHERE d."attributionClass" = 'controller')::int AS controller
    FROM "DriftItem" d
    WHERE d."resolvedAt" IS NULL AND d."environmentId" = ANY(${envIds}::uuid[])
    GROUP BY 1, 2`;
  for (const r of rows) {
    const c = out.get(r.env) ?? EMPTY_COUNTS();
    c[r.type] += r.n;
    c.total += r.n;
    c.unowned += r.unowned;
    c.human += r.human;
    c.controller += r.controller;
    out.set(r.env, c);
  }
  return out;
}

const applicationSelect = {
  id: true,
  environmentId: true,
  name: true,
  removedAt: true,
  driftCount: true,
  approvedSha: true,
  approvedAt: true,
  appliedSha: true,
  appliedBehind: true,
  controller: true,
  lastError: true,
  sources: true,
} satisfies Prisma.ApplicationSelect;

type ApplicationRow = Prisma.ApplicationGetPayload<{ select: typeof applicationSelect }>;

interface Related {
  applications: Map<string, ApplicationRow[]>;
  counts: Map<string, DriftCountsDto & { human: number; controller: number }>;
  pauses: Map<string, Array<PauseRow & PauseTarget>>;
  alerts: Map<string, Awaited<ReturnType<Db["alert"]["findMany"]>>>;
  runs: Map<string, Awaited<ReturnType<Db["collectionRun"]["findMany"]>>[number]>;
  histories: Map<string, RepoHistory>;
}

async function related(db: Db, rows: EnvRow[]): Promise<Related> {
  const ids = rows.map((r) => r.id);
  const repoIds = [...new Set(rows.map((r) => r.repositoryId).filter((id): id is string => id !== null))];
  const [counts, pauses, alerts, runs, histories, applications] = await Promise.all([
    openDriftCounts(db, ids),
    db.pause.findMany({ where: { environmentId: { in: ids }, endedAt: null }, include: pauseInclude, orderBy: { startedAt: "asc" } }),
    db.alert.findMany({ where: { environmentId: { in: ids }, resolvedAt: null }, orderBy: { openedAt: "desc" } }),
    db.collectionRun.findMany({ where: { environmentId: { in: ids }, status: { in: ["queued", "running"] } }, orderBy: { queuedAt: "desc" } }),
    Promise.all(repoIds.map((id) => repoHistory(db, id))),
    // One query for every card: the rollup is computed per environment in memory.
    db.application.findMany({ where: { environmentId: { in: ids }, removedAt: null }, select: applicationSelect, orderBy: { name: "asc" } }),
  ]);
  const group = <T extends { environmentId: string | null }>(list: T[]) => {
    const m = new Map<string, T[]>();
    for (const x of list) if (x.environmentId) m.set(x.environmentId, [...(m.get(x.environmentId) ?? []), x]);
    return m;
  };
  const runByEnv = new Map<string, (typeof runs)[number]>();
  // A running run is the one to watch; a queued one only when nothing runs.
  for (const r of runs) {
    const cur = runByEnv.get(r.environmentId);
    if (!cur || (cur.status !== "running" && r.status === "running")) runByEnv.set(r.environmentId, r);
  }
  return {
    applications: group(applications),
    counts,
    pauses: group(pauses),
    alerts: group(alerts),
    runs: runByEnv,
    histories: new Map(histories.map((h) => [h.repositoryId, h])),
  };
}

/**
 * The card's application rollup and the worst few. An environment with one
 * application (or none yet) gets none: its card already says everything
 * about that application, as before applications existed. One collected and
 * holding none (discovery found nothing) gets its empty rollup: that is news.
 */
function applicationRollup(
  envName: string,
  apps: ApplicationRow[],
  pauses: PauseTarget[],
  now: Date,
  staleAfterMs: number,
  collected: boolean,
  discovers: boolean,
): Pick<EnvironmentSummaryDto, "applications" | "worstApplications"> {
  if (apps.length === 0 && collected) return { applications: rollupApplications([], now, staleAfterMs), worstApplications: [] };
  // One discovered application still gets its rollup: the card links it, and its revisions are its own.
  if (apps.length === 0 || (apps.length === 1 && !discovers)) return { applications: null, worstApplications: [] };
  const inputs = rollupInputs(apps, pauses, now);
  const named = apps.map((a) => ({ ...inputs.get(a.id)!, name: a.name }));
  return {
    applications: rollupApplications(named, now, staleAfterMs),
    worstApplications: worstApplications(named, now, staleAfterMs).map((w) => ({ ...w, href: applicationPagePath(envName, w.name) })),
  };
}

/** Rollout health on the wire: the listed workloads, and the counts over all of them. */
function rolloutFields(s: RolloutSummary): Pick<EnvironmentDetailDto, "rollout" | "rolloutCounts"> {
  return { rollout: s.workloads, rolloutCounts: { total: s.total, rollingOut: s.rollingOut } };
}

function revisionOf(sha: string | null, commits: Map<string, CommitInfo> | undefined): RevisionDto | null {
  return sha ? revisionDto(sha, commits?.get(sha)) : null;
}

/**
 * How far behind an environment of many applications is: since the oldest
 * approved revision an application has not applied (by the ancestry the
 * collector checked), and how many applications are behind. Null when none is.
 */
function applicationsBehind(apps: ApplicationRow[]): { since: string; applications: number } | null {
  const behind = apps.filter((a) => a.appliedBehind && a.approvedAt !== null);
  if (behind.length === 0) return null;
  const oldest = Math.min(...behind.map((a) => a.approvedAt!.getTime()));
  return { since: new Date(oldest).toISOString(), applications: behind.length };
}

/** The status line of an environment whose last collection discovered no application. */
export const NO_APPLICATIONS = "Holds no applications: the last collection found none to discover in the cluster";

function summarise(row: EnvRow, rel: Related, now: Date): EnvironmentSummaryDto {
  const spec = envSpec(row.spec);
  const h = row.repositoryId ? rel.histories.get(row.repositoryId) : undefined;
  const counts = rel.counts.get(row.id) ?? EMPTY_COUNTS();
  const pauseRows = rel.pauses.get(row.id) ?? [];
  const pauses = pauseRows.map((p) => pauseDto(row.name, p, now)).sort((a, b) => Number(a.controllerRef !== null) - Number(b.controllerRef !== null));
  const controller = controllerStatus(row.controller);
  const lastError = environmentError(row.lastError);
  const apps = rel.applications.get(row.id) ?? [];
  // An environment that discovers its applications (`discover:` in driftwatch.yaml) has no revisions of its own.
  const discovers = rec(row.spec).discover !== undefined;
  const rollup = applicationRollup(row.name, apps, pauseRows, now, spec.staleAfterMs, row.lastGoodCollectedAt !== null, discovers);
  // Many applications (or discovered ones) each have their own revisions: the environment is behind when one of them
  // is, by the ancestry the collector checked; its own approved/applied are its primary application's, for reference.
  const byApplications = apps.length > 1 || (apps.length === 1 && discovers);
  const behind =
    h && !byApplications
      ? behindSince(
          h.graph,
          row.approvedSha,
          row.appliedSha,
          (sha) => h.commits.get(sha)?.committedAt ?? null,
          (sha) => touchesPath(h.commits.get(sha)?.changedPaths ?? [], row.path),
        )
      : null;
  const appsBehind = byApplications ? applicationsBehind(apps) : null;
  const status = deriveStatus({
    now,
    intervalMs: spec.intervalMs,
    staleAfterMs: spec.staleAfterMs,
    lastCollectedAt: iso(row.lastCollectedAt),
    lastGoodCollectedAt: iso(row.lastGoodCollectedAt),
    lastError,
    behindSince: behind?.since ?? appsBehind?.since ?? null,
    behindApplications: appsBehind?.applications,
    openDrift: counts.total,
    pauses,
    controllerSuspended: byApplications ? apps.some((a) => controllerStatus(a.controller)?.suspended === true) : (controller?.suspended ?? false),
  });
  const run = rel.runs.get(row.id);
  // "Live matches Git" would say nothing true of an environment that holds nothing.
  if (rollup.applications?.total === 0 && status.status === "In sync") {
    status.reason = NO_APPLICATIONS;
    status.flags = status.flags.map((f) => (f.status === "In sync" ? { ...f, reason: NO_APPLICATIONS } : f));
  }
  return {
    name: row.name,
    description: spec.description,
    position: row.position,
    status: status.status,
    statusReason: status.reason,
    flags: status.flags,
    source: { repository: row.repository?.name ?? null, branch: row.branch, path: row.path, render: spec.render },
    // An environment without a source of its own stores its first application's revisions: read as the environment's
    // they would be one application's, so it has none (each application's are on the environment page and its own).
    approved: row.repositoryId ? revisionOf(row.approvedSha, h?.commits) : null,
    applied: row.repositoryId ? revisionOf(row.appliedSha, h?.commits) : null,
    appliedSource: row.repositoryId && (row.appliedSource === "controller" || row.appliedSource === "inferred") ? row.appliedSource : null,
    appliedSince: row.repositoryId ? iso(row.appliedSince) : null,
    behind,
    drift: { total: counts.total, Modified: counts.Modified, Missing: counts.Missing, Extra: counts.Extra, unowned: counts.unowned },
    controller: controller
      ? {
          type: controller.type,
          ref: `${controller.kind ?? (controller.type === "flux" ? "Kustomization" : "Application")}/${controller.namespace}/${controller.name}`,
          found: controller.found,
          ready: controller.ready,
          health: controller.health,
          suspended: controller.suspended,
          suspendedBy: controller.suspendedBy,
          manualSync: controller.argoSync === "manual",
          failure: controller.failure,
          conditions: controller.conditions,
          helm: controller.helm ?? null,
        }
      : spec.controller
        ? { type: spec.controller.type, ref: `${controllerKindOf(spec.controller)}/${spec.controller.namespace}/${spec.controller.name}`, found: false, ready: "Unknown", health: null, suspended: false, suspendedBy: null, manualSync: false, failure: null, conditions: [], helm: null }
        : null,
    objectCount: row.objectCount,
    lastCollectedAt: iso(row.lastCollectedAt),
    lastGoodCollectedAt: iso(row.lastGoodCollectedAt),
    lastError,
    alerts: (rel.alerts.get(row.id) ?? []).map((a) => alertDto(row.name, a)),
    pauses,
    activeRun: run ? runDto(row.name, run) : null,
    intervalMs: spec.intervalMs,
    staleAfterMs: spec.staleAfterMs,
    ...rollup,
  };
}

export async function listEnvironments(db: Db, config: { path: string; exists: boolean; declared: number }, now = new Date()): Promise<EnvironmentListDto> {
  const rows = await db.environment.findMany({ ...inPromotionOrder, select: envSelect });
  const rel = await related(db, rows);
  return { environments: rows.map((r) => summarise(r, rel, now)), now: now.toISOString(), config };
}

export async function findEnvironment(db: Db, name: string): Promise<{ id: string; name: string; repositoryId: string | null; path: string; branch: string }> {
  const env = await db.environment.findFirst({ where: { name, removedAt: null }, select: { id: true, name: true, repositoryId: true, path: true, branch: true } });
  if (!env) throw notFound(`environment "${name}"`);
  return env;
}

function rollbackTargets(row: EnvRow, h: RepoHistory | undefined, applied: AppliedRow[]): Rollback {
  // An environment of applications with sources of their own has no one branch and path to revert: its applied
  // revisions are several applications' (listed together they read as rewritten history, and a restore of "."
  // would roll back the whole repository). Each application reverts on its own source (its page says how).
  if (row.repositoryId === null) return NO_ROLLBACK;
  return rollbackGuidance({ name: row.name, path: row.path, approvedSha: row.approvedSha, appliedSha: row.appliedSha }, h, applied);
}

/** Each application's approved and applied revisions, resolved in its own repository: an environment without a source of its own has none. */
async function applicationRevisions(db: Db, row: EnvRow): Promise<ApplicationRevisionsDto[] | null> {
  if (row.repositoryId !== null) return null;
  const apps = await db.application.findMany({
    where: { environmentId: row.id, removedAt: null },
    select: { name: true, sources: true, approvedSha: true, appliedSha: true, appliedSince: true, appliedBehind: true, controller: true },
    orderBy: { name: "asc" },
  });
  const commits = await applicationCommits(db, apps.map((a) => a.sources));
  return apps.map((a) => ({
    name: a.name,
    href: applicationPagePath(row.name, a.name),
    approved: commits.revision(a.sources, a.approvedSha),
    applied: commits.revision(a.sources, a.appliedSha),
    chart: chartRevisionOf({ sources: a.sources, approvedSha: a.approvedSha, appliedSha: a.appliedSha, helm: controllerStatus(a.controller)?.helm ?? null }),
    appliedSince: iso(a.appliedSince),
    behind: a.appliedBehind,
  }));
}

/** How many applications a controller object row names; the count says the rest. */
const APPLICATIONS_NAMED = 20;

/**
 * The Controller panel of an environment whose applications have sources of
 * their own: its applications' controller objects rolled up. Null for a
 * single-source environment, whose own controller object is the panel's.
 */
function environmentControllers(row: EnvRow, apps: readonly ApplicationRow[]): ControllerRollupDto | null {
  if (!judgedPerApplication(row.spec)) return null;
  const rollup = controllerRollup(apps.map((a) => ({ name: a.name, controller: controllerStatus(a.controller), sourceUrls: sourceUrlsOf(a.sources) })));
  return {
    ...rollup,
    attention: rollup.attention.map((o) => {
      return {
        object: o.object,
        ...objectParts(o.object),
        state: o.state,
        condition: o.condition,
        suspendedBy: o.suspendedBy,
        applications: o.applications.slice(0, APPLICATIONS_NAMED).map((a) => ({ name: a, href: applicationPagePath(row.name, a) })),
        applicationCount: o.applications.length,
      };
    }),
  };
}

export async function getEnvironmentDetail(db: Db, name: string, now = new Date()): Promise<EnvironmentDetailDto> {
  const row = await db.environment.findFirst({ where: { name, removedAt: null }, select: envSelect });
  if (!row) throw notFound(`environment "${name}"`);
  const [rel, lastRun, lastGoodRun, ignoredRows, applied, kinds, namespaces, applications, perApplication] = await Promise.all([
    related(db, [row]),
    row.lastRunId ? db.collectionRun.findUnique({ where: { id: row.lastRunId } }) : null,
    row.lastGoodRunId ? db.collectionRun.findUnique({ where: { id: row.lastGoodRunId }, select: { stats: true } }) : null,
    db.$queryRaw<Array<{ rule: string; n: number }>>`
      SELECT e.key AS rule, sum(CASE WHEN jsonb_typeof(e.value) = 'number' THEN e.value::text::int ELSE 0 END)::int AS n
      FROM "DriftItem" d, jsonb_each(d.ignored) AS e
      WHERE d."environmentId" = ${row.id}::uuid AND d."resolvedAt" IS NULL AND jsonb_typeof(d.ignored) = 'object'
      GROUP BY e.key`,
    db.appliedRevision.findMany({ where: { environmentId: row.id }, orderBy: { firstSeenAt: "desc" }, take: 50, select: { sha: true, source: true, firstSeenAt: true, endedAt: true } }),
    db.$queryRaw<Array<{ v: string }>>`SELECT DISTINCT kind AS v FROM "DriftItem" WHERE "environmentId" = ${row.id}::uuid AND "resolvedAt" IS NULL ORDER BY 1`,
    db.$queryRaw<Array<{ v: string }>>`SELECT DISTINCT namespace AS v FROM "DriftItem" WHERE "environmentId" = ${row.id}::uuid AND "resolvedAt" IS NULL ORDER BY 1`,
    // Only where there is a choice: an environment of one application needs no application filter.
    db.$queryRaw<Array<{ v: string }>>`
      SELECT DISTINCT a.name AS v FROM "DriftItem" d JOIN "Application" a ON a.id = d."applicationId"
      WHERE d."environmentId" = ${row.id}::uuid AND d."resolvedAt" IS NULL
        AND (SELECT count(*) FROM "Application" x WHERE x."environmentId" = ${row.id}::uuid AND x."removedAt" IS NULL) > 1
      ORDER BY 1`,
    applicationRevisions(db, row),
  ]);
  const summary = summarise(row, rel, now);
  const h = row.repositoryId ? rel.histories.get(row.repositoryId) : undefined;
  const stats = rec(lastGoodRun?.stats);
  const byRule: Record<string, number> = {};
  // The collector may report per-rule counts over every object (in sync ones too); otherwise count over open drift.
  const statsByRule = rec(stats.ignoredByRule);
  if (Object.keys(statsByRule).length > 0) {
    for (const [k, v] of Object.entries(statsByRule)) if (typeof v === "number") byRule[k] = v;
  } else {
    for (const r of ignoredRows) if (r.n > 0) byRule[r.rule] = r.n;
  }
  return {
    ...summary,
    ...rolloutFields(rolloutSummary(row.rollout)),
    lastRun: lastRun ? runDto(row.name, lastRun) : null,
    ignored: { total: typeof stats.ignored === "number" ? stats.ignored : null, byRule },
    rollback: rollbackTargets(row, h, applied),
    controllerRollup: environmentControllers(row, rel.applications.get(row.id) ?? []),
    applicationRevisions: perApplication,
    facets: { kinds: kinds.map((k) => k.v), namespaces: namespaces.map((n) => n.v), applications: applications.map((a) => a.v) },
    now: now.toISOString(),
  };
}

/** Names in promotion order, for pickers. */
export async function environmentNames(db: Db): Promise<string[]> {
  const rows = await db.environment.findMany({ ...inPromotionOrder, select: { name: true } });
  return rows.map((r) => r.name);
}
