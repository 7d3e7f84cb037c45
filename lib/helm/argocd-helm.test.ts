import { describe, expect, it } from "vitest";
import { apiVersionStrings, argoHelmOptionsOf, cleanSetParameter, helmKubeVersion, helmTemplateArgs, inlineValuesYaml, isArgoHook, refValueFiles, resolveValueFiles, type RepositoryNode } from "./argocd-helm";
import { resolveChartVersion } from "./chart-version";

const tree = (files: Record<string, RepositoryNode>) => (f: string) => files[f];

describe("Argo CD's helm template command line", () => {
  it("passes release name, namespace, kube version, parameters, values files, inline values, API versions and CRDs in Argo CD's order", () => {
    const args = helmTemplateArgs({
      chart: ".",
      appName: "shop-prod",
      namespace: "shop",
      options: { parameters: [{ name: "image.tag", value: "1.2,3" }, { name: "replicas", value: "3" }, { name: "build", value: "0123", forceString: true }] },
      valueFiles: ["/t/values.yaml", "/t/values-prod.yaml"],
      inlineValuesFile: "/tmp/inline.yaml",
      cluster: { kubeVersion: "v1.34.4+k3s1", apiVersions: ["apps/v1", "apps/v1/Deployment", "v1"] },
    });
    expect(args).toEqual([
      "template", ".", "--name-template", "shop-prod", "--namespace", "shop", "--kube-version", "v1.34.4",
      "--set", "image.tag=1.2\\,3", "--set", "replicas=3", "--set-string", "build=0123",
      "--values", "/t/values.yaml", "--values", "/t/values-prod.yaml", "--values", "/tmp/inline.yaml",
      "--api-versions", "apps/v1", "--api-versions", "apps/v1/Deployment", "--api-versions", "v1",
      "--include-crds",
    ]);
  });

  it("uses releaseName, the source's namespace and skips, and the Application's own kubeVersion/apiVersions over the cluster's", () => {
    const args = helmTemplateArgs({
      chart: ".",
      appName: "app",
      namespace: "dest",
      options: { releaseName: "rel", namespace: "other", skipCrds: true, skipSchemaValidation: true, skipTests: true, kubeVersion: "1.30", apiVersions: ["x/v1"] },
      valueFiles: [],
      cluster: { kubeVersion: "v1.34.4", apiVersions: ["apps/v1"] },
    });
    expect(args).toEqual(["template", ".", "--name-template", "rel", "--namespace", "other", "--kube-version", "v1.30.0", "--api-versions", "x/v1", "--skip-schema-validation", "--skip-tests"]);
  });

  it("escapes commas as Argo CD does, except in a {list}", () => {
    expect(cleanSetParameter("a,b")).toBe("a\\,b");
    expect(cleanSetParameter("a\\,b")).toBe("a\\,b");
    expect(cleanSetParameter("{a,b}")).toBe("{a,b}");
  });

  it("reads ApplicationSourceHelm fields and prefers valuesObject over values", () => {
    const o = argoHelmOptionsOf({ helm: { releaseName: "r", valueFiles: ["a.yaml"], values: "x: 1\n", valuesObject: { y: 2 }, parameters: [{ name: "p" }, { value: "no name" }], ignoreMissingValueFiles: true } })!;
    expect(o).toMatchObject({ releaseName: "r", valueFiles: ["a.yaml"], ignoreMissingValueFiles: true, parameters: [{ name: "p", value: "" }] });
    expect(inlineValuesYaml(o)).toBe("y: 2\n");
    expect(inlineValuesYaml({ values: "x: 1\n" })).toBe("x: 1\n");
    expect(inlineValuesYaml({})).toBeUndefined();
  });

  it("lists group versions and group version kinds as Argo CD's APIResourcesToStrings does", () => {
    expect(apiVersionStrings([{ group: "", version: "v1", kind: "Pod" }, { group: "apps", version: "v1", kind: "Deployment" }, { group: "", version: "v1", kind: "Service" }])).toEqual(["apps/v1", "apps/v1/Deployment", "v1", "v1/Pod", "v1/Service"]);
    expect(helmKubeVersion("v1.34.4-gke.100")).toBe("v1.34.4");
    expect(helmKubeVersion("garbage")).toBeUndefined();
  });
});

