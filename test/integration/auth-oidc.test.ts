// OIDC sign-in end to end against a real OpenID provider (oidc-provider)
// started here on a free port: our start route, the provider's login and
// consent, our callback, the session, and groups → role.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { resetEnvCache } from "@/lib/env";
import { resetConfigCache } from "@/lib/config";
import { readSession, SESSION_COOKIE, CSRF_COOKIE } from "@/lib/auth/session";
import { resetOidcCache } from "@/lib/auth/oidc";
import { failedAttemptAudit } from "@/lib/auth/failed-attempts";
import { GET as start } from "@/app/api/auth/oidc/start/route";
import { GET as callback } from "@/app/api/auth/oidc/callback/route";

const db = getPrisma();
const accounts: Record<string, { name: string; email: string; groups: string[] }> = {
  dana: { name: "Dana Admin", email: "dana@example.com", groups: ["platform-admins", "everyone"] },
  sam: { name: "Sam SRE", email: "sam@example.com", groups: ["sre"] },
  guest: { name: "Guest", email: "guest@example.com", groups: ["marketing"] },
};

let server: http.Server;
let issuer = "";
let tmp = "";
const saved = { config: process.env.DRIFTWATCH_CONFIG, secret: process.env.TEST_OIDC_SECRET };

beforeAll(async () => {
  server = http.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: "driftwatch",
        client_secret: "test-client-secret-0123456789",
        redirect_uris: ["http://localhost/api/auth/oidc/callback"],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    pkce: { required: () => true },
    scopes: ["openid", "profile", "email", "groups"],
    claims: { openid: ["sub"], profile: ["name", "preferred_username"], email: ["email"], groups: ["groups"] },
    cookies: { keys: ["test-cookie-key-0123456789abcdef"] },
    findAccount: (_ctx, sub) => {
      const a = accounts[sub];
      if (!a) return undefined;
      return { accountId: sub, claims: () => ({ sub, preferred_username: sub, name: a.name, email: a.email, groups: a.groups }) };
    },
  });
  server.on("request", provider.callback());

  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-oidc-"));
  const configFile = path.join(tmp, "driftwatch.yaml");
  fs.writeFileSync(
    configFile,
    [
      "auth:",
      "  local: true",
      "  oidc:",
      `    issuer: ${issuer}`,
      "    clientId: driftwatch",
      "    clientSecretEnv: TEST_OIDC_SECRET",
      "    groupsClaim: groups",
      "    roles:",
      "      admin: [platform-admins]",
      "      operator: [sre]",
      "    defaultRole: null",
      "",
    ].join("\n"),
  );
  process.env.DRIFTWATCH_CONFIG = configFile;
  process.env.TEST_OIDC_SECRET = "test-client-secret-0123456789";
  resetEnvCache();
  resetConfigCache();
  resetOidcCache();
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  server.closeAllConnections();
  fs.rmSync(tmp, { recursive: true, force: true });
  if (saved.config === undefined) delete process.env.DRIFTWATCH_CONFIG;
  else process.env.DRIFTWATCH_CONFIG = saved.config;
  if (saved.secret === undefined) delete process.env.TEST_OIDC_SECRET;
  else process.env.TEST_OIDC_SECRET = saved.secret;
  resetEnvCache();
  resetConfigCache();
  await disconnectPrisma();
});

beforeEach(async () => {
  // Every request here comes from one address: each test starts a fresh window of failed-attempt audit.
  await failedAttemptAudit().flush({ everything: true });
  await resetDatabase(db);
});

/** A browser's cookie jar for the provider, and the hops of its redirects. */
class Browser {
  private jar = new Map<string, string>();

  private cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  private keep(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = pair!.indexOf("=");
      this.jar.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
  }

  async get(url: string): Promise<Response> {
    const res = await fetch(url, { redirect: "manual", headers: { cookie: this.cookieHeader() } });
    this.keep(res);
    return res;
  }

  async post(url: string, form: Record<string, string>): Promise<Response> {
    const res = await fetch(url, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: this.cookieHeader(), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
    });
    this.keep(res);
    return res;
  }

  /** Follows the provider's redirects, logging in as `login` and consenting, until it sends us back to the app. */
  async throughProvider(authorizationUrl: string, login: string): Promise<URL> {
    let next = authorizationUrl;
    for (let hop = 0; hop < 12; hop++) {
      const url = new URL(next, issuer);
      if (url.origin !== issuer) return url;
      const interaction = url.pathname.match(/^\/interaction\/([^/]+)$/);
      let res: Response;
      if (interaction) {
        const page = await (await this.get(url.href)).text();
        const prompt = /name="prompt" value="consent"/.test(page) ? "consent" : "login";
        res = await this.post(url.href, prompt === "login" ? { prompt, login, password: "anything" } : { prompt });
      } else {
        res = await this.get(url.href);
      }
      const location = res.headers.get("location");
      if (!location) throw new Error(`provider answered ${res.status} without a redirect at ${url.pathname}: ${(await res.text()).slice(0, 300)}`);
      next = location;
    }
    throw new Error("too many redirects at the provider");
  }
}

function appRequest(url: string | URL, cookies: Record<string, string> = {}): NextRequest {
  const cookie = Object.entries(cookies)
    .map(([k, v]) => `${k}=${v}`)
    .join("; ");
  return new NextRequest(url, { headers: { host: "localhost", ...(cookie ? { cookie } : {}) } });
}

function cookiesOf(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of res.headers.getSetCookie()) {
    const [pair] = c.split(";");
    const eq = pair!.indexOf("=");
    out[pair!.slice(0, eq)] = pair!.slice(eq + 1);
  }
  return out;
}

