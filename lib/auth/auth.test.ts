import { describe, expect, it } from "vitest";
import { NextRequest } from "next/server";
import { hashPassword, verifyPassword, generatePassword, passwordProblem, passwordChecksRunning, passwordCheckLanes } from "./password";
import { SignInLimiter } from "./rate-limit";
import { originProblem, safeNextPath, isPublicPath } from "./request";
import { roleForGroups, decodeTransaction, encodeTransaction } from "./oidc";
import { hasRole } from "./roles";

describe("passwords", () => {
  it("verify only the password they were made from, with a fresh salt each time", async () => {
    const a = await hashPassword("correct horse battery");
    const b = await hashPassword("correct horse battery");
    expect(a).not.toBe(b);
    expect(await verifyPassword("correct horse battery", a)).toBe(true);
    expect(await verifyPassword("correct horse batterY", a)).toBe(false);
    expect(await verifyPassword("anything", null)).toBe(false);
    expect(await verifyPassword("anything", "plaintext")).toBe(false);
  });
  it("a flood of checks runs at most half the cores' worth at once, and every check still answers right", async () => {
    const stored = await hashPassword("correct horse battery");
    let most = 0;
    let watching = true;
    const watch = (async () => {
      while (watching) {
        most = Math.max(most, passwordChecksRunning());
        await new Promise((r) => setImmediate(r));
      }
    })();
    const guesses = Array.from({ length: 12 }, (_, i) => (i === 7 ? "correct horse battery" : `guess ${i}`));
    const answers = await Promise.all(guesses.map((g) => verifyPassword(g, stored)));
    watching = false;
    await watch;
    expect(answers.filter(Boolean)).toHaveLength(1);
    expect(answers[7]).toBe(true);
    expect(most).toBeGreaterThanOrEqual(1);
    expect(most).toBeLessThanOrEqual(passwordCheckLanes());
    expect(passwordChecksRunning()).toBe(0);
  });
  it("generated passwords are long enough to pass the policy", () => {
    const p = generatePassword();
    expect(passwordProblem(p)).toBeNull();
    expect(p).not.toBe(generatePassword());
    expect(passwordProblem("short")).toMatch(/12 characters/);
  });
});

describe("sign-in throttling", () => {
  it("blocks an address+username after five failures for the rest of the window, not other addresses", () => {
    const l = new SignInLimiter();
    const t0 = 1_000_000;
    for (let i = 0; i < 5; i++) l.fail("1.1.1.1", "Alice", t0 + i);
    expect(l.check("1.1.1.1", "alice", t0 + 10).allowed).toBe(false);
    expect(l.check("1.1.1.1", "alice", t0 + 10).retryAfterSeconds).toBeGreaterThan(800);
    expect(l.check("2.2.2.2", "alice", t0 + 10).allowed).toBe(true);
    expect(l.check("1.1.1.1", "alice", t0 + 15 * 60_000 + 10).allowed).toBe(true);
  });
  it("never locks an account attacked from many addresses, but slows every attacking address to one guess per window", () => {
    const l = new SignInLimiter();
    const t0 = 1_000_000;
    // 25 addresses, one failure each: the account is now under attack.
    for (let i = 0; i < 25; i++) l.fail(`10.0.0.${i}`, "admin", t0 + i);
    expect(l.isUnderAttack("admin", t0 + 100)).toBe(true);
    // Those addresses have spent their budget at this account: refused until their window passes.
    for (let i = 0; i < 25; i++) expect(l.check(`10.0.0.${i}`, "admin", t0 + 100).allowed).toBe(false);
    expect(l.check("10.0.0.1", "admin", t0 + 15 * 60_000 + 10).allowed).toBe(true);
    // A new attacking address gets one guess, then waits.
    expect(l.check("10.0.9.9", "admin", t0 + 200).allowed).toBe(true);
    l.fail("10.0.9.9", "admin", t0 + 200);
    expect(l.check("10.0.9.9", "admin", t0 + 300).allowed).toBe(false);
    // The owner, from an address that has not failed, is not locked out.
    expect(l.check("192.168.1.20", "admin", t0 + 300).allowed).toBe(true);
    // Other accounts are not affected at all.
    expect(l.isUnderAttack("alice", t0 + 300)).toBe(false);
  });
  it("slows one address spraying many usernames", () => {
    const l = new SignInLimiter();
    for (let i = 0; i < 20; i++) l.fail("10.1.1.1", `user${i}`, 1000 + i);
    expect(l.check("10.1.1.1", "someone-else", 2000).allowed).toBe(false);
    expect(l.check("10.1.1.2", "someone-else", 2000).allowed).toBe(true);
  });
});

describe("request checks", () => {
  const req = (headers: Record<string, string>) => new NextRequest("http://dw.example:3000/api/pauses", { method: "POST", headers: { host: "dw.example:3000", ...headers } });
  it("accepts our own origin and clients that send none; refuses other sites", () => {
    expect(originProblem(req({ origin: "http://dw.example:3000" }))).toBeNull();
    expect(originProblem(req({}))).toBeNull();
    expect(originProblem(req({ origin: "https://evil.example" }))).toMatch(/not this site/);
    expect(originProblem(req({ origin: "null" }))).toMatch(/opaque/);
    expect(originProblem(req({ "sec-fetch-site": "cross-site" }))).toMatch(/cross-site/);
  });
  it("only lets same-site paths through as the post-sign-in destination", () => {
    expect(safeNextPath("/environments/production?tab=drift")).toBe("/environments/production?tab=drift");
    for (const evil of ["https://evil.example", "//evil.example", "/\\evil.example", "javascript:alert(1)", "/signin?next=/x", null]) expect(safeNextPath(evil)).toBe("/");
  });
  it("keeps sign-in, health, webhooks and metrics public, and nothing else", () => {
    for (const p of ["/signin", "/api/health", "/api/auth/oidc/callback", "/api/webhooks/github", "/api/metrics"]) expect(isPublicPath(p)).toBe(true);
    for (const p of ["/", "/audit", "/api/audit", "/api/pauses", "/api/healthz", "/signin-evil"]) expect(isPublicPath(p)).toBe(false);
  });
});

describe("roles", () => {
  const cfg = { roles: { admin: ["platform"], operator: ["sre", "oncall"], viewer: ["dev"] }, defaultRole: null };
  it("gives the strongest role any group earns, else the default", () => {
    expect(roleForGroups(cfg, ["dev", "oncall"])).toBe("operator");
    expect(roleForGroups(cfg, ["platform", "dev"])).toBe("admin");
    expect(roleForGroups(cfg, ["marketing"])).toBeNull();
    expect(roleForGroups({ ...cfg, defaultRole: "viewer" }, [])).toBe("viewer");
  });
  it("orders viewer < operator < admin", () => {
    expect(hasRole("admin", "operator")).toBe(true);
    expect(hasRole("operator", "admin")).toBe(false);
    expect(hasRole("viewer", "viewer")).toBe(true);
  });
});

describe("OIDC transaction cookie", () => {
  it("round-trips, and expires after ten minutes", () => {
    const tx = { state: "s", nonce: "n", verifier: "v", next: "/audit", createdAt: 1_000_000 };
    expect(decodeTransaction(encodeTransaction(tx), 1_000_000 + 60_000)).toEqual(tx);
    expect(decodeTransaction(encodeTransaction(tx), 1_000_000 + 11 * 60_000)).toBeNull();
    expect(decodeTransaction("not-base64-json")).toBeNull();
  });
});
