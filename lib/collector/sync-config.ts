// driftwatch.yaml is the source of truth for what environments exist. On
// start (and on every worker's config reload) it is copied into the
// Environment and Repository rows; environments that left the file are marked
// removed, never deleted, so their history stays readable.
import type { PrismaClient } from "@/lib/db/generated/client";
import type { DriftwatchConfig } from "@/lib/config";

/** Strips any userinfo from a URL so no credential can reach the database. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, "$1");
}

export async function syncConfigToDatabase(db: PrismaClient, config: DriftwatchConfig): Promise<void> {
  const repoIds = new Map<string, string>();
  for (const repo of config.repositories) {
    const row = await db.repository.upsert({
      where: { name: repo.name },
      create: { name: repo.name, url: redactUrl(repo.url) },
      update: { url: redactUrl(repo.url) },
      select: { id: true },
    });
    repoIds.set(repo.name, row.id);
  }
  const names: string[] = [];
  for (const [position, e] of config.environments.entries()) {
    names.push(e.name);
    // An environment that only discovers has no source of its own: its applications' sources are read from the cluster.
    const data = {
      position,
      repositoryId: e.source ? (repoIds.get(e.source.repository) ?? null) : null,
      branch: e.source?.branch ?? "",
      path: e.source?.path ?? "",
      spec: JSON.parse(JSON.stringify(e)) as object,
      removedAt: null,
    };
    await db.environment.upsert({ where: { name: e.name }, create: { name: e.name, ...data }, update: data });
  }
  await db.environment.updateMany({ where: { name: { notIn: names }, removedAt: null }, data: { removedAt: new Date() } });
}
