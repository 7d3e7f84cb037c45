// Expectations restated from Argo CD's repo-server tests (findManifests with
// recurse/include/exclude, glob matching) and its `kustomize edit` calls.
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { applyArgoKustomizeOptions, argoBuildVariables, argoEnvsubst, globMatch, hasSkipMarker, parseImageArg, selectDirectoryFiles } from "./argocd-directory";

describe("globs as Argo CD matches them", () => {
  it.each([
    ["*.yaml", "deployment.yaml", true],
    ["*.yaml", "subdir/deploymentSub.yaml", true], // no separators: * crosses folders
    ["subdir/*.yaml", "deployment.yaml", false],
    ["{*.yaml.sealed,*.yaml}", "secret.yaml.sealed", true],
    ["{*.yaml.sealed,*.yaml}", "a.json", false],
    ["{a,b/{c,d}}.yaml", "b/d.yaml", true],
    ["app-?.yml", "app-1.yml", true],
    ["app-?.yml", "app-10.yml", false],
    ["[ab]*.json", "b.json", true],
    ["[!ab]*.json", "b.json", false],
    ["\\*.yaml", "*.yaml", true],
    ["\\*.yaml", "a.yaml", false],
    ["{unclosed", "unclosed", false],
  ])("%s against %s: %s", (pattern, text, expected) => {
    expect(globMatch(pattern, text)).toBe(expected);
  });
});

describe("directory source files", () => {
  const files = ["app/deployment.yaml", "app/subdir/deploymentSub.yaml", "app/notes.txt", "app/cm.json", "app/lib.jsonnet", "other/x.yaml"];
  const cases: Array<[string, Parameters<typeof selectDirectoryFiles>[2], string[]]> = [
    ["not recursive by default", {}, ["app/cm.json", "app/deployment.yaml", "app/lib.jsonnet"]],
    ["recurse", { recurse: true }, ["app/cm.json", "app/deployment.yaml", "app/lib.jsonnet", "app/subdir/deploymentSub.yaml"]],
    ["include one file", { recurse: true, include: "subdir/deploymentSub.yaml" }, ["app/subdir/deploymentSub.yaml"]],
    ["include with a glob set", { recurse: true, include: "{*.json,subdir/*}" }, ["app/cm.json", "app/subdir/deploymentSub.yaml"]],
    ["exclude one file", { recurse: true, exclude: "subdir/deploymentSub.yaml" }, ["app/cm.json", "app/deployment.yaml", "app/lib.jsonnet"]],
    ["exclude everything", { recurse: true, exclude: "*" }, []],
    ["exclude matching nothing", { recurse: true, exclude: "nothing.yaml" }, ["app/cm.json", "app/deployment.yaml", "app/lib.jsonnet", "app/subdir/deploymentSub.yaml"]],
    ["exclude wins over include", { recurse: true, include: "*.yaml", exclude: "subdir/*" }, ["app/deployment.yaml"]],
    ["a bad include pattern reads nothing", { include: "{bad" }, []],
    ["a bad exclude pattern excludes nothing", { exclude: "{bad" }, ["app/cm.json", "app/deployment.yaml", "app/lib.jsonnet"]],
  ];
  for (const [name, opts, expected] of cases) {
    it(name, () => expect(selectDirectoryFiles(files, "app", opts)).toEqual(expected));
  }

  it("walks a folder's entries in name order, each sub-folder where its name falls", () => {
    expect(selectDirectoryFiles(["d/b.yaml", "d/a/z.yaml", "d/c/a.yaml", "d/a.yaml"], "d", { recurse: true })).toEqual(["d/a/z.yaml", "d/a.yaml", "d/b.yaml", "d/c/a.yaml"]);
  });

  it("the skip marker", () => {
    expect(hasSkipMarker("# +argocd:skip-file-rendering\nkind: X")).toBe(true);
    expect(hasSkipMarker("kind: X")).toBe(false);
  });
});

