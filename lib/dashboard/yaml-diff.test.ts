import { describe, expect, it } from "vitest";
import YAML from "yaml";
import type { ChangeDto } from "@/lib/api/contract";
import { objectDiff, preferGitSpelling, yamlLines } from "./yaml-diff";

const human = { manager: "kubectl", operation: "Update", subresource: "scale", time: "2025-03-10T11:58:00Z", class: "human" as const };

const desired = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "api", namespace: "shop", labels: { app: "api" } },
  spec: {
    replicas: 2,
    template: { spec: { containers: [{ name: "api", image: "shop/api:1.4", env: [{ name: "MODE", value: "prod" }] }] } },
  },
};

const live = {
  kind: "Deployment",
  spec: {
    replicas: 5,
    progressDeadlineSeconds: 600, // server default: not drift
    template: {
      spec: {
        containers: [{ env: [{ name: "MODE", value: "debug" }], image: "shop/api:1.4", name: "api", terminationMessagePath: "/dev/termination-log" }],
        dnsPolicy: "ClusterFirst",
      },
    },
  },
  metadata: { uid: "u-1", generation: 7, name: "api", namespace: "shop", labels: { app: "api" }, annotations: { "deployment.kubernetes.io/revision": "3" } },
  apiVersion: "apps/v1",
  status: { readyReplicas: 5 },
};

const changes: ChangeDto[] = [
  { path: ["spec", "replicas"], display: "spec.replicas", kind: "changed", desired: 2, live: 5, attribution: human },
  {
    path: ["spec", "template", "spec", "containers", 0, "env", 0, "value"],
    display: "spec.template.spec.containers[name=api].env[name=MODE].value",
    kind: "changed",
    desired: "prod",
    live: "debug",
    attribution: { ...human, manager: "kubectl-edit", subresource: null },
  },
];

describe("yamlLines", () => {
  it("emits YAML that parses back to the same value, in manifest order", () => {
    const value = { ...desired, data: { multi: "line one\nline two\n", quoted: "true", empty: "", list: [[1, 2], {}, []] } };
    const lines = yamlLines(value);
    expect(YAML.parse(lines.map((l) => l.text).join("\n"))).toEqual(value);
    expect(lines[0]?.text).toBe("apiVersion: apps/v1");
    expect(lines[2]?.text).toBe("metadata:");
  });
  it("records the field path of every line", () => {
    const line = yamlLines(desired).find((l) => l.text.includes("image:"));
    expect(line?.path).toEqual(["spec", "template", "spec", "containers", 0, "image"]);
  });
});

describe("objectDiff", () => {
  const d = objectDiff(desired, live, changes);

  it("hides server defaults, status and server metadata from the live side", () => {
    expect(d.liveYaml).not.toMatch(/progressDeadlineSeconds|terminationMessagePath|dnsPolicy|uid|generation|readyReplicas|revision/);
  });
  it("highlights exactly the reported changes, each with its attribution", () => {
    const changed = d.rows.filter((r) => r.kind !== "same");
    expect(changed.map((r) => [r.left?.text.trim(), r.right?.text.trim(), r.change])).toEqual([
      ["replicas: 2", "replicas: 5", 0],
      ["value: prod", "value: debug", 1],
    ]);
  });
  it("never shows a Secret value, and still highlights the changed key", () => {
    const secretChange: ChangeDto = { path: ["data", "password"], display: "data.password", kind: "changed", desired: "(changed)", live: "(changed)", attribution: human, masked: true };
    const s = objectDiff(
      { apiVersion: "v1", kind: "Secret", metadata: { name: "db" }, data: { password: "sha256:aaaa", user: "sha256:bbbb" } },
      { apiVersion: "v1", kind: "Secret", metadata: { name: "db" }, data: { password: "sha256:cccc", user: "sha256:bbbb" } },
      [secretChange],
    );
    expect(`${s.desiredYaml}${s.liveYaml}`).not.toMatch(/sha256/);
    expect(s.liveYaml).toContain("password: (hidden)");
    expect(s.rows.find((r) => r.right?.text.includes("password"))).toMatchObject({ kind: "changed", change: 0 });
    expect(s.rows.find((r) => r.right?.text.includes("user"))).toMatchObject({ kind: "same" });
    // With Git's raw body supplied (to restore quantity spelling), hashes still never come back.
    const raw = { apiVersion: "v1", kind: "Secret", metadata: { name: "db" }, data: { password: "sha256:aaaa", user: "sha256:bbbb" } };
    const again = objectDiff(raw, { ...raw, data: { password: "sha256:cccc", user: "sha256:bbbb" } }, [secretChange], raw);
    expect(`${again.desiredYaml}${again.liveYaml}`).not.toMatch(/sha256/);
  });
  it("shows a field a person added on live, which Git does not have", () => {
    const added: ChangeDto = { path: ["metadata", "labels", "debug"], display: 'metadata.labels["debug"]', kind: "added", live: "true", attribution: human };
    const a = objectDiff(desired, { ...desired, metadata: { ...desired.metadata, labels: { app: "api", debug: "true" } } }, [added]);
    expect(a.rows.filter((r) => r.kind !== "same")).toEqual([{ left: null, right: { line: 8, text: '    debug: "true"' }, kind: "added", change: 0 }]);
  });
  it("a Missing object has only a desired side", () => {
    const m = objectDiff(desired, null, []);
    expect(m.liveYaml).toBeNull();
    expect(m.rows.every((r) => r.kind === "removed" && r.right === null)).toBe(true);
  });
});

