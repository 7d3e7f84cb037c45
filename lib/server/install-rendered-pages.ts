// Puts this process's rendered-page cache (./rendered-pages) where the web
// process's HTTP server finds it (renderedPagesOf): on globalThis, because
// that server lives outside the build's module graph.
import { isPublicPath } from "@/lib/auth/request";
import { SESSION_COOKIE } from "@/lib/auth/session";
import { readSessionCached } from "@/lib/auth/session-cache";
import { changeFeed } from "@/lib/db/change-feed";
import { DASHBOARD_CACHE_TTL_MS } from "@/lib/dashboard/cached";
import { RenderedPages } from "./rendered-pages";

export const RENDERED_PAGES_KEY = Symbol.for("driftwatch.renderedPages");

export function installRenderedPages(): RenderedPages {
  const pages = new RenderedPages({
    sessionCookie: SESSION_COOKIE,
    roleOf: async (token) => (await readSessionCached(token))?.user.role ?? null,
    generation: () => changeFeed()?.generation("data") ?? null,
    isPublicPath,
    ttlMs: DASHBOARD_CACHE_TTL_MS,
  });
  (globalThis as Record<symbol, unknown>)[RENDERED_PAGES_KEY] = pages;
  return pages;
}
