// An Argo CD Helm source through renderManifests, with the real (pinned) helm
// and real git: the objects are what `helm template` with Argo CD's
// arguments gives, hooks left out, and what the chart may read is checked.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { ControllerRender } from "@/lib/git/controller-render";
import { syncMirror } from "@/lib/git/mirror";
import { renderManifests, RenderRefusedError, type RenderOptions } from "@/lib/git/render";
import { TestRepo, tempDir } from "@/lib/git/test-support/repo-fixture";
import { requiredHelm } from "@/test/support/required-tools";
import { CAPABILITY_TEMPLATES, SHOP_DEPLOYMENT } from "./test-support/charts";

const helmBin = requiredHelm();

const CHART = {
  "charts/shop/Chart.yaml": "apiVersion: v2\nname: shop\nversion: 1.4.0\nappVersion: \"2.0\"\n",
  "charts/shop/values.yaml": "replicaCount: 1\nimage: {repository: ghcr.io/example/shop, tag: \"1.0\"}\nlabels: {}\n",
  "charts/shop/values-prod.yaml": "replicaCount: 3\n",
  "charts/shop/crds/widgets.yaml": "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]\n",
  "charts/shop/templates/deployment.yaml": SHOP_DEPLOYMENT,
  ...Object.fromEntries(Object.entries(CAPABILITY_TEMPLATES).map(([f, t]) => [`charts/shop/templates/${f}`, t])),
  "env/prod.yaml": "labels: {tier: prod}\nimage: {tag: \"1.1\"}\n",
};

let repo: TestRepo;
let mirrors: string;
let mirror: string;
let sha: string;

const argo = (helm: NonNullable<Extract<ControllerRender, { type: "argocd" }>["helm"]>): ControllerRender => ({ type: "argocd", helm, env: { appName: "shop-prod", appNamespace: "shop" } });
const cluster = { kubeVersion: "v1.34.4", apiVersions: ["apps/v1", "apps/v1/Deployment", "policy/v1", "policy/v1/PodDisruptionBudget", "v1", "v1/Pod"] };
const options = (controller: ControllerRender, extra: Partial<RenderOptions> = {}): RenderOptions => ({ path: "charts/shop", mode: "helm", defaultNamespace: "default", controller, helm: { bin: helmBin, cluster }, ...extra });
const byKey = (objs: Array<{ object: Record<string, unknown> }>) => Object.fromEntries(objs.map((o) => [`${String(o.object.kind)}/${String((o.object.metadata as { name: string }).name)}`, o.object]));

beforeAll(async () => {
  repo = TestRepo.create("helm-render");
  for (const [file, text] of Object.entries(CHART)) repo.write(file, text);
  sha = repo.commit("shop chart");
  mirrors = tempDir("helm-mirrors");
  mirror = (await syncMirror({ name: "shop", url: repo.dir, auth: { type: "none" } }, mirrors)).mirrorPath;
});

afterAll(() => {
  rmSync(repo.dir, { recursive: true, force: true });
  rmSync(mirrors, { recursive: true, force: true });
});

