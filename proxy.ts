// Next.js 16 request proxy (formerly middleware; runs on Node.js): signed-out
// page views go to /signin and come back afterwards; signed-out API calls get
// 401. The session is looked up for real (hashed token in Postgres), so a
// made-up cookie gets no further than no cookie. Route handlers check again,
// and check roles; this is the gate for pages, which render data server-side.
import { NextResponse, type NextRequest } from "next/server";
import { getPrisma } from "@/lib/db";
import { isPublicPath } from "@/lib/auth/request";
import { SESSION_COOKIE, readSession } from "@/lib/auth/session";

export async function proxy(req: NextRequest): Promise<NextResponse> {
  const { pathname, search } = req.nextUrl;
  const headers = new Headers(req.headers);
  // Pages read this to send a signed-out visitor back where they were (requireUser).
  headers.set("x-driftwatch-path", pathname + search);
  const pass = () => NextResponse.next({ request: { headers } });
  if (isPublicPath(pathname)) return pass();

  const token = req.cookies.get(SESSION_COOKIE)?.value;
  let signedIn = false;
  if (token) {
    try {
      signedIn = (await readSession(getPrisma(), token)) !== null;
    } catch {
      // Database down: let the request through to its handler, which answers with the real error.
      return pass();
    }
  }
  if (signedIn) return pass();
  if (pathname.startsWith("/api/")) {
    return NextResponse.json({ error: { code: "unauthorized", message: "sign in first" } }, { status: 401, headers: { "cache-control": "no-store" } });
  }
  const url = req.nextUrl.clone();
  url.pathname = "/signin";
  url.search = `?next=${encodeURIComponent(pathname + search)}`;
  return NextResponse.redirect(url, 307);
}

export const config = {
  matcher: ["/((?!_next/static|_next/image|favicon.ico|robots.txt).*)"],
};
