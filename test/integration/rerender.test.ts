// Issue 19 on a real estate: Flux reports the repository's new head as every
// Kustomization's lastAppliedRevision after each push, so every application's
// compared revision moves. A push that touched one application's folder must
// render that application only (kustomize builds are what a run of hundreds
// of applications spends its time on), while every application's desired
// rows name the new revision and drift stays right. The Flux fleet's
// production cluster (test/fixtures/estates/flux-fleet) in a real Git
// repository, its Flux objects and what Flux applied of them in the cluster.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { endCase, startClusterServer, type ClusterServer, type TestCluster } from "../support/clusters";
import { FLUX_FLEET as FLEET, installControllerCrds, kubectlFor } from "../support/estate-kube";
import { applicationsByName, runCollection } from "../support/collector-env";
import { TestRepo } from "@/lib/git/test-support/repo-fixture";
import { endFleetCase, startFleetCase } from "../support/fleet-case";
import { parseConfig, type DriftwatchConfig } from "@/lib/config";
import { getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { rendersRunCount } from "@/lib/git/render";

const KUSTOMIZATIONS = ["flux-system", "infra-controllers", "infra-configs", "apps", "shop-api", "shop-cart", "shop-web", "shop-worker"];

const db = getPrisma();
let server: ClusterServer | undefined;
let dir: string;
let cluster: TestCluster | undefined;
let fleet: TestRepo;
let config: DriftwatchConfig;
const kubectl = kubectlFor(() => cluster);

/** What Flux reports after reconciling a push: the repository's head, for every Kustomization of it. */
async function fluxAppliedEverywhere(sha: string): Promise<void> {
  const status = JSON.stringify({ status: { lastAppliedRevision: `main@sha1:${sha}` } });
  for (const name of KUSTOMIZATIONS) await kubectl(["-n", "flux-system", "patch", "kustomization", name, "--subresource=status", "--type=merge", "-p", status]);
}

const run = () => runCollection(db, config, path.join(dir, "mirrors"), "production");

/** A collection run after `push` (a commit) once Flux applied it everywhere: the renders it ran, and its result. */
async function runAfterPush(push: () => string) {
  const head = push();
  await fluxAppliedEverywhere(head);
  const before = rendersRunCount();
  const result = await run();
  return { head, renders: rendersRunCount() - before, result };
}

/** The revisions the desired rows name, each once. */
async function desiredRevisions(): Promise<string[]> {
  return (await db.desiredObject.findMany({ distinct: ["revisionSha"], select: { revisionSha: true } })).map((r) => r.revisionSha ?? "");
}

beforeAll(async () => {
  server = await startClusterServer("kubesim");
}, 120_000);
afterAll(async () => {
  await server?.stop();
}, 60_000);

describe("a Flux estate", () => {
  beforeEach(async () => {
    ({ dir, cluster, fleet, config } = await startFleetCase(server!, "driftwatch-rerender-"));
    await fluxAppliedEverywhere(fleet.head());
    const first = await run();
    expect(first.stats).toMatchObject({ drift: { Modified: 0, Missing: 0, Extra: 0 } });
  }, 120_000);
  afterEach(async () => {
    await endFleetCase({ dir, cluster, fleet });
    cluster = undefined;
  }, 60_000);

  describe("a push Flux applied to every Kustomization of the repository", () => {
    it("renders only the applications whose files it touched; every application's desired state names the new revision; drift is the edit's only", async () => {
      // The cart's overlay asks for 4 replicas; the cluster still runs 3 (nobody applied it): Modified on the cart only.
      const { head, renders, result } = await runAfterPush(() => {
        fleet.write("apps/production/cart/kustomization.yaml", fs.readFileSync(path.join(FLEET, "apps/production/cart/kustomization.yaml"), "utf8").replace("count: 3", "count: 4"));
        return fleet.commit("cart: 4 replicas");
      });
      // shop-cart's folder, and apps' (apps/production holds it): two builds, not one per Kustomization.
      expect(renders).toBe(2);
      expect(result.stats).toMatchObject({ drift: { Modified: 1, Missing: 0, Extra: 0 } });
      const apps = await applicationsByName(db);
      const items = await db.driftItem.findMany({ where: { resolvedAt: null }, select: { key: true, type: true, applicationId: true } });
      expect(items).toEqual([{ key: "apps/Deployment/shop/cart", type: "Modified", applicationId: apps.get("flux-system/shop-cart")?.id }]);
      expect(await desiredRevisions()).toEqual([head]);
      for (const name of KUSTOMIZATIONS) expect(apps.get(`flux-system/${name}`), name).toMatchObject({ appliedSha: head, lastError: null });

      // A push touching no application's files: no build at all, every row names it.
      const quiet = await runAfterPush(() => {
        fleet.write("README.md", "# the fleet\n");
        return fleet.commit("readme");
      });
      expect(quiet.renders).toBe(0);
      expect(quiet.result.stats).toMatchObject({ drift: { Modified: 1, Missing: 0, Extra: 0 } });
      expect(await desiredRevisions()).toEqual([quiet.head]);
    }, 180_000);

    it("re-renders the overlay whose base outside its path changed, and nothing else", async () => {
      const { head, renders, result } = await runAfterPush(() => {
        const file = "apps/base/api/deployment.yaml";
        fleet.write(file, fs.readFileSync(path.join(FLEET, file), "utf8").replace(/^(\s*)labels:\n/m, "$1labels:\n$1  tier: backend\n"));
        return fleet.commit("api base: a label");
      });
      expect(renders).toBe(1);
      const apps = await applicationsByName(db);
      const items = await db.driftItem.findMany({ where: { resolvedAt: null }, select: { key: true, type: true, applicationId: true } });
      expect(items).toEqual([{ key: "apps/Deployment/shop/api", type: "Modified", applicationId: apps.get("flux-system/shop-api")?.id }]);
      expect(result.stats).toMatchObject({ drift: { Modified: 1, Missing: 0, Extra: 0 } });
      expect(await desiredRevisions()).toEqual([head]);
    }, 180_000);

    it("re-renders every application when a .sourceignore changed anywhere", async () => {
      const { renders, result } = await runAfterPush(() => {
        fleet.write("infrastructure/.sourceignore", "*.md\n");
        return fleet.commit("ignore readmes");
      });
      expect(renders).toBe(KUSTOMIZATIONS.length);
      expect(result.stats).toMatchObject({ drift: { Modified: 0, Missing: 0, Extra: 0 } });
    }, 180_000);
  });
});

/** An Argo CD Application on the shop repository's main branch, with kustomize options, synced at `revision`. */
async function argoApplication(name: string, kustomize: Record<string, unknown>, revision: string): Promise<void> {
  const application = {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name, namespace: "argocd" },
    spec: { project: "default", source: { repoURL: SHOP_URL, targetRevision: "main", path: `apps/${name}`, kustomize }, destination: { server: "https://kubernetes.default.svc", namespace: "shop" } },
  };
  await kubectl(["apply", "--server-side", "-f", "-"], stringify(application));
  await argoSynced(name, revision);
}

