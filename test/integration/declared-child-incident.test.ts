// The incident report credits a change to a child's declared spec to the child
// (issue 19). A commit to the manifest an app-of-apps parent declares a child
// with (its images) is the child's change although it touches nothing under the
// child's path: the report names the child for it, and it goes live when the
// child runs it, not when the parent applied the manifest. A neighbour's commit
// to a file declaring several children is not credited to the others. On the
// Argo CD estate (one file per child) and the Flux fleet (one services.yaml for
// every service), on the imitation and on a real kube-apiserver.
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { forEachCluster, type TestCluster } from "../support/clusters";
import { applyCheckoutAsFlux, kubectlFor, reportFluxApplied } from "../support/estate-kube";
import { runAsWorker } from "../support/collector-env";
import { endAppOfAppsCase, reportApplication, startAppOfAppsCase, syncApplication, type AppOfAppsCase } from "../support/app-of-apps-case";
import { eachFleetCase } from "../support/fleet-case";
import { getPrisma } from "@/lib/db";
import { loadIncidentReport } from "@/lib/reports/load-incident";

const db = getPrisma();
const HOUR = 3_600_000;

/** When each application's controller was first seen running `sha` (its applied revision containing it, as stored). */
async function firstRan(app: string, sha: string): Promise<Date> {
  const row = await db.application.findFirstOrThrow({ where: { name: app }, include: { appliedRevisions: true } });
  return row.appliedRevisions.find((r) => r.sha === sha)!.firstSeenAt;
}

/** The incident report of production from `from` until now. */
async function reportSince(from: Date) {
  const now = new Date(Date.now() + 1000);
  return loadIncidentReport(db, { environment: "production", window: { from: from.toISOString(), to: now.toISOString() }, now, generatedBy: "Tess Tester" });
}

