// The global search (GET /api/search, the `/` box): one query, the few best
// hits of each kind, each with the page that shows it. Bounded everywhere:
// every query has a LIMIT, and a commit is found by sha prefix as an index
// range on its key, not a scan of messages.
import type { PrismaClient } from "@/lib/db";
import type { SearchHitDto } from "@/lib/api/contract/search";
import { applicationPagePath, objectPagePath } from "@/lib/dashboard/object-key";

export const HITS_PER_KIND = 5;
export const MAX_HITS = 20;

const SHA_PREFIX = /^[0-9a-f]{4,40}$/;

/** The words of a query: `Deployment shop/web` → deployment, shop, web (at most 5). */
export function queryWords(q: string): string[] {
  return q
    .toLowerCase()
    .split(/[\s/]+/)
    .filter(Boolean)
    .slice(0, 5);
}

/** "apps/Deployment/shop/web" → "Deployment shop/web", as the drift table names it. */
function objectLabel(o: { kind: string; namespace: string; name: string }): string {
  return `${o.kind} ${o.namespace ? `${o.namespace}/` : ""}${o.name}`;
}

const insensitive = (text: string) => ({ contains: text, mode: "insensitive" as const });

export async function search(db: PrismaClient, q: string): Promise<SearchHitDto[]> {
  const text = q.trim();
  const words = queryWords(text);
  if (words.length === 0) return [];
  const sha = text.toLowerCase();

  const [environments, applications, live, desired, commits, authors, actors, alerts] = await Promise.all([
    db.environment.findMany({ where: { name: insensitive(text), removedAt: null }, orderBy: { position: "asc" }, take: HITS_PER_KIND, select: { name: true, branch: true, path: true } }),
    db.application.findMany({
      where: { OR: [{ name: insensitive(text) }, { promotionKey: insensitive(text) }], removedAt: null, environment: { removedAt: null } },
      orderBy: [{ environment: { position: "asc" } }, { name: "asc" }],
      take: HITS_PER_KIND,
      select: { name: true, kind: true, environment: { select: { name: true } } },
    }),
    db.liveObject.findMany({
      where: { AND: words.map((w) => ({ key: insensitive(w) })) },
      orderBy: [{ key: "asc" }],
      take: HITS_PER_KIND * 2,
      select: { key: true, kind: true, namespace: true, name: true, environment: { select: { name: true, position: true } } },
    }),
    // Objects Git declares that are missing from the cluster are found too.
    db.desiredObject.findMany({
      where: { AND: words.map((w) => ({ key: insensitive(w) })) },
      orderBy: [{ key: "asc" }],
      take: HITS_PER_KIND * 2,
      select: { key: true, kind: true, namespace: true, name: true, environment: { select: { name: true, position: true } } },
    }),
    SHA_PREFIX.test(sha)
      ? // Hex digits sort before "g" in every collation: [prefix, prefix+"g") is exactly the shas starting with it.
        db.revision.findMany({ where: { sha: { gte: sha, lt: `${sha}g` } }, orderBy: { committedAt: "desc" }, take: HITS_PER_KIND, select: { sha: true, message: true, authorName: true, committedAt: true } })
      : Promise.resolve([]),
    db.revision.groupBy({
      by: ["authorName", "authorEmail"],
      where: { OR: [{ authorName: insensitive(text) }, { authorEmail: insensitive(text) }] },
      _count: { _all: true },
      _max: { committedAt: true },
      orderBy: { _max: { committedAt: "desc" } },
      take: HITS_PER_KIND,
    }),
    db.auditEvent.groupBy({ by: ["actorName"], where: { actorName: insensitive(text) }, _count: { _all: true }, orderBy: { actorName: "asc" }, take: HITS_PER_KIND }),
    db.alert.findMany({
      where: { OR: [{ title: insensitive(text) }, { type: insensitive(text) }] },
      orderBy: [{ resolvedAt: { sort: "desc", nulls: "first" } }, { openedAt: "desc" }],
      take: HITS_PER_KIND,
      select: { title: true, severity: true, resolvedAt: true, environment: { select: { name: true } } },
    }),
  ]);

  const hits: SearchHitDto[] = [];
  for (const e of environments) hits.push({ kind: "environment", label: e.name, detail: `environment · ${e.branch}:${e.path}`, href: `/environments/${encodeURIComponent(e.name)}` });

  for (const a of applications) {
    hits.push({
      kind: "application",
      label: a.name,
      detail: `application in ${a.environment.name} · ${a.kind}`,
      href: applicationPagePath(a.environment.name, a.name),
    });
  }

  const objects = new Map<string, (typeof live)[number]>();
  for (const o of [...live, ...desired]) objects.set(`${o.environment.name}\u0000${o.key}`, o);
  const sortedObjects = [...objects.values()].sort((a, b) => a.key.localeCompare(b.key) || a.environment.position - b.environment.position);
  for (const o of sortedObjects.slice(0, HITS_PER_KIND)) {
    hits.push({ kind: "object", label: objectLabel(o), detail: `in ${o.environment.name}`, href: objectPagePath(o.environment.name, o.key) });
  }

  for (const c of commits) {
    hits.push({ kind: "commit", label: `${c.sha.slice(0, 7)} ${c.message.split("\n")[0] ?? ""}`.trim(), detail: `by ${c.authorName}, ${c.committedAt.toISOString().slice(0, 10)}`, href: `/commits/${c.sha}` });
  }

  for (const a of alerts) {
    const env = a.environment?.name;
    hits.push({
      kind: "alert",
      label: a.title,
      detail: `${a.severity}${env ? ` · ${env}` : ""} · ${a.resolvedAt ? "resolved" : "open"}`,
      href: env ? `/environments/${encodeURIComponent(env)}` : "/",
    });
  }

  // An author's page is their newest commit; an actor's is the audit log of what they did.
  const newest = await Promise.all(
    authors.map((a) => db.revision.findFirst({ where: { authorName: a.authorName, authorEmail: a.authorEmail }, orderBy: { committedAt: "desc" }, select: { sha: true } })),
  );
  authors.forEach((a, i) => {
    const sha = newest[i]?.sha;
    if (!sha) return;
    hits.push({ kind: "person", label: `${a.authorName} <${a.authorEmail}>`, detail: `author of ${a._count._all} commit${a._count._all === 1 ? "" : "s"}; newest ${sha.slice(0, 7)}`, href: `/commits/${sha}` });
  });
  for (const a of actors) {
    hits.push({ kind: "person", label: a.actorName, detail: `${a._count._all} action${a._count._all === 1 ? "" : "s"} in the audit log`, href: `/audit?actor=${encodeURIComponent(a.actorName)}` });
  }

  return hits.slice(0, MAX_HITS);
}
