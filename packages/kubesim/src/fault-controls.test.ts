// Fault controls (library and admin HTTP endpoint) and persistence across restarts.
import { ApiException, CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKubeSim, type KubeSim } from "./index";
import { openWatch, raw } from "./test-helpers";

let sim: KubeSim;
let core: CoreV1Api;

beforeAll(async () => {
  sim = await startKubeSim();
  const kc = new KubeConfig();
  kc.loadFromFile(sim.kubeconfigPath);
  core = kc.makeApiClient(CoreV1Api);
});

afterAll(async () => {
  await sim?.stop();
});

async function admin(p: string): Promise<number> {
  const r = await fetch(`${sim.adminUrl}${p}`, { method: "POST" });
  return r.status;
}

describe("fault controls", () => {
  it("fails the next N requests with a Status error, then recovers", async () => {
    sim.faults.failNext(2);
    for (let i = 0; i < 2; i++) {
      const r = await raw(sim, "GET", "/api/v1/namespaces");
      expect(r.status).toBe(500);
      expect(r.json).toMatchObject({ kind: "Status", reason: "InternalError", code: 500, message: "Internal error occurred: kubesim: injected fault" });
    }
    expect((await raw(sim, "GET", "/api/v1/namespaces")).status).toBe(200);

    sim.faults.failNext(1, 503);
    expect((await raw(sim, "GET", "/api/v1/namespaces")).json).toMatchObject({ code: 503, reason: "ServiceUnavailable" });
  });

  it("adds latency", async () => {
    sim.faults.setLatency(150);
    const t = Date.now();
    await core.listNamespace();
    expect(Date.now() - t).toBeGreaterThanOrEqual(140);
    sim.faults.setLatency(0);
  });

  it("expires tokens and forbids one resource with the real message", async () => {
    sim.addToken("short-lived", { verbs: "read" });
    expect((await raw(sim, "GET", "/api/v1/namespaces", { token: "short-lived" })).status).toBe(200);
    sim.faults.expireToken("short-lived");
    expect((await raw(sim, "GET", "/api/v1/namespaces", { token: "short-lived" })).json).toMatchObject({ code: 401, reason: "Unauthorized" });

    sim.faults.forbidResource("secrets", { namespace: "default" });
    const r = await raw(sim, "GET", "/api/v1/namespaces/default/secrets");
    expect(r.json).toMatchObject({
      code: 403,
      reason: "Forbidden",
      message: 'secrets is forbidden: User "kubesim-admin" cannot list resource "secrets" in API group "" in the namespace "default"',
    });
    expect((await raw(sim, "GET", "/api/v1/namespaces/kube-system/secrets")).status).toBe(200);
    sim.faults.clear();
    expect((await raw(sim, "GET", "/api/v1/namespaces/default/secrets")).status).toBe(200);
    expect((await raw(sim, "GET", "/api/v1/namespaces", { token: "short-lived" })).status).toBe(200);
  });

  it("stops answering like a dead server, and comes back", async () => {
    const w = await openWatch(sim, "/api/v1/namespaces?watch=true");
    sim.faults.setUnavailable(true);
    await w.ended;
    await expect(core.listNamespace()).rejects.toThrow();
    sim.faults.setUnavailable(false);
    expect((await core.listNamespace()).items.length).toBeGreaterThan(0);
  });

  it("is driven over the admin HTTP endpoint", async () => {
    expect(sim.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await admin("/faults/fail?n=1&status=500")).toBe(200);
    expect((await raw(sim, "GET", "/api/v1/namespaces")).status).toBe(500);
    expect((await raw(sim, "GET", "/api/v1/namespaces")).status).toBe(200);

    expect(await admin("/faults/latency?ms=120")).toBe(200);
    const t = Date.now();
    await raw(sim, "GET", "/version");
    expect(Date.now() - t).toBeGreaterThanOrEqual(110);

    expect(await admin("/faults/forbid?resource=configmaps")).toBe(200);
    expect((await raw(sim, "GET", "/api/v1/namespaces/default/configmaps")).status).toBe(403);

    const w = await openWatch(sim, "/api/v1/namespaces?watch=true");
    expect(await admin("/faults/close-watches")).toBe(200);
    await w.ended;

    expect(await admin("/faults/clear")).toBe(200);
    expect((await raw(sim, "GET", "/api/v1/namespaces/default/configmaps")).status).toBe(200);
    const state = (await (await fetch(`${sim.adminUrl}/faults`)).json()) as { latencyMs: number; forbidden: unknown[] };
    expect(state).toMatchObject({ latencyMs: 0, forbidden: [] });

    const seeded = await fetch(`${sim.adminUrl}/seed?manager=demo-seed`, {
      method: "POST",
      body: JSON.stringify([{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "from-admin", namespace: "default" }, data: { a: "1" } }]),
    });
    expect(seeded.status).toBe(200);
    const cm = (await raw(sim, "GET", "/api/v1/namespaces/default/configmaps/from-admin")).json as { metadata: { managedFields: Array<{ manager: string; operation: string }> } };
    expect(cm.metadata.managedFields).toEqual([expect.objectContaining({ manager: "demo-seed", operation: "Apply" })]);
  });

  it("reports client-node errors as ApiException with the Status body", async () => {
    sim.faults.failNext(1, 429);
    try {
      await core.listNamespace();
      throw new Error("expected a 429");
    } catch (e) {
      expect(e).toBeInstanceOf(ApiException);
      expect((e as ApiException<string>).code).toBe(429);
      expect((e as ApiException<string>).headers["retry-after"]).toBe("1");
    }
  });
});

describe("persistence", () => {
  it("keeps objects, resourceVersions and tokens across a restart", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "kubesim-state-"));
    const state = path.join(dir, "state.json");
    try {
      const a = await startKubeSim({ state, adminPort: false });
      a.seed([{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "kept", namespace: "default" }, data: { x: "1" } }]);
      const before = (await raw(a, "GET", "/api/v1/namespaces/default/configmaps/kept")).json as { metadata: { uid: string; resourceVersion: string } };
      await a.stop();

      const b = await startKubeSim({ state, adminPort: false });
      try {
        expect(b.tokens).toEqual(a.tokens);
        const after = (await raw(b, "GET", "/api/v1/namespaces/default/configmaps/kept")).json as typeof before & { data: unknown };
        expect(after.metadata.uid).toBe(before.metadata.uid);
        expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
        expect(after.data).toEqual({ x: "1" });
        const created = (await raw(b, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "new" } } })).json as typeof before;
        expect(Number(created.metadata.resourceVersion)).toBeGreaterThan(Number(before.metadata.resourceVersion));
        // The history starts at the restart: older resourceVersions are expired for watches.
        const w = await openWatch(b, "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=1");
        await w.ended;
        expect(w.events[0]).toMatchObject({ type: "ERROR", object: { code: 410 } });
      } finally {
        await b.stop();
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
