// Step 2 of OIDC sign-in: the provider sends the browser back with a code.
import { NextResponse, type NextRequest } from "next/server";
import { getPrisma } from "@/lib/db";
import { getConfig } from "@/lib/config";
import { logger } from "@/lib/log";
import { clientIp, isSecureRequest, safeNextPath, setSessionCookies } from "@/lib/auth/request";
import { oidcCallbackLimiter } from "@/lib/auth/rate-limit";
import { failedAttemptAudit } from "@/lib/auth/failed-attempts";
import { OIDC_COOKIE, OIDC_COOKIE_PATH, OidcError, decodeTransaction, finishSignIn, signInWithOidc } from "@/lib/auth/oidc";
import { callbackUrl, publicOrigin, signinErrorRedirect } from "@/lib/auth/oidc-http";

export const dynamic = "force-dynamic";

function clearTransaction(res: NextResponse, req: NextRequest): NextResponse {
  res.cookies.set(OIDC_COOKIE, "", { httpOnly: true, sameSite: "lax", secure: isSecureRequest(req), path: OIDC_COOKIE_PATH, maxAge: 0 });
  return res;
}

export async function GET(req: NextRequest): Promise<NextResponse> {
  const cfg = getConfig().config.auth.oidc;
  if (!cfg) return signinErrorRedirect(req, "single sign-on is not configured");
  const ip = clientIp(req);
  // Refused before anything else: no provider round trip, no audit row.
  const admitted = oidcCallbackLimiter.admit(ip);
  if (!admitted.allowed) {
    return clearTransaction(signinErrorRedirect(req, `too many sign-in attempts from this address; try again in ${Math.ceil(admitted.retryAfterSeconds / 60)} min`), req);
  }
  const db = getPrisma();
  const providerError = req.nextUrl.searchParams.get("error");
  const tx = decodeTransaction(req.cookies.get(OIDC_COOKIE)?.value);
  const fail = async (message: string) => {
    oidcCallbackLimiter.failed(ip);
    const reason = message.slice(0, 500);
    await failedAttemptAudit()
      .record({
        action: "auth.signin_failed",
        method: "oidc",
        ip,
        target: "oidc",
        reason,
        event: { actor: { type: "anonymous", name: "oidc" }, action: "auth.signin_failed", targetType: "user", targetId: "oidc", reason, after: { ip, method: "oidc" } },
      })
      .catch((e: unknown) => logger.error({ err: String(e) }, "could not audit a failed OIDC sign-in"));
    return clearTransaction(signinErrorRedirect(req, message), req);
  };
  if (providerError) return fail(`the provider refused the sign-in: ${providerError.slice(0, 200)}`);
  if (!tx) return fail("the sign-in took too long or was started in another browser; try again");
  try {
    // The code arrives on our public callback URL; rebuild it so a proxy in front cannot make the check fail.
    const url = new URL(callbackUrl(req));
    url.search = req.nextUrl.search;
    const identity = await finishSignIn(cfg, url, tx);
    const result = await signInWithOidc(db, cfg, identity, { ip });
    if (!result.ok) {
      oidcCallbackLimiter.failed(ip);
      return clearTransaction(signinErrorRedirect(req, result.reason), req);
    }
    // Checked again here: the transaction cookie comes back from the browser, not from us.
    const res = NextResponse.redirect(new URL(safeNextPath(tx.next), publicOrigin(req)), 302);
    setSessionCookies(res, req, result.session);
    return clearTransaction(res, req);
  } catch (e) {
    if (e instanceof OidcError) return fail(e.message);
    logger.error({ err: e instanceof Error ? e.message : String(e) }, "OIDC callback failed");
    return fail("single sign-on failed; see the server log");
  }
}
