// Local accounts and sessions as a user meets them: the first admin's
// one-time password, sign-in cookies, throttling, audited failures, reads
// that need a session, and sessions that end when they should.
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { NextRequest } from "next/server";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { ensureFirstAdmin, createLocalUser } from "@/lib/auth/users";
import { SESSION_COOKIE, CSRF_COOKIE, readSession } from "@/lib/auth/session";
import { createTestSession } from "@/lib/auth/testing";
import { failedAttemptAudit } from "@/lib/auth/failed-attempts";
import { FIRST_ADMIN_FILE, revealFirstAdminPassword } from "@/lib/server/first-admin";
import { POST as signin } from "@/app/api/auth/signin/route";
import { POST as signout } from "@/app/api/auth/signout/route";
import { GET as session } from "@/app/api/auth/session/route";
import { GET as verify } from "@/app/api/audit/verify/route";
import { PATCH as patchUser } from "@/app/api/users/[username]/route";

const db = getPrisma();
afterAll(disconnectPrisma);
beforeEach(() => resetDatabase(db));

let ipCounter = 0;
const freshIp = () => `10.9.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

function post(url: string, body: unknown, headers: Record<string, string> = {}): NextRequest {
  return new NextRequest(url, { method: "POST", headers: { host: "localhost", "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}
function get(url: string, headers: Record<string, string> = {}): NextRequest {
  return new NextRequest(url, { headers: { host: "localhost", ...headers } });
}
const noParams = { params: Promise.resolve({}) };

function setCookies(res: Response): Record<string, string> {
  return Object.fromEntries(res.headers.getSetCookie().map((c) => [c.slice(0, c.indexOf("=")), c]));
}
function cookieValue(setCookie: string | undefined): string {
  return (setCookie ?? "").split(";")[0]!.split("=").slice(1).join("=");
}

describe("first start", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-first-admin-"));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("without a terminal: creates one admin, puts its password in a 0600 file in the data folder, and the log says where, not what", async () => {
    const logged: string[] = [];
    const reveal = revealFirstAdminPassword({ terminal: null, dataDir: tmp, log: (m) => logged.push(m) });
    expect(await ensureFirstAdmin(db, reveal)).toEqual({ created: true, username: "admin" });
    expect(await ensureFirstAdmin(db, reveal)).toEqual({ created: false });
    const file = path.join(tmp, FIRST_ADMIN_FILE);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const password = fs.readFileSync(file, "utf8").match(/password: (\S+)/)![1]!;
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain(file);
    expect(logged.join("\n")).not.toContain(password);
    const user = await db.user.findUniqueOrThrow({ where: { username: "admin" } });
    expect(user.role).toBe("admin");
    expect(user.passwordHash).toMatch(/^scrypt\$/);
    expect(user.passwordHash).not.toContain(password);
    const res = await signin(post("http://localhost/api/auth/signin", { username: "admin", password }, { "x-forwarded-for": freshIp() }));
    expect(res.status).toBe(200);
  });

  it("on a terminal: shows the password there once and logs only that it was shown", async () => {
    const terminal = new PassThrough();
    const shown: Buffer[] = [];
    terminal.on("data", (d: Buffer) => shown.push(d));
    const logged: string[] = [];
    await ensureFirstAdmin(db, revealFirstAdminPassword({ terminal, dataDir: path.join(tmp, "tty"), log: (m) => logged.push(m) }));
    const password = Buffer.concat(shown).toString("utf8").match(/password: (\S+)/)![1]!;
    expect(password).toHaveLength(20);
    expect(logged.join("\n")).not.toContain(password);
    expect(logged.join("\n")).toMatch(/shown on the terminal/);
    expect(fs.existsSync(path.join(tmp, "tty", FIRST_ADMIN_FILE))).toBe(false);
  });
});

describe("password sign-in", () => {
  beforeEach(async () => {
    await createLocalUser(db, { username: "alice", role: "operator", password: "correct horse battery" }, { type: "system" });
  });

  it("sets an HttpOnly SameSite=Lax session cookie and stores only the token's hash", async () => {
    const res = await signin(post("http://localhost/api/auth/signin", { username: "alice", password: "correct horse battery", next: "/audit" }, { "x-forwarded-for": freshIp() }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { user: { username: string; role: string }; csrfToken: string; next: string };
    expect(body.user).toMatchObject({ username: "alice", role: "operator" });
    expect(body.next).toBe("/audit");
    const cookies = setCookies(res);
    expect(cookies[SESSION_COOKIE]).toMatch(/HttpOnly/i);
    expect(cookies[SESSION_COOKIE]).toMatch(/SameSite=lax/i);
    expect(cookies[SESSION_COOKIE]).not.toMatch(/Secure/i); // plain http here
    expect(cookies[CSRF_COOKIE]).not.toMatch(/HttpOnly/i);
    const token = cookieValue(cookies[SESSION_COOKIE]);
    const rows = await db.session.findMany();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).toBe(createHash("sha256").update(token).digest("hex"));
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0]!.csrfToken).toBe(body.csrfToken);
  });

  it("marks the cookie Secure when served over https", async () => {
    const res = await signin(
      post("http://localhost/api/auth/signin", { username: "alice", password: "correct horse battery" }, { "x-forwarded-proto": "https", "x-forwarded-for": freshIp() }),
    );
    expect(setCookies(res)[SESSION_COOKIE]).toMatch(/Secure/i);
  });

  it("refuses a wrong password with the same answer as an unknown user, and audits both", async () => {
    const ip = freshIp();
    const wrong = await signin(post("http://localhost/api/auth/signin", { username: "alice", password: "wrong password!!" }, { "x-forwarded-for": ip }));
    const unknown = await signin(post("http://localhost/api/auth/signin", { username: "mallory", password: "wrong password!!" }, { "x-forwarded-for": ip }));
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await wrong.json()).toEqual(await unknown.json());
    // The first failure from an address is written at once; the next ones in its window become one summary.
    const first = await db.auditEvent.findMany({ where: { action: "auth.signin_failed" }, orderBy: { id: "asc" } });
    expect(first.map((f) => f.actorName)).toEqual(["alice"]);
    expect(first[0]!.after).toMatchObject({ ip, method: "password" });
    await failedAttemptAudit().flush({ everything: true });
    const failures = await db.auditEvent.findMany({ where: { action: "auth.signin_failed" }, orderBy: { id: "asc" } });
    expect(failures).toHaveLength(2);
    expect(failures[1]!.after).toMatchObject({ summary: true, ip, method: "password", count: 1, targets: { mallory: 1 } });
    expect(JSON.stringify(failures, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))).not.toContain("wrong password!!");
  });

  it("throttles guessing per address and username: the sixth try is refused even with the right password", async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) {
      const r = await signin(post("http://localhost/api/auth/signin", { username: "alice", password: `guess number ${i}` }, { "x-forwarded-for": ip }));
      expect(r.status).toBe(401);
    }
    const blocked = await signin(post("http://localhost/api/auth/signin", { username: "alice", password: "correct horse battery" }, { "x-forwarded-for": ip }));
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another address is not locked out by this one's guesses.
    const other = await signin(post("http://localhost/api/auth/signin", { username: "alice", password: "correct horse battery" }, { "x-forwarded-for": freshIp() }));
    expect(other.status).toBe(200);
    // Refused attempts write nothing: one row for the first failure, one summary of the other four.
    await failedAttemptAudit().flush({ everything: true });
    const rows = await db.auditEvent.findMany({ where: { action: "auth.signin_failed" }, orderBy: { id: "asc" } });
    expect(rows.map((r) => (r.after as { count?: number }).count ?? 1)).toEqual([1, 4]);
  });

  it("refuses a sign-in posted from another site", async () => {
    const res = await signin(post("http://localhost/api/auth/signin", { username: "alice", password: "correct horse battery" }, { origin: "https://evil.example" }));
    expect(res.status).toBe(403);
    expect(await db.session.count()).toBe(0);
  });
});

describe("sessions", () => {
  it("are required to read the API, and the session endpoint says who is signed in", async () => {
    expect((await verify(get("http://localhost/api/audit/verify"), noParams)).status).toBe(401);
    expect((await verify(get("http://localhost/api/audit/verify", { cookie: `${SESSION_COOKIE}=forged-token` }), noParams)).status).toBe(401);
    const viewer = await createTestSession(db, "viewer");
    const ok = await verify(get("http://localhost/api/audit/verify", { cookie: viewer.cookie }), noParams);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true, checked: 0 });
    const anonymous = (await (await session(get("http://localhost/api/auth/session"))).json()) as { user: unknown };
    expect(anonymous.user).toBeNull();
    const me = (await (await session(get("http://localhost/api/auth/session", { cookie: viewer.cookie }))).json()) as { user: { role: string }; csrfToken: string };
    expect(me.user.role).toBe("viewer");
    expect(me.csrfToken).toBe(viewer.csrfToken);
  });

  it("end at expiry, at sign-out, and when an admin changes the user's role", async () => {
    const s = await createTestSession(db, "operator");
    await db.session.updateMany({ data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await readSession(db, s.token)).toBeNull();

    const s2 = await createTestSession(db, "operator", "olga");
    const out = await signout(post("http://localhost/api/auth/signout", {}, s2.headers), noParams);
    expect(out.status).toBe(200);
    expect(setCookies(out)[SESSION_COOKIE]).toMatch(/Max-Age=0/i);
    expect(await readSession(db, s2.token)).toBeNull();
    expect(await db.auditEvent.count({ where: { action: "auth.signout", actorName: "olga" } })).toBe(1);

    const s3 = await createTestSession(db, "operator", "pete");
    const admin = await createTestSession(db, "admin", "root");
    const res = await patchUser(post("http://localhost/api/users/pete", { role: "viewer" }, admin.headers), { params: Promise.resolve({ username: "pete" }) });
    expect(res.status).toBe(200);
    expect(await readSession(db, s3.token)).toBeNull();
    const audit = await db.auditEvent.findFirstOrThrow({ where: { action: "user.updated", targetId: "pete" } });
    expect(audit).toMatchObject({ actorName: "root", before: { role: "operator", disabled: false }, after: { role: "viewer" } });
  });

  it("refuses to demote the last admin", async () => {
    const admin = await createTestSession(db, "admin", "only-admin");
    const res = await patchUser(post("http://localhost/api/users/only-admin", { role: "viewer" }, admin.headers), { params: Promise.resolve({ username: "only-admin" }) });
    expect(res.status).toBe(409);
    expect((await db.user.findUniqueOrThrow({ where: { username: "only-admin" } })).role).toBe("admin");
  });
});
