import { describe, expect, it } from "vitest";
import type { ControllerStatus } from "@/lib/domain/types";
import { evaluateAlerts, type AlertSnapshot, type SnapshotApplication, type SnapshotEnvironment } from "./rules";
import { runbookFor } from "./runbooks";

const now = new Date("2024-05-01T12:00:00Z");
const ago = (min: number) => new Date(now.getTime() - min * 60_000);

function env(over: Partial<SnapshotEnvironment> = {}): SnapshotEnvironment {
  return {
    id: "e1",
    name: "production",
    intervalMs: 60_000,
    staleAfterMs: 10 * 60_000,
    critical: true,
    approvedSha: "a".repeat(40),
    approvedAt: ago(30),
    appliedSha: "a".repeat(40),
    appliedSince: ago(60),
    controller: null,
    lastError: null,
    lastCollectedAt: ago(1),
    lastGoodCollectedAt: ago(1),
    ...over,
  };
}

const authFailure: ControllerStatus = {
  type: "flux",
  namespace: "flux-system",
  name: "shop",
  found: true,
  suspended: false,
  suspendedBy: null,
  appliedRevision: null,
  attemptedRevision: null,
  sourceRevision: null,
  ready: "False",
  failure: {
    object: "GitRepository/flux-system/shop",
    type: "Ready",
    status: "False",
    reason: "AuthenticationFailed",
    message: "failed to checkout and determine revision: authentication required",
    lastTransitionTime: ago(20).toISOString(),
  },
  conditions: [],
  automatedSync: null,
  history: [],
  inventory: [],
  health: null,
};

const snap = (over: Partial<AlertSnapshot> = {}): AlertSnapshot => ({ environments: [env()], openDrift: [], activeClaims: [], activePauses: [], ...over });

