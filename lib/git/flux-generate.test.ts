// Expectations restated from fluxcd/pkg kustomize's generator tests and its
// scanManifests walk: what kustomize-controller writes before building.
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { excludedFromFluxArtifact, fluxArtifactFiles, fluxNeedsBuild, fluxResourceFiles, generateFluxKustomization, isLocalRelativePath, type FluxRenderSpec } from "./flux-generate";

const gen = (files: string[], dir: string, spec: FluxRenderSpec = {}, existing: { file: string; text: string } | null = null) => {
  const r = generateFluxKustomization(files, dir, existing, spec);
  if (!r.ok) throw new Error(r.message);
  return { ...r, kus: parse(r.text) as Record<string, unknown> };
};

describe("generated kustomization for a folder without one", () => {
  const cases: Array<{ name: string; files: string[]; dir: string; resources: string[] | undefined; namespace?: string }> = [
    {
      name: "Flux bootstrap layout: manifests first by name, the kustomization folder as one resource",
      files: ["clusters/prod/flux-system/gotk-components.yaml", "clusters/prod/flux-system/gotk-sync.yaml", "clusters/prod/flux-system/kustomization.yaml", "clusters/prod/apps.yaml", "clusters/prod/infra.yaml"],
      dir: "clusters/prod",
      resources: ["./apps.yaml", "./flux-system", "./infra.yaml"],
    },
    {
      name: "sub-folders without a kustomization are walked, depth first in name order",
      files: ["d/z.yaml", "d/a/b/deep.yml", "d/a/x.yaml", "d/b.yaml", "d/a.yaml"],
      dir: "d",
      resources: ["./a/b/deep.yml", "./a/x.yaml", "./a.yaml", "./b.yaml", "./z.yaml"],
    },
    {
      name: "only .yaml and .yml: JSON, upper-case extensions and other files are not resources",
      files: ["d/a.json", "d/b.YAML", "d/README.md", "d/c.yml", "d/templates/t.tpl"],
      dir: "d",
      resources: ["./c.yml"],
    },
    {
      name: "files source-controller leaves out of the artifact never appear",
      files: ["d/.sops.yaml", "d/sub/.sops.yaml", "d/.gitlab-ci.yml", "d/.github/workflows/ci.yaml", "d/cloudbuild.yaml", "d/.flux.yaml", "d/.goreleaser.yml", "d/app.yaml"],
      dir: "d",
      resources: ["./app.yaml"],
    },
    {
      name: "a nested kustomization stops the walk there; any recognised name counts",
      files: ["r/base/Kustomization", "r/base/deep/x.yaml", "r/overlay/kustomization.yml", "r/plain/p.yaml"],
      dir: "r",
      resources: ["./base", "./overlay", "./plain/p.yaml"],
    },
    {
      name: "an empty folder gets Flux's placeholder namespace instead of failing",
      files: ["other/x.yaml", "empty/README.md"],
      dir: "empty",
      resources: undefined,
      namespace: "_placeholder",
    },
    {
      name: "the repository root",
      files: ["b.yaml", "a/k/kustomization.yaml", ".github/x.yaml"],
      dir: "",
      resources: ["./a/k", "./b.yaml"],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = gen(c.files, c.dir);
      expect(r.created).toBe(true);
      expect(r.file).toBe(c.dir ? `${c.dir}/kustomization.yaml` : "kustomization.yaml");
      expect(r.kus.apiVersion).toBe("kustomize.config.k8s.io/v1beta1");
      expect(r.kus.kind).toBe("Kustomization");
      expect(r.kus.resources).toEqual(c.resources);
      expect(r.kus.namespace).toBe(c.namespace);
    });
  }

  it("is written like sigs.k8s.io/yaml writes it: keys sorted, lists not indented", () => {
    expect(gen(["d/b.yaml", "d/a.yaml"], "d").text).toBe("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ./a.yaml\n- ./b.yaml\n");
  });
});

