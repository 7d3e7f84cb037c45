// Discovery of applications from the controller objects a cluster holds: the
// fixture estates (test/fixtures/estates) applied with kubectl as a user
// would, Flux's real CRDs and Argo CD's Application CRD, read with the
// collector's own read-only credential. On the imitation and on a real
// kube-apiserver, with the same assertions.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { discoverApplications, type DiscoverConfig, type DiscoveryOutcome, type DiscoveryTarget, type RepositoryCatalog } from "@/lib/applications";
import { discoverSchema } from "@/lib/applications/discovery-config";
import { discover } from "@/lib/kube/discovery";
import { forEachCluster, type TestCluster } from "../support/clusters";
import { runProcess } from "../support/run-process";
import { requiredKubectl } from "../support/required-tools";
import { collectorReader, ESTATES, installControllerCrds, kubectlFor } from "../support/estate-kube";

const FLUX_FLEET = path.join(ESTATES, "flux-fleet");
const APP_OF_APPS = path.join(ESTATES, "argocd-app-of-apps");
const kubectlBin = requiredKubectl();

const catalog: RepositoryCatalog = {
  repositories: [{ name: "app-of-apps", url: "git@git.example.com:acme/argocd-app-of-apps", auth: { type: "ssh", keyFile: "/keys/deploy" } }],
  credentials: [{ urlPrefix: "https://git.example.com/acme", auth: { type: "token", tokenEnv: "ACME_TOKEN", username: "x-access-token" } }],
};

function target(environment: string, discover: unknown): DiscoveryTarget {
  return { environment, discover: discoverSchema.parse(discover) as DiscoverConfig };
}

let cluster: TestCluster | undefined;
let dir = "";

const kubectl = kubectlFor(() => cluster, kubectlBin);

/** Flux's CRDs and Argo CD's Application CRD, served once discovery (as the collector sees it) lists them. */
async function installControllersCrds(): Promise<void> {
  if (!cluster) throw new Error("no cluster");
  await installControllerCrds(kubectl, cluster);
}

function reader() {
  if (!cluster) throw new Error("no cluster");
  return collectorReader(cluster);
}

async function run(targets: DiscoveryTarget[]): Promise<DiscoveryOutcome> {
  const client = reader();
  return discoverApplications(client, await discover(client), targets, catalog);
}

const names = (outcome: DiscoveryOutcome, env: string) => (outcome.applications.get(env) ?? []).map((a) => a.name);

/** The production cluster of the Flux fleet, as it stands once `flux-system` and `apps` have reconciled. */
async function applyFluxProduction(): Promise<void> {
  await kubectl(["create", "namespace", "flux-system"]);
  await kubectl(["apply", "-k", path.join(FLUX_FLEET, "clusters/production")]);
  await kubectl(["apply", "-k", path.join(FLUX_FLEET, "infrastructure/controllers")]);
  await kubectl(["apply", "-k", path.join(FLUX_FLEET, "apps/production")]);
}

async function applyAppOfApps(): Promise<void> {
  await kubectl(["create", "namespace", "argocd"]);
  await kubectl(["apply", "-f", path.join(APP_OF_APPS, "root.yaml")]);
  await kubectl(["apply", "-f", path.join(APP_OF_APPS, "apps")]);
}

function hubApplication(name: string, destination: Record<string, string>): string {
  return JSON.stringify({
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name, namespace: "argocd" },
    spec: { project: "default", source: { repoURL: "https://git.example.com/acme/shop.git", targetRevision: "main", path: `envs/${name}` }, destination: { ...destination, namespace: "shop" } },
  });
}

