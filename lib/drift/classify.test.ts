import { describe, expect, it } from "vitest";
import { classifyManager, createManagerClassifier } from "./classify";

describe("manager classification", () => {
  const flux = { controllerManagers: ["kustomize-controller"] };
  it.each([
    ["kubectl", "human"],
    ["kubectl-edit", "human"],
    ["kubectl-patch", "human"],
    ["kubectl-label", "human"],
    ["kubectl-annotate", "human"],
    ["kubectl-set", "human"],
    ["kubectl-rollout", "human"],
    ["kubectl-scale", "human"],
    ["kubectl-client-side-apply", "human"],
    ["k9s", "human"],
    ["Mozilla", "human"],
    ["kustomize-controller", "controller"],
    ["argocd-controller", "controller"],
    ["helm-controller", "controller"],
    ["kube-controller-manager", "system"],
    ["kube-scheduler", "system"],
    ["kubelet", "system"],
    ["before-first-apply", "system"],
    ["horizontal-pod-autoscaler", "system"],
    ["ancient-changes", "unknown"],
    ["my-operator", "unknown"],
    ["", "unknown"],
  ] as const)("%s → %s in a Flux environment", (manager, cls) => {
    expect(classifyManager(manager, flux)).toBe(cls);
  });

  it("treats kubectl-client-side-apply as the deploy tool when no controller manages the environment", () => {
    expect(classifyManager("kubectl-client-side-apply", {})).toBe("controller");
    expect(classifyManager("kubectl-client-side-apply", { controllerManaged: true })).toBe("human");
  });

  it("lists are configurable: replace, extend, globs", () => {
    const c = createManagerClassifier({
      controllerManagers: ["argocd-controller"],
      managers: { human: ["ops-*"] },
      extraManagers: { system: ["karpenter"], controller: ["config-sync"] },
    });
    expect(c.classify("ops-console")).toBe("human");
    expect(c.classify("kubectl-edit")).toBe("unknown");
    expect(c.classify("karpenter")).toBe("system");
    expect(c.classify("kube-scheduler")).toBe("system");
    expect(c.classify("config-sync")).toBe("controller");
    expect(c.isEnvironmentController("argocd-controller")).toBe(true);
    expect(c.isEnvironmentController("config-sync")).toBe(false);
    expect(c.classify(null)).toBe("unknown");
  });

  it("the environment's own controller wins over any list", () => {
    expect(classifyManager("kubectl", { controllerManagers: ["kubectl"] })).toBe("controller");
  });
});
