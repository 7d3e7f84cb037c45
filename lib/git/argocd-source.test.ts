// Argo CD's source overrides: `.argocd-source.yaml` and `.argocd-source-<app>.yaml`
// merged over the Application's options as JSON merge patches, in that order.
import { describe, expect, it } from "vitest";
import { argoSourceOptions, argoSourceOverrideFiles, jsonMergePatch, mergeArgoSourceOverrides } from "./argocd-source";

describe("JSON merge patch (RFC 7386)", () => {
  it.each([
    [{ a: 1, b: { c: 2, d: 3 } }, { b: { c: null, e: 4 } }, { a: 1, b: { d: 3, e: 4 } }],
    [{ images: ["a:1", "b:1"] }, { images: ["a:2"] }, { images: ["a:2"] }],
    [{ a: 1 }, { a: { x: 1 } }, { a: { x: 1 } }],
    [{ a: { x: 1 } }, { a: "flat" }, { a: "flat" }],
    [{}, { a: null }, {}],
  ])("%j + %j = %j", (target, patch, expected) => expect(jsonMergePatch(target, patch)).toEqual(expected));
});

describe("Argo CD source overrides", () => {
  const app = { kustomize: { namePrefix: "web-", images: ["ghcr.io/acme/web:1.0"], commonLabels: { team: "web" } } };

  it("reads the generic file, then the app's own", () => {
    expect(argoSourceOverrideFiles("apps/web", "web-prod")).toEqual(["apps/web/.argocd-source.yaml", "apps/web/.argocd-source-web-prod.yaml"]);
    expect(argoSourceOverrideFiles("", undefined)).toEqual([".argocd-source.yaml"]);
  });

  it("Image Updater's write-back replaces the image list; the later file wins; null removes a field", () => {
    const r = mergeArgoSourceOverrides(app, [
      { file: "apps/web/.argocd-source.yaml", text: "kustomize:\n  commonLabels:\n    team: null\n    tier: frontend\n" },
      { file: "apps/web/.argocd-source-web-prod.yaml", text: "kustomize:\n  images:\n  - ghcr.io/acme/web:1.4.2\n" },
    ]);
    expect(r).toEqual({ ok: true, options: { kustomize: { namePrefix: "web-", images: ["ghcr.io/acme/web:1.4.2"], commonLabels: { tier: "frontend" } } } });
  });

  it("only the tools' settings count, in their shapes; an empty file changes nothing", () => {
    const r = mergeArgoSourceOverrides(app, [{ file: ".argocd-source.yaml", text: "path: elsewhere\nrepoURL: https://evil.example\nkustomize:\n  replicas: [{name: web, count: 2}, {count: 3}]\n" }, { file: "x", text: "" }]);
    expect(r).toEqual({ ok: true, options: { kustomize: { ...app.kustomize, replicas: [{ name: "web", count: 2 }] } } });
  });

  it("a file that is not YAML or not a mapping fails, naming the file", () => {
    expect(mergeArgoSourceOverrides(app, [{ file: "a/.argocd-source.yaml", text: "kustomize: [" }])).toMatchObject({ ok: false, file: "a/.argocd-source.yaml" });
    expect(mergeArgoSourceOverrides(app, [{ file: "a/.argocd-source.yaml", text: "- a\n" }])).toEqual({ ok: false, file: "a/.argocd-source.yaml", message: "a/.argocd-source.yaml: not a mapping" });
  });

  it("reads an ApplicationSource's options as the API server returns them", () => {
    expect(argoSourceOptions({ repoURL: "x", path: "p", directory: { recurse: true, include: "", jsonnet: {} }, kustomize: { namePrefix: "", images: ["a", 1] } })).toEqual({ directory: { recurse: true }, kustomize: { images: ["a"] } });
  });
});
