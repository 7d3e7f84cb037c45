// Step 2 of OIDC sign-in: the provider sends the browser back with a code.
import { NextResponse, type NextRequest } from "next/server";
import { getPrisma } from "@/lib/db";
import { getConfig } from "@/lib/config";
import { logger } from "@/lib/log";
import { appendAudit } from "@/lib/audit";
import { clientIp, isSecureRequest, setSessionCookies } from "@/lib/auth/request";
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
  const db = getPrisma();
  const providerError = req.nextUrl.searchParams.get("error");
  const tx = decodeTransaction(req.cookies.get(OIDC_COOKIE)?.value);
  const fail = async (message: string) => {
    await appendAudit(db, {
      actor: { type: "anonymous", name: "oidc" },
      action: "auth.signin_failed",
      targetType: "user",
      targetId: "oidc",
      reason: message.slice(0, 500),
      after: { ip: clientIp(req), method: "oidc" },
    }).catch((e: unknown) => logger.error({ err: String(e) }, "could not audit a failed OIDC sign-in"));
    return clearTransaction(signinErrorRedirect(req, message), req);
  };
  if (providerError) return fail(`the provider refused the sign-in: ${providerError.slice(0, 200)}`);
  if (!tx) return fail("the sign-in took too long or was started in another browser; try again");
  try {
    // The code arrives on our public callback URL; rebuild it so a proxy in front cannot make the check fail.
    const url = new URL(callbackUrl(req));
    url.search = req.nextUrl.search;
    const identity = await finishSignIn(cfg, url, tx);
    const result = await signInWithOidc(db, cfg, identity, { ip: clientIp(req) });
    if (!result.ok) return clearTransaction(signinErrorRedirect(req, result.reason), req);
    const res = NextResponse.redirect(new URL(tx.next, publicOrigin(req)), 302);
    setSessionCookies(res, req, result.session);
    return clearTransaction(res, req);
  } catch (e) {
    if (e instanceof OidcError) return fail(e.message);
    logger.error({ err: e instanceof Error ? e.message : String(e) }, "OIDC callback failed");
    return fail("single sign-on failed; see the server log");
  }
}
