// The Git side of a run: the mirror fetched, the followed ref (branch, tag,
// semver range, commit, ref name or default branch) resolved to its commit,
// new revisions ingested, the approved revision found (memoised per tip), and
// the allowlisted remote kustomize bases fetched through the same mirrors.
import type { ApplicationEnvironment, RepositoryConfig } from "@/lib/config";
import { syncMirror, listRevisions, type SyncResult, approvedRevision, approvedRevisionAt, parseFollowedRef, resolveFollowedRef, describeFollowedRef, GitError, type RemoteBaseSource } from "@/lib/git";

/**
 * What one run fetched and ingested: each repository fetched once, and each
 * followed ref resolved and its revisions ingested once, however many applications follow them
 * (hundreds of applications of one repository cost one fetch and a handful of queries).
 */
export interface RunFetches {
  mirrors: Map<string, ReturnType<typeof syncMirror>>;
  /** Repositories this run took from a recent fetch instead of fetching (reuseFetchWithinMs): not counted as fetched. */
  reused: Set<string>;
  /** A fetch of a repository younger than this serves this run too (0: always fetch). */
  reuseFetchWithinMs: number;
  branches: Map<string, Promise<BranchSync>>;
  /** Charts from Helm repositories and OCI registries: each chart and version (or range) resolved once. */
  charts: Map<string, Promise<FetchedChart>>;
}

interface BranchSync {
  mirrorPath: string;
  tipSha: string | undefined;
}

/**
 * A run's fetches. `reuseFetchWithinMs`: a watch-triggered run (a cluster
 * change) takes a repository as a fetch of the last `reuseFetchWithinMs` left
 * it (the environment's interval), instead of asking the remote again. A busy
 * cluster starts such runs every few seconds: each one fetching was a request
 * to the Git host per run (rate limits) and a round trip on the way from an
 * edit to its drift item. Git moves still arrive as they did before watch mode:
 * by webhook at once, else by the next scheduled run.
 */
export function newRunFetches(reuseFetchWithinMs = 0): RunFetches {
  return { mirrors: new Map(), reused: new Set(), reuseFetchWithinMs, branches: new Map(), charts: new Map() };
}

/** The last successful fetch of each mirror in this process, by mirrors directory and repository (name and URL). */
const lastFetches = new Map<string, { at: number; result: SyncResult }>();

/** The repository as a fetch of the last `reuseWithinMs` left it, else fetched now (0: always fetched). */
function fetchMirror(ctx: CollectorContext, repo: RepositoryConfig, reuseWithinMs: number): { result: Promise<SyncResult>; reused: boolean } {
  const key = `${ctx.mirrorsDir}\0${repo.name}\0${repo.url}`;
  const last = lastFetches.get(key);
  if (last && Date.now() - last.at < reuseWithinMs) return { result: Promise.resolve(last.result), reused: true };
  const at = Date.now();
  const result = syncMirror(repo, ctx.mirrorsDir, { timeoutMs: ctx.gitTimeoutMs });
  result.then((r) => lastFetches.set(key, { at, result: r }), () => lastFetches.delete(key));
  return { result, reused: false };
}
import { chartOfView, CHART_REPOSITORY, sourceLocation } from "@/lib/applications/declared";
import type { ApplicationSource, ApplicationSpec } from "@/lib/applications/spec";
import type { ArgoChartReference } from "@/lib/helm/argocd-helm";
import { fetchChart } from "@/lib/helm/chart-fetch";
import type { FetchedChart } from "@/lib/helm/render-helm";
import { chartCacheDir } from "@/lib/helm/source-context";
import { memoGit } from "./run-memo";
import { redactUrl } from "./sync-config";
import { RunFailure, type CollectorContext } from "./run-context";

