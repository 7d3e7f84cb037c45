import { rmSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { clearRenderCache, rendersRunCount } from "@/lib/git/render";
import { gitProcessCounts, resetGitProcessCounts } from "@/lib/git/exec";
import { resetHistoryIndexes } from "@/lib/git/history-index";
import { syncMirror } from "@/lib/git/mirror";
import { TestRepo, tempDir } from "@/lib/git/test-support/repo-fixture";
import { changesOf, controllerObjectKey, declarationIn, declaredDocument, declaringFile, declaringParent, parentsFirst, rememberParents, renderedPart, selects, type DeclaringCandidate } from "./declared-by";
import type { DesiredEntry } from "./persist";
import { resetRunMemo } from "./run-memo";

const API_APP = "argoproj.io/Application/argocd/shop-api";

function app(id: string, over: Partial<DeclaringCandidate> = {}, declares: Record<string, string> = {}): DeclaringCandidate {
  const desired = new Map<string, DesiredEntry>(Object.entries(declares).map(([key, sourcePath]) => [key, { key, sourcePath, revisionSha: "a".repeat(40), object: { apiVersion: "v1", kind: "X", metadata: { name: "x" } } }]));
  return { id, controller: { kind: "Application", namespace: "argocd", name: id }, mirrorPath: "/m/shop", branch: "main", singleGitSource: true, desired, renderInputs: [], ...over };
}

/** Before each test of the block, a fresh run memo and history indexes; after them all, its repository and mirrors removed. */
function freshMemoEachTest(fixture: () => { repo: TestRepo; mirrors: string }): void {
  beforeEach(() => {
    resetRunMemo({ objects: 10_000 });
    resetHistoryIndexes();
  });
  afterAll(() => {
    const { repo, mirrors } = fixture();
    repo.cleanup();
    rmSync(mirrors, { recursive: true, force: true });
  });
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
  freshMemoEachTest(() => ({ repo, mirrors }));

  it("finds where each child is listed as a resource, directly or in a nested kustomization, and the patches aimed at it", async () => {
    const at = (name: string) => declaringFile(mirror, sha.c3, { parent, path: "apps/kustomization.yaml", key: keyOf(name) });
    expect(await at("shop-api")).toMatchObject({ path: "apps/services.yaml", patches: [{ path: "apps/a-patch.yaml", aim: "document" }] });
    expect(await at("shop-web")).toMatchObject({
      path: "apps/services.yaml",
      patches: expect.arrayContaining([
        { path: "apps/b-smp.yaml", aim: "document" },
        { path: "apps/c-json.yaml", aim: "target" },
      ]),
    });
    expect(await at("shop-cart")).toMatchObject({ path: "apps/nested/cart.yaml", patches: [{ path: "apps/nested/cart-patch.yaml", aim: "document" }] });
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

describe("selects", () => {
  const labels = { team: "api", tier: "backend" };
  it.each([
    ["team=api", true],
    ["team==api,tier=backend", true],
    ["team=web", false],
    ["team!=web", true],
    ["team!=api", false],
    ["tier", true],
    ["owner", false],
    ["!owner", true],
    ["team=api,owner", false],
  ])("%s on team=api,tier=backend: %s", (selector, expected) => {
    expect(selects(selector, labels)).toBe(expected);
  });
  it("takes a selector it does not read (set-based) for one selecting the object: a patch maybe the child's counts", () => {
    expect(selects("team in (web,cart)", labels)).toBe(true);
  });
});

describe("in a repository, patches aimed by selectors and written inline", () => {
  // Applications declared in services.yaml; the kustomization patches them inline (by target, and a strategic
  // merge document naming one) and from files aimed by label selectors.
  const keyOf = (name: string) => `argoproj.io/Application/argocd/${name}`;
  const application = (name: string, meta: string) => `apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: ${name}\n  namespace: argocd\n${meta}spec:\n  source:\n    path: services/${name}\n`;
  const inlineOps = (...ops: string[]) => ["    patch: |-", ...ops.flatMap((op) => op.split("\n").map((line) => `      ${line}`))].join("\n");
  const kustomization = (o: { apiOps: string[]; webSync?: string; cart?: boolean }) =>
    [
      "resources: [services.yaml]",
      "patches:",
      "  - target: {kind: Application, name: shop-api}",
      inlineOps(...o.apiOps),
      "  - patch: |-",
      "      apiVersion: argoproj.io/v1alpha1",
      "      kind: Application",
      "      metadata: {name: shop-web, namespace: argocd}",
      "      spec:",
      '        source: {kustomize: {images: ["web:1.0"]}}',
      ...(o.webSync ? [`        syncPolicy: ${o.webSync}`] : []),
      "  - path: web-labels.yaml",
      "    target: {labelSelector: team=web}",
      "  - path: backend.yaml",
      '    target: {kind: Application, labelSelector: "tier=backend"}',
      ...(o.cart ? ["  - target: {kind: Application, name: shop-cart}", inlineOps("- {op: add, path: /spec/source/kustomize/namePrefix, value: cart-}")] : []),
      "",
    ].join("\n");
  const prefix = (value: string) => `- {op: add, path: /spec/source/kustomize/namePrefix, value: ${value}}`;
  const inputs = ["apps/backend.yaml", "apps/kustomization.yaml", "apps/services.yaml", "apps/web-labels.yaml"];
  const parent = { desired: new Map<string, DesiredEntry>(), renderInputs: inputs };
  const renderOptions = { path: "apps", mode: "kustomize" as const, defaultNamespace: "argocd" };
  let repo: TestRepo;
  let mirrors: string;
  let mirror: string;
  const sha: Record<string, string> = {};
  const filesOf = (name: string) => declaringFile(mirror, sha.c5, { parent, path: "apps/kustomization.yaml", key: keyOf(name) });
  const changesOfChild = async (name: string) => declarationIn({ memoName: "env\0root", mirrorPath: mirror, renderOptions }, await filesOf(name), keyOf(name)).changes("main", sha.c5!);

  beforeAll(async () => {
    repo = TestRepo.create("declared-inline");
    mirrors = tempDir("declared-inline-mirrors");
    repo.write(
      "apps/services.yaml",
      [application("shop-api", "  labels: {team: api, tier: backend}\n"), application("shop-web", "  labels: {team: web}\n"), application("shop-cart", "")].join("---\n"),
    );
    repo.write("apps/kustomization.yaml", kustomization({ apiOps: [prefix("eu-")] }));
    repo.write("apps/web-labels.yaml", "- {op: add, path: /spec/source/kustomize/nameSuffix, value: -web}\n");
    repo.write("apps/backend.yaml", "- {op: add, path: /spec/source/kustomize/commonLabels, value: {tier: backend}}\n");
    sha.c1 = repo.commit("c1", { date: "2024-02-01T10:00:00Z" });
    // The api's inline patch changes its prefix: what the api renders.
    repo.write("apps/kustomization.yaml", kustomization({ apiOps: [prefix("us-")] }));
    sha.c2 = repo.commit("c2", { date: "2024-02-02T10:00:00Z" });
    // A patch for the cart added, the web's inline patch turning automated sync on: nothing the api or the web render.
    repo.write("apps/kustomization.yaml", kustomization({ apiOps: [prefix("us-")], webSync: "{automated: {prune: true}}", cart: true }));
    sha.c3 = repo.commit("c3", { date: "2024-02-03T10:00:00Z" });
    // JSON 6902 operations on how the api syncs only, in the backend file and inline: nothing it renders.
    repo.write("apps/backend.yaml", "- {op: add, path: /spec/source/kustomize/commonLabels, value: {tier: backend}}\n- {op: remove, path: /spec/syncPolicy/automated}\n- {op: replace, path: /spec/syncPolicy/retry/limit, value: 5}\n");
    repo.write("apps/kustomization.yaml", kustomization({ apiOps: [prefix("us-"), "- {op: add, path: /spec/syncPolicy/automated, value: {selfHeal: true}}"], webSync: "{automated: {prune: true}}", cart: true }));
    sha.c4 = repo.commit("c4", { date: "2024-02-04T10:00:00Z" });
    // The file aimed at team=web changes the web's suffix.
    repo.write("apps/web-labels.yaml", "- {op: add, path: /spec/source/kustomize/nameSuffix, value: -web2}\n");
    sha.c5 = repo.commit("c5", { date: "2024-02-05T10:00:00Z" });
    mirror = (await syncMirror({ name: "declared-inline", url: repo.dir, auth: { type: "none" } }, mirrors)).mirrorPath;
  });
  freshMemoEachTest(() => ({ repo, mirrors }));

  it("takes the kustomization for a patch of each child it patches inline, and a file for a patch of the children its target's labels select", async () => {
    expect((await filesOf("shop-api")).patches).toEqual([
      { path: "apps/kustomization.yaml", aim: "inline" },
      { path: "apps/backend.yaml", aim: "target" },
    ]);
    expect((await filesOf("shop-web")).patches).toEqual([
      { path: "apps/kustomization.yaml", aim: "inline" },
      { path: "apps/web-labels.yaml", aim: "target" },
    ]);
    expect((await filesOf("shop-cart")).patches).toEqual([{ path: "apps/kustomization.yaml", aim: "inline" }]);
  });

  it("credits a child with the commits changing what its patches render: its inline patch, a file its labels select", async () => {
    expect(await changesOfChild("shop-api")).toEqual([sha.c2, sha.c1]);
    expect(await changesOfChild("shop-web")).toEqual([sha.c5, sha.c1]);
  });

  it("does not credit a child with an edit of the kustomization patching another, nor a patch edit touching only how it syncs", async () => {
    // c3 patches the cart inline and turns the web's automated sync on; c4 changes the api's automation and retries only.
    expect(await changesOfChild("shop-cart")).toEqual([sha.c3, sha.c1]);
    for (const name of ["shop-api", "shop-web"]) {
      const changes = await changesOfChild(name);
      expect(changes).not.toContain(sha.c3);
      expect(changes).not.toContain(sha.c4);
    }
  });
});
