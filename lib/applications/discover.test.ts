import { describe, expect, it } from "vitest";
import { withUniqueNames } from "./discover";
import type { ApplicationSpec } from "./spec";

const app = (kind: "Kustomization" | "HelmRelease" | "Application", namespace: string, name: string): ApplicationSpec => ({
  name: `${namespace}/${name}`,
  kind: kind === "Kustomization" ? "flux-kustomization" : kind === "HelmRelease" ? "flux-helmrelease" : "argocd-application",
  promotionKey: name,
  controller: { type: kind === "Application" ? "argocd" : "flux", kind, namespace, name },
  sources: [],
  labels: {},
});

describe("withUniqueNames", () => {
  it("keeps namespace/name, adds the kind only where two controller objects share one, and sorts", () => {
    const named = withUniqueNames([app("HelmRelease", "flux-system", "podinfo"), app("Kustomization", "flux-system", "podinfo"), app("Kustomization", "flux-system", "apps")]);
    expect(named.map((a) => a.name)).toEqual(["flux-system/apps", "flux-system/helmrelease/podinfo", "flux-system/kustomization/podinfo"]);
    // The promotion key is untouched: the same application elsewhere still matches.
    expect(named.map((a) => a.promotionKey)).toEqual(["apps", "podinfo", "podinfo"]);
  });
});
