import { describe, expect, it } from "vitest";
import { pausePatch, resumePatch, controllerRefOf, controllerPath } from "./controller";

const meta = { pauseId: "p1", by: "alice", reason: "hotfix INC-42", until: new Date("2024-05-01T18:00:00Z") };

describe("controller pause patches", () => {
  it("suspends a Flux Kustomization and says who, why and until when", () => {
    expect(pausePatch("flux", meta)).toEqual({
      metadata: {
        annotations: {
          "driftwatch.dev/paused-by": "alice",
          "driftwatch.dev/pause-reason": "hotfix INC-42",
          "driftwatch.dev/paused-until": "2024-05-01T18:00:00.000Z",
          "driftwatch.dev/pause-id": "p1",
        },
      },
      spec: { suspend: true },
    });
  });
  it("turns Argo CD auto-sync off and resume puts the previous policy back", () => {
    expect(pausePatch("argocd", meta).spec).toEqual({ syncPolicy: { automated: null } });
    const back = resumePatch("argocd", { automated: { prune: true, selfHeal: true } });
    expect(back.spec).toEqual({ syncPolicy: { automated: { prune: true, selfHeal: true } } });
    expect((back.metadata as { annotations: Record<string, unknown> }).annotations["driftwatch.dev/paused-by"]).toBeNull();
  });
  it("does not invent an automated policy the application never had", () => {
    expect(resumePatch("argocd", { automated: null }).spec).toBeUndefined();
  });
  it("resumes Flux by clearing suspend and the annotations", () => {
    expect(resumePatch("flux", { suspend: false }).spec).toEqual({ suspend: false });
    // A pause claimed from the cluster has no recorded policy: resume resumes.
    expect(resumePatch("flux", null).spec).toEqual({ suspend: false });
    // A Kustomization whose spec had no suspend field gets none back (merge patch null removes it).
    expect(resumePatch("flux", { suspend: null }).spec).toEqual({ suspend: null });
  });
  it("leaves a Flux object suspended that was suspended before the pause began, clearing only its annotations", () => {
    const back = resumePatch("flux", { suspend: true });
    expect(back.spec).toBeUndefined();
    expect((back.metadata as { annotations: Record<string, unknown> }).annotations["driftwatch.dev/paused-by"]).toBeNull();
  });
  it("names and addresses the controller object", () => {
    expect(controllerRefOf({ controller: { type: "flux", kind: "Kustomization", namespace: "flux-system", name: "shop" } })).toBe("Kustomization/flux-system/shop");
    expect(controllerRefOf({ controller: { type: "flux", kind: "HelmRelease", namespace: "apps", name: "podinfo" } })).toBe("HelmRelease/apps/podinfo");
    expect(controllerPath({ type: "flux", kind: "HelmRelease", namespace: "apps", name: "podinfo" })).toBe("/apis/helm.toolkit.fluxcd.io/v2/namespaces/apps/helmreleases/podinfo");
    expect(controllerRefOf({ controller: undefined })).toBeNull();
    expect(controllerPath({ type: "argocd", namespace: "argocd", name: "shop" })).toBe("/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/shop");
  });
});
