// Extra covers every kind: a live object the environment tracks (its label,
// or its Argo CD tracking id) is Extra even when Git declares no object of
// that kind; an untracked one, or one another object created, is not. On the
// imitation and on a real kube-apiserver, with the same assertions.
import { afterEach, describe, expect, it } from "vitest";
import { createCollectorFixture, deploymentYaml, type CollectorFixture } from "../support/collector-env";
import { forEachCluster } from "../support/clusters";

const api = deploymentYaml("api", "shop/api:1.4.0", 2);

function configMap(name: string, metadata: Record<string, unknown> = {}) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "shop", ...metadata }, data: { FEATURE_FLAGS: "checkout-v2" } };
}

let f: CollectorFixture | undefined;
afterEach(async () => {
  await f?.cleanup();
  f = undefined;
});

async function openDrift(fixture: CollectorFixture) {
  return (await fixture.db.driftItem.findMany({ where: { resolvedAt: null }, orderBy: { key: "asc" } })).map((d) => [d.key, d.type]);
}

forEachCluster((server) => {
  describe("Extra of a kind Git does not declare", () => {
    it("label tracking: a tracked ConfigMap orphan is Extra (its full object kept); untracked and owned ones are not", async () => {
      f = await createCollectorFixture({ "envs/test/api.yaml": [api] }, { envYaml: { trackingLabel: "team=shop" }, cluster: server() });
      await f.applyAsController([api]);
      await f.applyAsController([
        configMap("leftover-flags", { labels: { team: "shop" } }),
        configMap("someone-elses"),
        // Made by another object (it names its controller): the owner's business, not an orphan of the environment.
        configMap("generated-by-operator", {
          labels: { team: "shop" },
          ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: "api", uid: "8f5e2c1a-0d4b-4e7f-9a31-2b6c8d0e1f47", controller: true }],
        }),
      ]);
      const out = await f.run();
      expect(out.status, JSON.stringify(out.errors)).toBe("succeeded");
      expect(await openDrift(f)).toEqual([["/ConfigMap/shop/leftover-flags", "Extra"]]);
      // Found through metadata, stored whole: the object page can show what the orphan holds.
      const row = await f.db.liveObject.findUniqueOrThrow({ where: { environmentId_key: { environmentId: (await f.db.environment.findUniqueOrThrow({ where: { name: "test" } })).id, key: "/ConfigMap/shop/leftover-flags" } } });
      const blob = await f.db.objectBlob.findUniqueOrThrow({ where: { hash: row.blobHash } });
      expect((blob.body as { data?: unknown }).data).toEqual({ FEATURE_FLAGS: "checkout-v2" });

      // The orphan deleted: the Extra resolves.
      await f.admin.client.requestJson("DELETE", "/api/v1/namespaces/shop/configmaps/leftover-flags");
      await f.run();
      expect(await openDrift(f)).toEqual([]);
    });

    it("several namespaces in scope: tracked orphans in each are Extra, one outside the scope is not", async () => {
      f = await createCollectorFixture({ "envs/test/api.yaml": [api] }, { envYaml: { trackingLabel: "team=shop", namespaces: ["shop", "shop-jobs"] }, cluster: server() });
      for (const name of ["shop-jobs", "elsewhere"]) await f.applyAsController([{ apiVersion: "v1", kind: "Namespace", metadata: { name } }]);
      await f.applyAsController([api, configMap("leftover-flags", { labels: { team: "shop" } })]);
      await f.applyAsController([
        { ...configMap("old-batch-settings", { labels: { team: "shop" } }), metadata: { name: "old-batch-settings", namespace: "shop-jobs", labels: { team: "shop" } } },
        { ...configMap("not-in-scope", { labels: { team: "shop" } }), metadata: { name: "not-in-scope", namespace: "elsewhere", labels: { team: "shop" } } },
      ]);
      await f.run();
      expect(await openDrift(f)).toEqual([
        ["/ConfigMap/shop-jobs/old-batch-settings", "Extra"],
        ["/ConfigMap/shop/leftover-flags", "Extra"],
      ]);
    });

    it("extraKinds narrows the kinds looked through: a tracked orphan of a kind not in the list is not looked for", async () => {
      f = await createCollectorFixture({ "envs/test/api.yaml": [api] }, { envYaml: { trackingLabel: "team=shop", extraKinds: ["ServiceAccount"] }, cluster: server() });
      await f.applyAsController([api, configMap("leftover-flags", { labels: { team: "shop" } })]);
      await f.applyAsController([{ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "old-worker", namespace: "shop", labels: { team: "shop" } } }]);
      await f.run();
      expect(await openDrift(f)).toEqual([["/ServiceAccount/shop/old-worker", "Extra"]]);
    });

    it("Argo CD tracking id without the Application's record: the ConfigMap naming itself under this Application is Extra", async () => {
      f = await createCollectorFixture({ "envs/test/api.yaml": [api] }, { envYaml: { controller: { type: "argocd", namespace: "argocd", name: "shop-test" } }, cluster: server() });
      await f.applyAsController([api]);
      await f.applyAsController([
        configMap("leftover-flags", { annotations: { "argocd.argoproj.io/tracking-id": "shop-test:/ConfigMap:shop/leftover-flags" } }),
        configMap("other-app", { annotations: { "argocd.argoproj.io/tracking-id": "shop-prod:/ConfigMap:shop/other-app" } }),
        configMap("someone-elses"),
      ]);
      await f.run();
      expect(await openDrift(f)).toEqual([["/ConfigMap/shop/leftover-flags", "Extra"]]);
    });
  });
});
