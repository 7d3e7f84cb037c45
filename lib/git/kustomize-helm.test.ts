// kustomize `helmCharts`, rendered as Argo CD renders them (`kustomize build
// --enable-helm` with the cluster's --helm-kube-version/--helm-api-versions),
// with the real kustomize, the real (pinned) helm and real git: a chart
// committed under chartHome, and one from a chart repository served on
// 127.0.0.1 that Driftwatch fetches and verifies itself. Anything that would
// let the build leave the repository or run another program is refused.
import { spawnSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { helmRepositorySchema } from "@/lib/config/schema";
import { fetchChart } from "@/lib/helm/chart-fetch";
import { writeKustomizeHelmCommand } from "@/lib/helm/helm-binary";
import { startHelmChartRepo, type HelmChartRepo } from "@/test/support/helm-chart-repo";
import { requiredHelm, requiredKustomize } from "@/test/support/required-tools";
import { CAPABILITY_TEMPLATES, SHOP_DEPLOYMENT } from "@/lib/helm/test-support/charts";
import type { ControllerRender } from "./controller-render";
import { syncMirror } from "./mirror";
import { renderManifests, RenderRefusedError, type HelmSourceContext, type RenderOptions } from "./render";
import { TestRepo, tempDir } from "./test-support/repo-fixture";

const helmBin = requiredHelm();
const kustomize = requiredKustomize();

const CHART = {
  "Chart.yaml": "apiVersion: v2\nname: shop\nversion: 1.4.0\n",
  "values.yaml": "replicaCount: 1\nlabels: {}\nimage: {repository: ghcr.io/example/shop, tag: \"1.0\"}\n",
  "crds/widgets.yaml":
    "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]\n",
  "templates/deployment.yaml": SHOP_DEPLOYMENT,
  ...Object.fromEntries(Object.entries(CAPABILITY_TEMPLATES).map(([f, t]) => [`templates/${f}`, t])),
};

const LOCAL_KUSTOMIZATION = `namespace: shop
helmCharts:
- name: shop
  releaseName: storefront
  namespace: shop
  valuesFile: values/prod.yaml
  additionalValuesFiles: [extra-values.yaml]
  valuesInline: {labels: {team: web}}
  includeCRDs: true
resources: [config.yaml]
`;

const cluster = { kubeVersion: "v1.34.4+k3s1", apiVersions: ["apps/v1", "apps/v1/Deployment", "policy/v1", "policy/v1/PodDisruptionBudget", "v1"] };
const argo: ControllerRender = { type: "argocd", env: { appName: "shop-prod", appNamespace: "argocd" } };

let work: string;
let repo: TestRepo;
let mirrors: string;
let mirror: string;
let sha: string;
let server: HelmChartRepo;

const byKey = (objs: Array<{ object: Record<string, unknown> }>) => Object.fromEntries(objs.map((o) => [`${String(o.object.kind)}/${String((o.object.metadata as { name: string }).name)}`, o.object]));

function helmContext(extra: Partial<HelmSourceContext> = {}): HelmSourceContext {
  const repositories = [helmRepositorySchema.parse({ name: "charts", url: server.url })];
  return { bin: helmBin, cluster, fetchChart: (ref) => fetchChart(ref, { repositories, cacheDir: path.join(work, "chart-cache") }), ...extra };
}

const options = (p: string, extra: Partial<RenderOptions> = {}): RenderOptions => ({ path: p, mode: "kustomize", defaultNamespace: "default", kustomizeBin: kustomize.file, controller: argo, helm: helmContext(), ...extra });

beforeAll(async () => {
  work = tempDir("kustomize-helm");
  server = await startHelmChartRepo([
    { name: "web", version: "2.3.0", values: "greeting: hello\n", templates: { "cm.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "{{ .Release.Name }}-web"}\ndata: {greeting: "{{ .Values.greeting }}", chart: "{{ .Chart.Version }}"}\n` } },
  ]);
  repo = TestRepo.create("kustomize-helm");
  for (const [file, text] of Object.entries(CHART)) repo.write(`apps/local/charts/shop/${file}`, text);
  repo.write("apps/local/kustomization.yaml", LOCAL_KUSTOMIZATION);
  repo.write("apps/local/extra-values.yaml", "image: {tag: \"1.7\"}\n");
  repo.write("apps/local/config.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shop-settings}\ndata: {mode: prod}\n");
  repo.write("apps/local/values/prod.yaml", "replicaCount: 3\nlabels: {tier: prod}\n");
  repo.write("apps/remote/kustomization.yaml", `helmCharts:\n- name: web\n  repo: ${server.url}\n  version: 2.3.0\n  releaseName: greeter\n  valuesInline: {greeting: bonjour}\n`);
  repo.write("apps/remote-range/kustomization.yaml", `helmCharts:\n- name: web\n  repo: ${server.url}\n  version: ^2.0.0\n  releaseName: ranged\n`);
  repo.write("apps/unconfigured/kustomization.yaml", "helmCharts:\n- name: redis\n  repo: https://charts.example.invalid\n  version: 19.0.0\n");
  repo.write("hostile/values-outside/kustomization.yaml", "helmCharts:\n- name: shop\n  valuesFile: ../../../../etc/passwd\n");
  repo.write("hostile/chart-home/kustomization.yaml", "helmGlobals: {chartHome: ../../../../../tmp}\nhelmCharts:\n- name: shop\n");
  repo.write("hostile/post-renderer/kustomization.yaml", "helmCharts:\n- name: shop\n  releaseName: --post-renderer=/bin/sh\n");
  repo.write("hostile/config-home/kustomization.yaml", "helmGlobals: {chartHome: ../../apps/local/charts, configHome: /root/.config/helm}\nhelmCharts:\n- name: shop\n");
  repo.write("hostile/plugin/kustomization.yaml", "generators: [inflate.yaml]\n");
  repo.write("hostile/plugin/inflate.yaml", "apiVersion: builtin\nkind: HelmChartInflationGenerator\nmetadata: {name: x}\nchartName: shop\nhelmBin: /bin/sh\n");
  repo.write("hostile/legacy/kustomization.yaml", "helmChartInflationGenerator:\n- chartName: shop\n  helmBin: /bin/sh\n");
  sha = repo.commit("helmCharts");
  mirrors = tempDir("kustomize-helm-mirrors");
  mirror = (await syncMirror({ name: "shop", url: repo.dir, auth: { type: "none" } }, mirrors)).mirrorPath;
});

afterAll(async () => {
  await server.close();
  for (const d of [work, repo.dir, mirrors]) rmSync(d, { recursive: true, force: true });
});

describe("kustomize helmCharts as Argo CD renders them (real kustomize and helm)", () => {
  it("inflates a chart committed under chartHome: release name and namespace, valuesInline merged over valuesFile, then additionalValuesFiles, CRDs, the cluster's version and API versions; hooks left out", async () => {
    const result = await renderManifests(mirror, sha, options("apps/local"));
    const objects = byKey(result.objects);
    expect(Object.keys(objects).sort()).toEqual(["ConfigMap/shop-settings", "CustomResourceDefinition/widgets.example.com", "Deployment/storefront", "PodDisruptionBudget/storefront"]);
    const deployment = objects["Deployment/storefront"] as { metadata: Record<string, unknown>; spec: { replicas: number; template: { spec: { containers: Array<{ image: string }> } } } };
    // Argo CD hands kustomize vMAJOR.MINOR.PATCH of the cluster's version.
    // kustomize's default valuesMerge ("override") merges valuesInline over valuesFile, map by map.
    expect(deployment.metadata).toMatchObject({ namespace: "shop", labels: { tier: "prod", team: "web" }, annotations: { "kube-version": "v1.34.4" } });
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.spec.template.spec.containers[0]!.image).toBe("ghcr.io/example/shop:1.7");
    expect(result.inputs).toEqual(expect.arrayContaining(["apps/local/charts/shop/Chart.yaml", "apps/local/charts/shop/templates/deployment.yaml", "apps/local/values/prod.yaml", "apps/local/extra-values.yaml"]));

    // Without policy/v1 among the cluster's API versions the chart leaves its PDB out, as it would under Argo CD.
    const older = await renderManifests(mirror, sha, options("apps/local", { helm: helmContext({ cluster: { kubeVersion: "v1.30.2", apiVersions: ["apps/v1", "v1"] } }) }));
    expect(Object.keys(byKey(older.objects)).sort()).toEqual(["ConfigMap/shop-settings", "CustomResourceDefinition/widgets.example.com", "Deployment/storefront"]);
  });

  it("inflates a chart from a chart repository that Driftwatch fetched and verified itself (kustomize and helm never pull)", async () => {
    const before = server.requests.length;
    const result = await renderManifests(mirror, sha, options("apps/remote"));
    expect(result.objects.map((o) => o.object)).toEqual([
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "greeter-web", namespace: "default" }, data: { greeting: "bonjour", chart: "2.3.0" } },
    ]);
    expect(server.requests.slice(before)).toEqual(["index.yaml", "web-2.3.0.tgz"]);
    // The verified archive is kept by its digest: a second render of the version reads the copy.
    expect(readdirSync(path.join(work, "chart-cache")).filter((f) => f.endsWith(".tgz"))).toEqual([expect.stringMatching(/^sha256-[0-9a-f]{64}\.tgz$/)]);
  });

  it("reuses a render whose charts are pinned to a version, and never one whose chart a range picks (a newer chart may be published)", async () => {
    const pinned = await renderManifests(mirror, sha, options("apps/remote"));
    expect(pinned.remoteBases).toEqual([]);
    // Pinned, yet not in the Git tree: named, so a later commit never carries this render over (render-reuse.ts).
    expect(pinned.fetchedCharts).toEqual([`helm chart web 2.3.0 from ${server.url}`]);
    const again = await renderManifests(mirror, sha, options("apps/remote"));
    expect(again.cached).toBe(true);
    expect(again.fetchedCharts).toEqual(pinned.fetchedCharts);
    const ranged = await renderManifests(mirror, sha, options("apps/remote-range"));
    expect(ranged.objects.map((o) => (o.object.metadata as { name: string }).name)).toEqual(["ranged-web"]);
    expect(ranged.remoteBases).toEqual([`helm chart web ^2.0.0 from ${server.url}`]);
    expect((await renderManifests(mirror, sha, options("apps/remote-range"))).cached).toBe(false);
  });

  it("refuses a chart it cannot fetch, saying where charts come from", async () => {
    await expect(renderManifests(mirror, sha, options("apps/unconfigured"))).rejects.toThrow(/helmCharts: redis 19\.0\.0 from https:\/\/charts\.example\.invalid.*not in helmRepositories/);
    await expect(renderManifests(mirror, sha, options("apps/remote", { helm: helmContext({ fetchChart: undefined }) }))).rejects.toThrow(/add its repository to helmRepositories in driftwatch\.yaml/);
  });

  it("says Flux's kustomize-controller does not inflate helmCharts instead of rendering them", async () => {
    const flux: ControllerRender = { type: "flux", spec: {} };
    await expect(renderManifests(mirror, sha, options("apps/local", { controller: flux }))).rejects.toThrow(/Flux's kustomize-controller does not inflate helmCharts \(it builds without --enable-helm\)/);
  });

  it.each([
    ["hostile/values-outside", /"\.\.\/\.\.\/\.\.\/\.\.\/etc\/passwd" refused: leaves the repository/],
    ["hostile/chart-home", /helmGlobals\.chartHome: \.\.\/.*leaves the repository/],
    ["hostile/post-renderer", /helmCharts\[0\]\.releaseName.*would be read as a flag/],
    ["hostile/config-home", /helmGlobals\.configHome.*not taken from the repository/],
    ["hostile/plugin", /HelmChartInflationGenerator configuration is not run here/],
    ["hostile/legacy", /helmChartInflationGenerator.*deprecated form names its own helm binary/],
  ])("refuses %s before kustomize runs", async (p, message) => {
    const err = await renderManifests(mirror, sha, options(p)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RenderRefusedError);
    expect((err as Error).message).toMatch(message);
  });

  it("the helm kustomize runs lets through only version and template: a pull or a post-renderer never reaches helm", async () => {
    const dir = tempDir("helm-guard");
    try {
      const guard = await writeKustomizeHelmCommand(dir, helmBin);
      const version = spawnSync(guard, ["version", "-c", "--short"], { encoding: "utf8" });
      expect(version.status).toBe(0);
      expect(version.stdout).toMatch(/^v3\./);
      const pull = spawnSync(guard, ["pull", "--untar", "--repo", "https://charts.example.invalid", "redis"], { encoding: "utf8" });
      expect(pull.status).toBe(1);
      expect(pull.stderr).toMatch(/kustomize asked helm to run "pull"/);
      const post = spawnSync(guard, ["template", "x", ".", "--post-renderer", "/bin/sh"], { encoding: "utf8" });
      expect(post.status).toBe(1);
      expect(post.stderr).toMatch(/--post-renderer is refused/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
