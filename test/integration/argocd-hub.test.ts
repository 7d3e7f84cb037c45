// Argo CD in a hub cluster deploying to the environment's cluster: the
// Applications (and their status) live in the hub, the objects they deploy in
// the environment's own cluster. The environment names the hub in
// `discover.argocd.hub` and its cluster in `destination`; one run finds the
// hub's Applications for this destination only, reads their status there, and
// compares what they render with the environment's live objects. The hub is a
// kubesim; the environment's cluster is kubesim and the real kube-apiserver.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ARGOCD_APPLICATION_CRD, startKubeSim, type KubeSim } from "@driftwatch/kubesim";
import { forEachCluster, type TestCluster } from "../support/clusters";
import { kubectlFor } from "../support/estate-kube";
import { APP_OF_APPS as ESTATE, APP_OF_APPS_URL as ESTATE_URL, commitAppOfApps } from "../support/app-of-apps-case";
import { applicationsByName, runCollection } from "../support/collector-env";
import { runProcess } from "../support/run-process";
import { requiredKubectl } from "../support/required-tools";
import { TestRepo } from "@/lib/git/test-support/repo-fixture";
import { parseConfig, type DriftwatchConfig } from "@/lib/config";
import { getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { createPause, pausePolicy } from "@/lib/pauses";


const db = getPrisma();
let dir: string;
let cluster: TestCluster | undefined;
let hub: KubeSim | undefined;
let repo: TestRepo;
let config: DriftwatchConfig;
const kubectl = kubectlFor(() => cluster);

async function hubKubectl(args: string[], input = ""): Promise<string> {
  const r = await runProcess(requiredKubectl(), ["--kubeconfig", hub?.kubeconfigPath ?? "", ...args], input);
  if (r.status !== 0) throw new Error(`kubectl (hub) ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** The estate's cart Application on the hub, deploying to the named cluster. */
function cartApplication(name: string, destination: string): string {
  const app = fs.readFileSync(path.join(ESTATE, "apps/shop-cart.yaml"), "utf8").replace("name: shop-cart", `name: ${name}`);
  return app.replace("server: https://kubernetes.default.svc", `name: ${destination}`);
}

forEachCluster((server) => {
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-argocd-hub-"));
    cluster = await server().forCase(dir);
    hub = await startKubeSim({ kubeconfigPath: path.join(dir, "hub-kubeconfig"), clusterName: "hub", adminPort: false });
    repo = TestRepo.create("argocd-app-of-apps");
    commitAppOfApps(repo);
    // The hub: Argo CD's Applications, one for this cluster and one for another.
    await hubKubectl(["apply", "--server-side", "-f", "-"], JSON.stringify(ARGOCD_APPLICATION_CRD));
    await hubKubectl(["create", "namespace", "argocd"]);
    await hubKubectl(["apply", "--server-side", "--field-manager=argocd-server", "-f", "-"], cartApplication("shop-cart", "staging"));
    await hubKubectl(["apply", "--server-side", "--field-manager=argocd-server", "-f", "-"], cartApplication("shop-cart-qa", "qa"));
    // The environment's cluster: what Argo CD applied of the cart, with its tracking label.
    await kubectl(["create", "namespace", "shop"]);
    const rendered = ["deployment.yaml", "service.yaml", "settings.yaml"].map((f) => fs.readFileSync(path.join(ESTATE, "services/cart/staging", f), "utf8")).join("\n---\n");
    await kubectl(["apply", "--server-side", "--field-manager=argocd-controller", "-n", "shop", "-f", "-"], rendered);
    await kubectl(["label", "-n", "shop", "deployment/cart", "service/cart", "configmap/cart-settings", "app.kubernetes.io/instance=shop-cart"]);
    config = parseConfig(
      stringify({
        repositories: [{ name: "app-of-apps", url: repo.dir, aliases: [ESTATE_URL] }],
        environments: [
          {
            name: "staging",
            cluster: { kubeconfig: cluster.kubeconfigPath, context: "t-readonly" },
            extraKinds: [],
            discover: { argocd: { hub: { kubeconfig: hub.kubeconfigPath }, destination: { name: "staging" } } },
          },
        ],
      }),
    );
    await resetDatabase(db);
  }, 120_000);
  afterEach(async () => {
    await cluster?.release();
    await hub?.stop();
    cluster = undefined;
    hub = undefined;
    repo.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  describe("an environment whose Argo CD runs in a hub cluster", () => {
    it("collects the hub's Applications for its destination, their status read in the hub, their objects here", async () => {
      const first = await runCollection(db, config, path.join(dir, "mirrors"), "staging");
      expect(first.errors.filter((e) => e.severity !== "warning")).toEqual([]);
      // The Application for another cluster is reported, not collected.
      expect(first.errors.map((e) => e.message)).toEqual([expect.stringContaining("argocd/shop-cart-qa → qa")]);
      const apps = await applicationsByName(db);
      expect([...apps.keys()]).toEqual(["argocd/shop-cart"]);
      const cart = apps.get("argocd/shop-cart");
      expect(cart).toMatchObject({ kind: "argocd-application", controllerRef: { type: "argocd", kind: "Application", namespace: "argocd", name: "shop-cart", hub: true }, lastError: null });
      // Found in the hub (the environment's cluster has no Argo CD at all).
      expect(cart?.controller).toMatchObject({ type: "argocd", found: true });
      expect(cart?.objectCount).toBeGreaterThan(0);
      expect(first.stats).toMatchObject({ drift: { Modified: 0, Missing: 0, Extra: 0 } });

      // A hand edit in the environment's cluster is that application's drift, attributed.
      await kubectl(["-n", "shop", "scale", "deployment", "cart", "--replicas=4"]);
      const second = await runCollection(db, config, path.join(dir, "mirrors"), "staging");
      expect(second.stats).toMatchObject({ drift: { Modified: 1, Missing: 0, Extra: 0 } });
      expect(await db.driftItem.findMany({ where: { resolvedAt: null }, select: { key: true, applicationId: true, attributionManager: true } })).toEqual([
        { key: "apps/Deployment/shop/cart", applicationId: cart?.id, attributionManager: "kubectl" },
      ]);

      // Pausing it is recorded, not performed: the environment's credentials do not reach the hub.
      expect(await pausePolicy(db, "staging", "argocd/shop-cart")).toMatchObject({ executes: false, controllerRef: "Application/argocd/shop-cart" });
      const user = await db.user.create({ data: { username: "olivia", role: "operator", displayName: "Olivia" } });
      await createPause(db, "staging", { application: "argocd/shop-cart", reason: "hub maintenance", duration: "1h" }, { type: "user", id: user.id, name: "olivia" });
      expect(await db.pause.findFirstOrThrow()).toMatchObject({ executed: false, controllerRef: "Application/argocd/shop-cart" });
      expect(await hubKubectl(["-n", "argocd", "get", "application", "shop-cart", "-o", "jsonpath={.spec.syncPolicy.automated.selfHeal}"])).toBe("true");
    }, 120_000);

    it("a hub that cannot be reached fails the run with that reason and keeps what was known", async () => {
      await runCollection(db, config, path.join(dir, "mirrors"), "staging");
      await hub?.stop();
      const out = await runCollection(db, config, path.join(dir, "mirrors"), "staging");
      expect(out.status).toBe("failed");
      expect(out.errors[0]?.message).toMatch(/^the Argo CD hub: /);
      expect((await applicationsByName(db)).get("argocd/shop-cart")).toMatchObject({ removedAt: null });
    }, 120_000);
  });
});
