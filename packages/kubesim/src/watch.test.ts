// Watch semantics on the wire, and client-node's ListWatch/informer riding
// through a 410 and a dropped connection.
import { ADD, CoreV1Api, DELETE, KubeConfig, ListWatch, UPDATE, Watch, type V1ConfigMap } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKubeSim, type KubeSim } from "./index";
import { eventually, openWatch, raw } from "./test-helpers";

let sim: KubeSim;
let kc: KubeConfig;
let core: CoreV1Api;

const cm = (name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "w", labels },
  data,
});

beforeAll(async () => {
  sim = await startKubeSim({ historyLimit: 20, bookmarkIntervalMs: 150, adminPort: false });
  kc = new KubeConfig();
  kc.loadFromFile(sim.kubeconfigPath);
  core = kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: "w" } } });
});

afterAll(async () => {
  await sim?.stop();
});

describe("watch", () => {
  it("streams ADDED, MODIFIED and DELETED as JSON lines, from a resourceVersion", async () => {
    const list = await core.listNamespacedConfigMap({ namespace: "w" });
    const w = await openWatch(sim, `/api/v1/namespaces/w/configmaps?watch=true&resourceVersion=${list.metadata?.resourceVersion}`);
    expect(w.status).toBe(200);
    await core.createNamespacedConfigMap({ namespace: "w", body: cm("a") });
    await core.patchNamespacedConfigMap({ name: "a", namespace: "w", body: [{ op: "add", path: "/data", value: { k: "v" } }] });
    await core.deleteNamespacedConfigMap({ name: "a", namespace: "w" });
    const events = await w.waitFor((e) => e.length >= 3);
    expect(events.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
    expect(events[0]?.object).toMatchObject({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "a" } });
    const rvs = events.map((e) => Number((e.object.metadata as { resourceVersion: string }).resourceVersion));
    expect(rvs[0]).toBeLessThan(rvs[1] as number);
    // A deletion carries its own resourceVersion.
    expect(rvs[2]).toBeGreaterThan(rvs[1] as number);
    w.close();
  });

  it("starts with synthetic ADDED events without a resourceVersion, and translates selector transitions", async () => {
    sim.seed([cm("sel-1", { team: "x" }), cm("sel-2", { team: "y" })]);
    const w = await openWatch(sim, "/api/v1/namespaces/w/configmaps?watch=true&labelSelector=team%3Dx");
    await w.waitFor((e) => e.length >= 1);
    expect(w.events.map((e) => [e.type, (e.object.metadata as { name: string }).name])).toEqual([["ADDED", "sel-1"]]);
    await core.patchNamespacedConfigMap({ name: "sel-1", namespace: "w", body: [{ op: "replace", path: "/metadata/labels/team", value: "y" }] });
    await core.patchNamespacedConfigMap({ name: "sel-2", namespace: "w", body: [{ op: "replace", path: "/metadata/labels/team", value: "x" }] });
    await w.waitFor((e) => e.length >= 3);
    expect(w.events.slice(1).map((e) => [e.type, (e.object.metadata as { name: string }).name])).toEqual([
      ["DELETED", "sel-1"],
      ["ADDED", "sel-2"],
    ]);
    w.close();
  });

  it("sends BOOKMARK events when asked and ends the stream after timeoutSeconds", async () => {
    const started = Date.now();
    const w = await openWatch(sim, "/api/v1/namespaces/w/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=0");
    await w.ended;
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    const bookmarks = w.events.filter((e) => e.type === "BOOKMARK");
    expect(bookmarks.length).toBeGreaterThanOrEqual(2);
    expect(bookmarks[0]?.object).toEqual({ kind: "ConfigMap", apiVersion: "v1", metadata: { resourceVersion: expect.stringMatching(/^\d+$/) } });
  });

  it("answers a resourceVersion older than the history with 200, one ERROR 410 Expired, and the end of the stream", async () => {
    const rv = (await core.listNamespacedConfigMap({ namespace: "w" })).metadata?.resourceVersion;
    sim.seed(Array.from({ length: 30 }, (_, i) => cm(`old-${i}`)));
    const w = await openWatch(sim, `/api/v1/namespaces/w/configmaps?watch=true&resourceVersion=${rv}`);
    expect(w.status).toBe(200);
    await w.ended;
    expect(w.events).toHaveLength(1);
    expect(w.events[0]).toEqual({
      type: "ERROR",
      object: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: expect.stringMatching(new RegExp(`^too old resource version: ${rv} \\(\\d+\\)$`)), reason: "Expired", code: 410 },
    });
  });

  it("serves kubectl's Table form for lists and watches", async () => {
    const t = await raw(sim, "GET", "/api/v1/namespaces/w/configmaps?limit=2", { accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json" });
    expect(t.json).toMatchObject({
      kind: "Table",
      apiVersion: "meta.k8s.io/v1",
      columnDefinitions: [{ name: "Name", type: "string", format: "name" }, { name: "Data" }, { name: "Age" }],
      rows: [{ cells: [expect.any(String), expect.any(Number), expect.stringMatching(/^\d+s$/)], object: { kind: "PartialObjectMetadata" } }, expect.anything()],
    });
  });
});

describe("client-node ListWatch", () => {
  it("keeps its cache right across a dropped watch and a 410", async () => {
    await core.createNamespace({ body: { metadata: { name: "inf" } } });
    const path = "/api/v1/namespaces/inf/configmaps";
    const seen: string[] = [];
    let lists = 0;
    const listFn = () => {
      lists += 1;
      return core.listNamespacedConfigMap({ namespace: "inf" });
    };
    const lw = new ListWatch<V1ConfigMap>(path, new Watch(kc), listFn, false);
    lw.on(ADD, (o) => seen.push(`add:${o.metadata?.name}`));
    lw.on(UPDATE, (o) => seen.push(`update:${o.metadata?.name}`));
    lw.on(DELETE, (o) => seen.push(`delete:${o.metadata?.name}`));
    const errors: unknown[] = [];
    lw.on("error", (e) => errors.push(e));
    await lw.start();
    try {
      const names = () => lw.list("inf").map((o) => o.metadata?.name).sort();
      await core.createNamespacedConfigMap({ namespace: "inf", body: { metadata: { name: "one" } } });
      await eventually(() => names().includes("one"));

      // A dropped watch: the informer reconnects from its last resourceVersion.
      sim.faults.closeWatches();
      await core.createNamespacedConfigMap({ namespace: "inf", body: { metadata: { name: "two" } } });
      await eventually(() => names().includes("two"));
      expect(lists).toBe(1);

      // Drop it again and make more changes than the history keeps before it reconnects:
      // the watch gets 410 Expired and the informer relists.
      sim.faults.closeWatches();
      sim.seed(Array.from({ length: 30 }, (_, i) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `bulk-${i}`, namespace: "inf" } })));
      await core.deleteNamespacedConfigMap({ name: "one", namespace: "inf" });
      await eventually(() => names().length === 32 && !names().includes("one"), 8000);
      expect(lists).toBe(2);
      expect(seen).toContain("delete:one");
      expect(seen).toContain("add:bulk-29");
      await core.patchNamespacedConfigMap({ name: "two", namespace: "inf", body: [{ op: "add", path: "/data", value: { x: "1" } }] });
      await eventually(() => seen.includes("update:two"));
      expect(errors).toEqual([]);
    } finally {
      await lw.stop();
    }
  });
});
