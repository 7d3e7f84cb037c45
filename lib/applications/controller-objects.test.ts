import { describe, expect, it } from "vitest";
import { fluxStatus, type ControllerCondition, type ControllerStatus } from "@/lib/kube/controller-status";
import { controllerObjectOf, controllerRollup, groupByFailingObject } from "./controller-objects";

const at = (min: number) => new Date(Date.UTC(2026, 11, 7, 12, 0) - min * 60_000).toISOString();

function cond(object: string, over: Partial<ControllerCondition> = {}): ControllerCondition {
  return { object, type: "Ready", status: "True", reason: "ReconciliationSucceeded", message: null, lastTransitionTime: at(60), ...over };
}

/** A Flux Kustomization of flux-system as the collector reads it, Ready unless told otherwise. */
function kustomization(name: string, over: Partial<ControllerStatus> = {}): ControllerStatus {
  const live = { kind: "Kustomization", metadata: { namespace: "flux-system", name }, spec: {}, status: { conditions: [{ type: "Ready", status: "True", reason: "ReconciliationSucceeded", lastTransitionTime: at(60) }] } };
  return { ...fluxStatus({ namespace: "flux-system", name }, live, null), ...over };
}

const authFailed = cond("GitRepository/flux-system/flux-system", { status: "False", reason: "AuthenticationFailed", message: "authentication required", lastTransitionTime: at(120) });
/** Held up by the shared GitRepository: the Kustomization still reports Ready on its last artifact. */
const heldUp = (name: string, over: Partial<ControllerStatus> = {}) => kustomization(name, { failure: authFailed, health: "Degraded", ...over });

describe("groupByFailingObject", () => {
  it("groups applications by the object that fails, once per object, each group's applications by name", () => {
    const apps = [
      { name: "shop-web", failure: authFailed },
      { name: "shop-cart", failure: cond("Kustomization/flux-system/shop-cart", { status: "False", reason: "BuildFailed" }) },
      { name: "apps", failure: authFailed },
      { name: "shop-api", failure: null },
    ];
    expect(groupByFailingObject(apps, (a) => a.failure).map((g) => [g.object, g.failure.reason, g.applications])).toEqual([
      ["GitRepository/flux-system/flux-system", "AuthenticationFailed", ["apps", "shop-web"]],
      ["Kustomization/flux-system/shop-cart", "BuildFailed", ["shop-cart"]],
    ]);
  });
});

describe("controllerObjectOf", () => {
  it("names an object as its conditions do, a status recorded before kinds were stored by its controller's default kind", () => {
    expect(controllerObjectOf({ type: "flux", kind: "HelmRelease", namespace: "ingress-nginx", name: "ingress-nginx" })).toBe("HelmRelease/ingress-nginx/ingress-nginx");
    expect(controllerObjectOf({ type: "flux", namespace: "flux-system", name: "apps" })).toBe("Kustomization/flux-system/apps");
    expect(controllerObjectOf({ type: "argocd", namespace: "argocd", name: "cart" })).toBe("Application/argocd/cart");
  });
});

describe("controllerRollup", () => {
  it("lists a GitRepository shared by several applications once, naming every application it holds up, and counts the Kustomizations that report ready", () => {
    const r = controllerRollup([
      { name: "flux-system/apps", controller: heldUp("apps") },
      { name: "flux-system/shop-api", controller: heldUp("shop-api") },
      { name: "flux-system/shop-web", controller: heldUp("shop-web") },
      { name: "ingress-nginx/ingress-nginx", controller: kustomization("ingress-nginx", { kind: "HelmRelease", namespace: "ingress-nginx", conditions: [cond("HelmRelease/ingress-nginx/ingress-nginx")] }) },
    ]);
    expect(r).toMatchObject({ objects: 5, ready: 4, failing: 1, suspended: 0, notReady: 0 });
    expect(r.attention).toEqual([
      { object: "GitRepository/flux-system/flux-system", state: "failing", condition: authFailed, suspendedBy: null, applications: ["flux-system/apps", "flux-system/shop-api", "flux-system/shop-web"] },
    ]);
  });

  it("lists failing objects first (most applications held up, then longest failing), then missing, not ready, suspended", () => {
    const buildFailed = cond("Kustomization/flux-system/shop-cart", { status: "False", reason: "BuildFailed", message: "kustomize build failed", lastTransitionTime: at(5) });
    const healthFailed = cond("Kustomization/flux-system/shop-redis", { status: "False", reason: "HealthCheckFailed", lastTransitionTime: at(30) });
    const r = controllerRollup([
      { name: "shop-cart", controller: kustomization("shop-cart", { ready: "False", failure: buildFailed, conditions: [buildFailed] }) },
      { name: "shop-redis", controller: kustomization("shop-redis", { ready: "False", failure: healthFailed, conditions: [healthFailed] }) },
      { name: "shop-web", controller: heldUp("shop-web", { suspended: true, suspendedBy: { manager: "kubectl-patch", time: at(10) } }) },
      { name: "apps", controller: heldUp("apps") },
      { name: "shop-worker", controller: kustomization("shop-worker", { suspended: true, suspendedBy: { manager: "flux", time: null } }) },
      { name: "gone", controller: kustomization("gone", { found: false, ready: "Unknown", conditions: [] }) },
      { name: "starting", controller: kustomization("starting", { ready: "Unknown", conditions: [cond("Kustomization/flux-system/starting", { status: "Unknown", reason: "Progressing" })] }) },
      { name: "declared", controller: null },
    ]);
    expect(r.attention.map((o) => [o.object, o.state, o.condition?.reason ?? null, o.suspendedBy?.manager ?? null, o.applications])).toEqual([
      ["GitRepository/flux-system/flux-system", "failing", "AuthenticationFailed", null, ["apps", "shop-web"]],
      ["Kustomization/flux-system/shop-redis", "failing", "HealthCheckFailed", null, ["shop-redis"]],
      ["Kustomization/flux-system/shop-cart", "failing", "BuildFailed", null, ["shop-cart"]],
      ["Kustomization/flux-system/gone", "not-found", null, null, ["gone"]],
      ["Kustomization/flux-system/starting", "not-ready", "Progressing", null, ["starting"]],
      ["Kustomization/flux-system/shop-web", "suspended", null, "kubectl-patch", ["shop-web"]],
      ["Kustomization/flux-system/shop-worker", "suspended", null, "flux", ["shop-worker"]],
    ]);
    // The held-up Kustomization apps reports ready; the application declared without a controller has no object.
    expect(r).toMatchObject({ objects: 8, ready: 1, failing: 3, suspended: 2, notReady: 2 });
  });

  it("takes no failure of an object that is not in the cluster (its last conditions are history), and counts nothing for no applications", () => {
    const r = controllerRollup([{ name: "apps", controller: heldUp("apps", { found: false }) }]);
    expect(r.attention.map((o) => [o.object, o.state])).toEqual([["Kustomization/flux-system/apps", "not-found"]]);
    expect(controllerRollup([])).toEqual({ objects: 0, ready: 0, failing: 0, suspended: 0, notReady: 0, attention: [] });
  });
});
