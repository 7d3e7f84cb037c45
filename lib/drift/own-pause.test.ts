import { describe, expect, it } from "vitest";
import { compareObject } from "./compare";
import { ANNOTATION_PAUSE_ID, ANNOTATION_PAUSED_BY, ANNOTATION_REASON, ANNOTATION_UNTIL, keyMayCarryOwnPause } from "./own-pause";
import type { KubeObject } from "./types";

const held = "6f1c2d3e-0000-4000-8000-000000000001";
const pauseAnnotations = (id: string) => ({
  [ANNOTATION_PAUSED_BY]: "olivia",
  [ANNOTATION_REASON]: "INC-7 hotfix by hand",
  [ANNOTATION_UNTIL]: "2026-12-06T22:00:00.000Z",
  [ANNOTATION_PAUSE_ID]: id,
});

/** What the API server records for a merge patch: who wrote which fields (a live-only field is drift when a person wrote it). */
const wroteBy = (manager: string, fields: Record<string, unknown>) => [{ manager, operation: "Update", apiVersion: "v1", time: "2026-12-06T19:00:00Z", fieldsType: "FieldsV1", fieldsV1: fields }];
const suspendFields = (annotations?: Record<string, string>) => ({
  "f:spec": { "f:suspend": {}, "f:prune": {} },
  ...(annotations ? { "f:metadata": { "f:annotations": Object.fromEntries(Object.keys(annotations).map((k) => [`f:${k}`, {}])) } } : {}),
});

const kustomization = (spec: Record<string, unknown>, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: "kustomize.toolkit.fluxcd.io/v1",
  kind: "Kustomization",
  metadata: { name: "shop", namespace: "flux-system", ...(annotations ? { annotations } : {}), managedFields: wroteBy(annotations ? "driftwatch" : "kubectl-patch", suspendFields(annotations)) },
  spec: { interval: "1m", path: "./apps/shop", prune: true, sourceRef: { kind: "GitRepository", name: "flux-system" }, ...spec },
});

const application = (syncPolicy: Record<string, unknown> | undefined, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: "argoproj.io/v1alpha1",
  kind: "Application",
  metadata: { name: "storefront", namespace: "argocd", ...(annotations ? { annotations } : {}), managedFields: wroteBy("driftwatch", { "f:spec": { "f:syncPolicy": {} } }) },
  spec: {
    project: "default",
    source: { repoURL: "https://git.example/shop.git", path: "apps/storefront", targetRevision: "main" },
    destination: { server: "https://kubernetes.default.svc", namespace: "shop" },
    ...(syncPolicy ? { syncPolicy } : {}),
  },
});

const paths = (d: ReturnType<typeof compareObject>) => (d.type === "Modified" ? d.changes.map((c) => c.display) : []);

describe("a pause Driftwatch holds on a controller object Git declares", () => {
  it("is not drift of the parent that declares a Flux Kustomization", () => {
    const live = kustomization({ suspend: true }, pauseAnnotations(held));
    expect(compareObject(kustomization({}), live, { ownPauseIds: [held] }).type).toBe("InSync");
  });

  it("is drift when Driftwatch does not hold that pause (ended, or annotations written by hand)", () => {
    const live = kustomization({ suspend: true }, pauseAnnotations("6f1c2d3e-0000-4000-8000-0000000000ff"));
    const drift = compareObject(kustomization({}), live, { ownPauseIds: [held] });
    expect(drift.type).toBe("Modified");
    expect(paths(drift).some((p) => p.includes("suspend"))).toBe(true);
  });

  it("is drift when nothing says Driftwatch paused it (suspended with kubectl)", () => {
    const drift = compareObject(kustomization({}), kustomization({ suspend: true }), { ownPauseIds: [held] });
    expect(paths(drift).some((p) => p.includes("suspend"))).toBe(true);
  });

  it("sets aside only what the pause wrote: another hand edit on the paused object is still drift", () => {
    const live = kustomization({ suspend: true, prune: false }, pauseAnnotations(held));
    const drift = compareObject(kustomization({}), live, { ownPauseIds: [held] });
    expect(paths(drift)).toHaveLength(1);
    expect(paths(drift)[0]).toContain("prune");
  });

  it("keeps Git's own suspend: a Kustomization Git suspends stays in sync while paused", () => {
    const live = kustomization({ suspend: true }, pauseAnnotations(held));
    expect(compareObject(kustomization({ suspend: true }), live, { ownPauseIds: [held] }).type).toBe("InSync");
  });

  it("is not drift of an Argo CD app-of-apps whose child Application lost its automated sync policy to the pause", () => {
    const desired = application({ automated: { prune: true, selfHeal: true }, syncOptions: ["CreateNamespace=true"] });
    const live = application({ syncOptions: ["CreateNamespace=true"] }, pauseAnnotations(held));
    expect(compareObject(desired, live, { ownPauseIds: [held] }).type).toBe("InSync");
    // The same live object without the pause held is the automated policy gone: drift.
    expect(compareObject(desired, live, { ownPauseIds: [] }).type).toBe("Modified");
  });

  it("handles an Application whose only sync policy was the automated one", () => {
    const desired = application({ automated: {} });
    const live = application(undefined, pauseAnnotations(held));
    expect(compareObject(desired, live, { ownPauseIds: [held] }).type).toBe("InSync");
  });

  it("leaves other kinds alone, even with the annotation", () => {
    const cm = (data: Record<string, string>, annotations?: Record<string, string>): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "shop", ...(annotations ? { annotations } : {}) }, data });
    expect(compareObject(cm({ a: "1" }), cm({ a: "2" }, pauseAnnotations(held)), { ownPauseIds: [held] }).type).toBe("Modified");
  });
});

describe("which verdicts a pause starting or ending can change", () => {
  it("only those of the controller kinds a pause writes to", () => {
    expect(keyMayCarryOwnPause("kustomize.toolkit.fluxcd.io/Kustomization/flux-system/shop")).toBe(true);
    expect(keyMayCarryOwnPause("helm.toolkit.fluxcd.io/HelmRelease/ingress-nginx/ingress-nginx")).toBe(true);
    expect(keyMayCarryOwnPause("argoproj.io/Application/argocd/storefront")).toBe(true);
    expect(keyMayCarryOwnPause("apps/Deployment/shop/api")).toBe(false);
    expect(keyMayCarryOwnPause("/ConfigMap/shop/settings")).toBe(false);
    // Same kind name, another group: not a controller object.
    expect(keyMayCarryOwnPause("example.com/Application/shop/storefront")).toBe(false);
  });
});
