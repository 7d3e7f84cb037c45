// Numbers for the metrics page, computed from the same tables the other
// pages read: promotion lead time, drift lifetime, manual edits, pauses and
// time spent stale.
import type { PrismaClient } from "@/lib/db/generated/client";
import { liveness, normaliseHistory, promotionHops, staleTime, touchesPath, unionOfIntervals, type AppliedInterval } from "@/lib/lineage";
import type { MetricsDto } from "@/lib/api/contract/metrics";
import { iso } from "./mappers";
import { repoHistory, type CommitInfo, type RepoHistory } from "./revisions";
import { notFound } from "@/lib/api/errors";
import { inPromotionOrder } from "./environments";
import { repositoryIdsByName, storedSources } from "./application-sources";


const DAY = 86_400_000;

export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx] ?? null;
}

export const LIFETIME_BUCKETS: Array<{ label: string; upToMs: number | null }> = [
  { label: "< 5 min", upToMs: 5 * 60_000 },
  { label: "5–60 min", upToMs: 3_600_000 },
  { label: "1–6 h", upToMs: 6 * 3_600_000 },
  { label: "6–24 h", upToMs: DAY },
  { label: "1–7 d", upToMs: 7 * DAY },
  { label: "> 7 d", upToMs: null },
];

/** Monday 00:00 UTC of the week containing t. */
export function weekStart(t: Date): string {
  const d = new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate()));
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  return d.toISOString().slice(0, 10);
}

/** One environment's place in a promotion chain: what it applied over time, and the branch and path it follows. */
interface ChainLink {
  environment: string;
  history: AppliedInterval[];
  branch: string;
  path: string;
}

/**
 * Lead-time samples per hop (environment → environment), at most one per
 * commit: when several chains time the same commit over the same hop (two
 * applications of one environment pair that the commit both changes), the
 * slowest counts, since the change has made the hop only once every
 * application carrying it has. Counting each would weigh a commit by how many
 * applications it touches.
 */
type HopSamples = Map<string, { from: string | null; to: string; byCommit: Map<string, number> }>;

type Heads = ReadonlyMap<string, string>;
const headKey = (repositoryId: string, branch: string) => `${repositoryId}\u0000${branch}`;

/** The repository's commits made inside the window. */
function commitsInWindow(h: RepoHistory, window: { from: Date; now: Date }): CommitInfo[] {
  const from = window.from.toISOString();
  const to = window.now.toISOString();
  return [...h.commits.values()].filter((c) => c.committedAt >= from && c.committedAt <= to);
}

const touchingByHistory = new WeakMap<RepoHistory, Map<string, readonly CommitInfo[]>>();

/**
 * The repository's commits that change `path` (touchesPath), kept with the
 * loaded history: a page of hundreds of applications asks for each of their
 * folders, and a scan of the whole history per application and request was
 * most of its time.
 */
function commitsTouching(h: RepoHistory, path: string): readonly CommitInfo[] {
  let byPath = touchingByHistory.get(h);
  if (!byPath) touchingByHistory.set(h, (byPath = new Map()));
  let out = byPath.get(path);
  if (!out) byPath.set(path, (out = [...h.commits.values()].filter((c) => touchesPath(c.changedPaths, path))));
  return out;
}

/** Adds the chain's hop durations for `commits`, keeping only hops that end in an environment `keep` accepts. */
function addHopSamples(h: RepoHistory, chain: ChainLink[], commits: readonly CommitInfo[], keep: (to: string) => boolean, hopSamples: HopSamples, fromWhereChanged = false): void {
  for (const c of commits) {
    // A commit that changed a later environment's files (a promotion commit) did not pass through the ones before it:
    // its hops start where it was made, or it would time a hop it never took (staging → production at 0 ms).
    const start = fromWhereChanged ? Math.max(0, chain.findIndex((e) => touchesPath(c.changedPaths, e.path))) : 0;
    const hops = promotionHops(
      c.committedAt,
      chain.slice(start).map((e) => ({ environment: e.environment, firstLiveAt: liveness(h.graph, e.history, c.sha).firstLiveAt })),
    );
    for (const hop of hops) {
      if (hop.durationMs === null || !keep(hop.to)) continue;
      const k = `${hop.from ?? ""}→${hop.to}`;
      const s = hopSamples.get(k) ?? { from: hop.from, to: hop.to, byCommit: new Map<string, number>() };
      s.byCommit.set(c.sha, Math.max(s.byCommit.get(c.sha) ?? 0, hop.durationMs));
      hopSamples.set(k, s);
    }
  }
}

