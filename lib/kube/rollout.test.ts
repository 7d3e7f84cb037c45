import { describe, expect, it } from "vitest";
import { rolloutOf } from "./rollout";

const deployment = (meta: object, spec: object, status: object) => ({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "api", namespace: "shop", ...meta }, spec, status });
const template = { template: { spec: { containers: [{ name: "api", image: "shop/api:1.5.0" }] } } };

describe("rolloutOf", () => {
  it("reports a fully rolled-out deployment with its running images", () => {
    const r = rolloutOf("apps/Deployment/shop/api", deployment({ generation: 4 }, { replicas: 3, ...template }, { observedGeneration: 4, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 }));
    expect(r).toMatchObject({ rolledOut: true, images: ["shop/api:1.5.0"], message: null });
  });
  it("flags a spec the controller has not observed yet (synced, not rolled out)", () => {
    const r = rolloutOf("k", deployment({ generation: 5 }, { replicas: 3, ...template }, { observedGeneration: 4, updatedReplicas: 3, availableReplicas: 3 }));
    expect(r?.rolledOut).toBe(false);
    expect(r?.message).toMatch(/generation 5 not yet observed/);
  });
  it("explains a stuck rollout with the Progressing condition", () => {
    const r = rolloutOf("k", deployment({ generation: 2 }, { replicas: 2, ...template }, {
      observedGeneration: 2, updatedReplicas: 1, availableReplicas: 1,
      conditions: [{ type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded", message: "ReplicaSet api-7d9 has timed out progressing." }],
    }));
    expect(r?.rolledOut).toBe(false);
    expect(r?.message).toContain("ProgressDeadlineExceeded");
  });
  it("ignores kinds that are not workloads", () => {
    expect(rolloutOf("k", { kind: "ConfigMap", metadata: { name: "x" } })).toBeNull();
  });
});
