import { describe, expect, it } from "vitest";
import { classifyReference, normaliseRepoUrl, parseRemoteBase, resolveInTree, walkKustomization, type RepoTree, type TreeNode } from "./kustomize-inputs";

/** An in-memory commit: files by path, links as `{ link: target }`, submodules as `{ submodule: true }`. */
function treeOf(files: Record<string, string | { link: string } | { submodule: true }>): RepoTree {
  const nodes = new Map<string, TreeNode>();
  for (const [file, v] of Object.entries(files)) {
    const parts = file.split("/");
    for (let i = 1; i < parts.length; i++) nodes.set(parts.slice(0, i).join("/"), { type: "dir" });
    nodes.set(file, typeof v === "string" ? { type: "file" } : "link" in v ? { type: "link", target: v.link } : { type: "submodule" });
  }
  return {
    node: (f) => nodes.get(f),
    read: async (f) => {
      const v = files[f];
      return typeof v === "string" ? v : "";
    },
  };
}

const DEPLOY = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n";

describe("walkKustomization: inputs", () => {
  it("lists every file a build reads through resources, components, patches, generators, replacements, crds, openapi and configurations", async () => {
    const tree = treeOf({
      "base/kustomization.yaml": "resources: [deploy.yaml]\nconfigurations: [names.yaml]\n",
      "base/deploy.yaml": DEPLOY,
      "base/names.yaml": "nameReference: []\n",
      "components/tls/kustomization.yaml": "kind: Component\npatches:\n- path: tls.yaml\n",
      "components/tls/tls.yaml": DEPLOY,
      "envs/prod/kustomization.yaml": [
        "resources: [../../base, ns.yaml]",
        "components: [../../components/tls]",
        "patchesStrategicMerge: [smp.yaml, \"apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: inline}\\n\"]",
        "patchesJson6902:",
        "- target: {kind: Deployment, name: web}",
        "  path: json.yaml",
        "patches:",
        "- patch: '[{op: replace, path: /spec/replicas, value: 3}]'",
        "  target: {kind: Deployment}",
        "configMapGenerator:",
        "- name: app",
        "  files: [app.properties, key=renamed.txt]",
        "  envs: [app.env]",
        "  literals: [A=1]",
        "secretGenerator:",
        "- name: creds",
        "  env: creds.env",
        "replacements:",
        "- path: repl.yaml",
        "crds: [crd.json]",
        "openapi: {path: schema.json}",
        "transformers: [labels.yaml]",
      ].join("\n"),
      "envs/prod/ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: prod}\n",
      "envs/prod/smp.yaml": DEPLOY,
      "envs/prod/json.yaml": "[]",
      "envs/prod/app.properties": "a=1",
      "envs/prod/renamed.txt": "x",
      "envs/prod/app.env": "A=1",
      "envs/prod/creds.env": "B=2",
      "envs/prod/repl.yaml": "source: {kind: ConfigMap}\n",
      "envs/prod/crd.json": "{}",
      "envs/prod/schema.json": "{}",
      "envs/prod/labels.yaml": "apiVersion: builtin\nkind: LabelTransformer\nmetadata: {name: l}\nlabels: {team: a}\nfieldSpecs: []\n",
      "envs/prod/unused.yaml": DEPLOY,
      "other/kustomization.yaml": "resources: [x.yaml]\n",
    });
    const walk = await walkKustomization(tree, "envs/prod");
    expect(walk.refusals).toEqual([]);
    expect(walk.inputs).toEqual([
      "base/deploy.yaml",
      "base/kustomization.yaml",
      "base/names.yaml",
      "components/tls/kustomization.yaml",
      "components/tls/tls.yaml",
      "envs/prod/app.env",
      "envs/prod/app.properties",
      "envs/prod/crd.json",
      "envs/prod/creds.env",
      "envs/prod/json.yaml",
      "envs/prod/kustomization.yaml",
      "envs/prod/labels.yaml",
      "envs/prod/ns.yaml",
      "envs/prod/renamed.txt",
      "envs/prod/repl.yaml",
      "envs/prod/schema.json",
      "envs/prod/smp.yaml",
    ]);
  });

  it("walks a base reached twice once, and a cycle ends", async () => {
    const tree = treeOf({
      "a/kustomization.yaml": "resources: [../b, ../c]\n",
      "b/kustomization.yaml": "resources: [../c]\n",
      "c/kustomization.yml": "resources: [../b]\n",
    });
    const walk = await walkKustomization(tree, "a");
    expect(walk.inputs).toEqual(["a/kustomization.yaml", "b/kustomization.yaml", "c/kustomization.yml"]);
  });

  it("at the repository root", async () => {
    const walk = await walkKustomization(treeOf({ Kustomization: "resources: [d.yaml]\n", "d.yaml": DEPLOY }), "");
    expect(walk).toEqual({ inputs: ["Kustomization", "d.yaml"], refusals: [], remoteBases: [], helmCharts: [] });
  });
});