/**
 * The time within the window (up to `until`, when the link's application was
 * removed) during which the link had an approved commit it had not applied.
 */
function linkStaleTime(h: RepoHistory, link: ChainLink, heads: Heads, window: { from: Date; now: Date }, until = window.now): { totalMs: number; intervals: Array<{ start: string; end: string }> } {
  const head = heads.get(headKey(h.repositoryId, link.branch));
  const observedFrom = link.history[0]?.firstSeenAt;
  if (!head || !observedFrom) return { totalMs: 0, intervals: [] };
  // Before Driftwatch first saw the environment nothing is known; counting that as stale would invent a delay.
  const to = until.toISOString();
  const approved: Array<{ committedAt: string; firstLiveAt: string | null }> = [];
  const onBranch = h.graph.ancestors(head);
  for (const c of commitsTouching(h, link.path)) {
    if (c.committedAt < observedFrom || c.committedAt > to || !onBranch.has(c.sha)) continue;
    const firstLiveAt = liveness(h.graph, link.history, c.sha).firstLiveAt;
    if (firstLiveAt === null || Date.parse(firstLiveAt) >= window.from.getTime()) approved.push({ committedAt: c.committedAt, firstLiveAt });
  }
  return staleTime(approved, { from: window.from.toISOString(), to });
}

/**
 * Lead time per hop and stale time per environment for one repository's chain.
 * `counts(commit)` says which commits are the chain's changes (every commit of
 * the repository for environments; an application's own files when one is chosen).
 */
function chainMetrics(
  h: RepoHistory,
  chain: ChainLink[],
  counts: (c: CommitInfo) => boolean,
  heads: Heads,
  window: { from: Date; now: Date },
  hopSamples: HopSamples,
): MetricsDto["staleTime"] {
  addHopSamples(h, chain, commitsInWindow(h, window).filter(counts), () => true, hopSamples);
  return chain.map((e) => ({ environment: e.environment, ...linkStaleTime(h, e, heads, window) }));
}

const appliedSelect = { orderBy: { firstSeenAt: "asc" }, select: { sha: true, firstSeenAt: true, endedAt: true } } as const;

function historyOf(applied: Array<{ sha: string; firstSeenAt: Date; endedAt: Date | null }>, current: { sha: string | null; since: Date | null }): AppliedInterval[] {
  return normaliseHistory(
    applied.map((a) => ({ sha: a.sha, firstSeenAt: a.firstSeenAt.toISOString(), endedAt: iso(a.endedAt) })),
    { sha: current.sha, since: iso(current.since) },
  );
}

/**
 * Lead time and stale time of the environments without a source of their own
 * (`discover:` or an `applications:` list; repositoryId NULL), whose
 * environment-level revisions describe none of their applications: rolled up
 * from the applications they hold.
 *
 * Lead time: every promotion key held in such an environment gets the chain
 * the `application` narrowing builds (its instance in each environment holding
 * it, per repository its first source reads; environments with a source of
 * their own in that repository step in as themselves), and its hops into these
 * environments join the same per-hop rows as the repository chains'. Hops into
 * an environment with a source of its own are left to its repository chain,
 * which already times every commit there; one commit counts once per hop
 * (HopSamples). Per key and environment one instance stands in the chain (the
 * first by name); any other instance of that key there still counts for stale time.
 *
 * Stale time of such an environment: the union over its applications of the
 * time each had an approved commit it had not applied. The union and not the
 * sum: the environment is stale while any of its applications is, and two
 * applications behind during the same hour are one stale hour of the
 * environment (a sum would also exceed the window once enough lag together).
 * An application removed in the window counts up to its removal.
 */