describe("kustomize options as Argo CD's `kustomize edit` writes them", () => {
  it.each([
    ["nginx:1.27", { name: "nginx", newTag: "1.27" }],
    ["postgres=eu.gcr.io/p/postgres:latest", { name: "postgres", newName: "eu.gcr.io/p/postgres", newTag: "latest" }],
    ["mysql=mariadb", { name: "mysql", newName: "mariadb" }],
    ["alpine@sha256:24a0", { name: "alpine", digest: "sha256:24a0" }],
    ["registry:5000/app:2", { name: "registry:5000/app", newTag: "2" }],
    ["registry:5000/app", { name: "registry:5000/app" }],
  ])("set image %s", (arg, expected) => {
    expect(JSON.parse(JSON.stringify(parseImageArg(arg)))).toEqual(expected);
  });

  const base = "resources: [a.yaml]\nimages:\n- name: web\n  newName: ghcr.io/acme/web\n  newTag: '1.0'\ncommonLabels:\n  team: a\n";
  const edit = (opts: Parameters<typeof applyArgoKustomizeOptions>[1], text = base) => {
    const r = applyArgoKustomizeOptions(text, opts);
    if (!r.ok) throw new Error(r.message);
    return parse(r.text) as Record<string, unknown>;
  };

  it("prefix, suffix, namespace", () => {
    expect(edit({ namePrefix: "p-", nameSuffix: "-s", namespace: "prod" })).toMatchObject({ namePrefix: "p-", nameSuffix: "-s", namespace: "prod", resources: ["a.yaml"] });
  });

  it("images replace the entry of that name, keeping its newName when only a tag is given", () => {
    expect(edit({ images: ["web:2.0", "db=postgres:16"] }).images).toEqual([
      { name: "web", newName: "ghcr.io/acme/web", newTag: "2.0" },
      { name: "db", newName: "postgres", newTag: "16" },
    ]);
  });

  it("commonLabels: a key the file already has needs forceCommonLabels", () => {
    expect(applyArgoKustomizeOptions(base, { commonLabels: { team: "b" } })).toEqual({ ok: false, message: "label team already in kustomization file" });
    expect(edit({ commonLabels: { team: "b", env: "prod" }, forceCommonLabels: true }).commonLabels).toEqual({ team: "b", env: "prod" });
  });

  it("labelWithoutSelector adds a labels entry instead of commonLabels", () => {
    const k = edit({ commonLabels: { env: "prod" }, labelWithoutSelector: true, labelIncludeTemplates: true });
    expect(k.labels).toEqual([{ pairs: { env: "prod" }, includeTemplates: true }]);
    expect(k.commonLabels).toEqual({ team: "a" });
  });

  it("commonAnnotations merge", () => {
    expect(edit({ commonAnnotations: { owner: "ops" } }).commonAnnotations).toEqual({ owner: "ops" });
  });

  it("replicas: `edit set replicas` replaces the entry of that name and appends the others", () => {
    const k = edit({ replicas: [{ name: "web", count: 3 }, { name: "db", count: "1" }] }, `${base}replicas:\n- name: web\n  count: 1\n`);
    expect(k.replicas).toEqual([{ name: "web", count: 3 }, { name: "db", count: 1 }]);
  });

  it("patches are appended to the kustomization's own, typed fields only", () => {
    const k = edit({ patches: [{ path: "p.yaml", target: { kind: "Deployment", name: "" } }] }, `${base}patches:\n- path: own.yaml\n`);
    expect(k.patches).toEqual([{ path: "own.yaml" }, { path: "p.yaml", target: { kind: "Deployment" } }]);
    expect(applyArgoKustomizeOptions(`${base}patches: nope\n`, { patches: [{ path: "p.yaml" }] })).toMatchObject({ ok: false });
  });

  it("components: one already listed is left alone; a missing one fails unless ignored", () => {
    const exists = (p: string) => p !== "../gone";
    const r = applyArgoKustomizeOptions(`${base}components: [../ha]\n`, { components: ["../ha", "../tls"] }, { exists });
    expect(r.ok && parse(r.text).components).toEqual(["../ha", "../tls"]);
    expect(applyArgoKustomizeOptions(base, { components: ["../gone"] }, { exists })).toMatchObject({ ok: false, message: expect.stringContaining("../gone") });
    const ignored = applyArgoKustomizeOptions(base, { components: ["../gone"], ignoreMissingComponents: true }, { exists });
    expect(ignored.ok && parse(ignored.text).components).toBeUndefined();
  });
});

describe("Argo CD's build variables (Env.Envsubst: Go's os.Expand)", () => {
  const vars = argoBuildVariables({ appName: "web", appNamespace: "shop" }, "0123456789abcdef");
  it.each([
    ["${ARGOCD_APP_NAME}-${ARGOCD_APP_NAMESPACE}", "web-shop"],
    ["$ARGOCD_APP_REVISION_SHORT/$ARGOCD_APP_REVISION_SHORT_8", "0123456/01234567"],
    ["cost: $$5", "cost: $5"],
    ["$UNKNOWN and ${ALSO_UNKNOWN}", " and "],
    ["a$", "a$"],
    ["50% $ off", "50% $ off"],
    ["${}x", "x"],
    ["${unclosed", "unclosed"],
    ["$1st", "st"],
    ["no dollars", "no dollars"],
  ])("%s → %s", (text, expected) => expect(argoEnvsubst(text, vars)).toBe(expected));
});
