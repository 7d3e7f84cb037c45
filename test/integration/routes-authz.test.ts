// Every mutating API route, found on disk so a new one cannot be forgotten:
// 401 without a session, 403 for a viewer, 403 without the CSRF token or from
// a foreign origin — and nothing changes in the database when refused.
import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { createTestSession, type TestSession } from "@/lib/auth/testing";
import { apiRouteFiles } from "@/test/support/api-routes";

const root = path.resolve(import.meta.dirname, "../..");
const MUTATING = ["POST", "PUT", "PATCH", "DELETE"] as const;

/** `app/api/claims/[id]/transfer/route.ts` → `/api/claims/<uuid>/transfer` and its params. */
function urlFor(file: string): { url: string; params: Record<string, string | string[]> } {
  const rel = path.relative(path.join(root, "app"), path.dirname(file)).split(path.sep);
  const params: Record<string, string | string[]> = {};
  const segments = rel.map((seg) => {
    const catchAll = seg.match(/^\[\[?\.\.\.(\w+)\]\]?$/);
    if (catchAll) {
      params[catchAll[1]!] = ["x"];
      return "x";
    }
    const dyn = seg.match(/^\[(\w+)\]$/);
    if (!dyn) return seg;
    const name = dyn[1]!;
    const value = name === "id" ? randomUUID() : name === "env" ? "production" : name === "username" ? "someone" : "x";
    params[name] = value;
    return value;
  });
  return { url: `http://localhost/${segments.join("/")}`, params };
}

type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

interface Mutation {
  route: string;
  method: (typeof MUTATING)[number];
  url: string;
  params: Record<string, string | string[]>;
  handler: Handler;
}

// Routes that are mutations but not operator/admin actions, each for a stated reason.
const SIGN_IN = "/api/auth/signin"; // public: there is no session yet (Origin still checked)
const SIGN_OUT = "/api/auth/signout"; // any signed-in user may end their own session
const isWebhook = (route: string) => route.startsWith("/api/webhooks/"); // authenticated by the sender's signature

const db = getPrisma();
const mutations: Mutation[] = [];
let viewer: TestSession;
let operator: TestSession;
let admin: TestSession;

beforeAll(async () => {
  await resetDatabase(db);
  for (const { file } of apiRouteFiles()) {
    const mod = (await import(file)) as Record<string, unknown>;
    const { url, params } = urlFor(file);
    for (const method of MUTATING) {
      if (typeof mod[method] === "function") mutations.push({ route: new URL(url).pathname, method, url, params, handler: mod[method] as Handler });
    }
  }
  viewer = await createTestSession(db, "viewer");
  operator = await createTestSession(db, "operator");
  admin = await createTestSession(db, "admin");
}, 120_000);
afterAll(disconnectPrisma);

function call(m: Mutation, headers: Record<string, string>, body: unknown = {}): Promise<Response> {
  const req = new NextRequest(m.url, {
    method: m.method,
    headers: { "content-type": "application/json", host: "localhost", ...headers },
    body: JSON.stringify(body),
  });
  return m.handler(req, { params: Promise.resolve(m.params) });
}

async function rowCounts(): Promise<string> {
  const [pauses, claims, users, runs, alerts] = await Promise.all([db.pause.count(), db.divergenceClaim.count(), db.user.count(), db.collectionRun.count(), db.alert.count()]);
  return JSON.stringify({ pauses, claims, users, runs, alerts });
}

describe("every mutating API route", () => {
  it("finds the mutating routes on disk", () => {
    const names = mutations.map((m) => `${m.method} ${m.route}`);
    // A floor, not a list: new routes join the checks below by themselves.
    for (const expected of ["POST /api/pauses", "POST /api/claims", "PATCH /api/users/someone", "POST /api/auth/signout"]) {
      expect(names).toContain(expected);
    }
    expect(names.some((n) => /^POST \/api\/environments\/production\/refresh$/.test(n))).toBe(true);
  });

  it("answers 401 without a session", async () => {
    const before = await rowCounts();
    for (const m of mutations) {
      if (m.route === SIGN_IN || isWebhook(m.route)) continue;
      const res = await call(m, {});
      expect(res.status, `${m.method} ${m.route}`).toBe(401);
    }
    expect(await rowCounts()).toBe(before);
  });

  it("answers 403 to a viewer, even with a valid CSRF token", async () => {
    const before = await rowCounts();
    for (const m of mutations) {
      if (m.route === SIGN_IN || m.route === SIGN_OUT || isWebhook(m.route)) continue;
      const res = await call(m, viewer.headers);
      expect(res.status, `${m.method} ${m.route}`).toBe(403);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/role/);
    }
    expect(await rowCounts()).toBe(before);
  });

  it("answers 403 to an operator or admin without the CSRF token, with a wrong one, or from another site", async () => {
    const before = await rowCounts();
    for (const m of mutations) {
      if (m.route === SIGN_IN || isWebhook(m.route)) continue;
      for (const s of [operator, admin]) {
        const noToken = await call(m, { cookie: s.cookie });
        expect(noToken.status, `${m.method} ${m.route} without token`).toBe(403);
        const wrong = await call(m, { cookie: s.cookie, "x-csrf-token": s.csrfToken.slice(0, -2) + "xx" });
        expect(wrong.status, `${m.method} ${m.route} wrong token`).toBe(403);
        const foreign = await call(m, { ...s.headers, origin: "https://evil.example" });
        expect(foreign.status, `${m.method} ${m.route} foreign origin`).toBe(403);
      }
    }
    expect(await rowCounts()).toBe(before);
  });

  it("lets an admin with the CSRF token through the checks (so the refusals above are about the checks)", async () => {
    for (const m of mutations) {
      if (m.route === SIGN_IN || m.route === SIGN_OUT || isWebhook(m.route)) continue;
      const res = await call(m, admin.headers);
      expect([401, 403], `${m.method} ${m.route} answered ${res.status}`).not.toContain(res.status);
      expect(res.status, `${m.method} ${m.route}`).toBeLessThan(500);
    }
  });

  it("rejects webhook deliveries that carry no valid signature", async () => {
    for (const m of mutations.filter((x) => isWebhook(x.route))) {
      const res = await call(m, {}, { ref: "refs/heads/main" });
      expect(res.status, `${m.method} ${m.route}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${m.method} ${m.route}`).toBeLessThan(500);
    }
  });

  it("refuses a sign-in posted from another site", async () => {
    const m = mutations.find((x) => x.route === SIGN_IN);
    expect(m).toBeDefined();
    const res = await call(m!, { origin: "https://evil.example" }, { username: "admin", password: "whatever-long" });
    expect(res.status).toBe(403);
  });
});

