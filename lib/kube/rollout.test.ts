import { describe, expect, it } from "vitest";
import { rolloutOf, summariseRollout } from "./rollout";

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

describe("summariseRollout", () => {
  const workload = (n: number, rolledOut: boolean) => ({ ...rolloutOf(`apps/Deployment/shop/w${String(n).padStart(5, "0")}`, deployment({ name: `w${n}` }, { replicas: 1, ...template }, rolledOut ? { updatedReplicas: 1, availableReplicas: 1 } : {}))! });
  it("lists every workload of a small environment, in order", () => {
    const list = [workload(1, true), workload(2, false), workload(3, true)];
    expect(summariseRollout(list)).toEqual({ total: 3, rollingOut: 1, workloads: list });
  });
  it("bounds a large one: counts over all of it, only the workloads rolling out listed", () => {
    const list = Array.from({ length: 20_000 }, (_, i) => workload(i, i % 5_000 !== 7));
    expect(summariseRollout(list, 50)).toEqual({ total: 20_000, rollingOut: 4, workloads: [list[7], list[5007], list[10007], list[15007]] });
    expect(summariseRollout(list.slice(0, 51).map((w) => ({ ...w, rolledOut: true })), 50)).toEqual({ total: 51, rollingOut: 0, workloads: [] });
  });
  it("lists only the first rolling out ones when more than the limit are", () => {
    const s = summariseRollout(Array.from({ length: 200 }, (_, i) => workload(i, false)), 50);
    expect(s).toMatchObject({ total: 200, rollingOut: 200 });
    expect(s.workloads.map((w) => w.name)).toEqual(Array.from({ length: 50 }, (_, i) => `w${i}`));
  });
});