describe("the Kustomization's spec written into the kustomization", () => {
  const existing = { file: "app/kustomization.yaml", text: "resources: [deploy.yaml]\nimages:\n- name: ghcr.io/acme/app\n  newTag: v1.2.3\n" };

  it("targetNamespace, namePrefix, nameSuffix override the file's", () => {
    const r = gen(["app/kustomization.yaml"], "app", { targetNamespace: "prod", namePrefix: "p-", nameSuffix: "-s" }, { file: "app/kustomization.yaml", text: "namespace: dev\nnamePrefix: x-\nresources: [a.yaml]\n" });
    expect(r.created).toBe(false);
    expect(r.kus).toMatchObject({ namespace: "prod", namePrefix: "p-", nameSuffix: "-s", resources: ["a.yaml"] });
  });

  it("patches are appended after the file's own, with their targets", () => {
    const r = gen(["app/kustomization.yaml"], "app", { patches: [{ patch: "- op: add\n  path: /x\n  value: 1", target: { kind: "Deployment", name: "web", labelSelector: "" } }] }, {
      file: "app/kustomization.yaml",
      text: "resources: [a.yaml]\npatches:\n- path: own.yaml\n",
    });
    expect(r.kus.patches).toEqual([{ path: "own.yaml" }, { patch: "- op: add\n  path: /x\n  value: 1", target: { kind: "Deployment", name: "web" } }]);
  });

  const images: Array<{ name: string; flux: FluxRenderSpec["images"]; file: string; expected: unknown }> = [
    { name: "newName merges into the file's entry, its tag kept", flux: [{ name: "ghcr.io/acme/app", newName: "registry.example.com/app" }], file: existing.text, expected: [{ name: "ghcr.io/acme/app", newName: "registry.example.com/app", newTag: "v1.2.3" }] },
    { name: "a tag replaces the tag", flux: [{ name: "ghcr.io/acme/app", newTag: "v2.0.0" }], file: existing.text, expected: [{ name: "ghcr.io/acme/app", newTag: "v2.0.0" }] },
    {
      name: "a tag clears the file's digest",
      flux: [{ name: "ghcr.io/acme/app", newTag: "v2.0.0" }],
      file: "resources: [a.yaml]\nimages: [{name: ghcr.io/acme/app, digest: 'sha256:aa'}]\n",
      expected: [{ name: "ghcr.io/acme/app", newTag: "v2.0.0" }],
    },
    { name: "a digest clears the file's tag", flux: [{ name: "ghcr.io/acme/app", digest: "sha256:bb" }], file: existing.text, expected: [{ name: "ghcr.io/acme/app", digest: "sha256:bb" }] },
    { name: "a new image is appended", flux: [{ name: "nginx", newTag: "1.27" }], file: existing.text, expected: [{ name: "ghcr.io/acme/app", newTag: "v1.2.3" }, { name: "nginx", newTag: "1.27" }] },
  ];
  for (const c of images) {
    it(`images: ${c.name}`, () => {
      expect(gen([], "app", { images: c.flux }, { file: "app/kustomization.yaml", text: c.file }).kus.images).toEqual(c.expected);
    });
  }

  it("components: the file's first, then the spec's; missing ones dropped only with ignoreMissingComponents", () => {
    const file = { file: "app/kustomization.yaml", text: "resources: [a.yaml]\ncomponents: [componentA]\n" };
    const files = ["app/a.yaml", "app/componentB/kustomization.yaml"];
    expect(gen(files, "app", { components: ["componentB", "componentC"] }, file).kus.components).toEqual(["componentA", "componentB", "componentC"]);
    expect(gen(files, "app", { components: ["componentB", "componentC"], ignoreMissingComponents: true }, file).kus.components).toEqual(["componentA", "componentB"]);
    expect(gen(files, "app", { components: ["../shared/c"], ignoreMissingComponents: true }, file).kus.components).toEqual(["componentA"]);
    const remote = generateFluxKustomization(files, "app", file, { components: ["https://github.com/acme/c"] });
    expect(remote).toMatchObject({ ok: false, message: "component path 'https://github.com/acme/c' must be local and relative" });
  });

  it("an existing kustomization without resources builds with originAnnotations, as Flux sets", () => {
    const r = gen([], "gen", {}, { file: "gen/kustomization.yaml", text: "configMapGenerator:\n- name: cfg\n  literals: [a=b]\n" });
    expect(r.kus.buildMetadata).toEqual(["originAnnotations"]);
    expect(r.kus.apiVersion).toBe("kustomize.config.k8s.io/v1beta1");
  });

  it("fields kustomize's Kustomization type lacks are dropped, as Flux's round trip drops them", () => {
    const r = gen([], "a", {}, { file: "a/kustomization.yaml", text: "resources: [x.yaml]\nresourcs: [typo.yaml]\nsortOptions: {order: legacy}\n" });
    expect(r.kus).toEqual({ apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization", resources: ["x.yaml"], sortOptions: { order: "legacy" } });
  });

  it("a kustomization that is not YAML is an error of that file", () => {
    expect(generateFluxKustomization([], "a", { file: "a/kustomization.yaml", text: "resources: [a\n" }, {})).toMatchObject({ ok: false, file: "a/kustomization.yaml" });
  });
});

describe(".sourceignore, as source-controller packs the artifact", () => {
  const files = ["README.md", "docs/a.yaml", "apps/docs/b.yaml", "apps/test/t.yaml", "apps/app.yaml", "apps/keep.md", "apps/x.tmp.yaml", "infra/test/i.yaml"];
  const cases: Array<[string, Array<{ dir: string; text: string }>, string[]]> = [
    ["no ignore file: everything but the defaults", [], files],
    ["a name matches at any depth", [{ dir: "", text: "*.md\n" }], files.filter((f) => !f.endsWith(".md"))],
    ["a leading slash anchors to the file's folder", [{ dir: "", text: "/docs/\n" }], files.filter((f) => !f.startsWith("docs/"))],
    ["a folder pattern takes the folder's content; comments and blank lines are skipped", [{ dir: "", text: "# tests are not deployed\n\ntest/\n" }], files.filter((f) => !f.includes("test/"))],
    ["negation re-includes", [{ dir: "", text: "*.md\n!keep.md\n" }], files.filter((f) => f !== "README.md")],
    ["a nested .sourceignore applies below its folder only", [{ dir: "apps", text: "test/\n*.tmp.yaml\n" }], files.filter((f) => f !== "apps/test/t.yaml" && f !== "apps/x.tmp.yaml")],
    ["** spans folders", [{ dir: "", text: "**/test/*.yaml\n" }], files.filter((f) => !f.includes("test/"))],
  ];
  for (const [name, ignores, expected] of cases) {
    it(name, () => expect(fluxArtifactFiles(files, ignores)).toEqual(expected));
  }
});

describe("helpers", () => {
  it.each([
    ["a/.git/config", true],
    ["logo.png", true],
    ["deep/x/.sops.yaml", true],
    ["charts/a.tar.gz", true],
    ["x/.circleci/config.yml", true],
    ["app/deploy.yaml", false],
    ["app/sops.yaml", false],
  ])("excludedFromFluxArtifact(%s) = %s", (p, expected) => {
    expect(excludedFromFluxArtifact(p)).toBe(expected);
  });

  it.each([
    ["components/a", true],
    ["../a", true],
    ["/abs", false],
    ["https://github.com/x", false],
    ["github.com/x/y", false],
    ["git@github.com:x/y", false],
    ["file:///etc", false],
  ])("isLocalRelativePath(%s) = %s", (p, expected) => {
    expect(isLocalRelativePath(p)).toBe(expected);
  });

  it("plain reading suffices only without anything for kustomize to do", () => {
    expect(fluxNeedsBuild(["d/a.yaml"], "d", {})).toBe(false);
    expect(fluxNeedsBuild(["d/a.yaml"], "d", { commonMetadata: { labels: { a: "b" } } })).toBe(false);
    expect(fluxNeedsBuild(["d/a.yaml", "d/x/kustomization.yaml"], "d", {})).toBe(true);
    expect(fluxNeedsBuild(["d/a.yaml"], "d", { targetNamespace: "x" })).toBe(true);
    expect(fluxNeedsBuild(["d/a.yaml"], "d", { postBuild: { substitute: { a: "b" } } })).toBe(true);
    expect(fluxResourceFiles(["d/b.yaml", "d/a.json", "d/s/a.yml", "d/.sops.yaml"], "d")).toEqual(["d/b.yaml", "d/s/a.yml"]);
  });
});
