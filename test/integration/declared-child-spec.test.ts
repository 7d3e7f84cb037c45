// A change to a child application's spec in its parent's folder (issue 19):
// on the Argo CD app-of-apps estate (test/support/app-of-apps-case.ts) the
// image of the api is bumped in apps/shop-api.yaml, the root Application's
// file declaring the shop-api Application, not under the api's own path. The
// root syncs it (the live shop-api Application has the new image) and the api
// has not synced yet: that is a pending rollout of the api (stale), not a hand
// edit of its Deployment (drift). Every run is followed by what a worker runs
// after it (detected pauses, then alerts), so the alerts are the product's own.
import { describe, expect, it } from "vitest";
import { forEachCluster } from "../support/clusters";
import { openAlertsNamed } from "../support/collector-env";
import { eachAppOfAppsCase } from "../support/app-of-apps-case";
import { getPrisma } from "@/lib/db";

const db = getPrisma();
const openDrift = () => db.driftItem.findMany({ where: { resolvedAt: null }, select: { key: true, type: true } });
const short = (sha: string) => sha.slice(0, 12);
const HOUR = 3_600_000;

forEachCluster((server) => {
  const appOfApps = eachAppOfAppsCase(server, "driftwatch-child-spec-");
  const { kubectl, run, sync, outOfSync } = appOfApps;

  /** The api's running image, as the cluster has it. */
  async function liveApiImage(): Promise<string> {
    const deployment = JSON.parse(await kubectl(["-n", "shop", "get", "deployment", "api", "-o", "json"])) as { spec: { template: { spec: { containers: Array<{ image: string }> } } } };
    return deployment.spec.template.spec.containers[0]!.image;
  }

  describe("a child Application's spec changed in its parent's folder", () => {
    it("is the child's pending rollout (stale, one alert, no drift) until the child syncs it", async () => {
      const estate = appOfApps.repo.head();
      await run();
      expect(await openDrift()).toEqual([]);

      // The api's image bumped in the Application the root declares, approved an hour ago; Argo CD syncs the
      // root (the shop-api Application now asks for 1.9.0) but not the api yet.
      const declared = appOfApps.repo.git("show", "HEAD:apps/shop-api.yaml");
      expect(declared).toContain("ghcr.io/acme/shop-api:1.8.0");
      appOfApps.repo.write("apps/shop-api.yaml", declared.replace("ghcr.io/acme/shop-api:1.8.0", "ghcr.io/acme/shop-api:1.9.0"));
      const bumped = appOfApps.repo.commit("api 1.9.0", { date: new Date(Date.now() - HOUR) });
      await sync("root");
      await outOfSync("shop-api");
      expect(await liveApiImage()).toBe("ghcr.io/acme/shop-api:1.8.0");
      await run();

      const apps = new Map((await db.application.findMany()).map((a) => [a.name, a]));
      expect(apps.get("argocd/shop-api")).toMatchObject({ approvedSha: bumped, appliedSha: estate, appliedBehind: true });
      // The other children's declarations did not change: they are up to date.
      for (const name of ["shop-cart", "shop-web", "shop-worker"]) expect(apps.get(`argocd/${name}`)).toMatchObject({ approvedSha: estate, appliedBehind: false });
      // Nobody edited the api's Deployment: the image Argo CD has not applied yet is not drift.
      expect(await openDrift()).toEqual([]);
      const stale = (await openAlertsNamed(db)).filter((a) => a.type === "environment_stale");
      expect(stale).toEqual([
        { type: "environment_stale", title: expect.stringMatching(new RegExp(`^production/argocd/shop-api is stale: ${short(bumped)} approved (59|60|61) min ago, ${short(estate)} still applied$`)), application: "argocd/shop-api" },
      ]);

      // Nothing changed: the same alert stays open, still no drift.
      await run();
      expect((await openAlertsNamed(db)).filter((a) => a.type === "environment_stale")).toEqual(stale);
      expect(await openDrift()).toEqual([]);

      // Argo CD syncs the api: 1.9.0 runs, the api is in sync and its alert resolves.
      await sync("shop-api");
      expect(await liveApiImage()).toBe("ghcr.io/acme/shop-api:1.9.0");
      await run();
      expect(await db.application.findFirstOrThrow({ where: { name: "argocd/shop-api" } })).toMatchObject({ approvedSha: bumped, appliedSha: bumped, appliedBehind: false });
      expect(await openAlertsNamed(db)).toEqual([]);
      expect(await db.alert.findFirstOrThrow({ where: { type: "environment_stale" } })).toMatchObject({ resolvedAt: expect.any(Date) });
      expect(await openDrift()).toEqual([]);
    }, 180_000);

    it("a hand edit of the child's Deployment while it is behind is still drift", async () => {
      await run();
      const declared = appOfApps.repo.git("show", "HEAD:apps/shop-api.yaml");
      appOfApps.repo.write("apps/shop-api.yaml", declared.replace("ghcr.io/acme/shop-api:1.8.0", "ghcr.io/acme/shop-api:1.9.0"));
      appOfApps.repo.commit("api 1.9.0");
      await sync("root");
      await outOfSync("shop-api");
      // Someone scales the api by hand meanwhile.
      await kubectl(["-n", "shop", "scale", "deployment", "api", "--replicas=5"]);
      await run();
      expect(await openDrift()).toEqual([{ key: "apps/Deployment/shop/api", type: "Modified" }]);
      const item = await db.driftItem.findFirstOrThrow({ where: { resolvedAt: null } });
      // Only the replicas: the image Argo CD has not applied yet is not part of it.
      expect((item.changes as Array<{ path: Array<string | number> }>).map((c) => c.path.join("."))).toEqual(["spec.replicas"]);
    }, 180_000);
  });
});
