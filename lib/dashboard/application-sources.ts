// An application's stored sources (the Application row's `sources` JSON) as
// the pages that follow them need them: the repository row each reads, its
// path and branch. Sources whose repository has no row are left out.
import type { PrismaClient } from "@/lib/db/generated/client";
import { gitRefSchema, type GitRef } from "@/lib/applications/spec";
import { followedRefOf } from "@/lib/git/followed-ref";
import { rec, str } from "./mappers";

export interface StoredSource {
  repositoryId: string;
  path: string;
  /** The followed ref (lib/git/followed-ref.ts): a branch name, else the tag, range, commit or default branch as the collector keeps its head row. */
  branch: string;
}

/** Repository ids by driftwatch.yaml name, for `storedSources`. */
export async function repositoryIdsByName(db: Pick<PrismaClient, "repository">): Promise<Map<string, string>> {
  return new Map((await db.repository.findMany({ select: { id: true, name: true } })).map((r) => [r.name, r.id]));
}

export function storedSources(sources: unknown, repositoryIds: ReadonlyMap<string, string>): StoredSource[] {
  return (Array.isArray(sources) ? sources : []).flatMap((s) => {
    const o = rec(s);
    const id = repositoryIds.get(str(o.repository) ?? "");
    return id ? [{ repositoryId: id, path: str(o.path) ?? ".", branch: storedFollowedRef(o.ref) }] : [];
  });
}

/** A stored source's ref (the row's JSON) as a GitRef; {} when it is not one. */
export function storedGitRef(ref: unknown): GitRef {
  const parsed = gitRefSchema.safeParse(ref);
  return parsed.success ? parsed.data : {};
}

/** The followed ref the collector keeps a stored source's head row under; `fallback` when the source names no ref. */
export function storedFollowedRef(ref: unknown, fallback = ""): string {
  const r = storedGitRef(ref);
  return Object.keys(r).length > 0 ? followedRefOf(r) : fallback;
}

/** The source an application renders from: its first that is not only an Argo CD `ref:`; null when that one is not a declared repository's (a chart from a Helm repository, an unknown URL). */
export function primaryStoredSource(sources: unknown, repositoryIds: ReadonlyMap<string, string>): StoredSource | null {
  const first = (Array.isArray(sources) ? sources : []).find((s) => rec(s).refOnly !== true);
  return first === undefined ? null : (storedSources([first], repositoryIds)[0] ?? null);
}
