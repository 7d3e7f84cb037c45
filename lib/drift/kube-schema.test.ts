import { describe, expect, it } from "vitest";
import { childSchema, defaultPullPolicy, isDefaultTree, kindSchema } from "./kube-schema";

function at(group: string, kind: string, ...path: string[]) {
  let node = kindSchema(group, kind);
  for (const p of path) node = p === "[]" ? (node.items ?? {}) : childSchema(node, p);
  return node;
}

describe("server defaults", () => {
  it.each([
    ["nginx", "Always"],
    ["nginx:latest", "Always"],
    ["nginx:1.25", "IfNotPresent"],
    ["registry:5000/team/app", "Always"],
    ["registry:5000/team/app:2.0", "IfNotPresent"],
    ["app@sha256:0123abcd", "IfNotPresent"],
    ["", undefined],
  ])("pull policy of %j is %s", (image, policy) => expect(defaultPullPolicy(image)).toBe(policy));

  it.each([
    ["Deployment strategy", at("apps", "Deployment", "spec", "strategy"), { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } }, null, true],
    ["a changed surge", at("apps", "Deployment", "spec", "strategy"), { type: "RollingUpdate", rollingUpdate: { maxSurge: "50%", maxUnavailable: "25%" } }, null, false],
    ["Recreate", at("apps", "Deployment", "spec", "strategy"), { type: "Recreate" }, null, false],
    ["revisionHistoryLimit 10", at("apps", "Deployment", "spec", "revisionHistoryLimit"), 10, null, true],
    ["revisionHistoryLimit 3", at("apps", "Deployment", "spec", "revisionHistoryLimit"), 3, null, false],
    ["service targetPort = port", at("", "Service", "spec", "ports", "[]", "targetPort"), 9090, { port: 9090 }, true],
    ["service targetPort ≠ port", at("", "Service", "spec", "ports", "[]", "targetPort"), 8080, { port: 9090 }, false],
    ["clusterIP (allocated)", at("", "Service", "spec", "clusterIP"), "10.96.0.10", null, true],
    ["configMap volume mode 0644", at("apps", "Deployment", "spec", "template", "spec", "volumes", "[]", "configMap"), { defaultMode: 420 }, null, true],
    ["configMap volume mode 0600", at("apps", "Deployment", "spec", "template", "spec", "volumes", "[]", "configMap"), { defaultMode: 384 }, null, false],
    ["probe thresholds", at("apps", "Deployment", "spec", "template", "spec", "containers", "[]", "livenessProbe"), { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 }, null, true],
    ["serviceAccount mirrors serviceAccountName", at("apps", "Deployment", "spec", "template", "spec", "serviceAccount"), "api", { serviceAccountName: "api" }, true],
    ["serviceAccount differs", at("apps", "Deployment", "spec", "template", "spec", "serviceAccount"), "root", { serviceAccountName: "api" }, false],
    ["StatefulSet PVC retention", at("apps", "StatefulSet", "spec", "persistentVolumeClaimRetentionPolicy"), { whenDeleted: "Retain", whenScaled: "Retain" }, null, true],
    ["HPA default behavior", at("autoscaling", "HorizontalPodAutoscaler", "spec", "behavior"), {
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: "Max", policies: [{ type: "Pods", value: 4, periodSeconds: 15 }, { type: "Percent", value: 100, periodSeconds: 15 }] },
      scaleDown: { stabilizationWindowSeconds: 300, selectPolicy: "Max", policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] },
    }, null, true],
    ["an unknown field of a CRD", at("example.com", "Widget", "spec", "size"), 3, null, false],
    ["an empty object anywhere", at("example.com", "Widget", "spec", "extra"), {}, null, true],
  ])("%s → default: %s", (_name, node, value, parent, expected) => {
    expect(isDefaultTree(node, value, parent as Record<string, unknown> | null)).toBe(expected);
  });

  it("marks quantity fields, including on unknown kinds", () => {
    expect(at("apps", "Deployment", "spec", "template", "spec", "containers", "[]", "resources", "limits", "memory").quantity).toBe(true);
    expect(at("example.com", "Widget", "spec", "resources", "requests", "cpu").quantity).toBe(true);
    expect(at("", "PersistentVolumeClaim", "spec", "resources", "requests", "storage").quantity).toBe(true);
    expect(at("apps", "Deployment", "spec", "replicas").quantity).toBeUndefined();
  });
});
