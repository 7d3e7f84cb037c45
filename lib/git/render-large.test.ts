// Issue 9's size faults: a 20 MB manifest and a manifest with 10,000
// documents must render (or fail with a clear problem) without blowing memory,
// and a path with thousands of files must not cost a process per file.
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syncMirror } from "./mirror";
import { clearRenderCache, renderManifests } from "./render";
import { TestRepo, tempDir } from "./test-support/repo-fixture";

function deployment(i: number): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-${i}
  labels: {app: app-${i}, tier: backend}
spec:
  replicas: ${(i % 5) + 1}
  selector: {matchLabels: {app: app-${i}}}
  template:
    metadata: {labels: {app: app-${i}}}
    spec:
      containers:
      - name: main
        image: registry.example.com/app-${i}:1.${i % 50}.0
        ports: [{containerPort: 8080}]
        resources: {requests: {cpu: 100m, memory: 128Mi}}
`;
}

function bigConfigMap(bytes: number): string {
  const line = `${"0123456789abcdef".repeat(6)}\n`;
  const body = `    ${line}`.repeat(Math.ceil(bytes / (line.length + 4)));
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: huge\ndata:\n  blob: |\n${body}`;
}

const mb = (n: number) => Math.round(n / 1024 / 1024);

describe("rendering large manifests", () => {
  let repo: TestRepo;
  let mirrors: string;
  let mirror: string;
  let sha: string;

  beforeAll(async () => {
    repo = TestRepo.create("render-large");
    repo.write("many-docs/all.yaml", Array.from({ length: 10_000 }, (_, i) => deployment(i)).join("---\n"));
    repo.write("big-file/huge.yaml", `${bigConfigMap(20 * 1024 * 1024)}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: small}\n`);
    for (let i = 0; i < 3_000; i++) repo.write(`many-files/${String(i).padStart(4, "0")}.yaml`, deployment(i));
    sha = repo.commit("large environments");
    mirrors = tempDir("render-large-mirrors");
    mirror = (await syncMirror({ name: "large", url: repo.dir, auth: { type: "none" } }, mirrors)).mirrorPath;
  }, 120_000);

  afterAll(() => {
    repo.cleanup();
    rmSync(mirrors, { recursive: true, force: true });
    clearRenderCache();
  });

  it("renders a file with 10,000 documents", async () => {
    const started = performance.now();
    const res = await renderManifests(mirror, sha, { path: "many-docs", mode: "plain", defaultNamespace: "bulk" });
    const ms = performance.now() - started;
    console.log(`10,000 documents rendered in ${Math.round(ms)} ms`);
    expect(res.problems).toEqual([]);
    expect(res.objects).toHaveLength(10_000);
    expect(res.objects[9_999]!.object.metadata).toMatchObject({ name: "app-9999", namespace: "bulk" });
    expect(ms).toBeLessThan(60_000);

    const again = performance.now();
    expect((await renderManifests(mirror, sha, { path: "many-docs", mode: "plain", defaultNamespace: "bulk" })).cached).toBe(true);
    expect(performance.now() - again).toBeLessThan(1_000);
  }, 120_000);

  it("renders a 20 MB manifest without holding more than a few copies of it", async () => {
    global.gc?.();
    const before = process.memoryUsage();
    const started = performance.now();
    const res = await renderManifests(mirror, sha, { path: "big-file", mode: "plain", defaultNamespace: "bulk" });
    const after = process.memoryUsage();
    console.log(
      `20 MB manifest rendered in ${Math.round(performance.now() - started)} ms; heap +${mb(after.heapUsed - before.heapUsed)} MB, rss +${mb(after.rss - before.rss)} MB`,
    );
    expect(res.problems).toEqual([]);
    expect(res.objects.map((o) => (o.object.metadata as { name: string }).name)).toEqual(["huge", "small"]);
    const blob = (res.objects[0]!.object.data as { blob: string }).blob;
    expect(blob.length).toBeGreaterThan(20 * 1024 * 1024 * 0.95);
    // The rendered value itself is ~20 MB; a parser that built a node per line would be far above this.
    expect(after.rss - before.rss).toBeLessThan(600 * 1024 * 1024);
  }, 120_000);

  it("renders 3,000 files through one git process", async () => {
    const started = performance.now();
    const res = await renderManifests(mirror, sha, { path: "many-files", mode: "plain", defaultNamespace: "bulk" });
    const ms = performance.now() - started;
    console.log(`3,000 files rendered in ${Math.round(ms)} ms`);
    expect(res.objects).toHaveLength(3_000);
    expect(res.objects[2_999]!.sourcePath).toBe("many-files/2999.yaml");
    // One process per file would cost minutes on a shared two-core machine.
    expect(ms).toBeLessThan(30_000);
  }, 120_000);

  it("reports a manifest over the size limit as a problem of that file", async () => {
    const res = await renderManifests(mirror, sha, { path: "big-file", mode: "plain", defaultNamespace: "bulk", maxFileBytes: 10 * 1024 * 1024 });
    expect(res.objects).toEqual([]);
    expect(res.problems).toEqual([
      expect.objectContaining({ path: "big-file/huge.yaml", severity: "error", message: expect.stringMatching(/20\.\d MB, over the 10\.0 MB limit/) }),
    ]);
  });
});