describe("evaluateAlerts", () => {
  it("raises nothing for a healthy, converged environment", () => {
    expect(evaluateAlerts(snap(), now)).toEqual([]);
  });

  it("calls an environment stale only after its threshold, with the controller's own error", () => {
    const behind = env({ appliedSha: "b".repeat(40), approvedAt: ago(5) });
    expect(evaluateAlerts(snap({ environments: [behind] }), now)).toEqual([]);
    const stale = env({ appliedSha: "b".repeat(40), approvedAt: ago(30), controller: authFailure });
    const alerts = evaluateAlerts(snap({ environments: [stale] }), now);
    const a = alerts.find((x) => x.type === "environment_stale");
    expect(a?.severity).toBe("critical");
    expect(a?.title).toContain("production is stale");
    expect(a?.details.controllerError).toMatchObject({ reason: "AuthenticationFailed" });
    expect(alerts.map((x) => x.type)).toContain("convergence_failing");
    expect(runbookFor("environment_stale", a!.details).act[0]).toMatch(/Git credential.*rotate/);
  });

  it("does not call an environment stale when its applied revision is a later commit containing the approved one", () => {
    const ahead = env({ appliedSha: "c".repeat(40), appliedContainsApproved: true, approvedAt: ago(30) });
    expect(evaluateAlerts(snap({ environments: [ahead] }), now).map((a) => a.type)).not.toContain("environment_stale");
  });

  it("does not call a paused environment stale", () => {
    const stale = env({ appliedSha: "b".repeat(40) });
    const pause = { id: "p1", environmentId: "e1", origin: "dashboard" as const, owner: "alice", reason: "x", expiresAt: ago(-60), controllerRef: null, detectedManager: null, detectedAt: null, startedAt: ago(40) };
    expect(evaluateAlerts(snap({ environments: [stale], activePauses: [pause] }), now).map((a) => a.type)).toEqual([]);
  });

  it("flags drift nobody owns after one collection interval, and not claimed drift", () => {
    const fresh = { id: "d1", environmentId: "e1", key: "apps/Deployment/shop/api", type: "Modified", openedAt: ago(0.5), claimed: false };
    const old = { ...fresh, id: "d2", key: "/ConfigMap/shop/cfg", openedAt: ago(5) };
    const claimed = { ...old, id: "d3", key: "/Service/shop/api", claimed: true };
    const alerts = evaluateAlerts(snap({ openDrift: [fresh, old, claimed] }), now);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ type: "drift_unowned", fingerprint: "drift_unowned:e1", details: { count: 1, keys: ["/ConfigMap/shop/cfg"] } });
  });

  it("raises expired claims and pauses, and unattributed pauses naming the manager", () => {
    const claim = { id: "c1", owner: "bob", reason: "debugging", expiresAt: ago(1), environmentIds: ["e1"], keys: ["/ConfigMap/shop/cfg"] };
    const live = { ...claim, id: "c2", expiresAt: ago(-10) };
    const detected = { id: "p2", environmentId: "e1", origin: "detected" as const, owner: null, reason: null, expiresAt: null, controllerRef: "Kustomization/flux-system/shop", detectedManager: "kubectl-patch", detectedAt: ago(3), startedAt: ago(3) };
    const expiredPause = { ...detected, id: "p3", origin: "dashboard" as const, owner: "alice", expiresAt: ago(2) };
    const alerts = evaluateAlerts(snap({ activeClaims: [claim, live], activePauses: [detected, expiredPause] }), now);
    expect(alerts.map((a) => a.fingerprint).sort()).toEqual(["claim_expired:c1", "pause_expired:p3", "pause_unattributed:p2"]);
    expect(alerts.find((a) => a.type === "pause_unattributed")?.title).toContain("kubectl-patch");
  });

  it("raises collection failing only once the last good collection is older than two intervals", () => {
    const lastError = { category: "unreachable" as const, message: "connect ECONNREFUSED", at: ago(0).toISOString(), runId: 7 };
    expect(evaluateAlerts(snap({ environments: [env({ lastError, lastGoodCollectedAt: ago(1) })] }), now)).toEqual([]);
    expect(evaluateAlerts(snap({ environments: [env({ lastError, lastGoodCollectedAt: ago(5) })] }), now)[0]).toMatchObject({
      type: "collection_failing",
      details: { category: "unreachable" },
    });
  });

  it("lets config replace the runbook link", () => {
    expect(runbookFor("pause_expired", {}, { pause_expired: "https://wiki/pauses" }).url).toBe("https://wiki/pauses");
    expect(runbookFor("pause_expired", {}).url).toBeNull();
  });

  describe("an environment whose applications have sources of their own", () => {
    const old = "1".repeat(40);
    const head = "2".repeat(40);
    function app(over: Partial<SnapshotApplication> & Pick<SnapshotApplication, "id" | "name">): SnapshotApplication {
      return { approvedSha: head, approvedAt: ago(40), appliedSha: head, appliedBehind: false, controller: null, paused: false, ...over };
    }
    // Its env-level fields are its first application's: here they would say stale and failing, and must not count.
    const discovered = (applications: SnapshotApplication[]) => env({ approvedSha: head, appliedSha: old, controller: authFailure, applications });

    it("raises one stale alert per application that is behind, naming the environment and the application", () => {
      const alerts = evaluateAlerts(
        snap({ environments: [discovered([app({ id: "a1", name: "shop-api", appliedSha: old, appliedBehind: true }), app({ id: "a2", name: "shop-web" }), app({ id: "a3", name: "shop-cart", appliedSha: old, appliedBehind: true })])] }),
        now,
      );
      expect(alerts.map((a) => [a.type, a.fingerprint, a.environmentId, a.title])).toEqual([
        ["environment_stale", "environment_stale:e1:a1", "e1", "production/shop-api is stale: 222222222222 approved 40 min ago, 111111111111 still applied"],
        ["environment_stale", "environment_stale:e1:a3", "e1", "production/shop-cart is stale: 222222222222 approved 40 min ago, 111111111111 still applied"],
      ]);
      expect(alerts[0]).toMatchObject({ severity: "critical", environment: "production", details: { application: "shop-api", approvedSha: head, appliedSha: old, controllerError: null } });
    });

    it("does not call an application stale before the threshold, nor one whose applied revision contains the approved one", () => {
      const apps = [app({ id: "a1", name: "shop-api", appliedSha: old, appliedBehind: true, approvedAt: ago(5) }), app({ id: "a2", name: "shop-web", appliedSha: old, appliedBehind: false })];
      expect(evaluateAlerts(snap({ environments: [discovered(apps)] }), now)).toEqual([]);
    });

    it("does not call a paused application stale: a pause on it or on its environment, or its controller suspended", () => {
      const suspended = { ...authFailure, failure: null, suspended: true };
      const apps = [
        app({ id: "a1", name: "paused", appliedSha: old, appliedBehind: true, paused: true }),
        app({ id: "a2", name: "suspended", appliedSha: old, appliedBehind: true, controller: suspended }),
        app({ id: "a3", name: "behind", appliedSha: old, appliedBehind: true }),
      ];
      expect(evaluateAlerts(snap({ environments: [discovered(apps)] }), now).map((a) => a.fingerprint)).toEqual(["environment_stale:e1:a3"]);
    });

    it("raises convergence failing for the application whose controller fails, with its controller's error on its stale alert", () => {
      const apps = [app({ id: "a1", name: "shop-api", appliedSha: old, appliedBehind: true, controller: authFailure }), app({ id: "a2", name: "shop-web" })];
      const alerts = evaluateAlerts(snap({ environments: [{ ...discovered(apps), critical: false }] }), now);
      expect(alerts.map((a) => [a.fingerprint, a.severity, a.title])).toEqual([
        ["environment_stale:e1:a1", "critical", "production/shop-api is stale: 222222222222 approved 40 min ago, 111111111111 still applied"],
        ["convergence_failing:e1:GitRepository/flux-system/shop", "warning", "production/shop-api: GitRepository/flux-system/shop is failing (AuthenticationFailed)"],
      ]);
      const runbook = runbookFor("environment_stale", alerts[0]!.details);
      expect(runbook.act[0]).toMatch(/Git credential/);
      expect(runbook.check).toContain("The applied revision on shop-api's application page: is it moving at all?");
      expect(runbookFor("environment_stale", {}).check).toContain("The applied revision on the environment page: is it moving at all?");
    });

    it("raises one convergence alert per failing object, naming every application it holds up", () => {
      const gitFailure = { ...authFailure, failure: { ...authFailure.failure!, lastTransitionTime: ago(60).toISOString() } };
      const ownFailure = { ...gitFailure, failure: { ...gitFailure.failure, object: "Kustomization/flux-system/shop-cart", type: "Ready", reason: "BuildFailed" } };
      const apps = [
        app({ id: "a1", name: "shop-api", controller: gitFailure }),
        app({ id: "a2", name: "infra-configs", controller: gitFailure }),
        app({ id: "a3", name: "shop-web", controller: gitFailure }),
        app({ id: "a4", name: "shop-cart", controller: ownFailure }),
      ];
      const alerts = evaluateAlerts(snap({ environments: [discovered(apps)] }), now).filter((a) => a.type === "convergence_failing");
      expect(alerts.map((a) => [a.fingerprint, a.title, a.details.application, a.details.applications])).toEqual([
        ["convergence_failing:e1:GitRepository/flux-system/shop", "production: GitRepository/flux-system/shop is failing (AuthenticationFailed), holding up 3 applications", undefined, ["infra-configs", "shop-api", "shop-web"]],
        ["convergence_failing:e1:Kustomization/flux-system/shop-cart", "production/shop-cart: Kustomization/flux-system/shop-cart is failing (BuildFailed)", "shop-cart", ["shop-cart"]],
      ]);
    });

    it("raises one convergence alert for a repository every Argo CD Application of it cannot read, keeping its fingerprint while Applications join and recover", () => {
      const repo = "https://git.example.com/acme/shop.git";
      const failing = (name: string, message: string, minutesAgo = 30): ControllerStatus => ({
        ...authFailure,
        type: "argocd",
        kind: "Application",
        namespace: "argocd",
        name,
        failure: { object: `Application/argocd/${name}`, type: "ComparisonError", status: "True", reason: null, message, lastTransitionTime: ago(minutesAgo).toISOString() },
      });
      const auth = "Failed to load target state: failed to generate manifest for source 1 of 1: rpc error: code = Unknown desc = failed to list refs: authentication required";
      const argo = (name: string, id: string, message = auth, minutesAgo?: number) => app({ id, name: `argocd/${name}`, controller: failing(name, message, minutesAgo), sourceUrls: [repo] });
      const apps = [
        argo("shop-api", "a1", auth, 40),
        argo("shop-cart", "a2"),
        argo("shop-web", "a3"),
        argo("shop-worker", "a4", "Failed to load target state: failed to generate manifest for source 1 of 1: rpc error: code = Unknown desc = services/worker/staging: app path does not exist"),
        app({ id: "a5", name: "argocd/root", sourceUrls: [repo] }),
      ];
      const alerts = evaluateAlerts(snap({ environments: [discovered(apps)] }), now).filter((a) => a.type === "convergence_failing");
      expect(alerts.map((a) => [a.fingerprint, a.title])).toEqual([
        ["convergence_failing:e1:Repository/https://git.example.com/acme/shop", `production: repository ${repo} is failing (ComparisonError), holding up 3 applications`],
        ["convergence_failing:e1:Application/argocd/shop-worker", "production/argocd/shop-worker: Application/argocd/shop-worker is failing (ComparisonError)"],
      ]);
      expect(alerts[0]!.details).toEqual({
        applications: ["argocd/shop-api", "argocd/shop-cart", "argocd/shop-web"],
        applicationCount: 3,
        object: `Repository/${repo}`,
        repository: repo,
        condition: "ComparisonError",
        reason: null,
        message: "Failed to load target state: rpc error: code = Unknown desc = failed to list refs: authentication required",
        since: ago(40).toISOString(),
      });
      expect(runbookFor("convergence_failing", alerts[0]!.details).act[0]).toMatch(/Git credential/);

      // One Application recovers, another's failure is too recent to page: the same alert, naming who is still held up.
      const later = [argo("shop-api", "a1", auth, 40), argo("shop-cart", "a2", auth, 2), app({ id: "a3", name: "argocd/shop-web", sourceUrls: [repo] })];
      expect(evaluateAlerts(snap({ environments: [discovered(later)] }), now).map((a) => [a.fingerprint, a.title, a.details.since])).toEqual([
        ["convergence_failing:e1:Repository/https://git.example.com/acme/shop", `production/argocd/shop-api: repository ${repo} is failing (ComparisonError)`, ago(40).toISOString()],
      ]);
    });

    it("names the paused application in its pause's alerts; a pause of the whole environment names none", () => {
      const apps = [app({ id: "a1", name: "shop-web", paused: true })];
      const detected = { id: "p1", environmentId: "e1", origin: "detected" as const, owner: null, reason: null, expiresAt: null, controllerRef: "Kustomization/flux-system/shop-web", detectedManager: "kubectl-patch", detectedAt: ago(3), startedAt: ago(3), applicationId: "a1" };
      const whole = { ...detected, id: "p2", origin: "dashboard" as const, owner: "alice", expiresAt: ago(1), controllerRef: null, applicationId: null };
      const alerts = evaluateAlerts(snap({ environments: [discovered(apps)], activePauses: [detected, whole] }), now);
      expect(alerts.map((a) => [a.fingerprint, a.title, a.details.application])).toEqual([
        ["pause_unattributed:p1", "production/shop-web: reconciliation paused outside Driftwatch (by kubectl-patch)", "shop-web"],
        ["pause_expired:p2", "production: pause by alice expired; reconciliation is still off", undefined],
      ]);
    });

    it("raises neither from the environment's own fields, even holding no application; collection failing stays the environment's", () => {
      expect(evaluateAlerts(snap({ environments: [discovered([])] }), now)).toEqual([]);
      const lastError = { category: "unreachable" as const, message: "connect ECONNREFUSED", at: ago(0).toISOString(), runId: 7 };
      expect(evaluateAlerts(snap({ environments: [{ ...discovered([]), lastError, lastGoodCollectedAt: ago(5) }] }), now).map((a) => a.fingerprint)).toEqual(["collection_failing:e1"]);
    });
  });

  it("keeps a single-source environment's stale and failing alerts as they were: the environment's fingerprints and titles", () => {
    const stale = env({ appliedSha: "b".repeat(40), approvedAt: ago(30), controller: authFailure });
    expect(evaluateAlerts(snap({ environments: [stale] }), now).map((a) => [a.fingerprint, a.title])).toEqual([
      ["environment_stale:e1", "production is stale: aaaaaaaaaaaa approved 30 min ago, bbbbbbbbbbbb still applied"],
      ["convergence_failing:e1", "production: GitRepository/flux-system/shop is failing (AuthenticationFailed)"],
    ]);
  });
});