/** Argo CD's Application has no status subresource: the controller writes status as any field. */
async function argoSynced(name: string, revision: string): Promise<void> {
  await kubectl(["-n", "argocd", "patch", "application", name, "--type=merge", "-p", JSON.stringify({ status: { sync: { status: "Synced", revision } } })]);
}

/** What Argo CD applied of one application: its Deployment, the image tag its kustomize options set. */
async function argoApplied(name: string, tag: string): Promise<void> {
  await kubectl(["apply", "--server-side", "--field-manager=argocd-controller", "-f", "-"], stringify(deployment(`${name}-web`, `ghcr.io/acme/${name}:${tag}`, "shop")));
}

function deployment(name: string, image: string, namespace?: string): Record<string, unknown> {
  // The selector stays the repository's (a name prefix does not rename labels).
  const labels = { app: "web" };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: "web", image }] } } },
  };
}

const SHOP_URL = "https://git.example.com/acme/shop.git";

describe("an Argo CD estate whose kustomize options name the revision", () => {
  let shop: TestRepo;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-rerender-argo-"));
    cluster = await server!.forCase(dir);
    shop = TestRepo.create("rerender-argo");
    for (const name of ["steady", "revised"]) {
      shop.write(`apps/${name}/web.yaml`, stringify(deployment("web", `ghcr.io/acme/${name}:latest`)));
      shop.write(`apps/${name}/kustomization.yaml`, stringify({ apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization", namespace: "shop", resources: ["web.yaml"] }));
    }
    const head = shop.commit("two applications");
    config = parseConfig(
      stringify({
        repositories: [{ name: "shop", url: shop.dir, aliases: [SHOP_URL] }],
        environments: [{ name: "production", cluster: { kubeconfig: cluster.kubeconfigPath, context: "t-readonly" }, namespaces: ["shop"], extraKinds: [], discover: { argocd: { namespace: "argocd" } } }],
      }),
    );
    await resetDatabase(db);
    await installControllerCrds(kubectl, cluster);
    for (const ns of ["argocd", "shop"]) await kubectl(["create", "namespace", ns]);
    await argoApplication("steady", { namePrefix: "steady-", images: ["ghcr.io/acme/steady:1.0.0"] }, head);
    // Argo CD substitutes its build environment into images: the tag is the synced commit's.
    await argoApplication("revised", { namePrefix: "revised-", images: ["ghcr.io/acme/revised:${ARGOCD_APP_REVISION_SHORT}"] }, head);
    await argoApplied("steady", "1.0.0");
    await argoApplied("revised", head.slice(0, 7));
    const first = await run();
    expect(first.stats).toMatchObject({ drift: { Modified: 0, Missing: 0, Extra: 0 } });
  }, 120_000);
  afterEach(async () => {
    await endCase({ dir, cluster, repo: shop });
    cluster = undefined;
  }, 60_000);

  it("renders again the application whose render names the revision, on a push touching neither; the other keeps its render", async () => {
    shop.write("README.md", "# shop\n");
    const head = shop.commit("readme");
    // Argo CD syncs both at the new head; the image it applies is tagged with that revision.
    for (const name of ["steady", "revised"]) await argoSynced(name, head);
    await argoApplied("revised", head.slice(0, 7));
    const before = rendersRunCount();
    const result = await run();
    expect(rendersRunCount() - before).toBe(1);
    // Carried over, the old render would say the old revision: Modified.
    expect(result.stats).toMatchObject({ drift: { Modified: 0, Missing: 0, Extra: 0 } });
    expect(await desiredRevisions()).toEqual([head]);
  }, 120_000);
});
