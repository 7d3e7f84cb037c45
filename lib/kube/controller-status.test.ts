import { describe, expect, it } from "vitest";
import { argoStatus, argoSyncMode, declaredApplicationKey, fluxStatus, shaOfRevision, withDeclaredApplication, type ArgoSyncMode } from "./controller-status";
import { ANNOTATION_PAUSE_ID } from "@/lib/drift/own-pause";

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
  it("reads an Application without automated sync, declared nowhere, as syncing by hand: no pause", () => {
    const s = argoStatus({ namespace: "argocd", name: "shop-staging" }, app);
    expect(s.automatedSync).toBe(false);
    expect(s.argoSync).toBe("manual");
    expect(s.suspended).toBe(false);
    expect(s.suspendedBy).toBeNull();
    expect(s.appliedRevision).toBe(SHA);
    expect(s.history.map((h) => h.revision)).toEqual([OLD, SHA]);
  });
  it("treats automated sync removed from an Application whose Git declaration has it as a pause, without inventing who removed it", () => {
    const declared = { ...app, metadata: { name: "shop-staging", namespace: "argocd" }, spec: { syncPolicy: { automated: { prune: true } } }, status: undefined };
    const s = withDeclaredApplication(argoStatus({ namespace: "argocd", name: "shop-staging" }, app), declared);
    expect(s).toMatchObject({ argoSync: "automated-removed", suspended: true, suspendedBy: null, automatedSync: false, appliedRevision: SHA });
  });
  it("keeps a manual Application manual when Git declares it without automated sync", () => {
    const declared = { ...app, spec: { syncPolicy: { syncOptions: ["CreateNamespace=true"] } } };
    const s = argoStatus({ namespace: "argocd", name: "shop-staging" }, app);
    expect(withDeclaredApplication(s, declared)).toBe(s);
  });
  it("names Driftwatch as the writer of its own pause, which stays a pause whatever Git declares", () => {
    const paused = {
      ...app,
      metadata: {
        ...app.metadata,
        annotations: { [ANNOTATION_PAUSE_ID]: "p-1" },
        managedFields: [...app.metadata.managedFields, { manager: "driftwatch", operation: "Update", time: "2026-12-02T09:00:00Z", fieldsV1: { "f:metadata": { "f:annotations": { [`f:${ANNOTATION_PAUSE_ID}`]: {} } } } }],
      },
    };
    const s = argoStatus({ namespace: "argocd", name: "shop-staging" }, paused);
    expect(s).toMatchObject({ argoSync: "driftwatch-pause", suspended: true, suspendedBy: { manager: "driftwatch", time: "2026-12-02T09:00:00Z" } });
    expect(withDeclaredApplication(s, { spec: { syncPolicy: { automated: {} } } })).toBe(s);
    expect(withDeclaredApplication(s, undefined)).toBe(s);
  });
  it("looks the Application up in Git under its object key", () => {
    expect(declaredApplicationKey({ namespace: "argocd", name: "shop-cart" })).toBe("argoproj.io/Application/argocd/shop-cart");
  });
  it("leaves a Flux status as it is", () => {
    const flux = fluxStatus({ namespace: "flux-system", name: "shop" }, { spec: { suspend: true }, status: {} }, null);
    expect(withDeclaredApplication(flux, { spec: { syncPolicy: { automated: {} } } })).toBe(flux);
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

describe("argoSyncMode", () => {
  const SKIP = { "argocd.argoproj.io/skip-reconcile": "true" };
  const OWN = { [ANNOTATION_PAUSE_ID]: "p-1" };
  const application = (automated: unknown, annotations: Record<string, string> = {}) => ({
    metadata: { name: "shop-cart", namespace: "argocd", annotations },
    spec: { syncPolicy: automated === undefined ? { syncOptions: ["CreateNamespace=true"] } : { automated } },
  });
  const ON = { prune: true, selfHeal: true };
  const OFF = { prune: true, enabled: false };
  const cases: Array<[string, ReturnType<typeof application>, ReturnType<typeof application> | undefined, ArgoSyncMode]> = [
    ["automated live, declared nowhere", application(ON), undefined, "automated"],
    ["`automated: {}` is on", application({}), undefined, "automated"],
    ["automated live and in Git", application(ON), application(ON), "automated"],
    ["no policy live, declared nowhere: manual by design", application(undefined), undefined, "manual"],
    ["no policy live nor in Git: manual by design", application(undefined), application(undefined), "manual"],
    ["no policy live, Git switches it off: manual by design", application(undefined), application(OFF), "manual"],
    ["no policy live, though Git declares one: removed, a pause", application(undefined), application(ON), "automated-removed"],
    ["`automated: {}` in Git counts as declared", application(undefined), application({}), "automated-removed"],
    ["switched off live, declared nowhere: a pause", application(OFF), undefined, "automated-disabled"],
    ["switched off live, on in Git: a pause", application(OFF), application(ON), "automated-disabled"],
    ["switched off live and in Git: manual by design", application(OFF), application(OFF), "manual"],
    ["reconcile skipped, even with automated sync on", application(ON, SKIP), application(ON), "skip-reconcile"],
    ["reconcile skipped on a manual Application", application(undefined, SKIP), undefined, "skip-reconcile"],
    ["Driftwatch's pause, declared nowhere", application(undefined, OWN), undefined, "driftwatch-pause"],
    ["Driftwatch's pause, Git declares automated sync", application(undefined, OWN), application(ON), "driftwatch-pause"],
  ];
  it.each(cases)("%s", (_, live, declared, mode) => {
    expect(argoSyncMode(live, declared)).toBe(mode);
    // The collector's two steps (live first, Git once the parent is rendered) decide the same.
    const status = withDeclaredApplication(argoStatus({ namespace: "argocd", name: "shop-cart" }, live), declared);
    expect(status.argoSync).toBe(mode);
    expect(status.suspended).toBe(mode !== "automated" && mode !== "manual");
  });
});