async function applicationRollup(
  db: PrismaClient,
  envs: ReadonlyArray<{ id: string; name: string; repositoryId: string | null }>,
  ownSourced: ReadonlyArray<ChainLink & { repositoryId: string }>,
  repositoryIds: ReadonlyMap<string, string>,
  heads: Heads,
  window: { from: Date; now: Date },
  historyOfRepo: (repositoryId: string) => Promise<RepoHistory>,
  hopSamples: HopSamples,
): Promise<MetricsDto["staleTime"]> {
  const rolled = envs.filter((e) => e.repositoryId === null);
  if (rolled.length === 0) return [];
  const rolledNames = new Set(rolled.map((e) => e.name));
  const envIndex = new Map(envs.map((e, i) => [e.id, i]));
  const instances = await db.application.findMany({
    where: { environmentId: { in: envs.map((e) => e.id) }, OR: [{ removedAt: null }, { removedAt: { gte: window.from } }] },
    orderBy: { name: "asc" },
    select: { environmentId: true, promotionKey: true, sources: true, appliedSha: true, appliedSince: true, removedAt: true, appliedRevisions: appliedSelect },
  });
  instances.sort((a, b) => envIndex.get(a.environmentId)! - envIndex.get(b.environmentId)!);
  const keysInRolled = new Set(instances.filter((a) => rolledNames.has(envs[envIndex.get(a.environmentId)!]!.name)).map((a) => a.promotionKey));

  const chains = new Map<string, { repositoryId: string; links: ChainLink[] }>();
  const spans = new Map<string, Array<readonly [number, number]>>(rolled.map((e) => [e.name, []]));
  for (const a of instances) {
    if (!keysInRolled.has(a.promotionKey)) continue;
    const [src] = storedSources(a.sources, repositoryIds);
    if (!src) continue;
    const environment = envs[envIndex.get(a.environmentId)!]!.name;
    const link: ChainLink = { environment, branch: src.branch, path: src.path, history: historyOf(a.appliedRevisions, { sha: a.appliedSha, since: a.appliedSince }) };
    const k = `${a.promotionKey}\u0000${src.repositoryId}`;
    const chain = chains.get(k) ?? { repositoryId: src.repositoryId, links: [] };
    if (!chain.links.some((l) => l.environment === environment)) chain.links.push(link);
    chains.set(k, chain);
    const envSpans = spans.get(environment);
    if (envSpans) {
      const own = linkStaleTime(await historyOfRepo(src.repositoryId), link, heads, window, a.removedAt ?? window.now);
      for (const i of own.intervals) envSpans.push([Date.parse(i.start), Date.parse(i.end)]);
    }
  }

  const [from, to] = [window.from.toISOString(), window.now.toISOString()];
  const order = new Map(envs.map((e, i) => [e.name, i]));
  for (const { repositoryId, links: own } of chains.values()) {
    if (!own.some((l) => rolledNames.has(l.environment))) continue;
    // An environment with a source of its own in the same repository is a step of every such chain, as itself
    // (its applications' promotion key is "default", which matches no discovered one): so a commit's test →
    // production hop is timed when test follows a path and production discovers its applications.
    const links = [...own, ...ownSourced.filter((e) => e.repositoryId === repositoryId && !own.some((l) => l.environment === e.environment))].sort(
      (a, b) => order.get(a.environment)! - order.get(b.environment)!,
    );
    const h = await historyOfRepo(repositoryId);
    // The key's changes: commits in the window that change its files in any environment of the chain (an
    // environment with a source of its own included: a change made in test and promoted is timed from test).
    const counted = new Set(links.flatMap((l) => commitsTouching(h, l.path)).filter((c) => c.committedAt >= from && c.committedAt <= to));
    addHopSamples(h, links, [...counted], (env) => rolledNames.has(env), hopSamples, true);
  }
  return rolled.map((e) => ({ environment: e.name, ...unionOfIntervals(spans.get(e.name) ?? []) }));
}

