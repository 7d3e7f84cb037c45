// Next.js 16 request proxy (formerly middleware; runs on Node.js) for pages:
// signed-out page views go to /signin and come back afterwards. The session
// is looked up for real (hashed token in Postgres), so a made-up cookie gets
// no further than no cookie; known sessions are cached per process until
// Postgres reports a change (lib/auth/session-cache.ts). Pages check again
// (requireUser) and check roles.
//
// API routes do not pass through here: every route handler authenticates and
// authorises on its own (lib/api/route.ts), and JSON needs no script nonce —
// next.config.js gives /api/* a policy that allows nothing at all. Skipping
// the proxy there saves a second session lookup and a header rewrite on the
// most frequent requests (every open page polls the API).
//
// It also sets the Content-Security-Policy, with a fresh nonce per request:
// Next.js reads the nonce from the request's CSP header and puts it on the
// scripts it renders, so no inline script runs without it ('unsafe-inline'
// is not allowed for scripts). Pages are rendered per request (they read the
// session), which a nonce requires. The pages listed in lib/api/shareable.ts
// are marked `Cache-Control: no-cache` here: such a page may then be served
// again to the next signed-in reader of the same role with a new nonce put in
// its place, without passing through here (lib/server/shared-responses.ts
// checks the session itself). Every other page keeps Next.js's `private,
// no-store`.
import { NextResponse, type NextRequest } from "next/server";
import { env } from "@/lib/env";
import { isPublicPath } from "@/lib/auth/request";
import { SESSION_COOKIE } from "@/lib/auth/session";
import { readSessionCached } from "@/lib/auth/session-cache";
import { isSharedPage, SHAREABLE_CACHE_CONTROL } from "@/lib/api/shareable";

/**
 * Scripts: only ours ('self'), those carrying this response's nonce, and what
 * they load ('strict-dynamic'). Styles keep 'unsafe-inline': React renders
 * style attributes, which nonces cannot cover. Development adds 'unsafe-eval'
 * for React's debugging aids.
 */
function contentSecurityPolicy(nonce: string, dev = false): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export async function proxy(req: NextRequest): Promise<NextResponse> {
  const { pathname, search } = req.nextUrl;
  const headers = new Headers(req.headers);
  // Pages read this to send a signed-out visitor back where they were (requireUser).
  headers.set("x-driftwatch-path", pathname + search);
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const csp = contentSecurityPolicy(nonce, env().NODE_ENV === "development");
  headers.set("content-security-policy", csp);
  headers.set("x-nonce", nonce);
  const secured = (res: NextResponse) => {
    res.headers.set("content-security-policy", csp);
    return res;
  };
  const pass = () => secured(NextResponse.next({ request: { headers } }));
  if (isPublicPath(pathname)) return pass();

  const token = req.cookies.get(SESSION_COOKIE)?.value;
  let signedIn = false;
  if (token) {
    try {
      signedIn = (await readSessionCached(token)) !== null;
    } catch {
      // Database down: let the request through to its handler, which answers with the real error.
      return pass();
    }
  }
  if (signedIn) {
    const res = pass();
    if (isSharedPage(pathname)) res.headers.set("cache-control", SHAREABLE_CACHE_CONTROL);
    return res;
  }
  const url = req.nextUrl.clone();
  url.pathname = "/signin";
  url.search = `?next=${encodeURIComponent(pathname + search)}`;
  return secured(NextResponse.redirect(url, 307));
}

export const config = {
  matcher: ["/((?!api/|_next/static|_next/image|favicon.ico|robots.txt).*)"],
};