async function signIn(login: string, next = "/environments/production") {
  const started = await start(appRequest(`http://localhost/api/auth/oidc/start?next=${encodeURIComponent(next)}`));
  expect(started.status).toBe(302);
  const authUrl = new URL(started.headers.get("location")!);
  const tx = cookiesOf(started).driftwatch_oidc;
  const returned = await new Browser().throughProvider(authUrl.href, login);
  const done = await callback(appRequest(returned, tx ? { driftwatch_oidc: tx } : {}));
  return { started, authUrl, returned, done, cookies: cookiesOf(done) };
}

describe("OIDC sign-in against a real provider", () => {
  it("sends the browser to the provider with PKCE, state and nonce", async () => {
    const { authUrl, started } = await signIn("dana");
    expect(authUrl.origin).toBe(issuer);
    expect(authUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authUrl.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(authUrl.searchParams.get("state")).toBeTruthy();
    expect(authUrl.searchParams.get("nonce")).toBeTruthy();
    expect(authUrl.searchParams.get("redirect_uri")).toBe("http://localhost/api/auth/oidc/callback");
    expect(authUrl.searchParams.get("scope")).toContain("groups");
    expect(started.headers.getSetCookie().join("\n")).toMatch(/driftwatch_oidc=.*HttpOnly/i);
  });

  it("signs in, creates the user with the role its groups map to, and opens a session", async () => {
    const { done, cookies, returned } = await signIn("dana");
    expect(returned.pathname).toBe("/api/auth/oidc/callback");
    expect(returned.searchParams.get("code")).toBeTruthy();
    expect(done.status).toBe(302);
    expect(done.headers.get("location")).toBe("http://localhost/environments/production");
    const sessionCookie = done.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`))!;
    expect(sessionCookie).toMatch(/HttpOnly/i);
    expect(sessionCookie).toMatch(/SameSite=lax/i);
    const session = await readSession(db, cookies[SESSION_COOKIE]);
    expect(session?.user).toMatchObject({ username: "dana", role: "admin", displayName: "Dana Admin" });
    expect(cookies[CSRF_COOKIE]).toBe(session?.csrfToken);
    const user = await db.user.findUniqueOrThrow({ where: { username: "dana" } });
    expect(user).toMatchObject({ oidcIssuer: issuer, oidcSubject: "dana", passwordHash: null, email: "dana@example.com" });
    const actions = (await db.auditEvent.findMany({ orderBy: { id: "asc" } })).map((e) => e.action);
    expect(actions).toEqual(["user.created", "auth.signin"]);
  });

  it("maps another group to operator, and follows a group change at the next sign-in", async () => {
    const first = await signIn("sam");
    expect((await readSession(db, first.cookies[SESSION_COOKIE]))?.user.role).toBe("operator");
    accounts.sam!.groups = ["sre", "platform-admins"];
    try {
      const second = await signIn("sam");
      expect((await readSession(db, second.cookies[SESSION_COOKIE]))?.user.role).toBe("admin");
      expect(await db.user.count({ where: { oidcSubject: "sam" } })).toBe(1);
      const change = await db.auditEvent.findFirst({ where: { action: "user.updated", targetId: "sam" } });
      expect(change?.after).toMatchObject({ role: "admin" });
    } finally {
      accounts.sam!.groups = ["sre"];
    }
  });

  it("refuses a user whose groups map to no role (no default role), and audits it", async () => {
    const { done } = await signIn("guest");
    expect(done.status).toBe(302);
    const location = new URL(done.headers.get("location")!);
    expect(location.pathname).toBe("/signin");
    expect(location.searchParams.get("error")).toMatch(/no Driftwatch role/);
    expect(done.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(false);
    expect(await db.user.count()).toBe(0);
    const failed = await db.auditEvent.findFirstOrThrow({ where: { action: "auth.signin_failed" } });
    expect(failed.reason).toMatch(/marketing/);
  });

  it("checks the destination again at the callback: a transaction cookie carrying a foreign next goes home instead", async () => {
    for (const next of ["/\t/evil.example", "//evil.example", "https://evil.example/", "/%5Cevil.example"]) {
      const started = await start(appRequest("http://localhost/api/auth/oidc/start"));
      const tx = JSON.parse(Buffer.from(cookiesOf(started).driftwatch_oidc!, "base64url").toString("utf8")) as Record<string, unknown>;
      const tampered = Buffer.from(JSON.stringify({ ...tx, next })).toString("base64url");
      const returned = await new Browser().throughProvider(started.headers.get("location")!, "dana");
      const done = await callback(appRequest(returned, { driftwatch_oidc: tampered }));
      expect(done.status, JSON.stringify(next)).toBe(302);
      expect(done.headers.get("location"), JSON.stringify(next)).toBe("http://localhost/");
    }
  });

  it("refuses a callback whose state does not match the browser's sign-in", async () => {
    const started = await start(appRequest("http://localhost/api/auth/oidc/start"));
    const returned = await new Browser().throughProvider(started.headers.get("location")!, "dana");
    // Someone else's transaction cookie (login CSRF): state, nonce and verifier all differ.
    const other = await start(appRequest("http://localhost/api/auth/oidc/start"));
    const done = await callback(appRequest(returned, { driftwatch_oidc: cookiesOf(other).driftwatch_oidc! }));
    expect(new URL(done.headers.get("location")!).pathname).toBe("/signin");
    expect(done.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(false);
    expect(await db.auditEvent.count({ where: { action: "auth.signin_failed" } })).toBe(1);
  });
});
