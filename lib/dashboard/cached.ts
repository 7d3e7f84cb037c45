// The dashboard's most-read answers, cached per process for the pages and
// routes (lib/cache/versioned-cache): the environments list, one
// environment's header and its drift pages. Many people read these at once
// during an incident and each browser polls them; the collector changes them
// once per run. Entries die with the next committed change to any dashboard
// table (lib/db/change-feed), after a few seconds regardless (ages and
// "stale" move with the clock), and at once in this process after one of its
// own mutations (lib/api/route touches the feed).
// Tests and scripts call the uncached functions in ./environments and ./drift.
import { getPrisma } from "@/lib/db";
import { changeFeed } from "@/lib/db/change-feed";
import { VersionedCache } from "@/lib/cache/versioned-cache";
import type { DriftListDto, DriftQuery, EnvironmentDetailDto, EnvironmentListDto } from "@/lib/api/contract";
import { getEnvironmentDetail, listEnvironments } from "./environments";
import { listDrift } from "./drift";
import { configSummary } from "./config-summary";

/** How long an answer may be served although nothing changed in the database. */
export const DASHBOARD_CACHE_TTL_MS = 3_000;

type Answer = EnvironmentListDto | EnvironmentDetailDto | DriftListDto;
const holder = globalThis as typeof globalThis & { __driftwatchAnswers?: VersionedCache<Answer> };
const answers = (holder.__driftwatchAnswers ??= new VersionedCache<Answer>({ maxEntries: 1_000, ttlMs: DASHBOARD_CACHE_TTL_MS }));

function cached<T extends Answer>(key: string, compute: () => Promise<T>): Promise<T> {
  return answers.get(key, changeFeed()?.generation("data") ?? null, compute) as Promise<T>;
}

export function cachedEnvironments(): Promise<EnvironmentListDto> {
  return cached("environments", () => listEnvironments(getPrisma(), configSummary()));
}

export function cachedEnvironmentDetail(env: string): Promise<EnvironmentDetailDto> {
  return cached(`environment\u0000${env}`, () => getEnvironmentDetail(getPrisma(), env));
}

export function cachedDrift(env: string, query: DriftQuery): Promise<DriftListDto> {
  // The parsed query has a fixed key order (the schema's), so equal queries give equal keys.
  return cached(`drift\u0000${env}\u0000${JSON.stringify(query)}`, () => listDrift(getPrisma(), env, query));
}