describe("Argo CD Helm source (real helm)", () => {
  it("renders what helm template with Argo CD's arguments renders: value files in order, parameters, inline values, capabilities, CRDs; hooks left out", async () => {
    const controller = argo({ valueFiles: ["values-prod.yaml", "../../env/prod.yaml"], parameters: [{ name: "image.repository", value: "registry.local/shop" }], valuesObject: { labels: { tier: "prod", team: "web" } } });
    const result = await renderManifests(mirror, sha, options(controller));
    const objects = byKey(result.objects);
    expect(Object.keys(objects).sort()).toEqual(["CustomResourceDefinition/widgets.example.com", "Deployment/shop-prod", "PodDisruptionBudget/shop-prod"]);
    const deployment = objects["Deployment/shop-prod"] as { metadata: Record<string, unknown>; spec: { replicas: number; template: { spec: { containers: Array<{ image: string }> } } } };
    expect(deployment.metadata).toMatchObject({ namespace: "shop", labels: { tier: "prod", team: "web" }, annotations: { "kube-version": "v1.34.4" } });
    // lookup answers nothing: no cluster is reachable from the render.
    expect(deployment.metadata.annotations).not.toHaveProperty("looked-up");
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.spec.template.spec.containers[0]!.image).toBe("registry.local/shop:1.1");
    expect(result.objects.find((o) => o.object.kind === "Deployment")!.sourcePath).toBe("charts/shop/templates/deployment.yaml");
    expect(result.inputs).toEqual(expect.arrayContaining(["charts/shop/Chart.yaml", "charts/shop/values-prod.yaml", "env/prod.yaml"]));

    // The same chart through helm directly, with the arguments Argo CD builds (less the hook it applies at sync time).
    const dir = tempDir("helm-direct");
    repo.git("--work-tree", dir, "checkout", sha, "--", ".");
    const inline = path.join(dir, "inline.yaml");
    execFileSync("sh", ["-c", `printf 'labels:\\n  team: web\\n  tier: prod\\n' > ${inline}`]);
    const out = execFileSync(helmBin, ["template", ".", "--name-template", "shop-prod", "--namespace", "shop", "--kube-version", "v1.34.4", "--set", "image.repository=registry.local/shop", "--values", path.join(dir, "charts/shop/values-prod.yaml"), "--values", path.join(dir, "env/prod.yaml"), "--values", inline, ...cluster.apiVersions.flatMap((v) => ["--api-versions", v]), "--include-crds"], { cwd: path.join(dir, "charts/shop"), encoding: "utf8", env: { NODE_ENV: process.env.NODE_ENV, PATH: process.env.PATH, HOME: dir } });
    const direct = parseAllDocuments(out).map((d) => d.toJS() as Record<string, unknown>).filter((o) => o && !JSON.stringify(o).includes("helm.sh/hook"));
    rmSync(dir, { recursive: true, force: true });
    expect(result.objects.map((o) => o.object).sort((a, b) => String(a.kind).localeCompare(String(b.kind)))).toEqual(
      direct.map((o) => (o.kind === "PodDisruptionBudget" ? { ...o, metadata: { ...(o.metadata as object), namespace: "shop" } } : o)).sort((a, b) => String(a.kind).localeCompare(String(b.kind))),
    );
  });

  it("follows releaseName, skipCrds, forceString and the cluster's API versions (no PDB where policy/v1 is not served)", async () => {
    const controller = argo({ releaseName: "storefront", skipCrds: true, parameters: [{ name: "image.tag", value: "0123", forceString: true }] });
    const result = await renderManifests(mirror, sha, options(controller, { helm: { bin: helmBin, cluster: { kubeVersion: "v1.30.2", apiVersions: ["apps/v1", "v1"] } } }));
    const objects = byKey(result.objects);
    expect(Object.keys(objects).sort()).toEqual(["Deployment/storefront"]);
    expect((objects["Deployment/storefront"] as { spec: { template: { spec: { containers: Array<{ image: string }> } } } }).spec.template.spec.containers[0]!.image).toBe("ghcr.io/example/shop:0123");
  });

  it("refuses a values file outside the repository, and a missing one unless ignoreMissingValueFiles", async () => {
    await expect(renderManifests(mirror, sha, options(argo({ valueFiles: ["../../../etc/passwd"] })))).rejects.toBeInstanceOf(RenderRefusedError);
    await expect(renderManifests(mirror, sha, options(argo({ valueFiles: ["missing.yaml"] })))).rejects.toThrow(/does not exist/);
    const ok = await renderManifests(mirror, sha, options(argo({ valueFiles: ["missing.yaml"], ignoreMissingValueFiles: true })));
    expect(ok.objects.length).toBeGreaterThan(0);
  });

  it("says which template failed when helm does", async () => {
    repo.write("charts/shop/templates/broken.yaml", "{{ .Values.nope.deeper }}\n");
    const broken = repo.commit("broken template");
    const m = (await syncMirror({ name: "shop", url: repo.dir, auth: { type: "none" } }, mirrors)).mirrorPath;
    await expect(renderManifests(m, broken, options(argo({})))).rejects.toThrow(/helm template failed: .*templates\/broken\.yaml/);
    repo.remove("charts/shop/templates/broken.yaml");
    repo.commit("fixed");
  });
});
