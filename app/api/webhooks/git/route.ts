// Push webhooks from GitHub, GitLab, Gitea/Forgejo or anything that signs
// with X-Driftwatch-Signature. Public (the signature is the credential);
// lib/webhooks does the work.
import { NextResponse, type NextRequest } from "next/server";
import { getPrisma } from "@/lib/db";
import { getConfig } from "@/lib/config";
import { clientIp } from "@/lib/auth/request";
import { errorResponse } from "@/lib/api/route";
import { readBodyBounded } from "@/lib/api/body";
import { MAX_WEBHOOK_BYTES, receiveWebhook } from "@/lib/webhooks";

export const dynamic = "force-dynamic";

export async function POST(req: NextRequest): Promise<NextResponse> {
  try {
    const body = await readBodyBounded(req, MAX_WEBHOOK_BYTES, "webhook body");
    const result = await receiveWebhook({ db: getPrisma(), config: getConfig().config }, { headers: req.headers, body, ip: clientIp(req) });
    return NextResponse.json(result.body, { status: result.status, headers: { "cache-control": "no-store", ...result.headers } });
  } catch (e) {
    return errorResponse(e);
  }
}
