// Puts this process's shared-response cache (./shared-responses) where the
// web process's HTTP server (scripts/web-worker.mjs) finds it: on globalThis,
// because that server lives outside the build's module graph.
import { SESSION_COOKIE } from "@/lib/auth/session";
import { readSessionCached } from "@/lib/auth/session-cache";
import { changeFeed } from "@/lib/db/change-feed";
import { DASHBOARD_CACHE_TTL_MS } from "@/lib/dashboard/cached";
import { SharedResponses } from "./shared-responses";

export const SHARED_RESPONSES_KEY = Symbol.for("driftwatch.sharedResponses");

export function installSharedResponses(): SharedResponses {
  const shared = new SharedResponses({
    sessionCookie: SESSION_COOKIE,
    roleOf: async (token) => (await readSessionCached(token))?.user.role ?? null,
    generation: () => changeFeed()?.generation("data") ?? null,
    ttlMs: DASHBOARD_CACHE_TTL_MS,
  });
  (globalThis as Record<symbol, unknown>)[SHARED_RESPONSES_KEY] = shared;
  return shared;
}