/**
 * The delivery metrics over `days`; with `application` (a promotion key), of
 * that application across the environments that hold it: its lead time and
 * stale time from its own applied revisions and files, its drift, its pauses.
 */
export async function getMetrics(db: PrismaClient, days: number, now = new Date(), application?: string): Promise<MetricsDto> {
  const from = new Date(now.getTime() - days * DAY);
  const envs = await db.environment.findMany({
    ...inPromotionOrder,
    select: { id: true, name: true, repositoryId: true, branch: true, path: true, appliedSha: true, appliedSince: true, appliedRevisions: appliedSelect },
  });
  const envName = new Map(envs.map((e) => [e.id, e.name]));
  const envIds = envs.map((e) => e.id);
  const [heads, keys, apps, repositoryIds] = await Promise.all([
    db.branchHead.findMany(),
    db.application.findMany({ where: { environmentId: { in: envIds }, removedAt: null }, distinct: ["promotionKey"], select: { promotionKey: true }, orderBy: { promotionKey: "asc" } }),
    application === undefined
      ? []
      : db.application.findMany({
          where: { environmentId: { in: envIds }, promotionKey: application },
          select: { id: true, environmentId: true, sources: true, appliedSha: true, appliedSince: true, appliedRevisions: appliedSelect },
        }),
    repositoryIdsByName(db),
  ]);
  if (application !== undefined && apps.length === 0) throw notFound(`application "${application}" in any environment`);

  // ── Lead time per hop, and stale time, per repository's promotion chain ──
  const hopSamples: HopSamples = new Map();
  const stale: MetricsDto["staleTime"] = [];
  const window = { from, now };
  const headShas: Heads = new Map(heads.map((x) => [headKey(x.repositoryId, x.branch), x.sha]));
  // One load of each repository's history per request, however many chains and applications read it.
  const histories = new Map<string, Promise<RepoHistory>>();
  const historyOfRepo = (id: string) => {
    let h = histories.get(id);
    if (!h) histories.set(id, (h = repoHistory(db, id)));
    return h;
  };
  if (application === undefined) {
    const ownSourced = envs.flatMap((e) =>
      e.repositoryId === null ? [] : [{ repositoryId: e.repositoryId, environment: e.name, branch: e.branch, path: e.path, history: historyOf(e.appliedRevisions, { sha: e.appliedSha, since: e.appliedSince }) }],
    );
    for (const repoId of new Set(ownSourced.map((e) => e.repositoryId))) {
      const chain = ownSourced.filter((e) => e.repositoryId === repoId);
      stale.push(...chainMetrics(await historyOfRepo(repoId), chain, () => true, headShas, window, hopSamples));
    }
    stale.push(...(await applicationRollup(db, envs, ownSourced, repositoryIds, headShas, window, historyOfRepo, hopSamples)));
  } else {
    // The application's chain: its instance in each environment, by the repository its (first) source reads.
    const byRepo = new Map<string, ChainLink[]>();
    for (const a of [...apps].sort((x, y) => envIds.indexOf(x.environmentId) - envIds.indexOf(y.environmentId))) {
      const [src] = storedSources(a.sources, repositoryIds);
      if (!src) continue;
      const link = { environment: envName.get(a.environmentId)!, branch: src.branch, path: src.path, history: historyOf(a.appliedRevisions, { sha: a.appliedSha, since: a.appliedSince }) };
      byRepo.set(src.repositoryId, [...(byRepo.get(src.repositoryId) ?? []), link]);
    }
    for (const [id, chain] of byRepo) {
      stale.push(...chainMetrics(await historyOfRepo(id), chain, (c) => chain.some((l) => touchesPath(c.changedPaths, l.path)), headShas, window, hopSamples));
    }
  }
  const appIds = apps.map((a) => a.id);
  const order = (name: string | null) => (name === null ? -1 : envs.findIndex((e) => e.name === name));
  const leadTime = [...hopSamples.values()]
    .sort((a, b) => order(a.to) - order(b.to) || order(a.from) - order(b.from))
    .map((s) => {
      const sorted = [...s.byCommit.values()].sort((x, y) => x - y);
      return { from: s.from, to: s.to, samples: sorted.length, medianMs: percentile(sorted, 50), p90Ms: percentile(sorted, 90), maxMs: sorted[sorted.length - 1] ?? null };
    });

  // ── Drift lifetime ──
  const drift = await db.driftItem.findMany({
    where: { openedAt: { gte: from }, environmentId: { in: envIds }, ...(application !== undefined ? { applicationId: { in: appIds } } : {}) },
    select: { openedAt: true, resolvedAt: true, attributionClass: true, attributionManager: true },
  });
  const lifetimes = drift.filter((d) => d.resolvedAt).map((d) => d.resolvedAt!.getTime() - d.openedAt.getTime()).sort((a, b) => a - b);
  const buckets = LIFETIME_BUCKETS.map((b) => ({ ...b, count: 0 }));
  for (const ms of lifetimes) {
    const i = buckets.findIndex((b) => b.upToMs === null || ms < b.upToMs);
    buckets[i]!.count++;
  }

  // ── Manual edits per week by manager ──
  const weeks: string[] = [];
  for (let t = new Date(weekStart(from)); t.getTime() <= now.getTime(); t = new Date(t.getTime() + 7 * DAY)) weeks.push(t.toISOString().slice(0, 10));
  const byManager = new Map<string, number[]>();
  for (const d of drift) {
    if (d.attributionClass !== "human") continue;
    const m = d.attributionManager ?? "unknown";
    const counts = byManager.get(m) ?? weeks.map(() => 0);
    const w = weeks.indexOf(weekStart(d.openedAt));
    if (w >= 0) counts[w] = (counts[w] ?? 0) + 1;
    byManager.set(m, counts);
  }

  // ── Pauses ──
  const pauses = await db.pause.findMany({
    where: {
      environmentId: { in: envIds },
      OR: [{ endedAt: null }, { endedAt: { gte: from } }],
      // An application's pauses, and every pause of a whole environment that holds it.
      ...(application !== undefined ? { AND: [{ OR: [{ applicationId: { in: appIds } }, { applicationId: null, environmentId: { in: apps.map((a) => a.environmentId) } }] }] } : {}),
    },
    orderBy: { startedAt: "asc" },
    select: { environmentId: true, controllerRef: true, origin: true, startedAt: true, endedAt: true, reason: true },
  });

  return {
    window: { from: from.toISOString(), to: now.toISOString(), days },
    leadTime,
    driftLifetime: { buckets, resolved: lifetimes.length, open: drift.length - lifetimes.length, medianMs: percentile(lifetimes, 50) },
    manualEdits: {
      weeks,
      managers: [...byManager.entries()].map(([manager, counts]) => ({ manager, counts })).sort((a, b) => b.counts.reduce((x, y) => x + y, 0) - a.counts.reduce((x, y) => x + y, 0)),
    },
    pauses: pauses.map((p) => ({
      environment: envName.get(p.environmentId) ?? "?",
      controllerRef: p.controllerRef,
      origin: p.origin,
      startedAt: p.startedAt.toISOString(),
      endedAt: iso(p.endedAt),
      durationMs: (p.endedAt ?? now).getTime() - p.startedAt.getTime(),
      reason: p.reason,
    })),
    staleTime: stale,
    environments: envs.map((e) => e.name),
    application: application ?? null,
    applications: keys.map((k) => k.promotionKey),
  };
}
