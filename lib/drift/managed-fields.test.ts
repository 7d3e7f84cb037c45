import { describe, expect, it } from "vitest";
import { decodeFieldsV1, displayFieldsV1Path, OwnershipIndex } from "./managed-fields";
import { liveDeployment } from "./test-fixtures";

const containers = ["f:spec", "f:template", "f:spec", "f:containers"];
const api = [...containers, 'k:{"name":"api"}'];

describe("FieldsV1 decoding", () => {
  it("lists every owned path of one entry, with k:, v: and . nodes", () => {
    expect(
      decodeFieldsV1({
        "f:metadata": { "f:finalizers": { ".": {}, 'v:"example.com/protect"': {} }, "f:labels": { "f:app": {} } },
        "f:spec": {
          "f:ports": { 'k:{"protocol":"TCP","port":80}': { ".": {}, "f:port": {}, "f:targetPort": {} } },
          "f:args": {},
        },
      }),
    ).toEqual([
      "metadata.finalizers",
      "metadata.finalizers[=example.com/protect]",
      "metadata.labels.app",
      "spec.ports[port=80,protocol=TCP]",
      "spec.ports[port=80,protocol=TCP].port",
      "spec.ports[port=80,protocol=TCP].targetPort",
      "spec.args",
    ]);
  });

  it("finds the most specific owner; an ancestor counts only when owned whole", () => {
    const idx = OwnershipIndex.fromManagedFields([
      { manager: "kustomize-controller", operation: "Apply", time: "2024-05-01T10:00:00Z", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:template": { "f:spec": { "f:containers": { 'k:{"name":"api"}': { ".": {}, "f:image": {}, "f:args": {} } } } } } } },
      { manager: "kubectl-edit", operation: "Update", time: "2024-05-02T10:00:00Z", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:template": { "f:spec": { "f:containers": { 'k:{"name":"api"}': { "f:image": {} } } } } } } },
    ]);
    const managers = (keys: string[]) => idx.ownersOf(keys).map((i) => idx.entries[i]?.manager);
    expect(managers([...api, "f:image"])).toEqual(["kustomize-controller", "kubectl-edit"]);
    expect(managers(api)).toEqual(["kustomize-controller"]);
    // args is atomic: an element inside it belongs to the owner of the list.
    expect(managers([...api, "f:args", "i:2"])).toEqual(["kustomize-controller"]);
    // Owning the container's existence is not owning fields nobody wrote.
    expect(managers([...api, "f:terminationMessagePath"])).toEqual([]);
    expect(idx.hasDescendants(containers)).toBe(true);
    expect(idx.hasDescendants([...api, "f:image"])).toBe(false);
  });

  it("never invents a manager: ancient-changes, missing manager and bad times become unknown", () => {
    const idx = OwnershipIndex.fromManagedFields([
      { manager: "ancient-changes", operation: "Update", time: "2019-01-01T00:00:00Z", fieldsType: "FieldsV1", fieldsV1: { "f:a": {} } },
      { operation: "Update", fieldsType: "FieldsV1", fieldsV1: { "f:b": {} } },
      { manager: "kubectl", operation: "Update", time: "yesterday", fieldsType: "FieldsV1", fieldsV1: { "f:c": {} } },
      { manager: "kubectl", operation: "Weird", fieldsType: "FieldsV2", fieldsV1: { "f:d": {} } },
    ]);
    expect(idx.entries.map((e) => [e.manager, e.operation, e.time])).toEqual([
      [null, null, null],
      [null, null, null],
      ["kubectl", "Update", null],
      ["kubectl", null, null],
    ]);
    expect(idx.exact(["f:d"])).toEqual([]);
  });

  it.each([undefined, null, "x", 3, [null, "x", { fieldsV1: [] }]])("tolerates managedFields = %j", (mf) => {
    const idx = OwnershipIndex.fromManagedFields(mf);
    expect(idx.ownersOf(["f:spec", "f:replicas"])).toEqual([]);
  });

  it("decodes a real Deployment's entries", () => {
    const idx = OwnershipIndex.fromManagedFields(liveDeployment().metadata.managedFields);
    const owner = (keys: string[]) => idx.ownersOf(keys).map((i) => idx.entries[i]?.manager);
    expect(owner(["f:spec", "f:replicas"])).toEqual(["kustomize-controller"]);
    expect(owner([...api, "f:ports", 'k:{"containerPort":8080,"protocol":"TCP"}'])).toEqual(["kustomize-controller"]);
    expect(owner(["f:status", "f:conditions", 'k:{"type":"Available"}', "f:reason"])).toEqual(["kube-controller-manager"]);
    expect(owner(["f:metadata", "f:annotations", "f:deployment.kubernetes.io/revision"])).toEqual(["kube-controller-manager"]);
    expect(displayFieldsV1Path([...api, "f:env", 'k:{"name":"LOG_LEVEL"}', "f:value"])).toBe("spec.template.spec.containers[name=api].env[name=LOG_LEVEL].value");
  });
});
