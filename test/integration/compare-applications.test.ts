// Compare with many applications per environment: applications matched
// across environments by promotion key (whatever each is called locally),
// which commit each runs, and the object comparison narrowed to one of them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { compareEnvironments } from "@/lib/dashboard";
import { compareQuerySchema } from "@/lib/api/contract/compare";
import { ApiError } from "@/lib/api/errors";
import { seedShop, type ShopScenario } from "../fixtures/dashboard";

const db = getPrisma();
let shop: ShopScenario;

async function application(environmentId: string, name: string, promotionKey: string, appliedSha: string | null, objects: (name: string) => boolean) {
  const app = await db.application.create({
    data: { environmentId, name, promotionKey, kind: "flux-kustomization", spec: {}, sources: [{ repository: "shop", url: "https://example.test/shop.git", path: "deploy" }], appliedSha, driftCount: 0, objectCount: 0, firstSeenAt: shop.now },
  });
  for (const table of [db.liveObject, db.desiredObject] as const) {
    const rows = await (table as typeof db.liveObject).findMany({ where: { environmentId }, select: { key: true, name: true } });
    const keys = rows.filter((r) => objects(r.name)).map((r) => r.key);
    await (table as typeof db.liveObject).updateMany({ where: { environmentId, key: { in: keys } }, data: { applicationId: app.id } });
  }
  return app;
}

const compare = (query: Record<string, string>) => compareEnvironments(db, compareQuerySchema.parse(query));

beforeAll(async () => {
  await resetDatabase(db);
  shop = await seedShop(db);
  await db.repository.update({ where: { id: shop.repositoryId }, data: { name: "shop" } });
  const isMetrics = (n: string) => n === "metrics";
  // Staging calls it "shop", production "shop-production": one promotion key matches them.
  await application(shop.env.staging, "shop", "shop", shop.commits.apiStaging14, (n) => !isMetrics(n));
  await application(shop.env.production, "shop-production", "shop", shop.commits.apiProd14, (n) => !isMetrics(n));
  await application(shop.env.production, "metrics", "metrics", shop.commits.apiProd14, isMetrics);
});
afterAll(disconnectPrisma);

describe("compare across applications", () => {
  it("matches applications by promotion key and says which run the same commit", async () => {
    const c = await compare({ from: "staging", to: "production", mode: "desired" });
    expect(c.application).toBeNull();
    expect(c.applications).toEqual([
      { promotionKey: "shop", from: { name: "shop", appliedSha: shop.commits.apiStaging14, driftCount: 0, objectCount: 0 }, to: { name: "shop-production", appliedSha: shop.commits.apiProd14, driftCount: 0, objectCount: 0 }, sameRevision: false },
      { promotionKey: "metrics", from: null, to: { name: "metrics", appliedSha: shop.commits.apiProd14, driftCount: 0, objectCount: 0 }, sameRevision: false },
    ]);
    // Unnarrowed, the objects are the whole environments', as before.
    expect(c).toMatchObject({ same: 2, differs: 2, onlyFrom: 0, onlyTo: 1 });
  });

  it("narrows the objects to one application in both environments, with that application's commits", async () => {
    const c = await compare({ from: "staging", to: "production", mode: "desired", application: "shop" });
    expect(c.application).toBe("shop");
    expect(c).toMatchObject({ same: 2, differs: 2, onlyFrom: 0, onlyTo: 0 });
    expect(c.objects.map((o) => o.name).sort()).not.toContain("metrics");
    expect(c.from.revision).toMatchObject({ sha: shop.commits.apiStaging14, message: "Promote api 1.4 to staging" });
    expect(c.to.revision).toMatchObject({ sha: shop.commits.apiProd14, message: "Promote api 1.4 to production" });
  });

  it("an application only one environment has: all its objects are only there, and the other side has no revision", async () => {
    const c = await compare({ from: "staging", to: "production", mode: "desired", application: "metrics" });
    expect(c).toMatchObject({ same: 0, differs: 0, onlyFrom: 0, onlyTo: 1 });
    expect(c.objects).toEqual([expect.objectContaining({ name: "metrics", state: "only-to" })]);
    expect(c.from.revision).toBeNull();
  });

  it("an application neither environment has is not found", async () => {
    const err = await compare({ from: "staging", to: "production", application: "payments" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toMatch(/application "payments" in staging or production not found/);
  });
});