forEachCluster((server) => {
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "discovery-"));
    cluster = await server().forCase(dir);
  }, 60_000);
  afterEach(async () => {
    // Argo CD's resources finalizer is on the app-of-apps' children; with no Argo CD running to honour it,
    // the Applications (and so their CRD) would never finish deleting.
    const apps = cluster ? await kubectl(["get", "applications.argoproj.io", "-A", "-o", "jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {end}"]).catch(() => "") : "";
    for (const app of apps.split(" ").filter(Boolean)) {
      const [namespace = "", name = ""] = app.split("/");
      await kubectl(["-n", namespace, "patch", "application", name, "--type=merge", "-p", '{"metadata":{"finalizers":null}}']);
    }
    await cluster?.release();
    cluster = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  describe("discovery", () => {
    it("a cluster without Flux or Argo CD has no applications, and nothing to warn about", async () => {
      const outcome = await run([target("production", { flux: {}, argocd: {} })]);
      expect(outcome.applications.get("production")).toEqual([]);
      expect(outcome.warnings).toEqual([]);
      expect(outcome.unlisted).toEqual([]);
    });

    it("the Flux fleet's production cluster: every Kustomization and the HelmRelease, with their sources", async () => {
      await installControllersCrds();
      await applyFluxProduction();
      const outcome = await run([target("production", { flux: {} })]);
      expect(outcome.warnings).toEqual([]);
      expect(names(outcome, "production")).toEqual([
        "flux-system/apps",
        "flux-system/flux-system",
        "flux-system/infra-configs",
        "flux-system/infra-controllers",
        "flux-system/shop-api",
        "flux-system/shop-cart",
        "flux-system/shop-web",
        "flux-system/shop-worker",
        "ingress-nginx/ingress-nginx",
      ]);
      const byName = new Map((outcome.applications.get("production") ?? []).map((a) => [a.name, a]));
      expect(byName.get("flux-system/shop-api")).toMatchObject({
        kind: "flux-kustomization",
        promotionKey: "api",
        controller: { type: "flux", kind: "Kustomization", namespace: "flux-system", name: "shop-api" },
        // Not declared in repositories:, covered by the credential prefix.
        sources: [{ url: "https://git.example.com/acme/flux-fleet.git", repository: "auto-git-example-com-acme-flux-fleet", ref: { branch: "main" }, path: "apps/production/api", render: "kustomize" }],
        labels: { "fleet.acme.io/layer": "apps" },
      });
      expect(byName.get("flux-system/infra-configs")?.sources[0]?.path).toBe("infrastructure/configs");
      expect(byName.get("ingress-nginx/ingress-nginx")).toMatchObject({
        kind: "flux-helmrelease",
        promotionKey: "ingress-nginx",
        sources: [{ url: "https://kubernetes.github.io/ingress-nginx", ref: { semver: "4.11.x" }, path: ".", render: "helm", chart: "ingress-nginx" }],
      });
      expect(byName.get("ingress-nginx/ingress-nginx")?.sources[0]?.repository).toBeUndefined();
    });

    it("include, exclude and label selectors pick an environment's applications from the same pass", async () => {
      await installControllersCrds();
      await applyFluxProduction();
      const outcome = await run([
        target("apps-only", { flux: { labelSelector: "fleet.acme.io/layer=apps", exclude: ["shop-cart"] } }),
        target("infrastructure", { flux: { include: ["infra-*", "ingress-nginx/*"] } }),
        target("helm-namespace", { flux: { namespaces: ["ingress-nginx"] } }),
      ]);
      expect(names(outcome, "apps-only")).toEqual(["flux-system/apps", "flux-system/shop-api", "flux-system/shop-web", "flux-system/shop-worker"]);
      expect(names(outcome, "infrastructure")).toEqual(["flux-system/infra-configs", "flux-system/infra-controllers", "ingress-nginx/ingress-nginx"]);
      // Its HelmRepository is found although only the release's namespace is listed.
      expect(outcome.applications.get("helm-namespace")?.map((a) => [a.name, a.sources.length])).toEqual([["ingress-nginx/ingress-nginx", 1]]);
    });

    it("the Argo CD app-of-apps: the root and its four children, kustomize and directory sources", async () => {
      await installControllersCrds();
      await applyAppOfApps();
      const outcome = await run([target("staging", { argocd: {} })]);
      expect(outcome.warnings).toEqual([]);
      const apps = outcome.applications.get("staging") ?? [];
      expect(apps.map((a) => [a.name, a.promotionKey, a.sources.map((s) => `${s.render} ${s.path} ${JSON.stringify(s.ref)}`).join()])).toEqual([
        ["argocd/root", "root", 'plain apps {"branch":"main"}'],
        ["argocd/shop-api", "api", 'kustomize services/api/staging {"branch":"main"}'],
        ["argocd/shop-cart", "cart", 'plain services/cart/staging {"branch":"main"}'],
        ["argocd/shop-web", "web", 'kustomize services/web/staging {"branch":"main"}'],
        ["argocd/shop-worker", "worker", 'plain services/worker/staging {"branch":"main"}'],
      ]);
      // Declared with the ssh spelling; the Applications name it over https.
      expect(new Set(apps.flatMap((a) => a.sources.map((s) => s.repository)))).toEqual(new Set(["app-of-apps"]));
      expect(apps[1]?.destination).toEqual({ server: "https://kubernetes.default.svc", namespace: "shop" });
    });

    it("a hub deploying to two clusters: each Application goes to the environment its destination names, the rest are reported", async () => {
      await installControllersCrds();
      await kubectl(["create", "namespace", "argocd"]);
      await kubectl(["apply", "-f", "-"], hubApplication("shop-staging", { name: "staging" }));
      await kubectl(["apply", "-f", "-"], hubApplication("shop-production", { server: "https://prod.k8s.example.com:6443" }));
      await kubectl(["apply", "-f", "-"], hubApplication("shop-production-eu", { server: "https://prod.k8s.example.com:6443/" }));
      await kubectl(["apply", "-f", "-"], hubApplication("shop-qa", { name: "qa" }));
      const outcome = await run([
        target("staging", { argocd: { destination: { name: "staging" } } }),
        target("production", { argocd: { destination: { server: "https://prod.k8s.example.com:6443" } } }),
      ]);
      expect(names(outcome, "staging")).toEqual(["argocd/shop-staging"]);
      expect(names(outcome, "production")).toEqual(["argocd/shop-production", "argocd/shop-production-eu"]);
      expect(outcome.unmatched).toEqual([{ controller: { type: "argocd", kind: "Application", namespace: "argocd", name: "shop-qa" }, destination: { name: "qa", namespace: "shop" } }]);
      expect(outcome.warnings.map((w) => w.code)).toEqual(["unmatched-destination"]);
      expect(outcome.warnings[0]?.message).toContain("argocd/shop-qa → qa");
    });

    it("an application whose controller object is deleted disappears from the next discovery", async () => {
      await installControllersCrds();
      await applyFluxProduction();
      await applyAppOfApps();
      const targets = [target("production", { flux: {}, argocd: {} })];
      const before = names(await run(targets), "production");
      expect(before).toContain("flux-system/shop-cart");
      expect(before).toContain("argocd/shop-cart");
      await kubectl(["-n", "flux-system", "delete", "kustomization", "shop-cart"]);
      // The child Applications carry Argo CD's resources finalizer; with no Argo CD running, it is taken off by hand.
      await kubectl(["-n", "argocd", "patch", "application", "shop-cart", "--type=merge", "-p", '{"metadata":{"finalizers":null}}']);
      await kubectl(["-n", "argocd", "delete", "application", "shop-cart"]);
      const after = names(await run(targets), "production");
      expect(before.filter((n) => !after.includes(n))).toEqual(["argocd/shop-cart", "flux-system/shop-cart"]);
    });

    it("a kind the credential may not list is a warning, and its applications are unknown rather than gone", async () => {
      await installControllersCrds();
      await applyFluxProduction();
      await cluster?.faults.forbid("helmreleases", "helm.toolkit.fluxcd.io");
      const outcome = await run([target("production", { flux: {} })]);
      expect(names(outcome, "production")).not.toContain("ingress-nginx/ingress-nginx");
      expect(names(outcome, "production")).toHaveLength(8);
      expect(outcome.unlisted).toEqual([{ kind: "HelmRelease", namespace: null, reason: expect.any(String) }]);
      expect(outcome.warnings).toEqual([{ code: "forbidden", message: expect.stringMatching(/^cannot list helmreleases\.helm\.toolkit\.fluxcd\.io in any namespace: .*grant list/) }]);
    });

    it("a source kind the credential may not list: the applications stay, each saying its source could not be read", async () => {
      await installControllersCrds();
      await applyFluxProduction();
      await cluster?.faults.forbid("gitrepositories", "source.toolkit.fluxcd.io");
      const outcome = await run([target("production", { flux: {} })]);
      const apps = outcome.applications.get("production") ?? [];
      expect(apps).toHaveLength(9);
      expect(apps.filter((a) => a.sources.length === 0).map((a) => a.name)).toHaveLength(8);
      expect(outcome.unlisted).toEqual([]);
      expect(new Set(outcome.warnings.map((w) => w.code))).toEqual(new Set(["source"]));
      expect(outcome.warnings.find((w) => w.controller?.name === "shop-api")?.message).toBe(
        "Kustomization flux-system/shop-api: its source GitRepository flux-system/flux-system could not be read (the credential may not list GitRepository there)",
      );
    });
  });
});

