// Security headers: every page response the proxy handles carries a
// Content-Security-Policy whose scripts need this response's nonce (no
// 'unsafe-inline', no 'unsafe-eval' in production), frames nobody, and is
// handed to Next.js on the request so its scripts get the nonce. API routes
// skip the proxy and get a policy that allows nothing; the static headers in
// next.config.js cover the rest.
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { createTestSession, type TestSession } from "@/lib/auth/testing";
import { proxy, config as proxyConfig } from "@/proxy";
import path from "node:path";
import type { NextConfig } from "next";

const db = getPrisma();
let session: TestSession;

beforeAll(async () => {
  await resetDatabase(db);
  session = await createTestSession(db, "viewer");
});
afterAll(disconnectPrisma);

function directives(csp: string | null): Map<string, string[]> {
  return new Map((csp ?? "").split(";").map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([name, ...values]) => [name as string, values]));
}

const request = (path: string, headers: Record<string, string> = {}) => new NextRequest(`http://localhost${path}`, { headers: { host: "localhost", ...headers } });

describe("Content-Security-Policy from proxy.ts", () => {
  it("on a page, a signed-out redirect and a public page alike", async () => {
    const cases = [
      { what: "signed-in page", res: await proxy(request("/environments/production", { cookie: session.cookie })), status: 200 },
      { what: "signed-out page", res: await proxy(request("/timeline")), status: 307 },
      { what: "public page", res: await proxy(request("/signin")), status: 200 },
    ];
    for (const { what, res, status } of cases) {
      expect(res.status, what).toBe(status);
      const csp = directives(res.headers.get("content-security-policy"));
      const scripts = csp.get("script-src") ?? [];
      expect(scripts, what).toContain("'self'");
      expect(scripts.some((s) => /^'nonce-[A-Za-z0-9+/]{16,}={0,2}'$/.test(s)), what).toBe(true);
      expect(scripts, what).not.toContain("'unsafe-inline'");
      expect(scripts, what).not.toContain("'unsafe-eval'");
      expect(csp.get("frame-ancestors"), what).toEqual(["'none'"]);
      expect(csp.get("object-src"), what).toEqual(["'none'"]);
      expect(csp.get("base-uri"), what).toEqual(["'self'"]);
      expect(csp.get("default-src"), what).toEqual(["'self'"]);
    }
  });

  it("uses a fresh nonce per response and hands the same policy to Next.js on the request", async () => {
    const a = await proxy(request("/", { cookie: session.cookie }));
    const b = await proxy(request("/", { cookie: session.cookie }));
    const nonce = (r: Response) => /'nonce-([^']+)'/.exec(r.headers.get("content-security-policy") ?? "")?.[1];
    expect(nonce(a)).toBeTruthy();
    expect(nonce(a)).not.toBe(nonce(b));
    // NextResponse.next({ request: { headers } }) forwards overridden request headers this way.
    expect(a.headers.get("x-middleware-request-content-security-policy")).toBe(a.headers.get("content-security-policy"));
    expect(a.headers.get("x-middleware-request-x-nonce")).toBe(nonce(a));
  });
});

describe("which requests the proxy sees", () => {
  // Next.js anchors each matcher to the whole path.
  const matched = (p: string) => proxyConfig.matcher.some((m) => new RegExp(`^${m}$`).test(p));

  it("every page, and no API route (they authenticate on their own)", () => {
    for (const p of ["/", "/environments/production", "/timeline", "/signin", "/audit"]) expect(matched(p), p).toBe(true);
    for (const p of ["/api/environments", "/api/environments/production/drift", "/api/claims"]) expect(matched(p), p).toBe(false);
  });

  it("a signed-out API call is still refused, by the route itself", async () => {
    const { GET } = await import("@/app/api/environments/route");
    const res = await GET(request("/api/environments"), { params: Promise.resolve({}) });
    expect(res.status).toBe(401);
  });
});

describe("static security headers (next.config.js)", () => {
  it("forbid sniffing and framing on every path", async () => {
    const file = path.resolve(import.meta.dirname, "../../next.config.js");
    const { default: nextConfig } = (await import(file)) as { default: NextConfig };
    const rules = (await nextConfig.headers?.()) ?? [];
    const all = rules.find((r) => r.source === "/:path*");
    const headers = Object.fromEntries((all?.headers ?? []).map((h) => [h.key.toLowerCase(), h.value]));
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["x-frame-options"]).toBe("DENY");
    expect(headers["referrer-policy"]).toBe("same-origin");
    expect(headers["cross-origin-opener-policy"]).toBe("same-origin");
    // One CSP only: a second, nonce-less one here would block every script.
    expect(headers["content-security-policy"]).toBeUndefined();
  });

  it("give API responses a policy that allows nothing", async () => {
    const file = path.resolve(import.meta.dirname, "../../next.config.js");
    const { default: nextConfig } = (await import(file)) as { default: NextConfig };
    const api = ((await nextConfig.headers?.()) ?? []).find((r) => r.source === "/api/:path*");
    const csp = directives(api?.headers.find((h) => h.key.toLowerCase() === "content-security-policy")?.value ?? null);
    expect(csp.get("default-src")).toEqual(["'none'"]);
    expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
  });
});
