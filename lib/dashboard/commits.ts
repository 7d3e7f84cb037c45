// "Is commit X live in staging? In prod? Since when?" — per environment,
// ancestry-aware, with the reason when it is not live yet.
import type { PrismaClient } from "@/lib/db/generated/client";
import { notFound } from "@/lib/api/errors";
import { formatAge } from "@/lib/environments/status";
import { liveness, normaliseHistory, promotionHops, type AppliedInterval } from "@/lib/lineage";
import type { CommitDto, CommitLookupDto, EnvironmentBadgeDto, LineageDto, RevisionDto } from "@/lib/api/contract";
import { controllerStatus, environmentError, iso } from "./mappers";
import { approvedCommits, repoHistory, revisionDto, type RepoHistory } from "./revisions";
import { inPromotionOrder } from "./environments";

type Db = PrismaClient;

interface EnvLineage {
  id: string;
  name: string;
  position: number;
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

async function lineageEnvironments(db: Db, now: Date): Promise<EnvLineage[]> {
  const envs = await db.environment.findMany({
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
      appliedRevisions: { orderBy: { firstSeenAt: "asc" }, select: { sha: true, firstSeenAt: true, endedAt: true } },
      pauses: { where: { endedAt: null }, select: { startedAt: true, reason: true, origin: true }, take: 1 },
    },
  });
  const heads = await db.branchHead.findMany({ select: { repositoryId: true, branch: true, sha: true } });
  return envs.map((e) => {
    const controller = controllerStatus(e.controller);
    const error = environmentError(e.lastError);
    const pause = e.pauses[0];
    let blocker: EnvLineage["blocker"] = null;
    if (controller?.failure) {
      const f = controller.failure;
      const what = f.object.split("/", 1)[0] === "GitRepository" ? "source" : (f.object.split("/", 1)[0] ?? "controller");
      const since = f.lastTransitionTime;
      blocker = {
        reason: `${what} ${f.reason ?? f.type}${since ? ` for ${formatAge(now.getTime() - Date.parse(since))}` : ""}${f.message ? `: ${f.message}` : ""}`,
        since,
      };
    } else if (pause) {
      blocker = { reason: `reconciliation paused${pause.reason ? `: ${pause.reason}` : pause.origin === "detected" ? " (detected, no reason recorded)" : ""}`, since: pause.startedAt.toISOString() };
    } else if (controller?.suspended) {
      blocker = { reason: "the controller is suspended", since: null };
    } else if (error && (!e.lastGoodCollectedAt || Date.parse(error.at) > e.lastGoodCollectedAt.getTime())) {
      blocker = { reason: `collection failing: ${error.message}`, since: error.at };
    }
    return {
      id: e.id,
      name: e.name,
      position: e.position,
      repositoryId: e.repositoryId,
      branch: e.branch,
      path: e.path,
      approvedSha: e.approvedSha,
      appliedSha: e.appliedSha,
      appliedSince: iso(e.appliedSince),
      appliedInferred: e.appliedSource === "inferred",
      history: normaliseHistory(
        e.appliedRevisions.map((a) => ({ sha: a.sha, firstSeenAt: a.firstSeenAt.toISOString(), endedAt: iso(a.endedAt) })),
        { sha: e.appliedSha, since: iso(e.appliedSince) },
      ),
      blocker,
      branchHead: heads.find((h) => h.repositoryId === e.repositoryId && h.branch === e.branch)?.sha ?? null,
    };
  });
}

function badge(h: RepoHistory, env: EnvLineage, sha: string): EnvironmentBadgeDto {
  const l = liveness(h.graph, env.history, sha);
  const through = l.through ? revisionDto(l.through, h.commits.get(l.through)) : null;
  const base = { environment: env.name, position: env.position, through, viaDescendant: l.live && !l.exact, inferred: through !== null && env.appliedInferred, firstLiveAt: l.firstLiveAt };
  if (l.live) return { ...base, state: "live", since: l.since, reason: null, reasonSince: null };
  if (!env.appliedSha && env.history.length === 0) return { ...base, state: "unknown", since: null, reason: "no applied revision known yet", reasonSince: null };
  if (env.approvedSha && h.graph.contains(env.approvedSha, sha)) {
    return {
      ...base,
      state: "pending",
      since: null,
      reason: env.blocker?.reason ?? "approved, waiting for the controller to apply it",
      reasonSince: env.blocker?.since ?? null,
    };
  }
  const onBranch = env.branchHead ? h.graph.contains(env.branchHead, sha) : false;
  return {
    ...base,
    state: "not-approved",
    since: null,
    reason: onBranch ? `on ${env.branch}, but no later change to ${env.path} includes it yet` : `not on ${env.branch} yet`,
    reasonSince: null,
  };
}

function commitDto(h: RepoHistory, repository: string, envs: EnvLineage[], sha: string): CommitDto {
  const c = h.commits.get(sha)!;
  const mine = envs.filter((e) => e.repositoryId === h.repositoryId);
  const badges = mine.map((e) => badge(h, e, sha));
  return {
    revision: { ...revisionDto(sha, c), parents: c.parents, authorEmail: c.authorEmail, fullMessage: c.message, changedPaths: c.changedPaths },
    repository,
    environments: badges,
    hops: promotionHops(
      c.committedAt,
      badges.map((b) => ({ environment: b.environment, firstLiveAt: b.firstLiveAt })),
    ),
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
  const envs = await lineageEnvironments(db, now);
  return { match: "exact", commit: commitDto(m.h, m.repo, envs, m.sha) };
}

export async function getLineage(db: Db, opts: { perBranch?: number } = {}, now = new Date()): Promise<LineageDto> {
  const perBranch = opts.perBranch ?? 30;
  const envs = await lineageEnvironments(db, now);
  const repos = await db.repository.findMany({ select: { id: true, name: true }, orderBy: { name: "asc" } });
  const out: LineageDto["repositories"] = [];
  for (const repo of repos) {
    const mine = envs.filter((e) => e.repositoryId === repo.id);
    if (mine.length === 0) continue;
    const h = await repoHistory(db, repo.id);
    const branches = [...new Set(mine.map((e) => e.branch))];
    out.push({
      name: repo.name,
      branches: branches.map((branch) => {
        const onBranch = mine.filter((e) => e.branch === branch);
        const head = onBranch.find((e) => e.branchHead)?.branchHead ?? null;
        // Commits that change at least one of the branch's environment paths, newest first.
        const seen = new Set<string>();
        const commits = head
          ? onBranch
              .flatMap((e) => approvedCommits(h, head, e.path))
              .filter((c) => (seen.has(c.sha) ? false : (seen.add(c.sha), true)))
              .sort((a, b) => b.committedAt.localeCompare(a.committedAt))
              .slice(0, perBranch)
          : [];
        return {
          branch,
          head,
          environments: onBranch.map((e) => e.name),
          commits: commits.map((c) => ({ ...revisionDto(c.sha, c), badges: mine.map((e) => badge(h, e, c.sha)) })),
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
      applied: e.appliedSha ? revisionDto(e.appliedSha, e.repositoryId ? histories.get(e.repositoryId)?.commits.get(e.appliedSha) : null) : null,
    })),
    now: now.toISOString(),
  };
}
