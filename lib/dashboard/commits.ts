// "Is commit X live in staging? In prod? Since when?" — per environment,
// ancestry-aware, with the reason when it is not live yet.
import type { PrismaClient } from "@/lib/db/generated/client";
import { notFound } from "@/lib/api/errors";
import { formatAge } from "@/lib/environments/status";
import { liveness, normaliseHistory, promotionHops, touchesPath, type AppliedInterval } from "@/lib/lineage";
import type { CommitDto, CommitLookupDto, EnvironmentBadgeDto, LineageDto, RevisionDto } from "@/lib/api/contract";
import { controllerStatus, environmentError, iso, rec, str } from "./mappers";
import { approvedCommits, repoHistory, revisionDto, type RepoHistory } from "./revisions";
import { inPromotionOrder } from "./environments";
import { describeFollowedRef } from "@/lib/git/followed-ref";
import { storedFollowedRef } from "./application-sources";

type Db = PrismaClient;

/**
 * What one lineage answer is about: an environment that holds one application
 * (as before applications), or one application of an environment that holds
 * several — each of those follows its own repository, branch and path, with
 * its own approved and applied revisions.
 */
interface LineageTrack {
  environment: string;
  position: number;
  /** null: the environment as a whole (it holds at most one application). */
  application: string | null;
  repositoryId: string | null;
  branch: string;
  path: string;
  approvedSha: string | null;
  appliedSha: string | null;
  appliedSince: string | null;
  /** The current applied revision was inferred from live state, not reported by a controller. */
  appliedInferred: boolean;
  history: AppliedInterval[];
  /** Why an approved revision is not applied, from the controller, a pause or the collector. */
  blocker: { reason: string; since: string | null } | null;
  branchHead: string | null;
}

type Pause = { startedAt: Date; reason: string | null; origin: string; applicationId: string | null };

function blockerOf(now: Date, controllerJson: unknown, pause: Pause | undefined, error: { message: string; at: string } | null, lastGoodAt: Date | null): LineageTrack["blocker"] {
  const controller = controllerStatus(controllerJson);
  if (controller?.failure) {
    const f = controller.failure;
    const what = f.object.split("/", 1)[0] === "GitRepository" ? "source" : (f.object.split("/", 1)[0] ?? "controller");
    const since = f.lastTransitionTime;
    return {
      reason: `${what} ${f.reason ?? f.type}${since ? ` for ${formatAge(now.getTime() - Date.parse(since))}` : ""}${f.message ? `: ${f.message}` : ""}`,
      since,
    };
  }
  if (pause) return { reason: `reconciliation paused${pause.reason ? `: ${pause.reason}` : pause.origin === "detected" ? " (detected, no reason recorded)" : ""}`, since: pause.startedAt.toISOString() };
  if (controller?.suspended) return { reason: "the controller is suspended", since: null };
  if (error && (!lastGoodAt || Date.parse(error.at) > lastGoodAt.getTime())) return { reason: `collection failing: ${error.message}`, since: error.at };
  return null;
}

const REVISIONS = { orderBy: { firstSeenAt: "asc" }, select: { sha: true, firstSeenAt: true, endedAt: true } } as const;

function historyOf(revisions: Array<{ sha: string; firstSeenAt: Date; endedAt: Date | null }>, appliedSha: string | null, appliedSince: Date | null): AppliedInterval[] {
  return normaliseHistory(
    revisions.map((a) => ({ sha: a.sha, firstSeenAt: a.firstSeenAt.toISOString(), endedAt: iso(a.endedAt) })),
    { sha: appliedSha, since: iso(appliedSince) },
  );
}

