// The one way a route reads a request body: at most `limit` bytes, counted as
// they arrive, never more held in memory. /api/* skips the proxy and its size
// cap (proxy.ts), so this is the only thing between a client and the heap.
// A declared Content-Length over the limit is refused before a byte is read;
// a chunked body is refused at the first chunk that crosses it, and the rest
// is never read.
import type { NextRequest } from "next/server";
import { ApiError } from "./errors";

export const KiB = 1024;
export const MiB = 1024 * KiB;

function tooLarge(limit: number, what: string): ApiError {
  const size = limit >= MiB ? `${limit / MiB} MiB` : `${limit / KiB} KiB`;
  return new ApiError("too_large", `${what} larger than ${size}`);
}

/** The raw body, at most `limit` bytes; a larger one is a 413 (ApiError "too_large"). */
export async function readBodyBounded(req: Pick<NextRequest, "headers" | "body">, limit: number, what = "request body"): Promise<Buffer> {
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit, what);
  if (!req.body) return Buffer.alloc(0);
  const reader = req.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // Stop reading: the server answers and closes instead of taking the rest.
      void reader.cancel().catch(() => undefined);
      throw tooLarge(limit, what);
    }
    parts.push(value);
  }
  return Buffer.concat(parts, size);
}

/** A JSON body (`application/json` or `…+json`) of at most `limit` bytes; undefined when empty. */
export async function readJsonBounded(req: Pick<NextRequest, "headers" | "body">, limit: number): Promise<unknown> {
  const text = (await readBodyBounded(req, limit)).toString("utf8");
  if (text.trim() === "") return undefined;
  const type = req.headers.get("content-type") ?? "";
  if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
    throw new ApiError("unsupported_media_type", "send the request body as JSON (content-type: application/json)");
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ApiError("bad_request", `request body is not valid JSON: ${e instanceof SyntaxError ? e.message : "parse error"}`);
  }
}
