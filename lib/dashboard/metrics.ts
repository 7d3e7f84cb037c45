// Numbers for the metrics page, computed from the same tables the other
// pages read: promotion lead time, drift lifetime, manual edits, pauses and
// time spent stale.
import type { PrismaClient } from "@/lib/db/generated/client";
import { liveness, normaliseHistory, promotionHops, staleTime, touchesPath, type AppliedInterval } from "@/lib/lineage";
import type { MetricsDto } from "@/lib/api/contract/metrics";
import { iso } from "./mappers";
import { approvedCommits, repoHistory, type CommitInfo, type RepoHistory } from "./revisions";
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

type HopSamples = Map<string, { from: string | null; to: string; values: number[] }>;

/**
 * Lead time per hop and stale time per environment for one repository's chain.
 * `counts(commit)` says which commits are the chain's changes (every commit of
 * the repository for environments; an application's own files when one is chosen).
 */
function chainMetrics(
  h: RepoHistory,
  chain: ChainLink[],
  counts: (c: CommitInfo) => boolean,
  heads: Array<{ repositoryId: string; branch: string; sha: string }>,
  window: { from: Date; now: Date },
  hopSamples: HopSamples,
): MetricsDto["staleTime"] {
  const { from, now } = window;
  const commitsInWindow = [...h.commits.values()].filter((c) => Date.parse(c.committedAt) >= from.getTime() && Date.parse(c.committedAt) <= now.getTime() && counts(c));
  for (const c of commitsInWindow) {
    const hops = promotionHops(
      c.committedAt,
      chain.map((e) => ({ environment: e.environment, firstLiveAt: liveness(h.graph, e.history, c.sha).firstLiveAt })),
    );
    for (const hop of hops) {
      if (hop.durationMs === null) continue;
      const k = `${hop.from ?? ""}→${hop.to}`;
      const s = hopSamples.get(k) ?? { from: hop.from, to: hop.to, values: [] };
      s.values.push(hop.durationMs);
      hopSamples.set(k, s);
    }
  }
  return chain.map((e) => {
    const head = heads.find((x) => x.repositoryId === h.repositoryId && x.branch === e.branch)?.sha;
    const observedFrom = e.history[0]?.firstSeenAt;
    if (!head || !observedFrom) return { environment: e.environment, totalMs: 0, intervals: [] };
    // Before Driftwatch first saw the environment nothing is known; counting that as stale would invent a delay.
    const approved = approvedCommits(h, head, e.path)
      .filter((c) => c.committedAt >= observedFrom && Date.parse(c.committedAt) <= now.getTime())
      .map((c) => ({ committedAt: c.committedAt, firstLiveAt: liveness(h.graph, e.history, c.sha).firstLiveAt }))
      .filter((c) => c.firstLiveAt === null || Date.parse(c.firstLiveAt) >= from.getTime());
    return { environment: e.environment, ...staleTime(approved, { from: from.toISOString(), to: now.toISOString() }) };
  });
}

const appliedSelect = { orderBy: { firstSeenAt: "asc" }, select: { sha: true, firstSeenAt: true, endedAt: true } } as const;

function historyOf(applied: Array<{ sha: string; firstSeenAt: Date; endedAt: Date | null }>, current: { sha: string | null; since: Date | null }): AppliedInterval[] {
  return normaliseHistory(
    applied.map((a) => ({ sha: a.sha, firstSeenAt: a.firstSeenAt.toISOString(), endedAt: iso(a.endedAt) })),
    { sha: current.sha, since: iso(current.since) },
  );
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
  if (application === undefined) {
    const repoIds = [...new Set(envs.map((e) => e.repositoryId).filter((r): r is string => r !== null))];
    for (const repoId of repoIds) {
      const chain = envs.filter((e) => e.repositoryId === repoId).map((e) => ({ environment: e.name, branch: e.branch, path: e.path, history: historyOf(e.appliedRevisions, { sha: e.appliedSha, since: e.appliedSince }) }));
      stale.push(...chainMetrics(await repoHistory(db, repoId), chain, () => true, heads, window, hopSamples));
    }
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
      stale.push(...chainMetrics(await repoHistory(db, id), chain, (c) => chain.some((l) => touchesPath(c.changedPaths, l.path)), heads, window, hopSamples));
    }
  }
  const appIds = apps.map((a) => a.id);
  const order = (name: string | null) => (name === null ? -1 : envs.findIndex((e) => e.name === name));
  const leadTime = [...hopSamples.values()]
    .sort((a, b) => order(a.to) - order(b.to) || order(a.from) - order(b.from))
    .map((s) => {
      const sorted = [...s.values].sort((x, y) => x - y);
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