describe("hostile input to every mutating route", () => {
  const HOSTILE_BODIES: unknown[] = [
    null,
    [],
    "just a string",
    Number.MAX_SAFE_INTEGER * 1024,
    { reason: "x".repeat(100_000), duration: "99999999999999d", environment: "../../etc/passwd" },
    { reason: "drop", environment: "production'; DROP TABLE \"User\"; --", expiresAt: "-271821-04-20T00:00:00Z", confirm: "\u0000" },
    { driftItemIds: ["' OR 1=1 --", "../x"], reason: "ok reason", duration: "1h", returnPath: "revert" },
    { driftItemIds: Array.from({ length: 5000 }, () => randomUUID()), reason: "many", duration: "1h", returnPath: "adopt" },
    { owner: "🦄".repeat(300), role: "superuser", password: 1e308, disabled: "yes" },
    { reason: "\uD800\uDFFF\u202E gnp.exe", expiresAt: "2024-13-45T99:99:99Z", incidentUrl: "javascript:alert(1)" },
  ];
  const HOSTILE_PARAMS = ["../../etc/passwd", "%00", "' OR 1=1 --", "x".repeat(5000), "\u202Eevil"];

  it("answers 4xx with a message, never a 500, and changes nothing", async () => {
    const before = await rowCounts();
    for (const m of mutations) {
      if (m.route === SIGN_IN || m.route === SIGN_OUT || isWebhook(m.route)) continue;
      const variants: Mutation[] = [m];
      for (const name of Object.keys(m.params)) {
        for (const v of HOSTILE_PARAMS) variants.push({ ...m, params: { ...m.params, [name]: v } });
      }
      for (const variant of variants) {
        for (const body of HOSTILE_BODIES) {
          const res = await call(variant, admin.headers, body);
          const label = `${m.method} ${m.route} params=${JSON.stringify(variant.params).slice(0, 60)} body=${JSON.stringify(body)?.slice(0, 60)}`;
          if (res.status >= 400) {
            expect(res.status, label).toBeLessThan(500);
            const payload = (await res.json()) as { error?: { message?: string } };
            expect(payload.error?.message, label).toBeTruthy();
          } else {
            // Only bodies a route ignores may succeed (e.g. "refresh alerts"); none may create anything.
            expect(res.status, label).toBeLessThan(300);
          }
        }
      }
    }
    expect(await rowCounts()).toBe(before);
  }, 120_000);

  it("refuses out-of-range expiries for an environment that exists", async () => {
    await db.environment.create({
      data: { name: "fuzz", position: 99, branch: "main", path: ".", spec: { name: "fuzz", maxPause: 86_400_000, confirmPause: false, autoResume: false } },
    });
    const m = mutations.find((x) => x.method === "POST" && x.route === "/api/pauses")!;
    for (const expiry of [{ duration: "99999999999999d" }, { expiresAt: "+275760-09-13T00:00:00.000Z" }, { duration: "0s" }, { expiresAt: "2001-01-01T00:00:00Z" }]) {
      const res = await call(m, operator.headers, { environment: "fuzz", reason: "fuzzing expiries", ...expiry });
      expect(res.status, JSON.stringify(expiry)).toBe(400);
    }
    expect(await db.pause.count()).toBe(0);
  });
});

describe("server actions", () => {
  it("has none: every mutation is an API route, so the checks above cover all of them", () => {
    const withActions: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(ts|tsx)$/.test(e.name) && /^\s*["']use server["']/m.test(fs.readFileSync(p, "utf8"))) withActions.push(path.relative(root, p));
      }
    };
    for (const dir of ["app", "components", "lib"]) walk(path.join(root, dir));
    expect(withActions, "server actions must check the role; add them to this test").toEqual([]);
  });
});
