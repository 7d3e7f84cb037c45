import { describe, expect, it } from "vitest";
import { jsonPathResults } from "./jsonpath";

const ks = {
  metadata: { name: "apps", labels: { "app.kubernetes.io/name": "web" } },
  spec: { suspend: false, interval: "5m" },
  status: {
    conditions: [
      { type: "Reconciling", status: "False", reason: "Done" },
      { type: "Ready", status: "True", message: "Applied revision: main@sha1:abc" },
    ],
    inventory: { entries: [{ id: "a" }, { id: "b" }] },
  },
};

describe("jsonPathResults", () => {
  it.each([
    ['.status.conditions[?(@.type=="Ready")].status', ["True"]],
    ['.status.conditions[?(@.type=="Ready")].message', ["Applied revision: main@sha1:abc"]],
    [".status.conditions[?(@.type=='Stalled')].status", []],
    ['.status.conditions[?(@.status!="True")].type', ["Reconciling"]],
    [".status.conditions[?(@.message)].type", ["Ready"]],
    [".status.conditions[0].reason", ["Done"]],
    [".status.conditions[-1].type", ["Ready"]],
    [".status.inventory.entries[*].id", ["a", "b"]],
    [".spec.suspend", [false]],
    ["{.spec.interval}", ["5m"]],
    [".metadata.labels['app.kubernetes.io/name']", ["web"]],
    [".metadata.labels.app\\.kubernetes\\.io/name", ["web"]],
    [".status.missing.deeper", []],
  ])("%s", (path, want) => {
    expect(jsonPathResults(ks, path)).toEqual(want);
  });
});