export interface GitSide {
  /** Empty for a chart from a Helm repository: there is no Git mirror, and versions compare by equality. */
  mirrorPath: string;
  approved: string;
  /** The followed ref's commit as fetched (undefined: the branch is gone from the remote). */
  tipSha: string | undefined;
  /** A chart from a Helm repository or OCI registry: what the application follows and the version it resolves to now (approved). */
  chart?: { ref: ArgoChartReference; approved: FetchedChart };
  /**
   * When the approved revision was published, where it cannot be read from a commit: a chart version's (its
   * index entry's `created`, else when Driftwatch first saw it, as an OCI registry has no such time). Chart
   * versions are not unique across charts the way commit ids are, so the time is carried, not looked up by version.
   */
  approvedAt?: Date;
  /** A multi-source application (Argo CD `spec.sources`): each source, in order, with its own side; the fields above are its first rendering source's. */
  sources?: SourceSide[];
}

export interface SourceSide {
  source: ApplicationSource;
  /** The environment as this source's render sees it (its repository, followed ref and path, or its chart). */
  view: ApplicationEnvironment;
  side: GitSide;
}

/**
 * An application's source side for this run: its Git repository fetched and
 * its approved revision found, or, for a chart from a Helm repository or OCI
 * registry, its approved chart version resolved from the repository's index.
 */
export async function syncSource(ctx: CollectorContext, env: ApplicationEnvironment, repositories: ReadonlyMap<string, RepositoryConfig>, fetches: RunFetches, app?: ApplicationSpec): Promise<GitSide> {
  if (app && app.sources.length > 1) {
    // Each source at its own followed ref (or chart version); repositories shared with other applications are fetched once.
    const sides: SourceSide[] = [];
    for (const source of app.sources) {
      const where = sourceLocation(app, source);
      if (!where.ok) throw new RunFailure([{ category: "git-fetch", message: where.reason }]);
      const view = { ...env, source: where.source };
      sides.push({ source, view, side: await syncSource(ctx, view, repositories, fetches) });
    }
    const primary = sides.find((s) => !s.source.refOnly) ?? sides[0]!;
    return { ...primary.side, sources: sides };
  }
  const chart = chartOfView(env);
  if (chart) return syncChart(ctx, chart, fetches);
  const repo = repositories.get(env.source.repository);
  if (!repo) throw new RunFailure([{ category: "internal", message: `repository ${env.source.repository} is not in the configuration` }]);
  return syncGit(ctx, env, repo, fetches);
}

/** Fetches (verified, cached by digest) the chart version `ref` resolves to: every application of the same chart and version shares one fetch. */
export function fetchChartOnce(ctx: CollectorContext, ref: ArgoChartReference, fetches: RunFetches): Promise<FetchedChart> {
  const key = [ref.repoURL, ref.chart, ref.targetRevision].join("\0");
  let fetched = fetches.charts.get(key);
  if (!fetched) {
    fetched = fetchChart(ref, { repositories: ctx.config.helmRepositories, cacheDir: chartCacheDir(), timeoutMs: ctx.gitTimeoutMs });
    fetches.charts.set(key, fetched);
  }
  return fetched.catch((e: unknown) => {
    if (!(e instanceof GitError)) throw e;
    const errors = [{ category: "git-fetch" as const, message: e.message }];
    throw e.category === "git-missing-ref" ? new ApplicationGitFailure(errors) : new RunFailure(errors);
  });
}

/**
 * A chart's approved version: the one its targetRevision (an exact version
 * or a range over the index's versions) resolves to now. Its publication time
 * (the index's `created`) is kept as a revision of the chart repository, so
 * the approved time reads it as it reads a commit's.
 */
