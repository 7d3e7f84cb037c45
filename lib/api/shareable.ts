// Which responses may be served again to another signed-in reader of the
// same role (lib/server/shared-responses.ts), said the HTTP way: a response
// that may be shared carries `Cache-Control: no-cache` (any cache may keep it,
// but must check with the server before reusing it — ours checks the reader's
// session and the data generation); everything else keeps what Next.js and
// our API wrapper send by default, `private` and `no-store`, and is never kept.
//
// Two places set the shareable header, each from an explicit list:
// - pages: SHARED_PAGES below, applied by proxy.ts. A shared page must render
//   nothing about who asks (the user menu and the CSRF token come from
//   /api/auth/session in the browser); e2e/auth.spec.ts renders each one for
//   two users of the same role and compares the bytes.
// - API reads: the routes built with sharedReadRoute (lib/api/route.ts),
//   whose handlers are not given the request or the user at all.

/** The Cache-Control of a response that may be served to every signed-in reader of one role. */
export const SHAREABLE_CACHE_CONTROL = "no-cache";

/**
 * The pages many people keep open during an incident, whose whole content
 * comes from the answers lib/dashboard/cached.ts keeps for everyone: the
 * environments and one environment with its drift. Each pattern matches a
 * whole path; `[^/]+` is one segment. Pages that read the database
 * themselves (the lineage, an object…) carry the moment they were rendered,
 * so no two renders are alike: they are not shared.
 */
export const SHARED_PAGES: readonly RegExp[] = [/^\/$/, /^\/environments\/[^/]+$/];

export function isSharedPage(pathname: string): boolean {
  return SHARED_PAGES.some((p) => p.test(pathname));
}

/**
 * Responses that never end (server-sent events, GET /api/live): nothing may
 * wait for them to finish, so the shared-response cache must not even look.
 */
const STREAM_PATHS: ReadonlySet<string> = new Set(["/api/live"]);

export function isStreamPath(pathname: string): boolean {
  return STREAM_PATHS.has(pathname);
}

/** The directives of a Cache-Control value, lower-cased, without their arguments. */
function directives(value: string | readonly string[] | number | undefined | null): Set<string> {
  if (value === undefined || value === null) return new Set();
  const text = Array.isArray(value) ? value.join(",") : String(value);
  return new Set(
    text
      .split(",")
      .map((d) => d.split("=")[0]?.trim().toLowerCase() ?? "")
      .filter(Boolean),
  );
}

/** True when a response's Cache-Control lets a cache shared between readers keep it: present, and neither private nor no-store. */
export function responseMayBeShared(cacheControl: string | readonly string[] | number | undefined | null): boolean {
  const d = directives(cacheControl);
  return d.size > 0 && !d.has("private") && !d.has("no-store");
}

/** True when the request asks for a response made for it (a hard reload, a test): `Cache-Control: no-cache`/`no-store` or `Pragma: no-cache`. */
export function requestWantsFresh(cacheControl: string | readonly string[] | undefined, pragma: string | readonly string[] | undefined): boolean {
  const d = directives(cacheControl);
  return d.has("no-cache") || d.has("no-store") || directives(pragma).has("no-cache");
}