describe("value files", () => {
  const node = tree({ "charts/shop/values.yaml": { type: "file" }, "charts/shop/values-prod.yaml": { type: "file" }, "env/prod.yaml": { type: "file" }, "charts/shop/evil.yaml": { type: "link" }, "charts/shop/templates": { type: "dir" } });

  it("resolve relative to the chart, absolute to the repository root, in order, each once", () => {
    expect(resolveValueFiles("charts/shop", ["values.yaml", "values-prod.yaml", "../../env/prod.yaml", "/env/prod.yaml", "values.yaml"], false, node)).toEqual({ ok: true, files: ["charts/shop/values.yaml", "charts/shop/values-prod.yaml", "env/prod.yaml"] });
  });

  it("refuse escapes, links, URLs and globs; a missing file fails unless ignoreMissingValueFiles", () => {
    expect(resolveValueFiles("charts/shop", ["../../../etc/passwd"], false, node)).toMatchObject({ ok: false, reason: "leaves the repository" });
    expect(resolveValueFiles("charts/shop", ["evil.yaml"], false, node)).toMatchObject({ ok: false, reason: expect.stringContaining("symbolic link") });
    expect(resolveValueFiles("charts/shop", ["https://example.com/v.yaml"], false, node)).toMatchObject({ ok: false, reason: expect.stringContaining("remote values file") });
    expect(resolveValueFiles("charts/shop", ["*.yaml"], false, node)).toMatchObject({ ok: false, reason: expect.stringContaining("glob") });
    expect(resolveValueFiles("charts/shop", ["nope.yaml"], false, node)).toMatchObject({ ok: false, reason: expect.stringContaining("does not exist") });
    expect(resolveValueFiles("charts/shop", ["nope.yaml", "values.yaml"], true, node)).toEqual({ ok: true, files: ["charts/shop/values.yaml"] });
    expect(resolveValueFiles("charts/shop", ["templates"], true, node)).toMatchObject({ ok: false, reason: "is not a file" });
  });

  it("take `$ref/…` files of a multi-source application's ref: sources in their place in the order", () => {
    expect(refValueFiles(["values.yaml", "$values/env/prod.yaml", "$values/../x.yaml", "$other//abs.yaml"])).toEqual([
      { entry: "$values/env/prod.yaml", refName: "values", file: "env/prod.yaml" },
      { entry: "$other//abs.yaml", refName: "other", file: "abs.yaml" },
    ]);
    const refs = new Map([["$values/env/prod.yaml", ".git/driftwatch-ref-values/0.yaml"]]);
    expect(resolveValueFiles("charts/shop", ["values.yaml", "$values/env/prod.yaml", "values-prod.yaml"], false, node, refs)).toEqual({ ok: true, files: ["charts/shop/values.yaml", ".git/driftwatch-ref-values/0.yaml", "charts/shop/values-prod.yaml"] });
    expect(resolveValueFiles("charts/shop", ["$values/missing.yaml"], false, node, refs)).toMatchObject({ ok: false, reason: expect.stringContaining("ref:") });
    expect(resolveValueFiles("charts/shop", ["$values/missing.yaml", "values.yaml"], true, node, refs)).toEqual({ ok: true, files: ["charts/shop/values.yaml"] });
  });
});

describe("hooks", () => {
  it("Helm and Argo CD hooks are not compared; crd-install is", () => {
    const o = (annotations: Record<string, string>) => ({ metadata: { name: "x", annotations } });
    expect(isArgoHook(o({ "helm.sh/hook": "test" }))).toBe(true);
    expect(isArgoHook(o({ "helm.sh/hook": "pre-install,post-upgrade" }))).toBe(true);
    expect(isArgoHook(o({ "argocd.argoproj.io/hook": "PreSync" }))).toBe(true);
    expect(isArgoHook(o({ "helm.sh/hook": "crd-install" }))).toBe(false);
    expect(isArgoHook(o({}))).toBe(false);
  });
});

describe("chart versions", () => {
  const versions = ["1.0.0", "1.2.0", "1.2.5", "1.10.1", "2.0.0-rc.1", "2.0.0", "2.1.0", "0.2.3", "0.2.9", "0.3.0"];
  it.each([
    ["1.2.0", "1.2.0"],
    ["", "2.1.0"],
    ["*", "2.1.0"],
    ["^1.2", "1.10.1"],
    ["~1.2.0", "1.2.5"],
    ["1.2.x", "1.2.5"],
    [">=1.0.0 <2.0.0", "1.10.1"],
    [">= 1.0, < 1.5", "1.2.5"],
    ["1.0 - 1.2", "1.2.5"],
    ["^0.2.3", "0.2.9"],
    ["<1.0.0 || >=2.0.0 <2.1", "2.0.0"],
    [">=2.0.0-rc.0 <2.0.0", "2.0.0-rc.1"],
    ["3.x", null],
    ["not a range", null],
  ])("%s resolves to %s", (wanted, expected) => {
    expect(resolveChartVersion(versions, wanted)).toBe(expected);
  });
});
