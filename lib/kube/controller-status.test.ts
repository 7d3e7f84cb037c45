import { describe, expect, it } from "vitest";
import { argoStatus, fluxStatus, shaOfRevision } from "./controller-status";

const SHA = "4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39";
const OLD = "1111111111111111111111111111111111111111";

describe("shaOfRevision", () => {
  it.each([
    [`main@sha1:${SHA}`, SHA],
    [`main/${SHA}`, SHA],
    // Flux source-controller for a tag or the tag a semver range chose (annotated tags peeled to the commit).
    [`v1.2.3@sha1:${SHA}`, SHA],
    // A pinned commit without a branch, a full ref name, and Flux v1's tag form.
    [`sha1:${SHA}`, SHA],
    [`refs/pull/7/head@sha1:${SHA}`, SHA],
    [`v1.2.3/${SHA}`, SHA],
    [SHA, SHA],
    ["main", null],
    [null, null],
  ])("%s → %s", (rev, sha) => expect(shaOfRevision(rev)).toBe(sha));
});

describe("fluxStatus", () => {
  const kustomization = {
    apiVersion: "kustomize.toolkit.fluxcd.io/v1",
    kind: "Kustomization",
    metadata: { name: "shop-production", namespace: "flux-system" },
    spec: { suspend: false, sourceRef: { kind: "GitRepository", name: "shop" } },
    status: {
      lastAppliedRevision: `main@sha1:${OLD}`,
      lastAttemptedRevision: `main@sha1:${OLD}`,
      conditions: [{ type: "Ready", status: "True", reason: "ReconciliationSucceeded", message: `Applied revision: main@sha1:${OLD}` }],
      inventory: { entries: [{ id: "shop_api_apps_Deployment", v: "v1" }] },
    },
  };
  const source = {
    apiVersion: "source.toolkit.fluxcd.io/v1",
    kind: "GitRepository",
    metadata: { name: "shop", namespace: "flux-system" },
    spec: {},
    status: {
      artifact: { revision: `main@sha1:${OLD}` },
      conditions: [
        { type: "Ready", status: "False", reason: "AuthenticationFailed", message: "failed to checkout and determine revision: unable to clone: authentication required" },
        { type: "FetchFailed", status: "True", reason: "AuthenticationFailed", message: "authentication required" },
      ],
    },
  };

  it("explains a stale environment with the source's AuthenticationFailed, not the Kustomization's Ready", () => {
    const s = fluxStatus({ namespace: "flux-system", name: "shop-production" }, kustomization, source);
    expect(s.appliedRevision).toBe(OLD);
    expect(s.ready).toBe("True");
    expect(s.failure).toMatchObject({ object: "GitRepository/flux-system/shop", reason: "AuthenticationFailed" });
    expect(s.inventory).toEqual(["shop_api_apps_Deployment"]);
    expect(s.suspended).toBe(false);
  });

  it("names who suspended it from managedFields", () => {
    const suspended = {
      ...kustomization,
      metadata: {
        ...kustomization.metadata,
        managedFields: [
          { manager: "kustomize-controller", operation: "Update", subresource: "status", time: "2026-12-01T10:00:00Z", fieldsV1: { "f:status": {} } },
          { manager: "kubectl-patch", operation: "Update", time: "2026-12-02T09:12:00Z", fieldsV1: { "f:spec": { "f:suspend": {} } } },
        ],
      },
      spec: { ...kustomization.spec, suspend: true },
    };
    const s = fluxStatus({ namespace: "flux-system", name: "shop-production" }, suspended, null);
    expect(s.suspended).toBe(true);
    expect(s.suspendedBy).toEqual({ manager: "kubectl-patch", time: "2026-12-02T09:12:00Z" });
  });

  it("reports a missing controller object as not found", () => {
    expect(fluxStatus({ namespace: "flux-system", name: "x" }, null, null)).toMatchObject({ found: false, appliedRevision: null });
  });
});

describe("argoStatus", () => {
  const app = {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: {
      name: "shop-staging",
      namespace: "argocd",
      managedFields: [
        { manager: "argocd-server", operation: "Update", time: "2026-11-20T10:00:00Z", fieldsV1: { "f:spec": { "f:source": {} } } },
        { manager: "kubectl-patch", operation: "Update", time: "2026-12-02T08:00:00Z", fieldsV1: { "f:metadata": { "f:annotations": {} } } },
      ],
    },
    spec: { syncPolicy: {} },
    status: {
      sync: { status: "OutOfSync", revision: SHA },
      health: { status: "Healthy" },
      operationState: { phase: "Succeeded", syncResult: { revision: SHA } },
      history: [{ revision: OLD, deployedAt: "2026-11-30T10:00:00Z" }, { revision: SHA, deployedAt: "2026-12-01T10:00:00Z" }],
    },
  };
  it("treats removed automated sync as a pause without inventing who removed it", () => {
    const s = argoStatus({ namespace: "argocd", name: "shop-staging" }, app);
    expect(s.automatedSync).toBe(false);
    expect(s.suspended).toBe(true);
    expect(s.suspendedBy).toBeNull();
    expect(s.appliedRevision).toBe(SHA);
    expect(s.history.map((h) => h.revision)).toEqual([OLD, SHA]);
  });
  it("names the writer of automated.enabled=false", () => {
    const disabled = {
      ...app,
      metadata: { ...app.metadata, managedFields: [...app.metadata.managedFields, { manager: "kubectl-patch", operation: "Update", time: "2026-12-02T09:30:00Z", fieldsV1: { "f:spec": { "f:syncPolicy": { "f:automated": { "f:enabled": {} } } } } }] },
      spec: { syncPolicy: { automated: { prune: true, selfHeal: true, enabled: false } } },
    };
    const s = argoStatus({ namespace: "argocd", name: "shop-staging" }, disabled);
    expect(s.suspended).toBe(true);
    expect(s.suspendedBy).toEqual({ manager: "kubectl-patch", time: "2026-12-02T09:30:00Z" });
  });
  it("reads the objects the Application records (status.resources, orphans requiring pruning included) as inventory ids", () => {
    const recorded = {
      ...app,
      status: {
        ...app.status,
        resources: [
          { group: "apps", version: "v1", kind: "Deployment", namespace: "shop", name: "api", status: "Synced" },
          { version: "v1", kind: "ConfigMap", namespace: "shop", name: "leftover-flags", status: "OutOfSync", requiresPruning: true },
          { version: "v1", kind: "Namespace", name: "shop", status: "Synced" },
        ],
      },
    };
    expect(argoStatus({ namespace: "argocd", name: "shop-staging" }, recorded).inventory).toEqual(["shop_api_apps_Deployment", "shop_leftover-flags__ConfigMap", "_shop__Namespace"]);
    expect(argoStatus({ namespace: "argocd", name: "shop-staging" }, app).inventory).toEqual([]);
  });
  it("is not paused while automated sync is on", () => {
    const s = argoStatus({ namespace: "argocd", name: "shop-staging" }, { ...app, spec: { syncPolicy: { automated: { prune: true, selfHeal: true } } } });
    expect(s.suspended).toBe(false);
  });
});