describe("preferGitSpelling", () => {
  it("shows a quantity as written in Git where both sides agree after normalising, and keeps real differences", () => {
    const raw = { spec: { cpu: "500m", memory: "128Mi", limit: "1Gi" } };
    const r = preferGitSpelling(raw, { spec: { cpu: "0.5", memory: "134217728", limit: "1073741824" } }, { spec: { cpu: "0.5", memory: "134217728", limit: "2147483648" } });
    expect(r.desired).toEqual({ spec: { cpu: "500m", memory: "128Mi", limit: "1073741824" } });
    expect(r.live).toEqual({ spec: { cpu: "500m", memory: "128Mi", limit: "2147483648" } });
  });
});

describe("an item added above an unchanged one", () => {
  // The demo's worker: kubectl-edit added ORDERS_BATCH_SIZE before QUEUE. The
  // engine reports the added item at its index in live (0), which is QUEUE's
  // index in Git: only the added lines may be highlighted.
  const gitWorker = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "worker", namespace: "shop" },
    spec: { template: { spec: { containers: [{ name: "worker", env: [{ name: "QUEUE", value: "orders" }, { name: "CONCURRENCY", value: "4" }] }] } } },
  };
  const liveWorker = structuredClone(gitWorker);
  liveWorker.spec.template.spec.containers[0]!.env.unshift({ name: "ORDERS_BATCH_SIZE", value: "50" });
  const added: ChangeDto = {
    path: ["spec", "template", "spec", "containers", 0, "env", 0],
    display: "spec.template.spec.containers[name=worker].env[name=ORDERS_BATCH_SIZE]",
    kind: "added",
    desired: null,
    live: { name: "ORDERS_BATCH_SIZE", value: "50" },
    attribution: { manager: "kubectl-edit", operation: "Update", subresource: null, time: "2025-03-10T11:58:00Z", class: "human" },
  };

  it("highlights the added lines and leaves the unchanged item after them alone", () => {
    const { rows } = objectDiff(gitWorker, liveWorker, [added]);
    const highlighted = rows.filter((r) => r.kind !== "same").map((r) => r.right?.text.trim());
    expect(highlighted).toEqual(["- name: ORDERS_BATCH_SIZE", 'value: "50"']);
    expect(rows.filter((r) => r.change === 0)).toHaveLength(2);
    const queue = rows.find((r) => r.right?.text.includes("QUEUE"));
    expect(queue).toMatchObject({ kind: "same", change: null, left: { text: expect.stringContaining("QUEUE") } });
  });

  it("still marks an item only Git has, by its index in Git", () => {
    const removed: ChangeDto = { ...added, path: ["spec", "template", "spec", "containers", 0, "env", 1], kind: "removed", desired: { name: "CONCURRENCY", value: "4" }, live: null };
    const liveWithout = structuredClone(gitWorker);
    liveWithout.spec.template.spec.containers[0]!.env.pop();
    const { rows } = objectDiff(gitWorker, liveWithout, [removed]);
    const marked = rows.filter((r) => r.change === 0);
    expect(marked.map((r) => r.left?.text.trim())).toEqual(["- name: CONCURRENCY", 'value: "4"']);
    expect(marked.every((r) => r.kind === "removed")).toBe(true);
  });
});

describe("a large object", () => {
  it("lines up a key added at the top of 3,000 lines of ConfigMap data as one added row, not 3,000 changed ones", () => {
    // 3,000 × 3,001 lines is over the 4M cells the old aligner gave up at (it then paired lines by position).
    const data = Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`key-${String(i).padStart(4, "0")}`, `value ${i}`]));
    const git = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "big", namespace: "shop" }, data };
    const liveBig = structuredClone(git);
    liveBig.data = { "key-0000-added": "by hand", ...data };
    const added: ChangeDto = { path: ["data", "key-0000-added"], display: "data.key-0000-added", kind: "added", desired: null, live: "by hand", attribution: human };
    const { rows } = objectDiff(git, liveBig, [added]);
    const different = rows.filter((r) => r.kind !== "same");
    expect(different).toEqual([{ left: null, right: { line: 8, text: "  key-0000-added: by hand" }, kind: "added", change: 0 }]);
    expect(rows).toHaveLength(3_007);
    expect(rows.at(-1)).toMatchObject({ kind: "same", left: { line: 3_006 }, right: { line: 3_007 } });
  });
});
