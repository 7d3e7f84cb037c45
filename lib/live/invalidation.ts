// Which of the browser's queries a committed write to a table can change. The
// server announces table names (lib/live/stream.ts); the browser refetches
// only the open queries under these key prefixes (react-query invalidation is
// a no-op for queries nobody shows). Pure and shared by both sides: the
// server sends only tables listed here, the client maps them to keys.
//
// Too wide costs a refetch; too narrow leaves a page wrong until the fallback
// poll — so every table that feeds a page's answer names that page's key.

/** Query-key prefixes (first element of lib/dashboard/client.ts queryKeys). */
export type QueryPrefix =
  | "environments"
  | "environment"
  | "drift"
  | "object"
  | "commit"
  | "lineage"
  | "timeline"
  | "compare"
  | "metrics"
  | "run"
  | "pause-policy"
  | "audit"
  | "search";

const OVERVIEW: readonly QueryPrefix[] = ["environments", "environment", "timeline", "compare", "search"];

/**
 * The data tables the change feed announces (prisma/migrations/*_change_feed),
 * each with what it feeds. "User" and "Session" are not here: who signs in and
 * out is nobody else's business, so the stream never tells it.
 */
const FEEDS: Readonly<Record<string, readonly QueryPrefix[]>> = {
  // Written by every collection (fetch times): the overview's freshness, not the drift or object pages.
  Repository: ["environments", "environment", "lineage", "commit"],
  Revision: [...OVERVIEW, "lineage", "commit", "metrics"],
  BranchHead: [...OVERVIEW, "lineage", "commit", "metrics"],
  AppliedRevision: [...OVERVIEW, "lineage", "commit", "metrics", "drift"],
  Environment: [...OVERVIEW, "lineage", "commit", "metrics", "drift", "object", "pause-policy"],
  // Written many times a run (progress): only what shows runs. What a run found arrives in the tables it wrote.
  CollectionRun: ["environments", "environment", "run", "timeline"],
  DesiredObject: [...OVERVIEW, "drift", "object"],
  LiveObject: [...OVERVIEW, "drift", "object"],
  ObjectVersion: [...OVERVIEW, "object"],
  DriftItem: [...OVERVIEW, "drift", "object", "metrics"],
  DivergenceClaim: [...OVERVIEW, "drift", "object", "audit"],
  ClaimItem: [...OVERVIEW, "drift", "object"],
  Pause: [...OVERVIEW, "pause-policy", "audit"],
  Alert: [...OVERVIEW, "drift", "audit"],
};

export function isLiveTable(table: string): boolean {
  return Object.hasOwn(FEEDS, table);
}

/** The query-key prefixes to refetch after writes to `tables` (unknown names ignored), without repeats. */
export function queryPrefixesFor(tables: readonly string[]): QueryPrefix[] {
  const out = new Set<QueryPrefix>();
  for (const t of tables) for (const p of FEEDS[t] ?? []) out.add(p);
  return [...out];
}

/**
 * A run reports its progress many times a second; a change that wrote only
 * that may wait a moment and be refetched with the next one, so an open page
 * does not refetch its environment for every step of a run while the web
 * server is busy answering what the run found.
 */
export const PROGRESS_ONLY_DELAY_MS = 1_000;

export function isProgressOnly(tables: readonly string[]): boolean {
  return tables.length > 0 && tables.every((t) => t === "CollectionRun");
}
