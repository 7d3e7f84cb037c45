// An environment of three declared applications from two repositories: one
// run collects them all, fetching each repository once, and attributes every
// drift, revision and object to the application it belongs to. An
// application that leaves the configuration is marked removed, its history kept.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { forEachCluster, type TestCluster } from "../support/clusters";
import { applicationsByName, deploymentYaml, KUBECTL_UA, runCollection } from "../support/collector-env";
import { TestRepo } from "@/lib/git/test-support/repo-fixture";
import { parseConfig, type DriftwatchConfig } from "@/lib/config";
import { getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { createClusterClient } from "@/lib/kube/client";
import { discover, resourcePath } from "@/lib/kube/discovery";
import { serverSideApply, type DemoKube } from "@/demo/kube-writer";

const settings = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "platform-settings", namespace: "shop" }, data: { REGION: "eu-west-1" } };
const web = deploymentYaml("web", "shop/web:2.0.0", 2);
const api = deploymentYaml("api", "shop/api:1.4.0", 3);
const apiConfig = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "api-config", namespace: "shop", labels: { team: "api" } }, data: { CART_TTL: "30m" } };
// Nobody's in Git, labelled as the api team's: Extra, and the api application's.
const apiDebug = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "api-debug", namespace: "shop", labels: { team: "api" } }, data: { LEVEL: "trace" } };

const db = getPrisma();
let dir: string;
let cluster: TestCluster;
let platform: TestRepo;
let shop: TestRepo;
let admin: DemoKube;
let config: DriftwatchConfig;

function configWith(applications: Array<Record<string, unknown>>): DriftwatchConfig {
  return parseConfig(
    stringify({
      repositories: [
        { name: "platform", url: platform.dir },
        { name: "shop", url: shop.dir },
      ],
      environments: [
        { name: "production", cluster: { kubeconfig: cluster.kubeconfigPath, context: "t-readonly" }, namespaces: ["shop"], defaultNamespace: "shop", extraKinds: [], applications },
      ],
    }),
  );
}

const INFRA = { name: "infra", source: { repository: "platform", path: "clusters/production" } };
const WEB = { name: "web", source: { repository: "shop", path: "apps/web" } };
const API = { name: "api", source: { repository: "shop", path: "apps/api" }, trackingLabel: "team=api" };

const run = () => runCollection(db, config, path.join(dir, "mirrors"), "production");
const applications = () => applicationsByName(db);

