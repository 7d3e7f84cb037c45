import { describe, expect, it } from "vitest";
import type { RolloutStatus } from "@/lib/domain/types";
import { rolloutHeadline } from "./rollout-health";

const workload = (name: string, rolledOut: boolean): RolloutStatus => ({
  key: `apps/Deployment/shop/${name}`, kind: "Deployment", namespace: "shop", name,
  generation: 1, observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: rolledOut ? 1 : 0, availableReplicas: rolledOut ? 1 : 0,
  images: ["shop/api:1"], rolledOut, message: rolledOut ? null : "1/1 updated, 0 available",
});

describe("rolloutHeadline", () => {
  it("counts a small environment whose workloads are all listed", () => {
    expect(rolloutHeadline({ rollout: [workload("api", true), workload("web", false)], rolloutCounts: { total: 2, rollingOut: 1 } })).toBe("2 workloads: 1 rolled out, 1 rolling out");
    expect(rolloutHeadline({ rollout: [workload("api", true)], rolloutCounts: { total: 1, rollingOut: 0 } })).toBe("1 workload, all rolled out");
  });
  it("says which workloads a large environment lists", () => {
    expect(rolloutHeadline({ rollout: [], rolloutCounts: { total: 20_000, rollingOut: 0 } })).toBe("20,000 workloads, all rolled out");
    expect(rolloutHeadline({ rollout: [workload("api", false)], rolloutCounts: { total: 20_000, rollingOut: 1 } })).toBe("20,000 workloads: 19,999 rolled out, 1 rolling out; those rolling out listed");
    const fifty = Array.from({ length: 50 }, (_, i) => workload(`w${i}`, false));
    expect(rolloutHeadline({ rollout: fifty, rolloutCounts: { total: 20_000, rollingOut: 70 } })).toBe("20,000 workloads: 19,930 rolled out, 70 rolling out; the first 50 listed");
  });
});
