// The commit graph of a repository, loaded once and reused while the stored
// commits do not change. Revisions are immutable, so a cheap version check
// (row count + newest ingestion) is enough to know the cache is current; the
// environments page then answers ancestry questions without a query per card.
import type { PrismaClient } from "@/lib/db/generated/client";
import { CommitGraph } from "@/lib/lineage/graph";
import { touchesPath } from "@/lib/lineage";
import type { RevisionDto } from "@/lib/api/contract";

export interface CommitInfo {
  sha: string;
  parents: string[];
  authorName: string;
  authorEmail: string;
  committedAt: string;
  message: string;
  changedPaths: string[];
}

export interface RepoHistory {
  repositoryId: string;
  graph: CommitGraph;
  commits: Map<string, CommitInfo>;
}

interface Cached {
  version: string;
  history: RepoHistory;
}

const holder = globalThis as typeof globalThis & { __driftwatchRepoHistory?: Map<string, Cached> };

export async function repoHistory(db: Pick<PrismaClient, "$queryRaw" | "revision">, repositoryId: string): Promise<RepoHistory> {
  const cache = (holder.__driftwatchRepoHistory ??= new Map());
  const [v] = await db.$queryRaw<Array<{ n: bigint; latest: Date | null }>>`
    SELECT count(*) AS n, max("ingestedAt") AS latest FROM "Revision" WHERE "repositoryId" = ${repositoryId}::uuid`;
  const version = `${v?.n ?? 0}:${v?.latest?.toISOString() ?? ""}`;
  const hit = cache.get(repositoryId);
  if (hit && hit.version === version) return hit.history;
  const rows = await db.revision.findMany({
    where: { repositoryId },
    select: { sha: true, parents: true, authorName: true, authorEmail: true, committedAt: true, message: true, changedPaths: true },
  });
  const commits = new Map<string, CommitInfo>();
  for (const r of rows) commits.set(r.sha, { ...r, committedAt: r.committedAt.toISOString() });
  const history = { repositoryId, graph: new CommitGraph(rows), commits };
  cache.set(repositoryId, { version, history });
  return history;
}

export function revisionDto(sha: string, info: CommitInfo | undefined | null): RevisionDto {
  return {
    sha,
    shortSha: sha.slice(0, 7),
    message: info ? (info.message.split("\n", 1)[0] ?? "") : null,
    authorName: info?.authorName ?? null,
    committedAt: info?.committedAt ?? null,
  };
}

/** Commits reachable from `head` that change `path`, newest first by commit time. */
export function approvedCommits(h: RepoHistory, head: string, path: string): CommitInfo[] {
  const out: CommitInfo[] = [];
  for (const sha of h.graph.ancestors(head)) {
    const c = h.commits.get(sha);
    if (c && touchesPath(c.changedPaths, path)) out.push(c);
  }
  return out.sort((a, b) => b.committedAt.localeCompare(a.committedAt));
}