describe("walkKustomization: refusals name the file and the reference", () => {
  const refusalsOf = async (kustomization: string, extra: Record<string, string | { link: string } | { submodule: true }> = {}, allow?: (r: string) => boolean) =>
    (await walkKustomization(treeOf({ "app/kustomization.yaml": kustomization, "app/ok.yaml": DEPLOY, ...extra }), "app", { allowRemote: allow })).refusals;

  it.each([
    ["https remote base", "resources: [https://github.com/acme/bases//web?ref=v1]\n", "https://github.com/acme/bases//web?ref=v1", /not on the allowlist/],
    ["scheme-less github base", "resources: [github.com/acme/bases/web?ref=v1]\n", "github.com/acme/bases/web?ref=v1", /not on the allowlist/],
    ["scp-like git@ base", "resources: ['git@github.com:acme/bases.git//web']\n", "git@github.com:acme/bases.git//web", /not on the allowlist/],
    ["ssh:// base", "resources: ['ssh://git@host/acme/bases.git']\n", "ssh://git@host/acme/bases.git", /not on the allowlist/],
    ["ext:: transport", "resources: ['ext::sh -c touch% /tmp/x']\n", "ext::sh -c touch% /tmp/x", /not on the allowlist/],
    ["host-like missing path", "resources: [evil.example/org/repo]\n", "evil.example/org/repo", /not on the allowlist/],
    ["generator file over http", "configMapGenerator:\n- name: m\n  files: [http://127.0.0.1:9/latest/meta-data]\n", "http://127.0.0.1:9/latest/meta-data", /remote references are not fetched/],
    ["key=url generator file", "configMapGenerator:\n- name: m\n  files: ['k=https://169.254.169.254/x']\n", "https://169.254.169.254/x", /remote references/],
    ["remote patch", "patches:\n- path: https://evil.example/p.yaml\n", "https://evil.example/p.yaml", /remote references/],
    ["remote openapi", "openapi: {path: 'https://evil.example/schema.json'}\n", "https://evil.example/schema.json", /remote references/],
    ["file:// base", "resources: ['file:///var/lib/driftwatch/mirrors/other.git']\n", "file:///var/lib/driftwatch/mirrors/other.git", /file:\/\/ URLs/],
    ["absolute resource", "resources: [/etc/passwd]\n", "/etc/passwd", /absolute paths/],
    ["absolute env file", "secretGenerator:\n- name: s\n  envs: [/proc/self/environ]\n", "/proc/self/environ", /absolute paths/],
    ["home-relative path", "crds: ['~/.kube/config']\n", "~/.kube/config", /absolute paths/],
    ["../ escape", "resources: [../../../etc]\n", "../../../etc", /leaves the repository/],
    ["../ escape in a generator", "configMapGenerator:\n- name: m\n  files: [../../outside.txt]\n", "../../outside.txt", /leaves the repository/],
    ["missing file", "resources: [missing.yaml]\n", "missing.yaml", /does not exist in the repository \(app\/missing\.yaml\)/],
    ["helm charts", "helmCharts:\n- name: redis\n  repo: https://charts.example\n", "helmCharts", /Helm chart inflation/],
    ["helm globals", "helmGlobals: {chartHome: charts}\n", "helmGlobals", /Helm chart inflation/],
  ])("%s", async (_name, kustomization, reference, reason) => {
    expect(await refusalsOf(kustomization)).toEqual([{ file: "app/kustomization.yaml", reference, reason: expect.stringMatching(reason) }]);
  });

  it("symbolic links: out of the repository (file and directory, absolute and ../), and inside it", async () => {
    const refusals = await refusalsOf("resources: [hosts.yaml, etc, up/x.yaml, inside.yaml]\n", {
      "app/hosts.yaml": { link: "/etc/hosts" },
      "app/etc": { link: "/etc" },
      "app/up": { link: "../../.." },
      "app/inside.yaml": { link: "ok.yaml" },
    });
    expect(refusals).toEqual([
      { file: "app/kustomization.yaml", reference: "hosts.yaml", reason: "leaves the repository through the symbolic link app/hosts.yaml → /etc/hosts" },
      { file: "app/kustomization.yaml", reference: "etc", reason: "leaves the repository through the symbolic link app/etc → /etc" },
      { file: "app/kustomization.yaml", reference: "up/x.yaml", reason: "leaves the repository through the symbolic link app/up" },
      { file: "app/kustomization.yaml", reference: "inside.yaml", reason: expect.stringContaining("goes through the symbolic link app/inside.yaml") },
    ]);
  });

  it("a link loop ends", async () => {
    const refusals = await refusalsOf("resources: [a/x.yaml]\n", { "app/a": { link: "b" }, "app/b": { link: "a" } });
    expect(refusals[0]?.reason).toMatch(/leaves the repository/);
  });

  it("a submodule is not followed", async () => {
    expect((await refusalsOf("resources: [vendor/base]\n", { "app/vendor": { submodule: true } }))[0]?.reason).toMatch(/submodule app\/vendor/);
  });

  it("plugins and KRM functions in generators, transformers and validators; builtins pass", async () => {
    const refusals = await refusalsOf("generators: [exec.yaml, plugins]\ntransformers: [builtin.yaml, \"apiVersion: fn.example/v1\\nkind: Fn\\nmetadata:\\n  name: f\\n  annotations:\\n    config.kubernetes.io/function: |\\n      exec: {path: /bin/sh}\\n\"]\nvalidators: [v.yaml]\n", {
      "app/exec.yaml": "apiVersion: someteam.example.com/v1\nkind: ChartInflator\nmetadata: {name: x}\n",
      "app/plugins/kustomization.yaml": "resources: [fn.yaml]\n",
      "app/plugins/fn.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f\n  annotations:\n    config.kubernetes.io/function: |\n      container: {image: evil}\n",
      "app/builtin.yaml": "apiVersion: builtin\nkind: PrefixSuffixTransformer\nmetadata: {name: p}\nprefix: a-\n",
      "app/v.yaml": "apiVersion: builtin\nkind: ReplacementTransformer\nmetadata: {name: r}\n",
    });
    expect(refusals.map((r) => [r.file, r.reference, r.reason.replace(/:.*/, "")])).toEqual([
      ["app/kustomization.yaml", "exec.yaml", "someteam.example.com/v1 ChartInflator is a kustomize plugin; only kustomize's builtin generators and transformers run here"],
      ["app/plugins/kustomization.yaml", "fn.yaml", "declares a KRM function (config.kubernetes.io/function)"],
      ["app/kustomization.yaml", "apiVersion: fn.example/v1", "declares a KRM function (config.kubernetes.io/function)"],
    ]);
  });

  it("builtin generators and transformers have their files checked and listed; a HelmChartInflationGenerator config is refused", async () => {
    const tree = treeOf({
      "app/kustomization.yaml": "generators: [gen.yaml]\ntransformers: [patch.yaml, helm.yaml]\n",
      "app/gen.yaml": `apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata: {name: g}\nfiles: [local.txt, "k=http://127.0.0.1:9/x"]\nenvs: [/proc/self/environ]\n`,
      "app/local.txt": "x",
      "app/patch.yaml": "apiVersion: builtin\nkind: PatchTransformer\nmetadata: {name: p}\npath: ../../etc/passwd\n---\napiVersion: builtin\nkind: PatchStrategicMergeTransformer\nmetadata: {name: s}\npaths: [smp.yaml]\n",
      "app/smp.yaml": DEPLOY,
      "app/helm.yaml": "apiVersion: builtin\nkind: HelmChartInflationGenerator\nmetadata: {name: h}\nchartName: redis\n",
    });
    const walk = await walkKustomization(tree, "app");
    expect(walk.refusals.map((r) => [r.reference, r.reason.split(":")[0]])).toEqual([
      ["http://127.0.0.1:9/x", "remote references are not fetched by kustomize here; only Driftwatch fetches, and only remote bases (resources, components)"],
      ["/proc/self/environ", "absolute paths are not followed"],
      ["../../etc/passwd", "leaves the repository"],
      ["helm.yaml", "a HelmChartInflationGenerator configuration is not run here; list the chart under helmCharts in the kustomization"],
    ]);
    expect(walk.inputs).toEqual(["app/gen.yaml", "app/helm.yaml", "app/kustomization.yaml", "app/local.txt", "app/patch.yaml", "app/smp.yaml"]);
  });

  it("a refusal deep in a base names that base's kustomization", async () => {
    const refusals = await refusalsOf("resources: [../base]\n", { "base/kustomization.yaml": "resources: [https://evil.example/x.yaml]\n" });
    expect(refusals).toEqual([{ file: "base/kustomization.yaml", reference: "https://evil.example/x.yaml", reason: expect.any(String) }]);
  });

  it("an allowlisted remote base must be pinned, and is handed back to be fetched", async () => {
    const allow = (r: string) => r === "github.com/acme/bases";
    const walk = await walkKustomization(
      treeOf({ "app/kustomization.yaml": "resources: ['https://github.com/acme/bases.git//web?ref=v1.2', 'git@github.com:acme/bases//db', 'https://github.com/acme/other//x?ref=v1']\n" }),
      "app",
      { allowRemote: allow },
    );
    expect(walk.remoteBases).toEqual([{ file: "app/kustomization.yaml", reference: "https://github.com/acme/bases.git//web?ref=v1.2", repository: "github.com/acme/bases", subPath: "web", ref: "v1.2" }]);
    expect(walk.refusals.map((r) => [r.reference, r.reason])).toEqual([
      ["git@github.com:acme/bases//db", "an allowlisted remote base must be pinned with ?ref= (a branch, tag or commit)"],
      ["https://github.com/acme/other//x?ref=v1", "remote base github.com/acme/other is not on the allowlist (remoteBases in driftwatch.yaml)"],
    ]);
  });

  it("a local directory that looks like a host is local when the tree has it", async () => {
    expect(await refusalsOf("resources: [config.d/app]\n", { "app/config.d/app/kustomization.yaml": "resources: []\n" })).toEqual([]);
  });

  it("an unreadable kustomization is refused with its line", async () => {
    expect((await refusalsOf("resources: [ok.yaml\n"))[0]).toMatchObject({ file: "app/kustomization.yaml", reason: expect.stringMatching(/cannot be read/) });
  });
});

