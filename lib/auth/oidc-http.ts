// URLs of the OIDC routes as the browser and the provider see them.
import { NextResponse, type NextRequest } from "next/server";
import { env } from "@/lib/env";
import { isSecureRequest } from "./request";

/** DRIFTWATCH_PUBLIC_URL when set (behind a proxy), else the origin the request came to. */
export function publicOrigin(req: Pick<NextRequest, "headers" | "nextUrl">): string {
  const configured = env().DRIFTWATCH_PUBLIC_URL;
  if (configured) return new URL(configured).origin;
  const host = req.headers.get("x-forwarded-host")?.split(",")[0]?.trim() || req.headers.get("host") || req.nextUrl.host;
  return `${isSecureRequest(req) ? "https" : "http"}://${host}`;
}

export function callbackUrl(req: Pick<NextRequest, "headers" | "nextUrl">): string {
  return `${publicOrigin(req)}/api/auth/oidc/callback`;
}

export function signinErrorRedirect(req: Pick<NextRequest, "headers" | "nextUrl">, message: string): NextResponse {
  const url = new URL("/signin", publicOrigin(req));
  url.searchParams.set("error", message.slice(0, 300));
  return NextResponse.redirect(url, 302);
}
