import { describe, expect, it } from "vitest";
import { jsonPathFirst, jsonPathValues } from "./jsonpath";

const ks = {
  metadata: { name: "apps", labels: { "app.kubernetes.io/name": "x" } },
  status: {
    conditions: [
      { type: "Reconciling", status: "False", message: "done" },
      { type: "Ready", status: "True", message: "Applied revision: main@sha1:abc" },
    ],
    inventory: { entries: [{ id: "a" }, { id: "b" }] },
  },
};

describe("printer-column JSONPath", () => {
  it.each([
    ['.status.conditions[?(@.type=="Ready")].status', "True"],
    ['.status.conditions[?(@.type=="Ready")].message', "Applied revision: main@sha1:abc"],
    [".status.conditions[?(@.type=='Reconciling')].message", "done"],
    ['.status.conditions[?(@.type!="Ready")].type', "Reconciling"],
    [".status.conditions[0].type", "Reconciling"],
    [".status.conditions[-1].type", "Ready"],
    [".metadata.name", "apps"],
    ["{.metadata.name}", "apps"],
    [".metadata.labels['app.kubernetes.io/name']", "x"],
    ['.status.conditions[?(@.type=="Stalled")].status', undefined],
    [".spec.missing", undefined],
  ])("%s", (path, expected) => {
    expect(jsonPathFirst(ks, path)).toEqual(expected);
  });

  it("finds every match of a wildcard, in order", () => {
    expect(jsonPathValues(ks, ".status.inventory.entries[*].id")).toEqual(["a", "b"]);
  });
});
