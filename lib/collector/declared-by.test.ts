import { describe, expect, it } from "vitest";
import { controllerObjectKey, declaredDocument, changesOf, declaringParent, parentsFirst, rememberParents, renderedPart, type DeclaringCandidate } from "./declared-by";
import type { DesiredEntry } from "./persist";

const API_APP = "argoproj.io/Application/argocd/shop-api";

function app(id: string, over: Partial<DeclaringCandidate> = {}, declares: Record<string, string> = {}): DeclaringCandidate {
  const desired = new Map<string, DesiredEntry>(Object.entries(declares).map(([key, sourcePath]) => [key, { key, sourcePath, revisionSha: "a".repeat(40), object: { apiVersion: "v1", kind: "X", metadata: { name: "x" } } }]));
  return { id, controller: { kind: "Application", namespace: "argocd", name: id }, mirrorPath: "/m/shop", branch: "main", singleGitSource: true, desired, renderInputs: [], ...over };
}

describe("controllerObjectKey", () => {
  it.each([
    [{ kind: "Application", namespace: "argocd", name: "shop-api" }, API_APP],
    [{ kind: "Kustomization", namespace: "flux-system", name: "apps" }, "kustomize.toolkit.fluxcd.io/Kustomization/flux-system/apps"],
    [{ kind: "HelmRelease", namespace: "shop", name: "redis" }, "helm.toolkit.fluxcd.io/HelmRelease/shop/redis"],
  ] as const)("%o is %s", (ref, key) => {
    expect(controllerObjectKey(ref)).toBe(key);
  });
});

describe("declaringParent", () => {
  const child = app("shop-api");
  const root = app("root", {}, { [API_APP]: "apps/shop-api.yaml" });

  it("finds the application whose render has the child's controller object, and the file", () => {
    expect(declaringParent(child, [app("shop-web"), root])).toMatchObject({ parent: { id: "root" }, path: "apps/shop-api.yaml", key: API_APP });
  });

  it.each<[string, DeclaringCandidate, DeclaringCandidate[]]>([
    ["its own render (an application declaring itself)", app("shop-api", {}, { [API_APP]: "services/api/app.yaml" }), [app("shop-api", {}, { [API_APP]: "services/api/app.yaml" })]],
    ["a parent of another repository", child, [app("root", { mirrorPath: "/m/platform" }, { [API_APP]: "apps/shop-api.yaml" })]],
    ["a parent following another branch", child, [app("root", { branch: "release" }, { [API_APP]: "apps/shop-api.yaml" })]],
    ["a multi-source parent", child, [app("root", { singleGitSource: false }, { [API_APP]: "apps/shop-api.yaml" })]],
    ["a child with no controller object", app("shop-api", { controller: undefined }), [root]],
    ["a multi-source child", app("shop-api", { singleGitSource: false }), [root]],
    ["a child from a Helm repository (no mirror)", app("shop-api", { mirrorPath: "" }), [root]],
    ["no application declaring it (applied by hand)", child, [app("shop-web")]],
  ])("is null for %s", (_, c, candidates) => {
    expect(declaringParent(c, candidates)).toBeNull();
  });
});

describe("declaredDocument", () => {
  const services = [
    "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: shop-api, namespace: flux-system}\nspec: {path: ./apps/api}",
    "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: shop-web}\nspec: {path: ./apps/web}",
  ].join("\n---\n");

  it("is the document of the object among several", () => {
    expect(declaredDocument(services, "kustomize.toolkit.fluxcd.io/Kustomization/flux-system/shop-api")).toMatchObject({ spec: { path: "./apps/api" } });
  });
  it("takes a document without a namespace for the namespace its render gives it", () => {
    expect(declaredDocument(services, "kustomize.toolkit.fluxcd.io/Kustomization/flux-system/shop-web")).toMatchObject({ spec: { path: "./apps/web" } });
  });
  it.each([
    ["another namespace", "kustomize.toolkit.fluxcd.io/Kustomization/other/shop-api"],
    ["another group of the same kind (kustomize's own kustomization.yaml)", "kustomize.config.k8s.io/Kustomization/flux-system/shop-api"],
    ["another name", "kustomize.toolkit.fluxcd.io/Kustomization/flux-system/shop-cart"],
  ])("is null for %s", (_, key) => {
    expect(declaredDocument(services, key)).toBeNull();
  });
  it("is unknown (undefined), not absent, in a file that does not parse", () => {
    expect(declaredDocument("kind: [unclosed", API_APP)).toBeUndefined();
  });
});

