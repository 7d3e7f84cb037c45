// Puts this process's shared-response cache (./shared-responses) where the
// web process's HTTP server (scripts/web-worker.mjs) finds it: on globalThis,
// because that server lives outside the build's module graph.
import { isPublicPath } from "@/lib/auth/request";
import { SESSION_COOKIE } from "@/lib/auth/session";
import { readSessionCached } from "@/lib/auth/session-cache";
import { changeFeed } from "@/lib/db/change-feed";
import { DASHBOARD_CACHE_TTL_MS } from "@/lib/dashboard/cached";
import { SharedResponses } from "./shared-responses";

export const SHARED_RESPONSES_KEY = Symbol.for("driftwatch.sharedResponses");

/**
 * The API reads every open dashboard page polls, whose answers do not depend
 * on who asks (their handlers ignore the user; install-shared-responses.test
 * checks the route files): the environments list, one environment, its drift.
 */
export const SHARED_READ_ROUTES = ["app/api/environments/route.ts", "app/api/environments/[env]/route.ts", "app/api/environments/[env]/drift/route.ts"];
const SHARED_READ_PATHS = /^\/api\/environments(\/[^/]+(\/drift)?)?\/?$/;

export function isSharedRead(pathname: string): boolean {
  return SHARED_READ_PATHS.test(pathname);
}

export function installSharedResponses(): SharedResponses {
  const shared = new SharedResponses({
    sessionCookie: SESSION_COOKIE,
    roleOf: async (token) => (await readSessionCached(token))?.user.role ?? null,
    generation: () => changeFeed()?.generation("data") ?? null,
    isPublicPath,
    isSharedRead,
    ttlMs: DASHBOARD_CACHE_TTL_MS,
  });
  (globalThis as Record<symbol, unknown>)[SHARED_RESPONSES_KEY] = shared;
  return shared;
}
