// What the auth layer reads from an HTTP request: the session cookie, the
// client address for throttling, whether the page came over https, and
// whether a mutation comes from our own origin.
import type { NextRequest, NextResponse } from "next/server";
import { env } from "@/lib/env";
import { CSRF_COOKIE, SESSION_COOKIE } from "./session";

export { safeNextPath } from "./next-path";

/** X-Forwarded-Proto is the request front's fact (lib/server/request-front.ts), not the client's say. */
export function isSecureRequest(req: Pick<NextRequest, "headers" | "nextUrl">): boolean {
  const forwarded = req.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
  if (forwarded) return forwarded === "https";
  if (req.nextUrl.protocol === "https:") return true;
  return env().DRIFTWATCH_PUBLIC_URL?.startsWith("https:") ?? false;
}

/**
 * The client's address. The HTTP server in front of Next.js
 * (lib/server/request-front.ts) has replaced X-Forwarded-For with exactly one
 * address: the socket's, or what trusted proxies reported.
 */
export function clientIp(req: Pick<NextRequest, "headers">): string {
  const xff = req.headers.get("x-forwarded-for");
  const last = xff?.split(",").pop()?.trim();
  return last && last.length <= 64 ? last : "unknown";
}

/**
 * Same-origin check for mutations. A browser always sends Origin on a POST
 * fetch; it must name this host. Clients that send no Origin (scripts, curl)
 * still need the session's CSRF token, which a foreign page cannot read.
 */
export function originProblem(req: Pick<NextRequest, "headers" | "nextUrl">): string | null {
  const site = req.headers.get("sec-fetch-site");
  if (site === "cross-site") return "cross-site request refused";
  const origin = req.headers.get("origin");
  if (!origin) return null;
  if (origin === "null") return "request from an opaque origin refused";
  let host: string;
  try {
    host = new URL(origin).host.toLowerCase();
  } catch {
    return "malformed Origin header";
  }
  const allowed = new Set<string>();
  const add = (h: string | null | undefined) => h && allowed.add(h.split(",")[0]!.trim().toLowerCase());
  add(req.headers.get("host"));
  add(req.headers.get("x-forwarded-host"));
  add(req.nextUrl.host);
  const publicUrl = env().DRIFTWATCH_PUBLIC_URL;
  if (publicUrl) add(new URL(publicUrl).host);
  return allowed.has(host) ? null : `origin ${origin} is not this site`;
}

export function setSessionCookies(
  res: NextResponse,
  req: Pick<NextRequest, "headers" | "nextUrl">,
  session: { token: string; csrfToken: string; expiresAt: Date },
): void {
  const secure = isSecureRequest(req);
  res.cookies.set(SESSION_COOKIE, session.token, { httpOnly: true, sameSite: "lax", secure, path: "/", expires: session.expiresAt });
  res.cookies.set(CSRF_COOKIE, session.csrfToken, { httpOnly: false, sameSite: "lax", secure, path: "/", expires: session.expiresAt });
}

export function clearSessionCookies(res: NextResponse, req: Pick<NextRequest, "headers" | "nextUrl">): void {
  const secure = isSecureRequest(req);
  for (const name of [SESSION_COOKIE, CSRF_COOKIE]) {
    res.cookies.set(name, "", { httpOnly: name === SESSION_COOKIE, sameSite: "lax", secure, path: "/", maxAge: 0 });
  }
}

/** Where a signed-out visitor may go: sign-in itself, health, webhooks, metrics and static assets. */
export function isPublicPath(pathname: string): boolean {
  return (
    pathname === "/signin" ||
    pathname.startsWith("/signin/") ||
    pathname === "/api/health" ||
    pathname === "/api/health/live" ||
    pathname === "/api/health/ready" ||
    pathname === "/api/metrics" ||
    // The API's own description: no data, and prerendered at build time.
    pathname === "/api/openapi.json" ||
    pathname.startsWith("/api/auth/") ||
    pathname.startsWith("/api/webhooks/") ||
    pathname.startsWith("/_next/") ||
    pathname === "/favicon.ico" ||
    pathname === "/robots.txt"
  );
}