forEachCluster((server) => {
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-applications-"));
    cluster = await server().forCase(dir);
    platform = TestRepo.create("platform-repo");
    platform.write("clusters/production/settings.yaml", stringify(settings)).commit("platform settings");
    shop = TestRepo.create("shop-repo");
    shop.write("apps/web/deployment.yaml", stringify(web));
    shop.write("apps/api/deployment.yaml", [api, apiConfig].map((o) => stringify(o)).join("---\n"));
    shop.commit("web and api");
    config = configWith([INFRA, WEB, API]);
    await resetDatabase(db);
    const client = createClusterClient({ kubeconfig: cluster.kubeconfigPath, context: "t" });
    admin = { client, discovery: await discover(client) };
    await serverSideApply(admin, { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } }, "kubectl");
    for (const o of [settings, web, api, apiConfig]) await serverSideApply(admin, o, "kustomize-controller");
  });
  afterEach(async () => {
    await cluster.release();
    platform.cleanup();
    shop.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe("an environment of three applications from two repositories", () => {
    it("collects all three in one run, fetching each repository once, and attributes drift to the right application", async () => {
      const first = await run();
      expect(first.status).toBe("succeeded");
      expect(first.stats).toMatchObject({ applications: 3, repositoriesFetched: 2, desired: 4, live: 4, drift: { Modified: 0, Missing: 0, Extra: 0 } });
      let apps = await applications();
      expect([...apps.keys()]).toEqual(["api", "infra", "web"]);
      // Each application's own revision: the platform repository's for infra, the shop's for the others.
      expect(apps.get("infra")).toMatchObject({ kind: "declared", promotionKey: "infra", approvedSha: platform.head(), appliedSha: platform.head(), appliedSource: "inferred", objectCount: 1, driftCount: 0, removedAt: null });
      expect(apps.get("web")).toMatchObject({ approvedSha: shop.head(), appliedSha: shop.head(), objectCount: 1 });
      expect(apps.get("api")).toMatchObject({ approvedSha: shop.head(), appliedSha: shop.head(), objectCount: 2 });
      const owners = await db.liveObject.findMany({ select: { key: true, applicationId: true }, orderBy: { key: "asc" } });
      const nameOf = new Map([...apps.values()].map((a) => [a.id, a.name]));
      expect(owners.map((o) => [o.key, nameOf.get(o.applicationId ?? "")])).toEqual([
        ["/ConfigMap/shop/api-config", "api"],
        ["/ConfigMap/shop/platform-settings", "infra"],
        ["apps/Deployment/shop/api", "api"],
        ["apps/Deployment/shop/web", "web"],
      ]);
      const lineage = await db.appliedRevision.findMany({ select: { applicationId: true, sha: true } });
      expect(lineage.map((l) => [nameOf.get(l.applicationId ?? ""), l.sha]).sort()).toEqual([["api", shop.head()], ["infra", platform.head()], ["web", shop.head()]]);
      expect(await db.environment.findUniqueOrThrow({ where: { name: "production" } })).toMatchObject({ applicationsTotal: 3, applicationsInSync: 3, applicationsDrifted: 0 });

      // A human scales web and leaves a debug ConfigMap labelled for the api team.
      const deployments = admin.discovery.lookup("apps/v1", "Deployment")!;
      await admin.client.requestJson("PATCH", resourcePath(deployments, "shop", "web") + "/scale", { body: { spec: { replicas: 5 } }, contentType: "application/merge-patch+json", userAgent: KUBECTL_UA });
      await serverSideApply(admin, apiDebug, "kubectl");
      const second = await run();
      expect(second.status).toBe("succeeded");
      expect(second.stats).toMatchObject({ repositoriesFetched: 2, drift: { Modified: 1, Missing: 0, Extra: 1 } });
      apps = await applications();
      const items = await db.driftItem.findMany({ where: { resolvedAt: null }, select: { key: true, type: true, applicationId: true, attributionManager: true }, orderBy: { key: "asc" } });
      expect(items.map((i) => [i.key, i.type, nameOf.get(i.applicationId ?? ""), i.attributionManager])).toEqual([
        ["/ConfigMap/shop/api-debug", "Extra", "api", null],
        ["apps/Deployment/shop/web", "Modified", "web", "kubectl"],
      ]);
      expect([...apps.values()].map((a) => [a.name, a.driftCount])).toEqual([["api", 1], ["infra", 0], ["web", 1]]);
      expect(await db.environment.findUniqueOrThrow({ where: { name: "production" } })).toMatchObject({ applicationsTotal: 3, applicationsInSync: 1, applicationsDrifted: 2 });
      // The audit log names the application of each drift.
      const opened = await db.auditEvent.findMany({ where: { action: "drift.opened" }, select: { reason: true, after: true }, orderBy: { id: "asc" } });
      expect(opened.map((e) => [e.reason, (e.after as { application?: string }).application]).sort()).toEqual([["/ConfigMap/shop/api-debug", "api"], ["apps/Deployment/shop/web", "web"]]);

      // Put back by hand: the applications' summaries are as they were (not written again), their drift counts follow.
      await admin.client.requestJson("PATCH", resourcePath(deployments, "shop", "web") + "/scale", { body: { spec: { replicas: 2 } }, contentType: "application/merge-patch+json", userAgent: KUBECTL_UA });
      await admin.client.requestJson("DELETE", resourcePath(admin.discovery.lookup("v1", "ConfigMap")!, "shop", "api-debug"));
      expect((await run()).stats).toMatchObject({ drift: { Modified: 0, Missing: 0, Extra: 0 } });
      const after = await applications();
      expect([...after.values()].map((a) => [a.name, a.driftCount, a.objectCount])).toEqual([["api", 0, 2], ["infra", 0, 1], ["web", 0, 1]]);
      // Seen in every run; lastSeenAt moves at most once per five minutes for an unchanged application.
      expect([...after.values()].map((a) => a.lastSeenAt)).toEqual([...apps.values()].map((a) => a.lastSeenAt));
      expect(await db.environment.findUniqueOrThrow({ where: { name: "production" } })).toMatchObject({ applicationsTotal: 3, applicationsInSync: 3, applicationsDrifted: 0 });
    });

    it("marks an application that left the configuration removed and keeps its history; it comes back under the same id", async () => {
      await run();
      await serverSideApply(admin, apiDebug, "kubectl");
      await run();
      const before = (await applications()).get("api")!;
      const openExtra = await db.driftItem.findFirstOrThrow({ where: { applicationId: before.id, resolvedAt: null } });

      config = configWith([INFRA, WEB]);
      const without = await run();
      expect(without.status).toBe("succeeded");
      expect(without.stats).toMatchObject({ applications: 2, repositoriesFetched: 2, live: 2 });
      let apps = await applications();
      expect(apps.get("api")?.removedAt).not.toBeNull();
      expect(apps.get("web")?.removedAt).toBeNull();
      // Its history stays: the drift it had (ended, the object no longer anyone's) and its lineage.
      expect(await db.driftItem.findUniqueOrThrow({ where: { id: openExtra.id } })).toMatchObject({ applicationId: before.id, resolution: "deleted" });
      expect(await db.appliedRevision.count({ where: { applicationId: before.id } })).toBe(1);
      expect(await db.environment.findUniqueOrThrow({ where: { name: "production" } })).toMatchObject({ applicationsTotal: 2, applicationsInSync: 2 });

      config = configWith([INFRA, WEB, API]);
      expect((await run()).status).toBe("succeeded");
      apps = await applications();
      expect(apps.get("api")).toMatchObject({ id: before.id, removedAt: null, objectCount: 3 });
      expect(await db.driftItem.count({ where: { applicationId: before.id } })).toBe(2);
    });

    it("leaves out an application whose build fails, with its reason, and collects the others; it is collected once fixed", async () => {
      // A new application whose folder does not build (a resource it lists is not in the repository), from its first run.
      const BROKEN = { name: "payments", source: { repository: "shop", path: "apps/payments", render: "kustomize" } };
      const webAndApi = shop.head();
      shop.write("apps/payments/kustomization.yaml", stringify({ resources: ["deployment.yaml"] })).commit("payments: kustomization first");
      config = configWith([INFRA, WEB, API, BROKEN]);
      await serverSideApply(admin, apiDebug, "kubectl");
      const first = await run();
      expect(first.status).toBe("partial");
      expect(first.errors).toEqual([expect.objectContaining({ category: "render", severity: "warning", path: "apps/payments/kustomization.yaml", message: expect.stringMatching(/^application payments: "deployment.yaml" refused: does not exist/) })]);
      expect(first.stats).toMatchObject({ applications: 4, desired: 4, live: 5, drift: { Modified: 0, Missing: 0, Extra: 1 } });
      let apps = await applications();
      expect(apps.get("payments")).toMatchObject({ objectCount: 0, approvedSha: null, lastError: expect.objectContaining({ category: "render", message: expect.stringMatching(/^"deployment.yaml" refused: does not exist/) }) });
      expect([...apps.values()].filter((a) => a.name !== "payments").map((a) => [a.name, a.lastError, a.approvedSha])).toEqual([["api", null, webAndApi], ["infra", null, platform.head()], ["web", null, webAndApi]]);
      expect(await db.driftItem.count({ where: { resolvedAt: null, key: "/ConfigMap/shop/api-debug" } })).toBe(1);

      // Fixed in Git: collected like the others from then on.
      const payments = deploymentYaml("payments", "shop/payments:0.1.0", 1);
      shop.write("apps/payments/deployment.yaml", stringify(payments)).commit("payments: its deployment");
      await serverSideApply(admin, payments, "kustomize-controller");
      const fixed = await run();
      expect(fixed.status).toBe("succeeded");
      apps = await applications();
      expect(apps.get("payments")).toMatchObject({ objectCount: 1, driftCount: 0, approvedSha: shop.head(), lastError: null });
    });

    it("an application left out, first of two, does not make the other's revision look newly approved", async () => {
      // Each at a commit of its own: the environment's columns show the first application's.
      const web3 = deploymentYaml("web", "shop/web:2.0.1", 2);
      shop.write("apps/web/deployment.yaml", stringify(web3)).commit("web 2.0.1");
      await serverSideApply(admin, web3, "kustomize-controller");
      config = configWith([API, WEB]);
      expect((await run()).status).toBe("succeeded");
      const lastEvent = (await db.auditEvent.findFirstOrThrow({ orderBy: { id: "desc" } })).id;
      // The api's folder is removed: that application cannot be rendered; web's revision does not move.
      shop.remove("apps/api/deployment.yaml").commit("api: moved to another repository");
      const second = await run();
      expect(second.status).toBe("partial");
      expect(second.errors.map((e) => e.message)).toEqual([expect.stringMatching(/^application api: /)]);
      expect(await db.auditEvent.count({ where: { action: "revision.approved", id: { gt: lastEvent } } })).toBe(0);
    });
  });
});