async function syncChart(ctx: CollectorContext, ref: ArgoChartReference, fetches: RunFetches): Promise<GitSide> {
  const approved = await fetchChartOnce(ctx, ref, fetches);
  const parsed = approved.created ? new Date(approved.created) : null;
  // Without a publication time (an OCI registry has none) the version counts as published when first seen: the row is kept.
  const created = parsed && !Number.isNaN(parsed.getTime()) ? parsed : ctx.now();
  const url = redactUrl(ref.repoURL);
  const row = await repositoryRow(ctx, { name: `${CHART_REPOSITORY}${url}/${ref.chart}`, url });
  const who = { authorName: "", authorEmail: "", authoredAt: created, committerName: "", committerEmail: "", committedAt: created };
  await ctx.db.revision.createMany({ data: [{ repositoryId: row.id, sha: approved.version, parents: [], ...who, message: `${ref.chart} ${approved.version}`, changedPaths: [] }], skipDuplicates: true });
  const stored = await ctx.db.revision.findUniqueOrThrow({ where: { repositoryId_sha: { repositoryId: row.id, sha: approved.version } }, select: { committedAt: true } });
  return { mirrorPath: "", approved: approved.version, tipSha: approved.version, chart: { ref, approved }, approvedAt: stored.committedAt };
}

/**
 * The repository's row. One made up from a credential (a discovered
 * application's) gets its row on first use; two runs may make it at once.
 */
async function repositoryRow(ctx: CollectorContext, repo: Pick<RepositoryConfig, "name" | "url">): Promise<{ id: string }> {
  const where = { name: repo.name };
  const found = await ctx.db.repository.findUnique({ where, select: { id: true } });
  if (found) return found;
  await ctx.db.repository.createMany({ data: [{ name: repo.name, url: redactUrl(repo.url) }], skipDuplicates: true });
  return ctx.db.repository.findUniqueOrThrow({ where, select: { id: true } });
}

/** Fetches the mirror, ingests new revisions, and finds the approved revision; records the fetch's outcome on the repository. */
export async function syncGit(ctx: CollectorContext, env: ApplicationEnvironment, repo: RepositoryConfig, fetches: RunFetches = newRunFetches()): Promise<GitSide> {
  const branch = env.source.branch;
  let synced = fetches.branches.get(`${repo.name}\0${branch}`);
  if (!synced) {
    synced = syncBranch(ctx, repo, branch, fetches);
    fetches.branches.set(`${repo.name}\0${branch}`, synced);
  }
  let approved: string | null;
  let mirrorPath: string;
  let tipSha: string | undefined;
  try {
    ({ mirrorPath, tipSha } = await synced);
    const mirror = mirrorPath;
    // At the tip this run fetched (not the ref as it is now: a push during the run must not give applications different tips),
    // from the ref's history index: one git walk for every application of the repository.
    const tip = tipSha;
    approved = tip
      ? await memoGit([mirror, "approved", branch, tip, env.source.path], () => approvedRevisionAt(mirror, branch, tip, env.source.path))
      : await approvedRevision(mirror, branch, env.source.path);
  } catch (e) {
    throw e instanceof GitError ? gitFailure(e) : e;
  }
  if (!approved) throw new ApplicationGitFailure([{ category: "render", message: `no commit on ${describeFollowedRef(branch)} touches ${env.source.path}` }]);
  return { mirrorPath, approved, tipSha };
}

/**
 * A Git failure that is one application's own: the repository was fetched, but
 * the tag, range, commit or branch it follows is not there, or nothing on it
 * touches its path. The environment's other applications are still collected.
 */
export class ApplicationGitFailure extends RunFailure {}

function gitFailure(e: GitError): RunFailure {
  const errors = [{ category: e.category === "git-auth" ? ("git-auth" as const) : e.category === "render" ? ("render" as const) : ("git-fetch" as const), message: e.message }];
  return e.category === "git-missing-ref" ? new ApplicationGitFailure(errors) : new RunFailure(errors);
}

/**
 * Fetches the mirror (once per run), resolves the followed ref to its commit,
 * ingests its new revisions and records the fetch's outcome on the repository.
 * The ref's head row also keeps what a tag range or the default branch resolved
 * to, for the application page.
 */