describe("the fixture estates", () => {
  const folders = (root: string) =>
    fs
      .readdirSync(root, { recursive: true, encoding: "utf8" })
      .filter((f) => path.basename(f) === "kustomization.yaml")
      .map((f) => path.dirname(f))
      .sort();

  it("every kustomization in them builds with kustomize", async () => {
    const built: string[] = [];
    for (const [estate, root] of [["flux-fleet", FLUX_FLEET], ["argocd-app-of-apps", APP_OF_APPS]] as const) {
      for (const folder of folders(root)) {
        const r = await runProcess(kubectlBin, ["kustomize", path.join(root, folder)]);
        expect(r.status, `${estate}/${folder}: ${r.stderr}`).toBe(0);
        expect(parseAllDocuments(r.stdout).length).toBeGreaterThan(0);
        built.push(`${estate}/${folder}`);
      }
    }
    expect(built).toHaveLength(20);
  });

  it("every YAML file in them parses, and each estate stays small", () => {
    for (const root of [FLUX_FLEET, APP_OF_APPS]) {
      const files = fs.readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".yaml"));
      for (const f of files) {
        const docs = parseAllDocuments(fs.readFileSync(path.join(root, f), "utf8"));
        expect(docs.flatMap((d) => d.errors), f).toEqual([]);
      }
      const bytes = files.reduce((n, f) => n + fs.statSync(path.join(root, f)).size, 0);
      expect(bytes).toBeLessThan(16_000);
    }
  });
});