async function lineageTracks(db: Db, now: Date): Promise<LineageTrack[]> {
  const [envs, heads, repositories] = await Promise.all([
    db.environment.findMany({
      ...inPromotionOrder,
      select: {
        id: true,
        name: true,
        position: true,
        repositoryId: true,
        branch: true,
        path: true,
        approvedSha: true,
        appliedSha: true,
        appliedSince: true,
        appliedSource: true,
        controller: true,
        lastError: true,
        lastGoodCollectedAt: true,
        appliedRevisions: REVISIONS,
        pauses: { where: { endedAt: null }, select: { startedAt: true, reason: true, origin: true, applicationId: true }, orderBy: { startedAt: "asc" } },
        applications: {
          where: { removedAt: null },
          orderBy: { name: "asc" },
          select: { name: true, id: true, sources: true, approvedSha: true, appliedSha: true, appliedSince: true, appliedSource: true, controller: true, lastError: true, appliedRevisions: REVISIONS },
        },
      },
    }),
    db.branchHead.findMany({ select: { repositoryId: true, branch: true, sha: true } }),
    db.repository.findMany({ select: { id: true, name: true } }),
  ]);
  const headOf = (repositoryId: string | null, branch: string) => heads.find((h) => h.repositoryId === repositoryId && h.branch === branch)?.sha ?? null;
  const repositoryIdOf = new Map(repositories.map((r) => [r.name, r.id]));
  const tracks: LineageTrack[] = [];
  for (const e of envs) {
    // An environment with a source of its own and at most one application answers as a whole; one whose applications
    // follow sources of their own (discover:) answers per application even with one, on that application's repository.
    if (e.applications.length <= 1 && e.repositoryId !== null) {
      tracks.push({
        environment: e.name,
        position: e.position,
        application: null,
        repositoryId: e.repositoryId,
        branch: e.branch,
        path: e.path,
        approvedSha: e.approvedSha,
        appliedSha: e.appliedSha,
        appliedSince: iso(e.appliedSince),
        appliedInferred: e.appliedSource === "inferred",
        history: historyOf(e.appliedRevisions, e.appliedSha, e.appliedSince),
        blocker: blockerOf(now, e.controller, e.pauses[0], environmentError(e.lastError), e.lastGoodCollectedAt),
        branchHead: headOf(e.repositoryId, e.branch),
      });
      continue;
    }
    for (const a of e.applications) {
      const source = rec(Array.isArray(a.sources) ? a.sources[0] : undefined);
      const repositoryId = repositoryIdOf.get(str(source.repository) ?? "") ?? null;
      // A tag, range, commit or default branch is read at its followed ref (the collector keeps its head row),
      // and named in words on the lineage page; a source naming no ref keeps the environment's branch.
      const followed = storedFollowedRef(source.ref, e.branch);
      const branch = describeFollowedRef(followed);
      tracks.push({
        environment: e.name,
        position: e.position,
        application: a.name,
        repositoryId,
        branch,
        path: str(source.path) ?? ".",
        approvedSha: a.approvedSha,
        appliedSha: a.appliedSha,
        appliedSince: iso(a.appliedSince),
        appliedInferred: a.appliedSource === "inferred",
        history: historyOf(a.appliedRevisions, a.appliedSha, a.appliedSince),
        blocker: blockerOf(
          now,
          a.controller,
          e.pauses.find((p) => p.applicationId === a.id || p.applicationId === null),
          // An application's error is its last run's: it fails until a run collects it again.
          environmentError(a.lastError),
          null,
        ),
        branchHead: headOf(repositoryId, followed),
      });
    }
  }
  return tracks;
}

function badge(h: RepoHistory, t: LineageTrack, sha: string): EnvironmentBadgeDto {
  const l = liveness(h.graph, t.history, sha);
  const through = l.through ? revisionDto(l.through, h.commits.get(l.through)) : null;
  const base = {
    environment: t.environment,
    application: t.application,
    position: t.position,
    through,
    viaDescendant: l.live && !l.exact,
    inferred: through !== null && t.appliedInferred,
    firstLiveAt: l.firstLiveAt,
  };
  if (l.live) return { ...base, state: "live", since: l.since, reason: null, reasonSince: null };
  if (!t.appliedSha && t.history.length === 0) return { ...base, state: "unknown", since: null, reason: "no applied revision known yet", reasonSince: null };
  if (t.approvedSha && h.graph.contains(t.approvedSha, sha)) {
    return {
      ...base,
      state: "pending",
      since: null,
      reason: t.blocker?.reason ?? "approved, waiting for the controller to apply it",
      reasonSince: t.blocker?.since ?? null,
    };
  }
  const onBranch = t.branchHead ? h.graph.contains(t.branchHead, sha) : false;
  return {
    ...base,
    state: "not-approved",
    since: null,
    reason: onBranch ? `on ${t.branch}, but no later change to ${t.path} includes it yet` : `not on ${t.branch} yet`,
    reasonSince: null,
  };
}

/**
 * The tracks a commit is about. An environment's own track always answers; of
 * an environment's applications, those whose path the commit changes — or
 * all of them when it changes none (every application still runs some
 * revision of the repository, and says whether it contains this one).
 */
function tracksForCommit(tracks: readonly LineageTrack[], changedPaths: readonly string[]): LineageTrack[] {
  const touched = new Set(tracks.filter((t) => t.application !== null && touchesPath(changedPaths, t.path)).map((t) => t.environment));
  return tracks.filter((t) => t.application === null || !touched.has(t.environment) || touchesPath(changedPaths, t.path));
}

/** An environment is reached when every answering application there has the commit: the last of their first-live times. */
function hopsOf(committedAt: string, badges: readonly EnvironmentBadgeDto[]) {
  const chain: Array<{ environment: string; firstLiveAt: string | null }> = [];
  for (const b of badges) {
    const step = chain.find((c) => c.environment === b.environment);
    if (!step) chain.push({ environment: b.environment, firstLiveAt: b.firstLiveAt });
    else step.firstLiveAt = step.firstLiveAt && b.firstLiveAt ? (b.firstLiveAt > step.firstLiveAt ? b.firstLiveAt : step.firstLiveAt) : null;
  }
  return promotionHops(committedAt, chain);
}