async function syncBranch(ctx: CollectorContext, repo: RepositoryConfig, branch: string, fetches: RunFetches): Promise<BranchSync> {
  const repoRow = await repositoryRow(ctx, repo);
  const followed = parseFollowedRef(branch);
  try {
    let fetch = fetches.mirrors.get(repo.name);
    // Only a branch resolves from the fetch's heads alone: other refs ask the remote again (ls-remote, a ref fetch),
    // and their answer must not meet an older fetch's heads.
    if (!fetch || (fetches.reused.has(repo.name) && followed.kind !== "branch")) {
      const started = fetchMirror(ctx, repo, followed.kind === "branch" ? fetches.reuseFetchWithinMs : 0);
      fetch = started.result;
      fetches.mirrors.set(repo.name, fetch);
      if (started.reused) fetches.reused.add(repo.name);
      else fetches.reused.delete(repo.name);
    }
    const fromReused = fetches.reused.has(repo.name);
    const { mirrorPath, heads } = await fetch;
    // A branch gone from the remote has no tip (listing its revisions says so); other refs must resolve.
    const resolved = followed.kind === "branch" ? { sha: heads[followed.branch], resolvedRef: null } : await resolveFollowedRef({ repo, mirrorsDir: ctx.mirrorsDir, mirrorPath, heads, timeoutMs: ctx.gitTimeoutMs }, branch);
    const tipSha = resolved.sha;
    const key = { repositoryId_branch: { repositoryId: repoRow.id, branch } };
    const head = await ctx.db.branchHead.findUnique({ where: key });
    if (fromReused && head?.sha !== tipSha) {
      // Another worker fetched since this process did (the stored head moved past its fetch): this process's fetch is
      // older than what the environment already shows, and would move it back. Fetch now.
      if (fetches.mirrors.get(repo.name) === fetch) {
        fetches.mirrors.set(repo.name, fetchMirror(ctx, repo, 0).result);
        fetches.reused.delete(repo.name);
      }
      return syncBranch(ctx, repo, branch, fetches);
    }
    // An unmoved ref has nothing new to ingest; asking git would only cost processes.
    const revisions = tipSha !== undefined && head?.sha === tipSha ? [] : await listRevisions(mirrorPath, branch, { known: new Set(head ? [head.sha] : []), limit: 10_000, tip: tipSha });
    if (revisions.length > 0) {
      await ctx.db.revision.createMany({
        data: revisions.map((r) => ({ repositoryId: repoRow.id, ...r })),
        skipDuplicates: true,
      });
    }
    // The ref's commit as fetched. A branch force-pushed back to an older commit (or a tag moved back) lists
    // nothing new, yet moved: the head must follow, or the commits it dropped still read as on the branch.
    const newHead = tipSha ?? revisions[0]?.sha;
    if (newHead && (head?.sha !== newHead || (head?.resolvedRef ?? null) !== resolved.resolvedRef)) {
      await ctx.db.branchHead.upsert({
        where: key,
        create: { repositoryId: repoRow.id, branch, sha: newHead, resolvedRef: resolved.resolvedRef },
        update: { sha: newHead, resolvedRef: resolved.resolvedRef, updatedAt: ctx.now() },
      });
    }
    if (!fetches.reused.has(repo.name)) await ctx.db.repository.update({ where: { id: repoRow.id }, data: { lastFetchAt: ctx.now(), lastError: null } });
    return { mirrorPath, tipSha };
  } catch (e) {
    if (e instanceof GitError) await ctx.db.repository.update({ where: { id: repoRow.id }, data: { lastError: e.message } });
    throw e;
  }
}

/** The allowlisted remote kustomize bases, fetched through the same mirrors as every repository. */
export function remoteBaseSource(ctx: CollectorContext): RemoteBaseSource | undefined {
  const repositories = ctx.config.remoteBases.map((name) => ctx.config.repositories.find((r) => r.name === name)).filter((r): r is RepositoryConfig => r !== undefined);
  if (repositories.length === 0) return undefined;
  return {
    repositories,
    fetch: async (repo) => (await syncMirror(repo, ctx.mirrorsDir, { timeoutMs: ctx.gitTimeoutMs })).mirrorPath,
  };
}
