// renderManifests with a controller's settings, through real git and the real
// kustomize binary: what Flux and Argo CD would apply from the same commit.
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RenderFileError, type ControllerRender } from "./controller-render";
import { requiredKustomize } from "@/test/support/required-tools";
import { syncMirror } from "./mirror";
import { renderManifests } from "./render";
import { TestRepo, tempDir } from "./test-support/repo-fixture";
import type { RenderedObject } from "./manifests";

// The renders below build with kustomize: without one this file fails, saying what to install.
requiredKustomize();

const deployment = (name: string, image: string, ns?: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}${ns ? `\n  namespace: ${ns}` : ""}
  labels: {app: ${name}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
      - name: ${name}
        image: ${image}
        args: ["--log-level=info"]
`;

const find = (objs: RenderedObject[], kind: string, name: string) => objs.find((o) => o.object.kind === kind && (o.object.metadata as { name: string }).name === name)?.object;

/** A field by dotted path ("spec.template.spec.containers.0.image"). */
function dig(obj: unknown, dotted: string): unknown {
  let node = obj;
  for (const key of dotted.split(".")) node = node === null || typeof node !== "object" ? undefined : (node as Record<string, unknown>)[key];
  return node;
}

describe("rendering as the controller does (real git, real kustomize)", () => {
  let repo: TestRepo;
  let mirrors: string;
  let mirror: string;
  let sha: string;

  beforeAll(async () => {
    repo = TestRepo.create("controller-render");
    // The layout `flux bootstrap` writes: no kustomization.yaml in clusters/prod.
    repo.write("clusters/prod/flux-system/gotk-components.yaml", `apiVersion: v1\nkind: Namespace\nmetadata: {name: flux-system}\n---\n${deployment("source-controller", "ghcr.io/fluxcd/source-controller:v1.4.1", "flux-system")}---\n${deployment("kustomize-controller", "ghcr.io/fluxcd/kustomize-controller:v1.4.0", "flux-system")}`);
    repo.write("clusters/prod/flux-system/gotk-sync.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sync, namespace: flux-system}\ndata: {path: ./clusters/prod}\n");
    repo.write(
      "clusters/prod/flux-system/kustomization.yaml",
      [
        "apiVersion: kustomize.config.k8s.io/v1beta1",
        "kind: Kustomization",
        "resources: [gotk-components.yaml, gotk-sync.yaml]",
        "patches:",
        "- target: {kind: Deployment, name: \"(kustomize-controller|source-controller)\"}",
        "  patch: |",
        "    - op: add",
        "      path: /spec/template/spec/containers/0/args/-",
        "      value: --concurrent=20",
        "",
      ].join("\n"),
    );
    repo.write("clusters/prod/apps/podinfo.yaml", deployment("podinfo", "ghcr.io/stefanprodan/podinfo:6.7.0", "apps"));
    repo.write("clusters/prod/.sops.yaml", "creation_rules: []\n");
    repo.write("clusters/prod/notes.json", '{"not": "a resource for Flux"}\n');
    // postBuild: variables in a plain folder, one object opted out.
    repo.write(
      "vars/app.yaml",
      [
        "apiVersion: v1",
        "kind: ConfigMap",
        "metadata: {name: settings}",
        "data:",
        "  cluster: ${cluster_name}",
        "  region: ${region:=eu-west-1}",
        "  escaped: $${not_a_var}",
        "  replicas: \"${replicas}\"",
        "---",
        "apiVersion: v1",
        "kind: ConfigMap",
        "metadata:",
        "  name: literal",
        "  annotations: {kustomize.toolkit.fluxcd.io/substitute: disabled}",
        "data: {raw: '${cluster_name}'}",
        "",
      ].join("\n"),
    );
    repo.write("vars/broken.yaml", "");
    // Argo CD directory and kustomize sources.
    repo.write("argo/dir/a.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");
    // YAML 1.1 booleans and dates: kubectl and Argo CD read `on` as true and keep `2024-05-01`; kustomize (so Flux)
    // keeps "on" and writes the date in RFC 3339.
    repo.write("flags/flags.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags}\ndata: {checkout: on, beta: yes, since: 2024-05-01}\n");
    repo.write("argo/flags/flags.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags}\nspec: {enabled: on, since: 2024-05-01}\n");
    repo.write("argo/dir/sub/b.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n");
    repo.write("argo/dir/sub/c.yml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n");
    repo.write("argo/dir/skip.yaml", "# +argocd:skip-file-rendering\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: skipped}\n");
    repo.write("ignoring/.sourceignore", "drafts/\n");
    repo.write("ignoring/drafts/wip.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: wip}\n");
    repo.write("ignoring/app.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\n");
    repo.write("argo/jsonnet/app.jsonnet", "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'j' } }\n");
    repo.write("argo/jsonnet/plain.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: p}\n");
    repo.write("argo/kust/kustomization.yaml", "resources: [web.yaml]\n");
    repo.write("argo/kust/web.yaml", deployment("web", "nginx:1.25"));
    repo.write("argo/kust/grace-patch.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      terminationGracePeriodSeconds: 5\n");
    // An overlay reading files outside its own folder (a shared env file, a base file): Flux builds it, kustomize's default refuses.
    repo.write("loads/shared/app.env", "LOG_LEVEL=debug\nREGION=eu-west-1\n");
    repo.write("loads/base/web.yaml", deployment("web", "nginx:1.25"));
    repo.write("loads/prod/kustomization.yaml", "resources: [../base/web.yaml]\nconfigMapGenerator:\n- name: app\n  envs: [../shared/app.env]\n");
    // What Argo CD Image Updater's git write-back commits for the Application web-canary.
    repo.write("argo/kust/.argocd-source-web-canary.yaml", "kustomize:\n  images:\n  - nginx:1.28.1\n");
    repo.write("argo/components/ha/kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [pdb.yaml]\n");
    repo.write("argo/components/ha/pdb.yaml", "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec:\n  minAvailable: 1\n  selector: {matchLabels: {app: web}}\n");
    // A file the sandbox's walker finds (so the build runs) that kustomize cannot read as a resource.
    repo.write("broken/kustomization.yaml", "resources: [notaresource.yaml]\n");
    repo.write("broken/notaresource.yaml", "just: data\n");
    sha = repo.commit("layouts");
    mirrors = tempDir("controller-render-mirrors");
    mirror = (await syncMirror({ name: "cr", url: repo.dir, auth: { type: "none" } }, mirrors)).mirrorPath;
  });

  afterAll(() => {
    repo?.cleanup();
    if (mirrors) rmSync(mirrors, { recursive: true, force: true });
  });

  const render = (path: string, controller: ControllerRender, mode: "plain" | "kustomize" = "plain") => renderManifests(mirror, sha, { path, mode, defaultNamespace: "default", controller });

  it("Flux bootstrap folder: the nested flux-system kustomization's patches apply to the controllers", async () => {
    const { objects } = await render("clusters/prod", { type: "flux", spec: {} });
    const names = objects.map((o) => `${o.object.kind as string}/${(o.object.metadata as { name: string }).name}`).sort();
    expect(names).toEqual(["ConfigMap/sync", "Deployment/kustomize-controller", "Deployment/podinfo", "Deployment/source-controller", "Namespace/flux-system"]);
    for (const name of ["source-controller", "kustomize-controller"]) {
      expect(dig(find(objects, "Deployment", name), "spec.template.spec.containers.0.args")).toEqual(["--log-level=info", "--concurrent=20"]);
    }
    expect(dig(find(objects, "Deployment", "podinfo"), "spec.template.spec.containers.0.args")).toEqual(["--log-level=info"]);
  });

  it("what a .sourceignore keeps out of Flux's artifact is not rendered, in plain and built renders alike", async () => {
    for (const spec of [{}, { namePrefix: "x-" }]) {
      const { objects } = await render("ignoring", { type: "flux", spec });
      expect(objects.map((o) => (o.object.metadata as { name: string }).name)).toEqual([spec.namePrefix ? "x-app" : "app"]);
    }
  });

  it("the GitRepository's spec.ignore applies after the .sourceignore files", async () => {
    const { objects } = await render("ignoring", { type: "flux", spec: {}, sourceIgnore: "app.yaml\n!drafts/\n" });
    expect(objects.map((o) => (o.object.metadata as { name: string }).name)).toEqual(["wip"]);
  });

  it("a Flux folder without a build step reads YAML as kustomize does, as Flux applies it; an Argo CD directory as kubectl does", async () => {
    for (const spec of [{}, { namePrefix: "x-" }]) {
      const { objects } = await render("flags", { type: "flux", spec });
      expect(objects.map((o) => o.object.data)).toEqual([{ checkout: "on", beta: "yes", since: "2024-05-01T00:00:00Z" }]);
    }
    const { objects } = await render("argo/flags", { type: "argocd" });
    expect(objects.map((o) => o.object.spec)).toEqual([{ enabled: true, since: "2024-05-01" }]);
  });

  it("plain mode without a controller (before) reads the patched Deployments unpatched", async () => {
    const { objects } = await renderManifests(mirror, sha, { path: "clusters/prod", mode: "plain", defaultNamespace: "default" });
    expect(dig(find(objects, "Deployment", "kustomize-controller"), "spec.template.spec.containers.0.args")).toEqual(["--log-level=info"]);
  });

  it("the Kustomization's spec: targetNamespace, prefix, images, patches, commonMetadata", async () => {
    const { objects } = await render("clusters/prod/apps", {
      type: "flux",
      spec: {
        targetNamespace: "team-a",
        namePrefix: "a-",
        images: [{ name: "ghcr.io/stefanprodan/podinfo", newTag: "6.8.0" }],
        patches: [{ patch: "- op: replace\n  path: /spec/replicas\n  value: 3", target: { kind: "Deployment" } }],
        commonMetadata: { labels: { team: "a" }, annotations: { owner: "ops" } },
      },
    });
    expect(objects).toHaveLength(1);
    const d = objects[0]!.object;
    expect(d.metadata).toMatchObject({ name: "a-podinfo", namespace: "team-a", labels: { app: "podinfo", team: "a" }, annotations: { owner: "ops" } });
    expect(dig(d, "spec.replicas")).toBe(3);
    expect(dig(d, "spec.template.spec.containers.0.image")).toBe("ghcr.io/stefanprodan/podinfo:6.8.0");
    expect(dig(d, "spec.template.metadata.labels")).toEqual({ app: "podinfo" });
  });

  it("postBuild substitution: values, defaults, $$ escapes, and the opt-out annotation", async () => {
    const variables = new Map([
      ["cluster_name", "prod-1"],
      ["replicas", "3"],
    ]);
    const { objects } = await render("vars", { type: "flux", spec: { postBuild: { substitute: {} } }, variables });
    // As in Flux: substitution runs on the built object's YAML, where `"${replicas}"` lost its quotes, so 3 is read as a number.
    expect(dig(find(objects, "ConfigMap", "settings"), "data")).toEqual({ cluster: "prod-1", region: "eu-west-1", escaped: "${not_a_var}", replicas: 3 });
    expect(dig(find(objects, "ConfigMap", "literal"), "data")).toEqual({ raw: "${cluster_name}" });
  });

  it("a kustomize failure names the kustomization and carries kustomize's message", async () => {
    const err = await render("broken", { type: "flux", spec: {} }, "kustomize").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RenderFileError);
    expect(err).toMatchObject({ category: "render", path: "broken/kustomization.yaml", message: expect.stringContaining("notaresource.yaml") });
  });

  it("a bad variable name fails the render without showing any value", async () => {
    const err = await render("vars", { type: "flux", spec: { postBuild: {} }, variables: new Map([["bad-name", "s3cr3t-value"]]) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RenderFileError);
    expect((err as Error).message).toContain("'bad-name' var name is invalid");
    expect((err as Error).message).not.toContain("s3cr3t-value");
  });

  it.each([
    [{}, ["a"]],
    [{ recurse: true }, ["a", "b", "c"]],
    [{ recurse: true, include: "{sub/*.yml,a.yaml}" }, ["a", "c"]],
    [{ recurse: true, exclude: "sub/*" }, ["a"]],
  ])("Argo CD directory %j reads %j (the skip marker honoured)", async (directory, names) => {
    const { objects } = await render("argo/dir", { type: "argocd", directory });
    expect(objects.map((o) => (o.object.metadata as { name: string }).name).sort()).toEqual(names);
  });

  it("Argo CD jsonnet is not evaluated, and says so", async () => {
    const { objects, problems } = await render("argo/jsonnet", { type: "argocd" });
    expect(objects.map((o) => (o.object.metadata as { name: string }).name)).toEqual(["p"]);
    expect(problems).toEqual([expect.objectContaining({ path: "argo/jsonnet/app.jsonnet", severity: "warning", message: expect.stringContaining("jsonnet") })]);
  });

  it("Argo CD kustomize options: images, namePrefix, commonLabels, namespace", async () => {
    const { objects } = await render("argo/kust", { type: "argocd", kustomize: { images: ["nginx:1.27"], namePrefix: "p-", commonLabels: { env: "prod" }, commonAnnotations: { team: "a" }, namespace: "shop" } });
    const d = objects[0]!.object;
    expect(d.metadata).toMatchObject({ name: "p-web", namespace: "shop", labels: { app: "web", env: "prod" }, annotations: { team: "a" } });
    expect(dig(d, "spec.selector.matchLabels")).toEqual({ app: "web", env: "prod" });
    expect(dig(d, "spec.template.spec.containers.0.image")).toBe("nginx:1.27");
  });

  it("Argo CD kustomize replicas: `edit set replicas`, a count given as a string too; a count that is no integer fails the render", async () => {
    const { objects } = await render("argo/kust", { type: "argocd", kustomize: { replicas: [{ name: "web", count: "4" }] } });
    expect(dig(find(objects, "Deployment", "web"), "spec.replicas")).toBe(4);
    const err = await render("argo/kust", { type: "argocd", kustomize: { replicas: [{ name: "web", count: "four" }] } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RenderFileError);
    expect(err).toMatchObject({ path: "argo/kust/kustomization.yaml", message: expect.stringContaining("expected integer value for count") });
  });

  it("Argo CD kustomize patches: inline with a target and from a file of the folder, after the kustomization's own", async () => {
    const patches = [
      { target: { kind: "Deployment", name: "web" }, patch: "- op: replace\n  path: /spec/template/spec/containers/0/args/0\n  value: --log-level=debug\n" },
      { path: "grace-patch.yaml" },
    ];
    const { objects } = await render("argo/kust", { type: "argocd", kustomize: { patches } });
    const web = find(objects, "Deployment", "web");
    expect(dig(web, "spec.template.spec.containers.0.args")).toEqual(["--log-level=debug"]);
    expect(dig(web, "spec.template.spec.terminationGracePeriodSeconds")).toBe(5);
  });

  it("Argo CD kustomize components: added, a missing one fails the render unless ignoreMissingComponents", async () => {
    const withHa = await render("argo/kust", { type: "argocd", kustomize: { components: ["../components/ha"] } });
    expect(find(withHa.objects, "PodDisruptionBudget", "web")).toMatchObject({ spec: { minAvailable: 1 } });
    const missing = await render("argo/kust", { type: "argocd", kustomize: { components: ["../components/gone"] } }).catch((e: unknown) => e);
    expect(missing).toMatchObject({ path: "argo/kust/kustomization.yaml", message: expect.stringContaining("'../components/gone'") });
    // A path outside the repository is missing too, never read.
    const ignored = await render("argo/kust", { type: "argocd", kustomize: { components: ["../components/gone", "../../../../etc", "../components/ha"], ignoreMissingComponents: true } });
    expect(ignored.objects.map((o) => o.object.kind).sort()).toEqual(["Deployment", "PodDisruptionBudget"]);
  });

  it("Argo CD build variables: always in images and labels, in annotations only with commonAnnotationsEnvsubst; $$ is a dollar", async () => {
    const kustomize = { images: ["nginx:${ARGOCD_APP_REVISION_SHORT}"], commonLabels: { "app-name": "${ARGOCD_APP_NAME}" }, commonAnnotations: { revision: "$ARGOCD_APP_REVISION", price: "$$5" } };
    const env = { appName: "web-prod", appNamespace: "shop" };
    const literal = find((await render("argo/kust", { type: "argocd", kustomize, env })).objects, "Deployment", "web");
    expect(dig(literal, "spec.template.spec.containers.0.image")).toBe(`nginx:${sha.slice(0, 7)}`);
    expect(dig(literal, "metadata.labels.app-name")).toBe("web-prod");
    expect(dig(literal, "metadata.annotations")).toEqual({ revision: "$ARGOCD_APP_REVISION", price: "$$5" });
    const substituted = find((await render("argo/kust", { type: "argocd", kustomize: { ...kustomize, commonAnnotationsEnvsubst: true }, env })).objects, "Deployment", "web");
    expect(dig(substituted, "metadata.annotations")).toEqual({ revision: sha, price: "$5" });
  });

  it("Argo CD source overrides: the app's .argocd-source-<name>.yaml (Image Updater's write-back) is merged over its options; another app's is not", async () => {
    const canary = await render("argo/kust", { type: "argocd", kustomize: { images: ["nginx:1.27"], namePrefix: "c-" }, env: { appName: "web-canary" } });
    expect(dig(find(canary.objects, "Deployment", "c-web"), "spec.template.spec.containers.0.image")).toBe("nginx:1.28.1");
    const other = await render("argo/kust", { type: "argocd", kustomize: { images: ["nginx:1.27"], namePrefix: "c-" }, env: { appName: "web-prod" } });
    expect(dig(find(other.objects, "Deployment", "c-web"), "spec.template.spec.containers.0.image")).toBe("nginx:1.27");
  });

  it("loads outside the kustomization's folder but inside the repository: Flux builds them (LoadRestrictionsNone), Argo CD's default refuses", async () => {
    const flux = await render("loads/prod", { type: "flux", spec: {} }, "kustomize");
    expect(flux.objects.map((o) => o.object.kind).sort()).toEqual(["ConfigMap", "Deployment"]);
    expect(dig(flux.objects.find((o) => o.object.kind === "ConfigMap")?.object, "data")).toEqual({ LOG_LEVEL: "debug", REGION: "eu-west-1" });
    const argo = await render("loads/prod", { type: "argocd" }).catch((e: unknown) => e);
    expect(argo).toBeInstanceOf(RenderFileError);
    expect((argo as Error).message).toMatch(/security; file .* is not in or below/);
  });

  it("Flux spec.components: added to the kustomization; a missing one skipped with ignoreMissingComponents", async () => {
    const { objects } = await render("argo/kust", { type: "flux", spec: { components: ["../components/ha"] } }, "kustomize");
    expect(find(objects, "PodDisruptionBudget", "web")).toBeDefined();
    const skipped = await render("argo/kust", { type: "flux", spec: { components: ["../components/gone"], ignoreMissingComponents: true } }, "kustomize");
    expect(skipped.objects.map((o) => o.object.kind)).toEqual(["Deployment"]);
  });

  it("different settings are different renders (the cache key holds every option, variables by hash)", async () => {
    const a = await render("vars", { type: "flux", spec: { postBuild: {} }, variables: new Map([["cluster_name", "one"]]) });
    const b = await render("vars", { type: "flux", spec: { postBuild: {} }, variables: new Map([["cluster_name", "two"]]) });
    const again = await render("vars", { type: "flux", spec: { postBuild: {} }, variables: new Map([["cluster_name", "one"]]) });
    expect(dig(find(a.objects, "ConfigMap", "settings"), "data.cluster")).toBe("one");
    expect(dig(find(b.objects, "ConfigMap", "settings"), "data.cluster")).toBe("two");
    expect(again.cached).toBe(true);
    const prefixed = await render("argo/kust", { type: "argocd", kustomize: { namePrefix: "q-" } });
    expect((prefixed.objects[0]!.object.metadata as { name: string }).name).toBe("q-web");
  });
});