function commitDto(h: RepoHistory, repository: string, tracks: LineageTrack[], sha: string): CommitDto {
  const c = h.commits.get(sha)!;
  const badges = tracksForCommit(
    tracks.filter((t) => t.repositoryId === h.repositoryId),
    c.changedPaths,
  ).map((t) => badge(h, t, sha));
  return {
    revision: { ...revisionDto(sha, c), parents: c.parents, authorEmail: c.authorEmail, fullMessage: c.message, changedPaths: c.changedPaths },
    repository,
    environments: badges,
    hops: hopsOf(c.committedAt, badges),
  };
}

/** Full or short sha (at least 4 hex digits). Several matches → the candidates, for the user to pick. */
export async function lookupCommit(db: Db, shaOrPrefix: string, now = new Date()): Promise<CommitLookupDto> {
  const prefix = shaOrPrefix.toLowerCase();
  const repos = await db.repository.findMany({ select: { id: true, name: true } });
  const histories = await Promise.all(repos.map((r) => repoHistory(db, r.id)));
  const matches: Array<{ repo: string; h: RepoHistory; sha: string }> = [];
  histories.forEach((h, i) => {
    for (const sha of h.graph.resolve(prefix)) matches.push({ repo: repos[i]!.name, h, sha });
  });
  if (matches.length === 0) throw notFound(`commit ${shaOrPrefix}`);
  const distinct = [...new Map(matches.map((m) => [m.sha, m])).values()];
  if (distinct.length > 1) {
    const candidates: RevisionDto[] = distinct.map((m) => revisionDto(m.sha, m.h.commits.get(m.sha))).sort((a, b) => (b.committedAt ?? "").localeCompare(a.committedAt ?? ""));
    return { match: "ambiguous", candidates: candidates.slice(0, 50) };
  }
  const m = distinct[0]!;
  return { match: "exact", commit: commitDto(m.h, m.repo, await lineageTracks(db, now), m.sha) };
}

export async function getLineage(db: Db, opts: { perBranch?: number } = {}, now = new Date()): Promise<LineageDto> {
  const perBranch = opts.perBranch ?? 30;
  const [tracks, envs, repos] = await Promise.all([
    lineageTracks(db, now),
    db.environment.findMany({ ...inPromotionOrder, select: { name: true, position: true, repositoryId: true, appliedSha: true } }),
    db.repository.findMany({ select: { id: true, name: true }, orderBy: { name: "asc" } }),
  ]);
  const out: LineageDto["repositories"] = [];
  for (const repo of repos) {
    const mine = tracks.filter((t) => t.repositoryId === repo.id);
    if (mine.length === 0) continue;
    const h = await repoHistory(db, repo.id);
    const branches = [...new Set(mine.map((t) => t.branch))];
    out.push({
      name: repo.name,
      branches: branches.map((branch) => {
        const onBranch = mine.filter((t) => t.branch === branch);
        const head = onBranch.find((t) => t.branchHead)?.branchHead ?? null;
        // Commits that change at least one of the branch's paths, newest first.
        const seen = new Set<string>();
        const commits = head
          ? onBranch
              .flatMap((t) => approvedCommits(h, head, t.path))
              .filter((c) => (seen.has(c.sha) ? false : (seen.add(c.sha), true)))
              .sort((a, b) => b.committedAt.localeCompare(a.committedAt))
              .slice(0, perBranch)
          : [];
        return {
          branch,
          head,
          environments: [...new Set(onBranch.map((t) => t.environment))],
          tracks: onBranch.map((t) => ({ environment: t.environment, application: t.application, path: t.path })),
          // An application's column answers only for the commits that change its path.
          commits: commits.map((c) => ({
            ...revisionDto(c.sha, c),
            badges: onBranch.filter((t) => t.application === null || touchesPath(c.changedPaths, t.path)).map((t) => badge(h, t, c.sha)),
          })),
        };
      }),
    });
  }
  const histories = new Map<string, RepoHistory>();
  for (const e of envs) if (e.repositoryId && !histories.has(e.repositoryId)) histories.set(e.repositoryId, await repoHistory(db, e.repositoryId));
  return {
    repositories: out,
    environments: envs.map((e) => ({
      name: e.name,
      position: e.position,
      // Without a source of its own, the revision an environment stores is its first application's, not the environment's.
      applied: e.appliedSha && e.repositoryId ? revisionDto(e.appliedSha, histories.get(e.repositoryId)?.commits.get(e.appliedSha)) : null,
      perApplication: e.repositoryId === null,
    })),
    now: now.toISOString(),
  };
}
