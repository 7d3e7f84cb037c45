import { describe, expect, it } from "vitest";
import type { Change } from "@/lib/drift/types";
import { adoptChanges, manifestFromLive, removeDocument, resolveInDocument, spliceDocument } from "./adopt-yaml";

const attribution = { manager: "kubectl-edit", operation: "Update" as const, subresource: null, time: null, class: "human" as const };

const deployment = `---
# the shop API
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: 2 # keep two for HA
  template:
    spec:
      containers:
        - name: sidecar
          image: envoy:1.0
        - name: api
          image: shop/api:1.4.0
          env:
            - name: LOG_LEVEL
              value: info
`;

describe("adoptChanges", () => {
  it("writes live values into the Git document and keeps its comments", () => {
    const changes: Change[] = [
      { path: ["spec", "replicas"], display: "spec.replicas", kind: "changed", desired: 2, live: 5, attribution },
      // Live lists the api container first: the merge key, not the index, must pick it in Git.
      {
        path: ["spec", "template", "spec", "containers", 0, "image"],
        display: "spec.template.spec.containers[name=api].image",
        kind: "changed",
        desired: "shop/api:1.4.0",
        live: "shop/api:1.4.1-hotfix",
        attribution,
      },
    ];
    const out = adoptChanges(deployment, changes);
    expect(out.applied).toBe(2);
    expect(out.text).toContain("replicas: 5 # keep two for HA");
    expect(out.text).toContain("image: shop/api:1.4.1-hotfix");
    expect(out.text).toContain("image: envoy:1.0");
    expect(out.text).toContain("# the shop API");
  });

  it("adds list items and fields Git lacks, and removes what live lost", () => {
    const out = adoptChanges(deployment, [
      {
        path: ["spec", "template", "spec", "containers", 1, "env", 1],
        display: "spec.template.spec.containers[name=api].env[name=DEBUG]",
        kind: "added",
        live: { name: "DEBUG", value: "1" },
        attribution,
      },
      { path: ["spec", "paused"], display: "spec.paused", kind: "added", live: true, attribution },
      {
        path: ["spec", "template", "spec", "containers", 0],
        display: "spec.template.spec.containers[name=sidecar]",
        kind: "removed",
        desired: { name: "sidecar" },
        attribution,
      },
    ]);
    expect(out.text).toMatch(/- name: DEBUG\n\s+value: "1"/);
    expect(out.text).toContain("paused: true");
    expect(out.text).not.toContain("sidecar");
  });

  it("never writes a Secret's masked value, and says so", () => {
    const out = adoptChanges("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  password: b2xk\n", [
      { path: ["data", "password"], display: "data.password", kind: "changed", desired: "(changed)", live: "(changed)", attribution, masked: true },
    ]);
    expect(out.applied).toBe(0);
    expect(out.text).toContain("password: b2xk");
    expect(out.notes[0]).toMatch(/Secret/);
  });
});

describe("documents in multi-document files", () => {
  const file = "apiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: B\n---\napiVersion: v1\nkind: C\n";
  it("replaces and removes one document, leaving the others", () => {
    const start = file.indexOf("---\napiVersion: v1\nkind: B");
    const end = file.indexOf("---\napiVersion: v1\nkind: C");
    expect(removeDocument(file, [start, end])).toBe("apiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: C\n");
    expect(spliceDocument(file, [start, end], "---\napiVersion: v1\nkind: B2\n")).toContain("kind: B2\n---\napiVersion: v1\nkind: C");
  });
  it("resolves display paths by merge key", () => {
    const root = { spec: { ports: [{ port: 80 }, { port: 443, name: "https" }] } };
    expect(resolveInDocument(root, "spec.ports[port=443].name", false)).toEqual(["spec", "ports", 1, "name"]);
    expect(resolveInDocument(root, "spec.ports[port=8080]", true)).toEqual(["spec", "ports", 2]);
    expect(resolveInDocument(root, "spec.ports[port=8080].name", false)).toBeNull();
  });
});

describe("manifestFromLive", () => {
  it("drops status and server bookkeeping", () => {
    const text = manifestFromLive({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "x", uid: "u", resourceVersion: "9", managedFields: [], annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}" } },
      data: { a: "1" },
      status: { x: 1 },
    });
    expect(text).toBe("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: \"1\"\n");
  });
});
