// Who is signed in, and the CSRF token the page must send with mutations.
import { NextResponse, type NextRequest } from "next/server";
import { errorResponse } from "@/lib/api/route";
import type { SessionInfo } from "@/lib/api/contract/auth";
import { getPrisma } from "@/lib/db";
import { getConfig } from "@/lib/config";
import { sessionFromRequest } from "@/lib/auth/guard";

export const dynamic = "force-dynamic";

export async function GET(req: NextRequest): Promise<NextResponse> {
  try {
    const session = await sessionFromRequest(getPrisma(), req);
    const auth = getConfig().config.auth;
    return NextResponse.json(
      {
        user: session?.user ?? null,
        csrfToken: session?.csrfToken ?? null,
        expiresAt: session?.expiresAt.toISOString() ?? null,
        methods: { local: auth.local, oidc: Boolean(auth.oidc) },
      } satisfies SessionInfo,
      { headers: { "cache-control": "no-store" } },
    );
  } catch (e) {
    return errorResponse(e);
  }
}
