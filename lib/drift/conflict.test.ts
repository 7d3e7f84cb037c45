import { describe, expect, it } from "vitest";
import { detectFieldConflicts, detectReopenConflicts, fieldOwners, type DriftEpisode } from "./conflict";
import { dropOwnership, liveDeployment, managedFieldsOf } from "./test-fixtures";
import type { KubeObject } from "./types";

/** A live snapshot in which `manager` last took spec.replicas (the server moved ownership to it). */
function replicasTakenBy(manager: string, at: string, replicas: number): KubeObject {
  const l = liveDeployment({ replicas });
  dropOwnership(l, "kustomize-controller", ["f:spec", "f:replicas"]);
  if (manager === "kustomize-controller") {
    const e = managedFieldsOf(l)[0];
    if (e) {
      e.time = at;
      ((e.fieldsV1 as Record<string, Record<string, unknown>>)["f:spec"] as Record<string, unknown>)["f:replicas"] = {};
    }
  } else {
    managedFieldsOf(l).push({ manager, operation: "Update", subresource: "scale", time: at, fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:replicas": {} } } });
  }
  return l;
}

describe("fighting reconcilers", () => {
  it("reads who owns each field of a live object", () => {
    const owners = fieldOwners(replicasTakenBy("horizontal-pod-autoscaler", "2024-05-02T10:00:00Z", 5));
    expect(owners.get("spec.replicas")).toBe("horizontal-pod-autoscaler");
    expect(owners.get("spec.template.spec.containers[name=api].image")).toBe("kustomize-controller");
    expect(owners.get("status.replicas")).toBe("kube-controller-manager");
  });

  it("a field whose owner alternates between an HPA and the controller over successive snapshots → conflict naming both", () => {
    const snapshots = [
      replicasTakenBy("kustomize-controller", "2024-05-02T10:00:00Z", 3),
      replicasTakenBy("horizontal-pod-autoscaler", "2024-05-02T10:01:00Z", 6),
      replicasTakenBy("kustomize-controller", "2024-05-02T10:10:00Z", 3),
      replicasTakenBy("horizontal-pod-autoscaler", "2024-05-02T10:11:00Z", 6),
    ];
    expect(detectFieldConflicts(snapshots)).toEqual([{ path: "spec.replicas", managers: ["kustomize-controller", "horizontal-pod-autoscaler"], flips: 3 }]);
  });

  it.each([
    ["one hand-over is not a fight", [{ x: "a" }, { x: "b" }, { x: "b" }], []],
    ["a stable owner is not a fight", [{ x: "a" }, { x: "a" }], []],
    ["back and forth is", [{ x: "a" }, { x: "b" }, { x: "a" }], [{ path: "x", managers: ["a", "b"], flips: 2 }]],
    ["a gap in ownership does not break the sequence", [{ x: "a" }, {}, { x: "b" }, { x: "a" }], [{ path: "x", managers: ["a", "b"], flips: 2 }]],
    ["a chain a→b→c is not a fight", [{ x: "a" }, { x: "b" }, { x: "c" }], []],
    [
      "with three writers the busiest pair is named",
      [{ x: "a" }, { x: "b" }, { x: "a" }, { x: "b" }, { x: "c" }],
      [{ path: "x", managers: ["a", "b"], flips: 3 }],
    ],
  ] as const)("%s", (_name, snaps, expected) => {
    expect(detectFieldConflicts(snaps.map((s) => ({ ...s })))).toEqual(expected);
  });

  it("a drift item that keeps reopening after reverts → conflict between the writer and the controller", () => {
    const ep = (openedAt: string, resolvedAt: string | null, resolution: DriftEpisode["resolution"]): DriftEpisode => ({
      key: "apps/Deployment/shop/api",
      openedAt,
      resolvedAt,
      resolution,
      managers: ["kubectl-edit"],
      paths: ["spec.template.spec.containers[name=api].image"],
    });
    const episodes = [
      ep("2024-05-02T10:00:00Z", "2024-05-02T10:05:00Z", "reverted"),
      ep("2024-05-02T10:06:00Z", "2024-05-02T10:10:00Z", "reverted"),
      ep("2024-05-02T10:12:00Z", null, null),
    ];
    expect(detectReopenConflicts(episodes, { controllerManager: "kustomize-controller" })).toEqual([
      { key: "apps/Deployment/shop/api", path: "spec.template.spec.containers[name=api].image", managers: ["kubectl-edit", "kustomize-controller"], flips: 4 },
    ]);
    expect(detectReopenConflicts(episodes.slice(0, 2), { controllerManager: "kustomize-controller" })).toEqual([]);
    expect(detectReopenConflicts(episodes, { controllerManager: "kustomize-controller", since: "2024-05-02T10:07:00Z" })).toEqual([]);
  });
});
