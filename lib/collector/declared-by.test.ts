import { rmSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { clearRenderCache, rendersRunCount } from "@/lib/git/render";
import { gitProcessCounts, resetGitProcessCounts } from "@/lib/git/exec";
import { resetHistoryIndexes } from "@/lib/git/history-index";
import { syncMirror } from "@/lib/git/mirror";
import { TestRepo, tempDir } from "@/lib/git/test-support/repo-fixture";
import { changesOf, controllerObjectKey, declarationIn, declaredDocument, declaringFile, declaringParent, parentsFirst, rememberParents, renderedPart, type DeclaringCandidate } from "./declared-by";
import type { DesiredEntry } from "./persist";
import { resetRunMemo } from "./run-memo";

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

describe("in a repository", () => {
  // An app-of-apps parent built with kustomize: Applications declared in services.yaml and nested/cart.yaml,
  // and patched by files of every kind kustomize has, each listed before services.yaml in the build's inputs.
  const application = (name: string, image: string, extra = "") =>
    `apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: ${name}\n  namespace: argocd\nspec:\n  source:\n    path: services/${name}\n    kustomize:\n      images: ["${image}"]\n${extra}`;
  const keyOf = (name: string) => `argoproj.io/Application/argocd/${name}`;
  const inputs = ["apps/a-patch.yaml", "apps/b-smp.yaml", "apps/c-json.yaml", "apps/kustomization.yaml", "apps/nested/cart-patch.yaml", "apps/nested/cart.yaml", "apps/nested/kustomization.yaml", "apps/services.yaml"];
  const parent = { desired: new Map<string, DesiredEntry>(), renderInputs: inputs };
  let repo: TestRepo;
  let mirrors: string;
  let mirror: string;
  const sha: Record<string, string> = {};
  const sync = async () => (mirror = (await syncMirror({ name: "declared", url: repo.dir, auth: { type: "none" } }, mirrors)).mirrorPath);

  beforeAll(async () => {
    repo = TestRepo.create("declared");
    mirrors = tempDir("declared-mirrors");
    repo.write(
      "apps/kustomization.yaml",
      "resources: [services.yaml, nested]\npatches:\n  - path: a-patch.yaml\npatchesStrategicMerge: [b-smp.yaml]\npatchesJson6902:\n  - path: c-json.yaml\n    target: {group: argoproj.io, version: v1alpha1, kind: Application, name: shop-web}\n",
    );
    repo.write("apps/a-patch.yaml", application("shop-api", "api:1.0"));
    repo.write("apps/b-smp.yaml", application("shop-web", "web:1.0"));
    repo.write("apps/c-json.yaml", "- op: add\n  path: /spec/source/kustomize/namePrefix\n  value: eu-\n");
    repo.write("apps/services.yaml", [application("shop-api", "api:0.9"), application("shop-web", "web:0.9")].join("---\n"));
    repo.write("apps/nested/kustomization.yaml", "resources: [cart.yaml]\npatches:\n  - path: cart-patch.yaml\n");
    repo.write("apps/nested/cart.yaml", application("shop-cart", "cart:0.9"));
    repo.write("apps/nested/cart-patch.yaml", application("shop-cart", "cart:1.0"));
    repo.write("plain/shop-api.yaml", application("shop-api", "api:1.0"));
    sha.c1 = repo.commit("c1", { date: "2024-01-01T10:00:00Z" });
    // The patch sets the api's image: what the api renders changed.
    repo.write("apps/a-patch.yaml", application("shop-api", "api:1.1"));
    repo.write("plain/shop-api.yaml", application("shop-api", "api:1.1"));
    sha.c2 = repo.commit("c2", { date: "2024-01-02T10:00:00Z" });
    // The patch only turns automated sync on: nothing the api renders.
    repo.write("apps/a-patch.yaml", application("shop-api", "api:1.1", "  syncPolicy:\n    automated: {}\n"));
    sha.c3 = repo.commit("c3", { date: "2024-01-03T10:00:00Z" });
    await sync();
  });
  beforeEach(() => {
    resetRunMemo({ objects: 10_000 });
    resetHistoryIndexes();
  });
  afterAll(() => {
    repo.cleanup();
    rmSync(mirrors, { recursive: true, force: true });
  });

  it("finds where each child is listed as a resource, directly or in a nested kustomization, and the patches aimed at it", async () => {
    const at = (name: string) => declaringFile(mirror, sha.c3, { parent, path: "apps/kustomization.yaml", key: keyOf(name) });
    expect(await at("shop-api")).toMatchObject({ path: "apps/services.yaml", patches: [{ path: "apps/a-patch.yaml", whole: false }] });
    expect(await at("shop-web")).toMatchObject({
      path: "apps/services.yaml",
      patches: expect.arrayContaining([
        { path: "apps/b-smp.yaml", whole: false },
        { path: "apps/c-json.yaml", whole: true },
      ]),
    });
    expect(await at("shop-cart")).toMatchObject({ path: "apps/nested/cart.yaml", patches: [{ path: "apps/nested/cart-patch.yaml", whole: false }] });
  });

  it("reads the parent's files once per tip for all its children", async () => {
    const at = (name: string) => declaringFile(mirror, sha.c3, { parent, path: "apps/kustomization.yaml", key: keyOf(name) });
    await at("shop-api");
    resetGitProcessCounts();
    await at("shop-web");
    await at("shop-cart");
    expect(gitProcessCounts().total).toBe(0);
  });

  it("takes a commit to a patch changing what the child renders for the child's last change, and one changing only how it syncs for none", async () => {
    const renderOptions = { path: "apps", mode: "kustomize" as const, defaultNamespace: "argocd" };
    const declarationOf = async (name: string) => declarationIn({ memoName: "env\0root", mirrorPath: mirror, renderOptions }, await declaringFile(mirror, sha.c3, { parent, path: "apps/kustomization.yaml", key: keyOf(name) }), keyOf(name));
    expect(await (await declarationOf("shop-api")).changedLast("main", sha.c3!)).toBe(sha.c2);
    // Nothing of the web's changed since its files were created.
    expect(await (await declarationOf("shop-web")).changedLast("main", sha.c3!)).toBe(sha.c1);
  });

  it("reads the history of a parent's declaring files once per tip for all its children", async () => {
    const renderOptions = { path: "apps", mode: "kustomize" as const, defaultNamespace: "argocd" };
    const declarations = await Promise.all(
      ["shop-api", "shop-web", "shop-cart"].map(async (name) => declarationIn({ memoName: "env\0root", mirrorPath: mirror, renderOptions }, await declaringFile(mirror, sha.c3, { parent, path: "apps/kustomization.yaml", key: keyOf(name) }), keyOf(name))),
    );
    await declarations[0]!.changedLast("main", sha.c3!);
    resetGitProcessCounts();
    expect(await declarations[2]!.changedLast("main", sha.c3!)).toBe(sha.c1);
    await declarations[1]!.changedLast("main", sha.c3!);
    expect(gitProcessCounts().total).toBe(0);
  });

  it("keeps the parent rendered at each revision its children lag at: two children behind at two revisions render it once each", async () => {
    const plainParent = { memoName: "env\0plain-root", mirrorPath: mirror, renderOptions: { path: "plain", mode: "plain" as const, defaultNamespace: "argocd" } };
    const declaration = declarationIn(plainParent, { path: "plain/shop-api.yaml", patches: [], siblings: ["plain/shop-api.yaml"] }, keyOf("shop-api"));
    const imageAt = async (at: string) => ((await declaration.objectAt(at)) as { spec: { source: { kustomize: { images: string[] } } } } | null)?.spec.source.kustomize.images;
    expect(await imageAt(sha.c1!)).toEqual(["api:1.0"]);
    expect(await imageAt(sha.c2!)).toEqual(["api:1.1"]);
    // The next runs (the process's render cache gone meanwhile, as a busy worker's is): no render at all.
    clearRenderCache();
    const before = rendersRunCount();
    for (let run = 0; run < 3; run++) {
      expect(await imageAt(sha.c1!)).toEqual(["api:1.0"]);
      expect(await imageAt(sha.c2!)).toEqual(["api:1.1"]);
    }
    expect(rendersRunCount()).toBe(before);
  });
});
