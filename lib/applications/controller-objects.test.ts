import { describe, expect, it } from "vitest";
import { argoStatus, fluxStatus, type ControllerCondition, type ControllerStatus } from "@/lib/kube/controller-status";
import { controllerObjectOf, controllerRollup, failingRepositoryOf, groupByFailingObject, objectParts } from "./controller-objects";

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

describe("an Argo CD repository that cannot be read", () => {
  const REPO = "https://git.example.com/acme/shop.git";
  const CHARTS = "https://git.example.com/acme/charts.git";
  const load = (detail: string, source = "source 1 of 1") => `Failed to load target state: failed to generate manifest for ${source}: rpc error: code = Unknown desc = ${detail}`;

  /** An Argo CD Application of argocd as the collector reads it, with `message` on a ComparisonError when given. */
  function application(name: string, message: string | null, minutesAgo = 30): ControllerStatus {
    const conditions = message ? [{ type: "ComparisonError", message, lastTransitionTime: at(minutesAgo) }] : [];
    const live = {
      metadata: { namespace: "argocd", name },
      spec: { syncPolicy: { automated: {} } },
      status: { sync: { status: message ? "Unknown" : "Synced", revision: "a".repeat(40) }, health: { status: "Healthy" }, conditions },
    };
    return argoStatus({ namespace: "argocd", name }, live);
  }
  const failureOf = (name: string, message: string, minutesAgo?: number) => application(name, message, minutesAgo).failure!;

  it("names the repository from the failing source's position, the URL in the message, or the one repository the Application reads", () => {
    const auth = failureOf("shop-web", load("failed to list refs: authentication required"));
    expect(failingRepositoryOf(auth, [REPO])).toBe(REPO);
    // The second of two sources failed: that one's repository, not the first's.
    expect(failingRepositoryOf(failureOf("shop-web", load("failed to list refs: repository not found", "source 2 of 2")), [CHARTS, REPO])).toBe(REPO);
    // Older Argo CD says neither position nor URL: the Application's only repository, however its sources spell it.
    expect(failingRepositoryOf(failureOf("shop-web", "rpc error: code = Unknown desc = authentication required"), [REPO, "https://git.example.com/acme/shop"])).toBe(REPO);
    expect(failingRepositoryOf(failureOf("shop-web", `failed to get repo "${REPO}": ssh: handshake failed: knownhosts: key mismatch`), [CHARTS, REPO])).toBe(REPO);
    // Two repositories and nothing says which: the Application's own failure.
    expect(failingRepositoryOf(failureOf("shop-web", "rpc error: code = Unknown desc = authentication required"), [CHARTS, REPO])).toBeNull();
  });

  it("keeps a failure of what one Application asks for its own: its path, its revision, its render, or no repository at all", () => {
    for (const detail of [
      "services/web/staging: app path does not exist",
      "unable to resolve 'feature-x' to a commit SHA",
      "`kustomize build <path>/services/web/staging` failed exit status 1: Error: accumulating resources: authentication required",
      "failed to unmarshal manifest: yaml: line 3: mapping values are not allowed in this context",
    ]) {
      expect(failingRepositoryOf(failureOf("shop-web", load(detail)), [REPO])).toBeNull();
    }
    expect(failingRepositoryOf(failureOf("shop-web", "one or more synchronization tasks are not valid"), [REPO])).toBeNull();
    // A Flux source failing is its GitRepository's, grouped by that object already.
    expect(failingRepositoryOf(authFailed, [REPO])).toBeNull();
  });

  it("groups the Applications of one repository into one failure, keyed by the repository, whatever their source's position and since when they fail", () => {
    const apps = [
      { name: "argocd/shop-web", sourceUrls: [REPO], failure: failureOf("shop-web", load("failed to list refs: authentication required"), 20) },
      { name: "argocd/shop-api", sourceUrls: [CHARTS, REPO], failure: failureOf("shop-api", load("failed to list refs: authentication required", "source 2 of 2"), 25) },
      { name: "argocd/shop-cart", sourceUrls: [REPO], failure: failureOf("shop-cart", load("services/cart/staging: app path does not exist"), 25) },
      { name: "argocd/shop-worker", sourceUrls: [`${REPO}/`], failure: failureOf("shop-worker", load("failed to list refs: authentication required"), 10) },
    ];
    const groups = groupByFailingObject(apps, (a) => a.failure);
    expect(groups.map((g) => [g.key, g.object, g.repository, g.applications])).toEqual([
      ["Repository/https://git.example.com/acme/shop", `Repository/${REPO}`, REPO, ["argocd/shop-api", "argocd/shop-web", "argocd/shop-worker"]],
      ["Application/argocd/shop-cart", "Application/argocd/shop-cart", undefined, ["argocd/shop-cart"]],
    ]);
    // Every Application's message reads alike without its source's position; the repository fails since the first did.
    expect(groups[0]!.failure).toMatchObject({
      object: `Repository/${REPO}`,
      type: "ComparisonError",
      message: "Failed to load target state: rpc error: code = Unknown desc = failed to list refs: authentication required",
      lastTransitionTime: at(25),
    });
    // Fewer Applications failing (one recovered) is still the same repository's failure.
    expect(groupByFailingObject(apps.slice(0, 1), (a) => a.failure).map((g) => g.key)).toEqual(["Repository/https://git.example.com/acme/shop"]);
  });

  it("lists the repository once in the Controller panel, naming its Applications, and counts each of them as a failing object", () => {
    const auth = load("failed to list refs: authentication required");
    const r = controllerRollup([
      { name: "argocd/root", sourceUrls: [REPO], controller: application("root", null) },
      { name: "argocd/shop-api", sourceUrls: [REPO], controller: application("shop-api", auth) },
      { name: "argocd/shop-cart", sourceUrls: [REPO], controller: application("shop-cart", auth) },
      { name: "argocd/shop-web", sourceUrls: [REPO], controller: application("shop-web", auth) },
      { name: "argocd/shop-worker", sourceUrls: [REPO], controller: application("shop-worker", load("services/worker/staging: app path does not exist")) },
    ]);
    expect(r.attention.map((o) => [o.object, o.state, o.condition?.type ?? null, o.applications])).toEqual([
      [`Repository/${REPO}`, "failing", "ComparisonError", ["argocd/shop-api", "argocd/shop-cart", "argocd/shop-web"]],
      ["Application/argocd/shop-worker", "failing", "ComparisonError", ["argocd/shop-worker"]],
    ]);
    expect(r).toMatchObject({ objects: 5, ready: 1, failing: 4, suspended: 0, notReady: 0 });
    expect(objectParts(r.attention[0]!.object)).toEqual({ kind: "Repository", namespace: "", name: REPO });
    expect(objectParts("GitRepository/flux-system/flux-system")).toEqual({ kind: "GitRepository", namespace: "flux-system", name: "flux-system" });
  });
});
