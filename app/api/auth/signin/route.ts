// Password sign-in. Public by nature: no session yet, so no CSRF token either;
// a foreign Origin is still refused so no other site can sign a browser in.
import { NextResponse, type NextRequest } from "next/server";
import type { SignedIn } from "@/lib/api/contract/auth";
import { operations } from "@/lib/api/contract/operations";
import { ApiError } from "@/lib/api/errors";
import { errorResponse, refuseNul } from "@/lib/api/route";
import { KiB, readJsonBounded } from "@/lib/api/body";
import { getPrisma } from "@/lib/db";
import { getConfig } from "@/lib/config";
import { clientIp, originProblem, safeNextPath, setSessionCookies } from "@/lib/auth/request";
import { signInWithPassword } from "@/lib/auth/users";

export const dynamic = "force-dynamic";

/** A username, a password and a destination, with room to spare; anything bigger is not a sign-in. */
const MAX_SIGNIN_BYTES = 8 * KiB;

const body = operations.signIn.body;

export async function POST(req: NextRequest): Promise<NextResponse> {
  try {
    const origin = originProblem(req);
    if (origin) throw new ApiError("forbidden", origin);
    if (!getConfig().config.auth.local) throw new ApiError("forbidden", "password sign-in is turned off; use single sign-on");
    if (!/^application\/json\b/i.test(req.headers.get("content-type") ?? "")) {
      throw new ApiError("unsupported_media_type", "send the credentials as JSON");
    }
    const input = body.parse(refuseNul(await readJsonBounded(req, MAX_SIGNIN_BYTES)));
    const result = await signInWithPassword(getPrisma(), { username: input.username, password: input.password, ip: clientIp(req) });
    if (!result.ok) {
      if (result.reason === "rate_limited") {
        const res = NextResponse.json(
          { error: { code: "rate_limited", message: `too many failed sign-ins; try again in ${Math.ceil((result.retryAfterSeconds ?? 60) / 60)} min` } },
          { status: 429 },
        );
        res.headers.set("retry-after", String(result.retryAfterSeconds ?? 60));
        return res;
      }
      throw new ApiError("unauthorized", "wrong username or password");
    }
    const res = NextResponse.json(
      { user: result.user, csrfToken: result.session.csrfToken, next: safeNextPath(input.next) } satisfies SignedIn,
      { headers: { "cache-control": "no-store" } },
    );
    setSessionCookies(res, req, result.session);
    return res;
  } catch (e) {
    return errorResponse(e);
  }
}