describe("reference helpers", () => {
  it.each([
    ["https://github.com/Acme/Bases.git", "github.com/acme/bases"],
    ["git@github.com:acme/bases.git", "github.com/acme/bases"],
    ["ssh://git@github.com:22/acme/bases", "github.com/acme/bases"],
    ["http://127.0.0.1:8080/bases/", "127.0.0.1:8080/bases"],
  ])("normaliseRepoUrl(%s) = %s", (url, want) => expect(normaliseRepoUrl(url)).toBe(want));

  it("parseRemoteBase splits repository, path and ref", () => {
    expect(parseRemoteBase("k", "github.com/acme/bases/envs/web?ref=main")).toMatchObject({ repository: "github.com/acme/bases", subPath: "envs/web", ref: "main" });
    expect(parseRemoteBase("k", "http://127.0.0.1:8080/bases.git/web?ref=v1")).toMatchObject({ repository: "127.0.0.1:8080/bases", subPath: "web", ref: "v1" });
  });

  it("classifyReference", () => {
    expect(["file:///x", "https://x/y", "git@h:o/r", "/abs", "~/x", "rel/x.yaml", "../b"].map(classifyReference)).toEqual(["file-url", "remote", "remote", "absolute", "absolute", "local", "local"]);
  });

  it("resolveInTree follows in-repository links and stops at the root", () => {
    const tree = treeOf({ "a/b/f.yaml": "", "a/l": { link: "b" } });
    expect(resolveInTree(tree, "a", "l/f.yaml")).toEqual({ status: "file", path: "a/b/f.yaml", link: "a/l" });
    expect(resolveInTree(tree, "a", "../..")).toEqual({ status: "outside" });
    expect(resolveInTree(tree, "a", "..")).toEqual({ status: "dir", path: "" });
  });
});
