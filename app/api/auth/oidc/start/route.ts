// Step 1 of OIDC sign-in: send the browser to the provider with PKCE, state and nonce.
import { NextResponse, type NextRequest } from "next/server";
import { getConfig } from "@/lib/config";
import { isSecureRequest, safeNextPath } from "@/lib/auth/request";
import { OIDC_COOKIE, OIDC_COOKIE_PATH, OIDC_TX_TTL_MS, OidcError, encodeTransaction, startSignIn } from "@/lib/auth/oidc";
import { callbackUrl, signinErrorRedirect } from "@/lib/auth/oidc-http";

export const dynamic = "force-dynamic";

export async function GET(req: NextRequest): Promise<NextResponse> {
  const cfg = getConfig().config.auth.oidc;
  if (!cfg) return signinErrorRedirect(req, "single sign-on is not configured");
  try {
    const { url, transaction } = await startSignIn(cfg, callbackUrl(req), safeNextPath(req.nextUrl.searchParams.get("next")));
    const res = NextResponse.redirect(url, 302);
    res.cookies.set(OIDC_COOKIE, encodeTransaction(transaction), {
      httpOnly: true,
      sameSite: "lax",
      secure: isSecureRequest(req),
      path: OIDC_COOKIE_PATH,
      maxAge: OIDC_TX_TTL_MS / 1000,
    });
    return res;
  } catch (e) {
    return signinErrorRedirect(req, e instanceof OidcError ? e.message : "single sign-on failed to start");
  }
}
