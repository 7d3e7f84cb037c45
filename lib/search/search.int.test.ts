// The global search on the shop scenario (test/fixtures/dashboard.ts): each
// kind of hit is found by what a person would type, and leads to its page.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NextRequest } from "next/server";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { GET } from "@/app/api/search/route";
import type { SearchAnswer } from "@/lib/api/contract";
import { seedShop, sha, viewerCookie, type ShopScenario } from "@/test/fixtures/dashboard";
import { MAX_HITS, search } from "./search";

const db = getPrisma();
let shop: ShopScenario;

beforeAll(async () => {
  await resetDatabase(db);
  shop = await seedShop(db);
});
afterAll(() => disconnectPrisma());

const find = (q: string) => search(db, q);

describe("search", () => {
  it("finds an environment by part of its name", async () => {
    const hits = await find("PROD");
    expect(hits[0]).toMatchObject({ kind: "environment", label: "production", href: "/environments/production" });
  });

  it("finds an application by part of its name, in every environment that holds it, and leads to its page", async () => {
    const envs = await db.environment.findMany({ where: { name: { in: ["staging", "production"] } }, select: { id: true, name: true } });
    for (const e of envs) await db.application.create({ data: { environmentId: e.id, name: "checkout-api", kind: "flux-kustomization", promotionKey: "checkout-api", spec: {}, firstSeenAt: new Date(), lastSeenAt: new Date() } });
    const hits = (await find("CHECKOUT")).filter((h) => h.kind === "application");
    expect(hits.map((h) => h.href).sort()).toEqual(["/environments/production/applications/checkout-api", "/environments/staging/applications/checkout-api"]);
    expect(hits[0]).toMatchObject({ label: "checkout-api", detail: expect.stringContaining("flux-kustomization") as string });
  });

  it("finds an object by kind, namespace and name, partial and in any order, in every environment that has it", async () => {
    const hits = (await find("deploy shop/api")).filter((h) => h.kind === "object");
    expect(hits.map((h) => `${h.label} ${h.detail}`)).toContain("Deployment shop/api in production");
    expect(hits.find((h) => h.detail === "in production")?.href).toBe("/environments/production/objects/apps/Deployment/shop/api");
    expect((await find("api deployment")).some((h) => h.kind === "object" && h.label === "Deployment shop/api")).toBe(true);
  });

  it("finds a commit by its short or full sha, and nothing for a sha nobody committed", async () => {
    const full = shop.commits.apiProd14;
    for (const q of [full.slice(0, 7), full, full.slice(0, 7).toUpperCase()]) {
      const commits = (await find(q)).filter((h) => h.kind === "commit");
      expect(commits, q).toEqual([{ kind: "commit", label: `${full.slice(0, 7)} Promote api 1.4 to production`, detail: expect.stringContaining("Linus Torvalds") as string, href: `/commits/${full}` }]);
    }
    expect((await find(sha("never committed").slice(0, 12))).filter((h) => h.kind === "commit")).toEqual([]);
  });

  it("finds a person as a Git author (by name or email) and as an actor in the audit log", async () => {
    const byName = (await find("grace")).filter((h) => h.kind === "person");
    expect(byName[0]).toMatchObject({ label: "Grace Hopper <grace@example.com>", href: `/commits/${shop.commits.apiProd13}` });
    expect((await find("linus@example")).some((h) => h.kind === "person" && h.label.startsWith("Linus Torvalds"))).toBe(true);
    expect(await find("alice")).toContainEqual({ kind: "person", label: "alice", detail: expect.stringMatching(/action/) as string, href: "/audit?actor=alice" });
  });

  it("finds an alert by its title and leads to its environment", async () => {
    const alerts = (await find("behind")).filter((h) => h.kind === "alert");
    expect(alerts[0]).toMatchObject({ href: "/environments/production", detail: expect.stringContaining("production") as string });
  });

  it("answers at most 20 hits, and none for words that match nothing", async () => {
    expect((await find("s")).length).toBeLessThanOrEqual(MAX_HITS);
    expect(await find("zzz-nothing-like-this")).toEqual([]);
  });
});

describe("GET /api/search", () => {
  const get = async (q: string | null, cookie: string | null) =>
    GET(new NextRequest(`http://localhost/api/search${q === null ? "" : `?q=${encodeURIComponent(q)}`}`, { headers: cookie ? { cookie } : {} }), { params: Promise.resolve({}) });

  it("needs a session, a query, and answers the hits", async () => {
    expect((await get("prod", null)).status).toBe(401);
    const cookie = await viewerCookie(db);
    expect((await get(null, cookie)).status).toBe(400);
    expect((await get("   ", cookie)).status).toBe(400);
    const res = await get("production", cookie);
    expect(res.status).toBe(200);
    const body = (await res.json()) as SearchAnswer;
    expect(body.query).toBe("production");
    expect(body.hits[0]?.kind).toBe("environment");
  });
});
