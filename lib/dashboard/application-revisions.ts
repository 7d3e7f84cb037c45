// An application's commits live in its own repository: an environment that
// discovers its applications has none of its own, and its applications may
// read different repositories. These resolve a sha an application names
// (approved, applied, rendered from) through the repositories of its sources.
import type { PrismaClient } from "@/lib/db/generated/client";
import type { RevisionDto } from "@/lib/api/contract";
import { primaryStoredSource, repositoryIdsByName, storedSources, type StoredSource } from "./application-sources";
import { repoHistory, revisionDto, type CommitInfo, type RepoHistory } from "./revisions";

type Db = Pick<PrismaClient, "$queryRaw" | "revision" | "repository">;

export interface ApplicationCommits {
  /** The commit as one of the application's source repositories holds it. */
  commit(sources: unknown, sha: string): CommitInfo | undefined;
  /** The revision for display; null for no sha. A chart version (not a commit) has no message. */
  revision(sources: unknown, sha: string | null): RevisionDto | null;
  /** The source the application renders from, with its repository's history (for ancestry and rollback). */
  primary(sources: unknown): { source: StoredSource; history: RepoHistory } | null;
}

/** Loads the histories of the repositories the given applications' sources read (each once, cached across requests). */
export async function applicationCommits(db: Db, sourcesOfApplications: readonly unknown[]): Promise<ApplicationCommits> {
  const ids = await repositoryIdsByName(db);
  const wanted = [...new Set(sourcesOfApplications.flatMap((s) => storedSources(s, ids).map((x) => x.repositoryId)))];
  const histories = new Map((await Promise.all(wanted.map((id) => repoHistory(db, id)))).map((h) => [h.repositoryId, h]));
  const commit = (sources: unknown, sha: string) => {
    for (const s of storedSources(sources, ids)) {
      const c = histories.get(s.repositoryId)?.commits.get(sha);
      if (c) return c;
    }
    return undefined;
  };
  return {
    commit,
    revision: (sources, sha) => (sha ? revisionDto(sha, commit(sources, sha)) : null),
    primary: (sources) => {
      const source = primaryStoredSource(sources, ids);
      const history = source ? histories.get(source.repositoryId) : undefined;
      return source && history ? { source, history } : null;
    },
  };
}
