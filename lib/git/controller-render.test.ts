import { describe, expect, it } from "vitest";
import { blameKustomization, controllerRenderKey } from "./controller-render";

describe("blameKustomization", () => {
  const files = ["clusters/prod/flux-system/kustomization.yaml", "bases/app/kustomization.yml", "clusters/prod/apps/a.yaml"];
  it.each([
    [
      "the deepest kustomization kustomize was reading",
      "accumulating resources from './flux-system': recursed accumulation of path 'clusters/prod/flux-system': accumulating resources: lstat clusters/prod/flux-system/missing.yaml: no such file",
      "clusters/prod/flux-system/kustomization.yaml",
    ],
    ["any recognised file name", "recursed accumulation of path 'clusters/prod/flux-system': x: recursed accumulation of path 'bases/app': y", "bases/app/kustomization.yml"],
    ["the built one when no nested path is named", "invalid Kustomization: json: unknown field \"resourcs\"", "clusters/prod/kustomization.yaml"],
    ["the built one when the named folder has no kustomization", "recursed accumulation of path 'clusters/prod/apps': z", "clusters/prod/kustomization.yaml"],
  ])("%s", (_name, message, expected) => {
    expect(blameKustomization(message, "clusters/prod/kustomization.yaml", files)).toBe(expected);
  });
});

describe("controllerRenderKey", () => {
  it("differs with every setting and variable value, and holds no variable value", () => {
    const base = { type: "flux" as const, spec: { postBuild: {} }, variables: new Map([["password", "s3cr3t-value"]]) };
    const key = controllerRenderKey(base);
    expect(key).not.toContain("s3cr3t-value");
    expect(controllerRenderKey({ ...base, variables: new Map([["password", "other"]]) })).not.toBe(key);
    expect(controllerRenderKey({ ...base, spec: { postBuild: {}, namePrefix: "a-" } })).not.toBe(key);
    expect(controllerRenderKey({ type: "argocd", directory: { recurse: true } })).not.toBe(controllerRenderKey({ type: "argocd", directory: {} }));
    expect(controllerRenderKey(undefined)).toBe("");
  });
});