forEachCluster((server) => {
  describe("an Argo CD child's image bumped in the root's apps/ folder", () => {
    let c: AppOfAppsCase | undefined;
    let cluster: TestCluster | undefined;
    const kubectl = kubectlFor(() => cluster);
    const run = () => runAsWorker(db, c!.config, path.join(c!.dir, "mirrors"), "production");
    beforeEach(async () => {
      c = await startAppOfAppsCase(server(), "driftwatch-child-incident-");
      cluster = c.cluster;
    }, 120_000);
    afterEach(async () => {
      await endAppOfAppsCase(c ?? {});
      cluster = undefined;
    }, 60_000);

    it("goes live when shop-api syncs it, and the report names shop-api (and the root that applied its manifest)", async () => {
      const from = new Date(Date.now() - 60_000);
      const estate = c!.repo.head();
      await run();

      // The api's image bumped in apps/shop-api.yaml an hour ago; Argo CD syncs the root at once, the api a run later.
      const declared = c!.repo.git("show", "HEAD:apps/shop-api.yaml");
      c!.repo.write("apps/shop-api.yaml", declared.replace("ghcr.io/acme/shop-api:1.8.0", "ghcr.io/acme/shop-api:1.9.0"));
      const bumped = c!.repo.commit("api 1.9.0", { date: new Date(Date.now() - HOUR) });
      await syncApplication(kubectl, c!, "root");
      await reportApplication(kubectl, "shop-api", { sync: { status: "OutOfSync", revision: bumped } });
      await run();
      await syncApplication(kubectl, c!, "shop-api");
      await run();

      // The collector's record: the bump changed shop-api's declaration, and no other child's.
      const declaredChanges = new Map((await db.application.findMany({ select: { name: true, declaredChanges: true } })).map((a) => [a.name, a.declaredChanges]));
      expect(declaredChanges.get("argocd/shop-api")).toEqual([bumped, estate]);
      for (const name of ["argocd/shop-cart", "argocd/shop-web", "argocd/shop-worker"]) expect(declaredChanges.get(name)).toEqual([estate]);
      expect(declaredChanges.get("argocd/root")).toEqual([]);

      const rootRan = await firstRan("argocd/root", bumped);
      const apiRan = await firstRan("argocd/shop-api", bumped);
      expect(apiRan.getTime()).toBeGreaterThan(rootRan.getTime());
      const report = await reportSince(from);
      expect(report.leadTimes.map((l) => l.message)).toEqual(["app-of-apps", "api 1.9.0"]);
      const bump = report.leadTimes.find((l) => l.sha === bumped)!;
      // Live when the api ran the new image, not when the root applied the Application asking for it.
      expect(bump).toMatchObject({ changes: ["argocd/root", "argocd/shop-api"], liveAt: apiRan.toISOString() });
      expect(bump.leadTimeMs).toBeGreaterThan(59 * 60_000);
    }, 180_000);

    it("goes live when shop-cart runs a commit bumping the api's image and editing the cart's files; the api's credit outlives later commits to its manifest", async () => {
      const from = new Date(Date.now() - 60_000);
      await run();

      // One commit an hour ago: the api's image in apps/shop-api.yaml and the cart's settings. The root and the cart sync it, the api a run later.
      c!.repo.write("apps/shop-api.yaml", c!.repo.git("show", "HEAD:apps/shop-api.yaml").replace("ghcr.io/acme/shop-api:1.8.0", "ghcr.io/acme/shop-api:1.9.0"));
      c!.repo.write("services/cart/staging/settings.yaml", c!.repo.git("show", "HEAD:services/cart/staging/settings.yaml").replace("session-ttl: 30m", "session-ttl: 45m"));
      const both = c!.repo.commit("api 1.9.0, cart session 45m", { date: new Date(Date.now() - HOUR) });
      await syncApplication(kubectl, c!, "root");
      await syncApplication(kubectl, c!, "shop-cart");
      await reportApplication(kubectl, "shop-api", { sync: { status: "OutOfSync", revision: both } });
      await run();
      await syncApplication(kubectl, c!, "shop-api");
      await run();

      const stored = await db.application.findFirstOrThrow({ where: { name: "argocd/shop-api" }, select: { declaredChanges: true, declaringFiles: true } });
      expect(stored).toMatchObject({ declaringFiles: ["apps/shop-api.yaml"] });
      expect(stored.declaredChanges[0]).toBe(both);
      const cartRan = await firstRan("argocd/shop-cart", both);
      expect((await firstRan("argocd/shop-api", both)).getTime()).toBeGreaterThan(cartRan.getTime());
      // The cart ran its own change when it synced: the commit went live then, not when the api ran its part.
      const row = async () => (await reportSince(from)).leadTimes.find((l) => l.sha === both);
      expect(await row()).toMatchObject({ changes: ["argocd/root", "argocd/shop-api", "argocd/shop-cart"], liveAt: cartRan.toISOString() });

      // More commits to the api's manifest than a run reads of it (declared-by.ts CHANGE_DEPTH, 20), none changing its spec.
      const manifest = c!.repo.git("show", "HEAD:apps/shop-api.yaml");
      for (let n = 1; n <= 21; n++) {
        c!.repo.write("apps/shop-api.yaml", `${manifest.trimEnd()}\n# reviewed ${n}\n`);
        c!.repo.commit(`api manifest reviewed ${n}`);
      }
      await syncApplication(kubectl, c!, "root");
      await run();

      // The bump is still the api's change, and the report over the same window still says so.
      expect((await db.application.findFirstOrThrow({ where: { name: "argocd/shop-api" } })).declaredChanges).toContain(both);
      expect(await row()).toMatchObject({ changes: ["argocd/root", "argocd/shop-api", "argocd/shop-cart"], liveAt: cartRan.toISOString() });
    }, 240_000);
  });

  describe("a Flux child's image set in the shared services.yaml, then a neighbour's", () => {
    const c = eachFleetCase(server, "driftwatch-child-incident-flux-");
    const kubectl = kubectlFor(() => c.cluster);
    const run = () => runAsWorker(db, c.config!, path.join(c.dir!, "mirrors"), "production");
    const ALL = ["flux-system", "infra-controllers", "infra-configs", "apps", "shop-api", "shop-cart", "shop-web", "shop-worker"];
    const applied = (sha: string, names: readonly string[]) => reportFluxApplied(kubectl, sha, names);
    const reconcile = (folder: string, edit?: (built: string) => string) => applyCheckoutAsFlux(kubectl, c.fleet!.dir, folder, edit);
    /** services.yaml with `images` added to the Kustomization over ./apps/production/<service>. */
    const withImage = (service: string, tag: string) => {
      const services = c.fleet!.git("show", "HEAD:apps/production/services.yaml");
      const declaration = `  path: ./apps/production/${service}\n`;
      expect(services).toContain(declaration);
      return services.replace(declaration, `${declaration}  images:\n    - name: ghcr.io/acme/shop-${service}\n      newTag: ${tag}\n`);
    };

    it("credits the api's bump to shop-api when it reconciles, and the cart's to shop-cart only", async () => {
      const from = new Date(Date.now() - 60_000);
      const estate = c.fleet!.head();
      await applied(estate, ALL);
      await run();

      // The api's image, an hour ago: Flux applies the apps folder; every Kustomization but shop-api reconciles.
      c.fleet!.write("apps/production/services.yaml", withImage("api", "1.9.0"));
      const bumped = c.fleet!.commit("api 1.9.0", { date: new Date(Date.now() - HOUR) });
      await reconcile("apps/production");
      await applied(bumped, ALL.filter((k) => k !== "shop-api"));
      await run();

      // Half an hour ago, the cart's image in the same file: everything reconciles it, shop-api with its own bump.
      c.fleet!.write("apps/production/services.yaml", withImage("cart", "1.8.0"));
      const cart = c.fleet!.commit("cart 1.8.0", { date: new Date(Date.now() - HOUR / 2) });
      await reconcile("apps/production");
      await reconcile("apps/production/cart", (built) => built.replaceAll("ghcr.io/acme/shop-cart:1.7.0", "ghcr.io/acme/shop-cart:1.8.0"));
      await reconcile("apps/production/api", (built) => built.replaceAll("ghcr.io/acme/shop-api:1.7.0", "ghcr.io/acme/shop-api:1.9.0"));
      await applied(cart, ALL);
      await run();

      const declaredChanges = new Map((await db.application.findMany({ select: { name: true, declaredChanges: true } })).map((a) => [a.name, a.declaredChanges]));
      expect(declaredChanges.get("flux-system/shop-api")).toEqual([bumped, estate]);
      expect(declaredChanges.get("flux-system/shop-cart")).toEqual([cart, estate]);
      expect(declaredChanges.get("flux-system/shop-web")).toEqual([estate]);

      const report = await reportSince(from);
      const row = (sha: string) => report.leadTimes.find((l) => l.sha === sha);
      // The bump went live when shop-api ran it (with the cart's commit), half an hour after the apps folder had it.
      const apiRan = await firstRan("flux-system/shop-api", cart);
      expect(apiRan.getTime()).toBeGreaterThan((await firstRan("flux-system/apps", bumped)).getTime());
      expect(row(bumped)).toMatchObject({ changes: ["flux-system/apps", "flux-system/shop-api"], liveAt: apiRan.toISOString() });
      // shop-api ran the cart's commit too, but it changed only the cart's declaration in the file they share.
      expect(row(cart)).toMatchObject({ changes: ["flux-system/apps", "flux-system/shop-cart"], liveAt: (await firstRan("flux-system/shop-cart", cart)).toISOString() });
    }, 180_000);
  });
});