describe("renderedPart", () => {
  const application = (syncPolicy: unknown, image: string) => ({
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name: "shop-cart", labels: { team: "cart" } },
    spec: { project: "shop", source: { repoURL: "https://git.example.com/shop.git", path: "services/cart", kustomize: { images: [image] } }, destination: { namespace: "shop" }, syncPolicy },
  });
  it("is the same when only how the controller reconciles changed (automated sync off, a Flux suspend or interval)", () => {
    expect(renderedPart(application({ automated: { prune: true } }, "cart:1.0"))).toEqual(renderedPart(application(undefined, "cart:1.0")));
    const flux = (over: Record<string, unknown>) => ({ kind: "Kustomization", spec: { path: "./apps/api", interval: "10m", ...over } });
    expect(renderedPart(flux({ suspend: true, interval: "1h" }))).toEqual(renderedPart(flux({})));
  });
  it("keeps the sync options Argo CD applies with (CreateNamespace, ServerSideApply)", () => {
    expect(renderedPart(application({ automated: {}, syncOptions: ["CreateNamespace=true"] }, "cart:1.0"))).not.toEqual(renderedPart(application({ automated: {} }, "cart:1.0")));
  });
  it("differs when what it renders changed (an image, a postBuild substitution)", () => {
    expect(renderedPart(application(undefined, "cart:1.1"))).not.toEqual(renderedPart(application(undefined, "cart:1.0")));
    const flux = (region: string) => ({ kind: "Kustomization", spec: { path: "./apps/api", postBuild: { substitute: { region } } } });
    expect(renderedPart(flux("eu"))).not.toEqual(renderedPart(flux("us")));
  });
});

describe("changesOf", () => {
  const v = (tag: string) => ({ spec: { images: [`api:${tag}`] } });
  it("skips commits to the file that left the object as it was (a neighbour's change)", () => {
    expect(changesOf([{ sha: "c3", document: v("1.9") }, { sha: "c2", document: v("1.9") }, { sha: "c1", document: v("1.8") }], v("1.8"))).toEqual(["c2"]);
  });
  it("lists every commit that changed it, newest first, between neighbours' commits", () => {
    const touching = [
      { sha: "c5", document: v("2.0") },
      { sha: "c4", document: v("1.9") },
      { sha: "c3", document: v("1.9") },
      { sha: "c2", document: v("1.8") },
      { sha: "c1", document: v("1.8") },
    ];
    expect(changesOf(touching, v("1.7"))).toEqual(["c5", "c3", "c1"]);
  });
  it("includes the commit that removed the object", () => {
    expect(changesOf([{ sha: "c2", document: null }, { sha: "c1", document: v("1.8") }], v("1.8"))).toEqual(["c2"]);
  });
  it("includes the oldest read when that commit created the file (nothing before it)", () => {
    expect(changesOf([{ sha: "c2", document: v("1.8") }, { sha: "c1", document: v("1.8") }], null)).toEqual(["c1"]);
  });
  it("is empty when none of the commits read changed it: only neighbours' commits to a shared file", () => {
    expect(changesOf([{ sha: "c2", document: v("1.8") }, { sha: "c1", document: v("1.8") }], v("1.8"))).toEqual([]);
  });
  it("is empty when the object is in none of them (a file that only names it, a template)", () => {
    expect(changesOf([{ sha: "c2", document: null }, { sha: "c1", document: null }], null)).toEqual([]);
  });
  it("takes reordered keys for no change", () => {
    expect(changesOf([{ sha: "c2", document: { spec: { a: 1, b: 2 } } }], { spec: { b: 2, a: 1 } })).toEqual([]);
  });
  it("is empty for a file no commit touched", () => {
    expect(changesOf([], null)).toEqual([]);
  });
});

describe("parentsFirst", () => {
  const names = ["shop-api", "apps", "shop-web", "flux-system", "infra"];
  it("keeps the order when nothing is known of the environment", () => {
    expect(parentsFirst("env-new", names)).toEqual([0, 1, 2, 3, 4]);
  });
  it("puts each application after its parent, its parent after the parent's own (stable among equals)", () => {
    rememberParents("env-tree", new Map([["flux-system", null], ["apps", "flux-system"], ["infra", "flux-system"], ["shop-api", "apps"], ["shop-web", "apps"]]));
    expect(parentsFirst("env-tree", names).map((i) => names[i])).toEqual(["flux-system", "apps", "infra", "shop-api", "shop-web"]);
  });
  it("ends on applications declaring each other", () => {
    rememberParents("env-cycle", new Map([["shop-api", "apps"], ["apps", "shop-api"]]));
    expect(parentsFirst("env-cycle", names)).toHaveLength(names.length);
  });
});
