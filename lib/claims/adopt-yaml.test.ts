import { describe, expect, it } from "vitest";
import type { Change } from "@/lib/drift/types";
import { applyPatch } from "diff";
import { adoptChanges, documentPatch, manifestFromLive, mayHoldSecret, removeDocument, resolveInDocument, spliceDocument } from "./adopt-yaml";

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

describe("documentPatch: a file that also holds a Secret", () => {
  const secretBefore = `apiVersion: v1
kind: Secret
metadata:
  name: before
stringData:
  TOKEN: hunter2-before
`;
  const worker = `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: worker
spec:
  replicas: 2
`;
  const secretAfter = `---
apiVersion: v1
kind: Secret
metadata:
  name: after
data:
  PASSWORD: aHVudGVyMi1hZnRlcg==
`;
  const config = `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: fast
`;
  const ranges = (file: string, ...docs: string[]): Array<[number, number]> => docs.map((d) => [file.indexOf(d), file.indexOf(d) + d.length]);

  it.each([
    ["between two Secrets", [secretBefore, worker, secretAfter]],
    ["last, after a Secret", [secretBefore, worker]],
    ["first, before a Secret", [worker, secretAfter]],
  ])("shows only the adopted document (%s), and applies to give the same file as splicing", (_, docs) => {
    const file = docs.join("");
    const [range] = ranges(file, worker);
    const after = worker.replace("replicas: 2", "replicas: 5");
    const patch = documentPatch("envs/prod/app.yaml", file, [{ range: range!, after }]);
    expect(patch).toContain("-  replicas: 2");
    expect(patch).toContain("+  replicas: 5");
    for (const leak of ["hunter2", "aHVudGVy", "kind: Secret", "TOKEN", "PASSWORD"]) expect(patch).not.toContain(leak);
    expect(applyPatch(file, patch)).toBe(spliceDocument(file, range!, after));
  });

  it("removes a document and edits another in one file, with line numbers that hold", () => {
    const file = [worker, secretAfter, config].join("");
    const [w, c] = ranges(file, worker, config);
    const edits = [
      { range: c!, after: config.replace("mode: fast", "mode: safe") },
      { range: w!, after: "" },
    ];
    const patch = documentPatch("app.yaml", file, edits);
    expect(patch).not.toMatch(/hunter2|aHVudGVy|kind: Secret/);
    const expected = removeDocument(spliceDocument(file, c!, config.replace("mode: fast", "mode: safe")), w!);
    expect(applyPatch(file, patch)).toBe(expected);
  });

  it("recognises a Secret however its kind is spelled", () => {
    for (const text of ["kind: Secret\n", "  kind: 'Secret'\n", '{"kind": "Secret", "data": {}}', "kind: Secret # creds\n"]) expect(mayHoldSecret(text), text).toBe(true);
    for (const text of ["kind: SecretStore\n", "kind: Deployment\n", "# kind: ConfigMap\n"]) expect(mayHoldSecret(text), text).toBe(false);
  });
});
