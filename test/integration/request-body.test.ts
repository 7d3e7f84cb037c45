// Request bodies over real HTTP: a 2 GB body — streamed by the client, never
// allocated — sent to the public routes that read one gets 413, and this
// process's memory does not grow by more than a few MB while it happens.
import http from "node:http";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectPrisma } from "@/lib/db";
import { POST as signin } from "@/app/api/auth/signin/route";
import { POST as webhook } from "@/app/api/webhooks/git/route";
import { serveRoutes, type RouteServer } from "@/test/support/route-server";

const GB = 1024 ** 3;
const MB = 1024 ** 2;
let server: RouteServer;

beforeAll(async () => {
  server = await serveRoutes({ "POST /api/auth/signin": signin, "POST /api/webhooks/git": webhook });
});
afterAll(async () => {
  await server.close();
  await disconnectPrisma();
});

/** `bytes` of JSON-looking filler from one reused 64 KiB chunk: what the client holds is one chunk. */
function filler(bytes: number): Readable {
  const chunk = Buffer.alloc(64 * 1024, "a");
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= bytes) return void this.push(null);
      const n = Math.min(chunk.length, bytes - sent);
      sent += n;
      this.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    },
  });
}

/** Sends the body; resolves with the status and how much of the body went out before the answer came. */
function send(path: string, bytes: number, declareLength: boolean): Promise<{ status: number; message: string; sentMB: number }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { "content-type": "application/json", "x-github-event": "push" };
    if (declareLength) headers["content-length"] = bytes;
    const req = http.request(`${server.url}${path}`, { method: "POST", headers });
    const body = filler(bytes);
    req.on("response", (res) => {
      const parts: Buffer[] = [];
      res.on("data", (d: Buffer) => parts.push(d));
      res.on("end", () => {
        const sentMB = req.socket ? req.socket.bytesWritten / MB : 0;
        body.destroy();
        req.destroy();
        const json = JSON.parse(Buffer.concat(parts).toString("utf8")) as { error?: { message?: string } };
        resolve({ status: res.statusCode ?? 0, message: json.error?.message ?? "", sentMB });
      });
    });
    // The server closes once it has answered: writes after that fail, which is expected.
    req.on("error", (e) => (e.message.match(/EPIPE|ECONNRESET|socket hang up/) ? undefined : reject(e)));
    body.pipe(req);
  });
}

/** Peak growth of this process's resident memory while `fn` runs. */
async function rssGrowth<T>(fn: () => Promise<T>): Promise<{ value: T; growthMB: number }> {
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { value, growthMB: (peak - base) / MB };
  } finally {
    clearInterval(timer);
  }
}

describe("request bodies", () => {
  // Warm up: the first request loads route modules, which is memory that has nothing to do with the body.
  beforeAll(async () => {
    await send("/api/auth/signin", 100 * 1024, true);
    await send("/api/webhooks/git", 6 * MB, true);
  });

  for (const [path, limit] of [["/api/auth/signin", "8 KiB"], ["/api/webhooks/git", "5 MiB"]] as const) {
    it(`${path}: a 2 GB body with its Content-Length gets 413 before any of it is read`, async () => {
      const { value, growthMB } = await rssGrowth(() => send(path, 2 * GB, true));
      expect(value.status).toBe(413);
      expect(value.message).toContain(`larger than ${limit}`);
      expect(growthMB).toBeLessThan(8);
    });

    it(`${path}: a chunked 2 GB body (no length given) gets 413 once the limit is crossed, the rest unread`, async () => {
      const { value, growthMB } = await rssGrowth(() => send(path, 2 * GB, false));
      expect(value.status).toBe(413);
      expect(value.message).toContain(`larger than ${limit}`);
      // The client got its answer long before it could send 2 GB.
      expect(value.sentMB).toBeLessThan(512);
      expect(growthMB).toBeLessThan(16);
      console.log(`${path} chunked: sent ${value.sentMB.toFixed(1)} MB before the 413, memory +${growthMB.toFixed(1)} MB`);
    });
  }
});
