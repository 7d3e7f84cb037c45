// Lineage where an environment holds several applications: each follows its
// own path with its own applied history, so "is this commit live in
// production?" is answered per application the commit changes, and the
// promotion chain reaches production only when all of them have it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { getLineage, lookupCommit } from "@/lib/dashboard";
import type { CommitDto } from "@/lib/api/contract";
import { seedShop, type ShopScenario } from "../fixtures/dashboard";

const db = getPrisma();
let shop: ShopScenario;
const H = 3_600_000;

async function application(name: string, path: string, applied: Array<{ sha: string; from: number; to: number | null }>, opts: { lastError?: string } = {}) {
  const current = applied.find((a) => a.to === null)!;
  const at = (hoursAgo: number) => new Date(shop.now.getTime() - hoursAgo * H);
  const app = await db.application.create({
    data: {
      environmentId: shop.env.production,
      name,
      promotionKey: name,
      kind: "flux-kustomization",
      spec: {},
      sources: [{ repository: "shop", url: "https://git.example.com/acme/shop.git", ref: { branch: "main" }, path }],
      approvedSha: current.sha,
      appliedSha: current.sha,
      appliedSource: "controller",
      appliedSince: at(current.from),
      lastError: opts.lastError ? { message: opts.lastError, at: at(0.1).toISOString() } : undefined,
      firstSeenAt: at(48),
    },
  });
  for (const a of applied) {
    await db.appliedRevision.create({ data: { environmentId: shop.env.production, applicationId: app.id, sha: a.sha, source: "controller", firstSeenAt: at(a.from), lastSeenAt: at(a.to ?? 0), endedAt: a.to === null ? null : at(a.to) } });
  }
}

const commit = async (sha: string): Promise<CommitDto> => {
  const r = await lookupCommit(db, sha, shop.now);
  if (r.match !== "exact") throw new Error("ambiguous");
  return r.commit;
};
const places = (c: CommitDto) => c.environments.map((b) => [b.environment, b.application, b.state]);

beforeAll(async () => {
  await resetDatabase(db);
  shop = await seedShop(db);
  // Production holds two applications: api follows deploy/production (where every production commit lands),
  // worker deploy/production/worker (no commit touches it) and still runs api 1.3's production commit.
  await application("api", "deploy/production", [
    { sha: shop.commits.apiProd13, from: 24, to: 2 },
    { sha: shop.commits.apiProd14, from: 2, to: null },
  ]);
  await application("worker", "deploy/production/worker", [{ sha: shop.commits.apiProd13, from: 24, to: null }], { lastError: "render: deploy/production/worker/kustomization.yaml: no such file" });
});
afterAll(disconnectPrisma);

describe("lineage per application", () => {
  it("a commit that changes one application's path answers for that application only", async () => {
    const c = await commit(shop.commits.apiProd14);
    // Environments of one application answer as before (staging runs the commit before this one).
    expect(places(c)).toEqual([
      ["test", null, "live"],
      ["staging", null, "not-approved"],
      ["production", "api", "live"],
    ]);
    const prod = c.environments.find((b) => b.environment === "production")!;
    expect(prod.since).toBe(new Date(shop.now.getTime() - 2 * H).toISOString());
    expect(prod.viaDescendant).toBe(false);
    // Reached production when api had it: 2 h ago.
    expect(c.hops.at(-1)).toMatchObject({ to: "production", reachedAt: prod.firstLiveAt });
  });

  it("a commit that changes none of an environment's applications is answered by each of them, and the environment is reached only when all have it", async () => {
    const c = await commit(shop.commits.apiStaging14);
    const prod = c.environments.filter((b) => b.environment === "production");
    expect(prod.map((b) => [b.application, b.state, b.viaDescendant])).toEqual([
      ["api", "live", true],
      ["worker", "not-approved", false],
    ]);
    expect(prod[1]!.reason).toBe("on main, but no later change to deploy/production/worker includes it yet");
    expect(c.hops.at(-1)).toMatchObject({ to: "production", reachedAt: null, durationMs: null });
  });

  it("an application's own failure is its blocker, not the environment's", async () => {
    // api 1.4's production commit is approved for api (live) — for worker it would be pending behind its render error.
    await db.application.updateMany({ where: { name: "worker" }, data: { approvedSha: shop.commits.apiProd14 } });
    const c = await commit(shop.commits.apiStaging14);
    const worker = c.environments.find((b) => b.application === "worker")!;
    expect(worker).toMatchObject({ state: "pending", reason: "collection failing: render: deploy/production/worker/kustomization.yaml: no such file" });
    await db.application.updateMany({ where: { name: "worker" }, data: { approvedSha: shop.commits.apiProd13 } });
  });

  it("the lineage page has a column per application of production, each answering for the commits that change its path", async () => {
    const l = await getLineage(db, {}, shop.now);
    const main = l.repositories.find((r) => r.name === "shop")!.branches.find((b) => b.branch === "main")!;
    expect(main.tracks).toEqual([
      { environment: "test", application: null, path: "deploy/test" },
      { environment: "staging", application: null, path: "deploy/staging" },
      { environment: "production", application: "api", path: "deploy/production" },
      { environment: "production", application: "worker", path: "deploy/production/worker" },
    ]);
    const row = main.commits.find((c) => c.sha === shop.commits.apiProd14)!;
    expect(row.badges.map((b) => [b.environment, b.application])).toEqual([
      ["test", null],
      ["staging", null],
      ["production", "api"],
    ]);
  });
});
