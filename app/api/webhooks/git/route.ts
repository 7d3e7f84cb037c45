// Push webhooks from GitHub, GitLab, Gitea/Forgejo or anything that signs
// with X-Driftwatch-Signature. Public (the signature is the credential);
// lib/webhooks does the work.
import { NextResponse, type NextRequest } from "next/server";
import { getPrisma } from "@/lib/db";
import { getConfig } from "@/lib/config";
import { clientIp } from "@/lib/auth/request";
import { errorResponse } from "@/lib/api/route";
import { MAX_WEBHOOK_BYTES, receiveWebhook } from "@/lib/webhooks";

export const dynamic = "force-dynamic";

/** Reads at most `limit` bytes; null when the body is larger. */
async function readBounded(req: NextRequest, limit: number): Promise<Buffer | null> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > limit) return null;
  if (!req.body) return Buffer.alloc(0);
  const reader = req.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    parts.push(value);
  }
  return Buffer.concat(parts);
}

export async function POST(req: NextRequest): Promise<NextResponse> {
  try {
    const body = await readBounded(req, MAX_WEBHOOK_BYTES);
    if (body === null) {
      return NextResponse.json({ error: { code: "too_large", message: `webhook body larger than ${MAX_WEBHOOK_BYTES / 1024 / 1024} MiB` } }, { status: 413 });
    }
    const result = await receiveWebhook({ db: getPrisma(), config: getConfig().config }, { headers: req.headers, body, ip: clientIp(req) });
    return NextResponse.json(result.body, { status: result.status, headers: { "cache-control": "no-store", ...result.headers } });
  } catch (e) {
    return errorResponse(e);
  }
}
