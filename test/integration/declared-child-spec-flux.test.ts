// A change to a child Kustomization's spec in its parent's folder (issue 19),
// the Flux way: on the fleet estate (test/support/fleet-case.ts) the `apps`
// Kustomization applies apps/production/services.yaml, which declares one
// Kustomization per service. A new image for the api set there (the
// Kustomization's spec.images) changes what shop-api renders although nothing
// under ./apps/production/api changed. `apps` has applied it, shop-api has not
// reconciled yet: a pending rollout of shop-api (stale), not drift.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { forEachCluster } from "../support/clusters";
import { kubectlFor } from "../support/estate-kube";
import { openAlertsNamed, runAsWorker } from "../support/collector-env";
import { eachFleetCase } from "../support/fleet-case";
import { getPrisma } from "@/lib/db";

/** Every Kustomization of the fleet's production cluster. */
const KUSTOMIZATIONS = ["flux-system", "infra-controllers", "infra-configs", "apps", "shop-api", "shop-cart", "shop-web", "shop-worker"];
const HOUR = 3_600_000;
const db = getPrisma();

forEachCluster((server) => {
  const c = eachFleetCase(server, "driftwatch-child-spec-flux-");
  const kubectl = kubectlFor(() => c.cluster);
  const run = () => runAsWorker(db, c.config!, path.join(c.dir!, "mirrors"), "production");
  /** kustomize-controller reporting `sha` applied by each of `names`. */
  const applied = async (sha: string, names: readonly string[]) => {
    const status = JSON.stringify({ status: { lastAppliedRevision: `main@sha1:${sha}` } });
    for (const name of names) await kubectl(["-n", "flux-system", "patch", "kustomization", name, "--subresource=status", "--type=merge", "-p", status]);
  };
  /** kustomize-controller applying a folder of the repository's checkout, `edit` standing for the Kustomization's own settings. */
  const reconcile = async (folder: string, edit: (built: string) => string = (b) => b) => {
    const built = await kubectl(["kustomize", path.join(c.fleet!.dir, folder)]);
    await kubectl(["apply", "--server-side", "--field-manager=kustomize-controller", "-f", "-"], edit(built));
  };
  /** Flux applying the apps folder at `sha`: every Kustomization but shop-api reports it (shop-api has not reconciled yet). */
  const appliedAllButApi = async (sha: string) => {
    await reconcile("apps/production");
    await applied(sha, KUSTOMIZATIONS.filter((k) => k !== "shop-api"));
    await run();
  };
  /** shop-api reconciling `sha`, whose spec names the api's 1.9.0 image. */
  const apiReconciles = async (sha: string) => {
    await reconcile("apps/production/api", (built) => built.replaceAll("ghcr.io/acme/shop-api:1.7.0", "ghcr.io/acme/shop-api:1.9.0"));
    await applied(sha, ["shop-api"]);
    await run();
  };
  const apiDrift = () => db.driftItem.findMany({ where: { resolvedAt: null, key: { startsWith: "apps/Deployment/shop/" } }, select: { key: true, type: true } });
  const staleAlerts = async () => (await openAlertsNamed(db)).filter((a) => a.type === "environment_stale");

  describe("a child Kustomization's spec changed in its parent's folder", () => {
    it("is the child's pending rollout (stale, one alert, no drift) until the child reconciles it", async () => {
      const estate = c.fleet!.head();
      await applied(estate, KUSTOMIZATIONS);
      await run();
      expect(await apiDrift()).toEqual([]);
      expect(await staleAlerts()).toEqual([]);

      // The api's image set on its Kustomization in the apps folder, an hour ago.
      const services = c.fleet!.git("show", "HEAD:apps/production/services.yaml");
      const declaration = "  path: ./apps/production/api\n";
      expect(services).toContain(declaration);
      c.fleet!.write("apps/production/services.yaml", services.replace(declaration, `${declaration}  images:\n    - name: ghcr.io/acme/shop-api\n      newTag: 1.9.0\n`));
      const bumped = c.fleet!.commit("api 1.9.0", { date: new Date(Date.now() - HOUR) });
      // Flux applies the apps folder (shop-api's spec now names 1.9.0); every Kustomization but shop-api reports the new head.
      await appliedAllButApi(bumped);

      const api = await db.application.findFirstOrThrow({ where: { name: "flux-system/shop-api" } });
      expect(api).toMatchObject({ approvedSha: bumped, appliedSha: estate, appliedBehind: true });
      expect(await db.application.findFirstOrThrow({ where: { name: "flux-system/shop-cart" } })).toMatchObject({ approvedSha: estate, appliedSha: bumped, appliedBehind: false });
      expect(await apiDrift()).toEqual([]);
      expect(await staleAlerts()).toEqual([{ type: "environment_stale", title: expect.stringMatching(/^production\/flux-system\/shop-api is stale: /), application: "flux-system/shop-api" }]);

      // shop-api reconciles: 1.9.0 applied (its spec.images), the new head reported; in sync, the alert resolved.
      await apiReconciles(bumped);
      expect(await db.application.findFirstOrThrow({ where: { name: "flux-system/shop-api" } })).toMatchObject({ approvedSha: bumped, appliedSha: bumped, appliedBehind: false });
      expect(await apiDrift()).toEqual([]);
      expect(await staleAlerts()).toEqual([]);
      expect(await db.alert.findFirstOrThrow({ where: { type: "environment_stale" } })).toMatchObject({ resolvedAt: expect.any(Date) });
    }, 180_000);

    it("a kustomize patch naming the child is its input, not its declaration: a change in either file makes the child stale", async () => {
      // The apps folder patches shop-api's Kustomization from a file listed before services.yaml (only a timeout: nothing to render).
      const folder = "apps/production";
      const kustomization = c.fleet!.git("show", `HEAD:${folder}/kustomization.yaml`);
      const patch = (extra: string) => `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: shop-api\n  namespace: flux-system\nspec:\n  timeout: 5m\n${extra}`;
      c.fleet!.write(`${folder}/api-patch.yaml`, patch(""));
      c.fleet!.write(`${folder}/kustomization.yaml`, `${kustomization}patches:\n  - path: api-patch.yaml\n`);
      const patched = c.fleet!.commit("apps: shop-api times out after 5m", { date: new Date(Date.now() - 3 * HOUR) });
      await reconcile(folder);
      await applied(patched, KUSTOMIZATIONS);
      await run();
      expect(await staleAlerts()).toEqual([]);

      // The api's image set where shop-api is declared (services.yaml), not in the patch: still shop-api's change.
      const services = c.fleet!.git("show", `HEAD:${folder}/services.yaml`);
      const declaration = "  path: ./apps/production/api\n";
      c.fleet!.write(`${folder}/services.yaml`, services.replace(declaration, `${declaration}  images:\n    - name: ghcr.io/acme/shop-api\n      newTag: 1.9.0\n`));
      const bumped = c.fleet!.commit("api 1.9.0", { date: new Date(Date.now() - 2 * HOUR) });
      await appliedAllButApi(bumped);
      expect(await db.application.findFirstOrThrow({ where: { name: "flux-system/shop-api" } })).toMatchObject({ approvedSha: bumped, appliedSha: patched, appliedBehind: true });
      expect(await staleAlerts()).toEqual([{ type: "environment_stale", title: expect.stringMatching(/^production\/flux-system\/shop-api is stale: /), application: "flux-system/shop-api" }]);

      // shop-api reconciles 1.9.0: in sync.
      await apiReconciles(bumped);
      expect(await db.application.findFirstOrThrow({ where: { name: "flux-system/shop-api" } })).toMatchObject({ approvedSha: bumped, appliedBehind: false });
      expect(await staleAlerts()).toEqual([]);

      // The patch now sets the image: the apps folder applies it, shop-api has not reconciled — stale again, no drift.
      c.fleet!.write(`${folder}/api-patch.yaml`, patch("  images:\n    - name: ghcr.io/acme/shop-api\n      newTag: 2.0.0\n"));
      const repatched = c.fleet!.commit("api 2.0.0, by the patch", { date: new Date(Date.now() - HOUR) });
      await appliedAllButApi(repatched);
      expect(await db.application.findFirstOrThrow({ where: { name: "flux-system/shop-api" } })).toMatchObject({ approvedSha: repatched, appliedSha: bumped, appliedBehind: true });
      expect(await db.application.findFirstOrThrow({ where: { name: "flux-system/shop-cart" } })).toMatchObject({ appliedBehind: false });
      expect(await apiDrift()).toEqual([]);
      expect(await staleAlerts()).toEqual([{ type: "environment_stale", title: expect.stringMatching(/^production\/flux-system\/shop-api is stale: /), application: "flux-system/shop-api" }]);
    }, 180_000);

    it("an inline patch in the parent's kustomization aimed at the child is its input: the child is stale for its image there, not for a timeout or a patch of another", async () => {
      const folder = "apps/production";
      const kustomization = c.fleet!.git("show", `HEAD:${folder}/kustomization.yaml`);
      const inline = (name: string, ...ops: string[]) => `  - target: {kind: Kustomization, name: ${name}}\n    patch: |-\n${ops.map((op) => `      - ${op}\n`).join("")}`;
      const timeout = (t: string) => `{op: add, path: /spec/timeout, value: ${t}}`;
      const image = '{op: add, path: /spec/images, value: [{name: ghcr.io/acme/shop-api, newTag: "1.9.0"}]}';
      const write = (...patches: string[]) => c.fleet!.write(`${folder}/kustomization.yaml`, `${kustomization}patches:\n${patches.join("")}`);
      // Only a timeout, inline: nothing shop-api renders.
      write(inline("shop-api", timeout("5m")));
      const patched = c.fleet!.commit("apps: shop-api times out after 5m", { date: new Date(Date.now() - 3 * HOUR) });
      await reconcile(folder);
      await applied(patched, KUSTOMIZATIONS);
      await run();
      expect(await staleAlerts()).toEqual([]);

      // The inline patch sets the api's image: the apps folder applies it, shop-api has not reconciled — stale.
      write(inline("shop-api", timeout("5m"), image));
      const bumped = c.fleet!.commit("api 1.9.0, inline", { date: new Date(Date.now() - 2 * HOUR) });
      await appliedAllButApi(bumped);
      expect(await db.application.findFirstOrThrow({ where: { name: "flux-system/shop-api" } })).toMatchObject({ approvedSha: bumped, appliedSha: patched, appliedBehind: true });
      expect(await staleAlerts()).toEqual([{ type: "environment_stale", title: expect.stringMatching(/^production\/flux-system\/shop-api is stale: /), application: "flux-system/shop-api" }]);
      await apiReconciles(bumped);
      expect(await staleAlerts()).toEqual([]);

      // The api's timeout changed and the cart patched, in the same kustomization: nothing shop-api renders — not stale.
      write(inline("shop-api", timeout("10m"), image), inline("shop-cart", timeout("2m")));
      const retimed = c.fleet!.commit("apps: timeouts", { date: new Date(Date.now() - HOUR) });
      await appliedAllButApi(retimed);
      expect(await db.application.findFirstOrThrow({ where: { name: "flux-system/shop-api" } })).toMatchObject({ approvedSha: bumped, appliedSha: bumped, appliedBehind: false });
      expect(await apiDrift()).toEqual([]);
      expect(await staleAlerts()).toEqual([]);
    }, 180_000);
  });
});
