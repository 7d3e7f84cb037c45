// An application's stored sources (the Application row's `sources` JSON) as
// the pages that follow them need them: the repository row each reads, its
// path and branch. Sources whose repository has no row are left out.
import type { PrismaClient } from "@/lib/db/generated/client";
import { rec, str } from "./mappers";

export interface StoredSource {
  repositoryId: string;
  path: string;
  /** "" when the source follows a tag, range or commit. */
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
    return id ? [{ repositoryId: id, path: str(o.path) ?? ".", branch: str(rec(o.ref).branch) ?? "" }] : [];
  });
}
