// The Kubernetes API servers the collector's tests run against: the in-repo
// imitation (kubesim) and a real etcd + kube-apiserver (tools/realkube). A
// test file wraps its cases in `forEachCluster`, and every case runs once per
// server with the same assertions.
//
// A kubesim is started per case (it costs milliseconds). A real server costs
// 10-15 s of CPU, so one is started per test file and each case gets it clean:
// the objects the case wrote are deleted afterwards (namespaces included,
// finalised by hand since no kube-controller-manager runs), CRDs it added are
// removed, and the collector's role is restored.
//
// Faults are injected the way each server can take them. kubesim has fault
// controls. The real server takes the real thing where there is one: the
// collector reads with the credential `deploy/base/rbac.yaml` ships (a service
// account bound to `driftwatch-collector-read`), so a 403 is that role losing
// a resource and a 401 is its token revoked (bound to a Secret that is then
// deleted); a hung API server is the kube-apiserver process stopped
// (SIGSTOP); an expired history is an etcd compaction. What happens on the
// network between the collector and the server (connections refused, packets
// delayed or dropped, watch connections cut) is a TCP forwarder in front of
// the server, as a load balancer would be.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe } from "vitest";
import { parseAllDocuments } from "yaml";
import { startKubeSim, type KubeSim } from "@driftwatch/kubesim";
import { startRealKube, type RealKube } from "@/tools/realkube/cluster";
import { createClusterClient, type ClusterClient } from "@/lib/kube/client";
import { discover, resourcePath, type Discovery } from "@/lib/kube/discovery";
import { KubeError } from "@/lib/kube/errors";
import type { TestRepo } from "@/lib/git/test-support/repo-fixture";
import { startSwitchableProxy, type SwitchableProxy } from "./switchable-proxy";

export type ClusterKind = "kubesim" | "kube-apiserver";
export const clusterKinds: readonly ClusterKind[] = ["kubesim", "kube-apiserver"];

type Obj = Record<string, unknown>;

/** What a test does to the cluster that it could not do through the Kubernetes API as a user. */
export interface ClusterFaults {
  /** The API stops answering: connections hang (`hang`) or are refused (`refuse`); `false` ends it. */
  unavailable(mode: "hang" | "refuse" | false): Promise<void>;
  /** Every request answers this many milliseconds late; 0 ends it. */
  latency(ms: number): Promise<void>;
  /** The collector's token stops being accepted (401). */
  revokeCollectorToken(): Promise<void>;
  /** The collector may no longer read this resource (403). */
  forbid(resource: string, group?: string): Promise<void>;
  /** Every open watch connection ends, cleanly or with a reset. */
  closeWatches(how: "end" | "reset"): Promise<void>;
  /**
   * Every resourceVersion and continue token handed out so far becomes too
   * old (410 Expired), as after an etcd compaction (kubesim: its history of
   * the last 1,000 events per resource moves past them).
   */
  expireHistory(): Promise<void>;
  /** Every fault above ends; a revoked token is replaced by a valid one in the kubeconfig. */
  clear(): Promise<void>;
}

/** One case's view of a server. */
export interface TestCluster {
  kind: ClusterKind;
  /** Contexts `t` (read-write, the test's own writes) and `t-readonly` (the collector's credential). */
  kubeconfigPath: string;
  /** The collector's bearer token, to check it is never recorded. */
  collectorToken(): string;
  faults: ClusterFaults;
  /** Lets the collector read a resource it is not granted by default (a CRD's), as an operator would add it to its role. */
  grantRead(group: string, resource: string): Promise<void>;
  /** Ends the case: the server (kubesim) or the case's objects (real) go away. */
  release(): Promise<void>;
  /** The imitation's own handle, for cases that run on it alone (bulk seeding of 10,000 objects, its clock). */
  kubesim?: KubeSim;
}

/** A server for a test file: hands out one TestCluster per case. */
export interface ClusterServer {
  kind: ClusterKind;
  /** Writes the case's kubeconfig into `dir`. */
  forCase(dir: string): Promise<TestCluster>;
  stop(): Promise<void>;
}

/**
 * Runs the enclosed suite once per server. The body receives a getter: the
 * server exists only once the suite's beforeAll has run.
 */
export function forEachCluster(body: (server: () => ClusterServer, kind: ClusterKind) => void): void {
  describe.each(clusterKinds)("on %s", (kind) => {
    let server: ClusterServer | undefined;
    beforeAll(async () => {
      server = await startClusterServer(kind);
    }, 120_000);
    afterAll(async () => {
      await server?.stop();
    }, 60_000);
    body(() => {
      if (!server) throw new Error(`the ${kind} server has not started`);
      return server;
    }, kind);
  });
}

/** Ends one case: its cluster released (cleaned for the next case), its Git repository and working folder removed. */
export async function endCase(c: { dir?: string; cluster?: TestCluster; repo?: TestRepo }): Promise<void> {
  await c.cluster?.release();
  c.repo?.cleanup();
  if (c.dir) fs.rmSync(c.dir, { recursive: true, force: true });
}

export async function startClusterServer(kind: ClusterKind): Promise<ClusterServer> {
  return kind === "kubesim" ? kubesimServer() : realServer();
}

function kubesimServer(): ClusterServer {
  return {
    kind: "kubesim",
    async forCase(dir) {
      const sim: KubeSim = await startKubeSim({ kubeconfigPath: path.join(dir, "kubeconfig"), clusterName: "t", adminPort: false });
      return {
        kind: "kubesim",
        kubeconfigPath: sim.kubeconfigPath,
        collectorToken: () => sim.tokens.readonly,
        faults: {
          async unavailable(mode) {
            sim.faults.setUnavailable(mode !== false, mode === "hang" ? "hang" : "reset");
          },
          async latency(ms) {
            sim.faults.setLatency(ms);
          },
          async revokeCollectorToken() {
            sim.faults.expireToken(sim.tokens.readonly);
          },
          async forbid(resource, group) {
            sim.faults.forbidResource(resource, group ? { group } : {});
          },
          async closeWatches(how) {
            sim.faults.closeWatches(how);
          },
          async expireHistory() {
            // kubesim keeps the last 1,000 events per resource; a resource's older versions expire when it
            // moves past them. ConfigMaps are what the cases page and watch.
            const round = String(process.hrtime.bigint());
            sim.seed(Array.from({ length: 1_050 }, (_, i) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `history-${i}`, namespace: "kube-system" }, data: { round } })), { manager: "load-test" });
          },
          async clear() {
            sim.faults.clear();
          },
        },
        // kubesim's read-only token reads every kind: there is no role to extend.
        async grantRead() {},
        release: () => sim.stop(),
        kubesim: sim,
      };
    },
    async stop() {},
  };
}

/** deploy/base/rbac.yaml, part 1: the collector's service account, role and binding, as shipped. */
function collectorRbac(): Obj[] {
  const file = path.resolve(import.meta.dirname, "../../deploy/base/rbac.yaml");
  const docs = parseAllDocuments(fs.readFileSync(file, "utf8")).map((d) => d.toJSON() as Obj);
  const ours = docs.filter((d) => {
    const name = String((d.metadata as Obj | undefined)?.name ?? "");
    return name.startsWith("driftwatch-collector");
  });
  if (ours.length !== 3) throw new Error(`expected the collector's ServiceAccount, ClusterRole and ClusterRoleBinding in ${file}`);
  return ours.map((d) => (d.kind === "ServiceAccount" ? { ...d, metadata: { ...(d.metadata as Obj), namespace: COLLECTOR_NAMESPACE } } : d));
}

const COLLECTOR_NAMESPACE = "driftwatch";

function caseKubeconfig(direct: string, viaProxy: string, caPem: string, adminToken: string, collectorToken: string): string {
  const ca = Buffer.from(caPem).toString("base64");
  return `apiVersion: v1
kind: Config
clusters:
- name: direct
  cluster: {server: "${direct}", certificate-authority-data: ${ca}}
- name: through-proxy
  cluster: {server: "${viaProxy}", certificate-authority-data: ${ca}}
users:
- name: admin
  user: {token: ${adminToken}}
- name: collector
  user: {token: ${collectorToken}}
contexts:
- name: t
  context: {cluster: direct, user: admin}
- name: t-readonly
  context: {cluster: through-proxy, user: collector}
current-context: t
`;
}

async function realServer(): Promise<ClusterServer> {
  // ConfigMaps are served without the watch cache, straight from etcd, so an etcd compaction expires
  // their resourceVersions and continue tokens at once, as it does on any server once its watch cache has
  // moved on. Every other resource keeps the default cache.
  const kube: RealKube = await startRealKube({ apiserverArgs: ["--watch-cache-sizes=configmaps#0"] });
  console.log(`[realkube] etcd + kube-apiserver ready in ${(kube.startMillis / 1000).toFixed(1)} s`);
  const apiserverPid = kube.pids[kube.pids.length - 1] ?? -1;
  const adminKubeconfig = path.join(kube.dir, "admin-kubeconfig");
  fs.writeFileSync(adminKubeconfig, caseKubeconfig(kube.server, kube.server, kube.caPem, kube.readWriteToken, kube.readWriteToken));
  const admin = createClusterClient({ kubeconfig: adminKubeconfig, context: "t" }, { timeoutMs: 20_000 });
  await apply(admin, { apiVersion: "v1", kind: "Namespace", metadata: { name: COLLECTOR_NAMESPACE } });
  const rbac = collectorRbac();
  for (const o of rbac) await apply(admin, o);
  const role = rbac.find((o) => o.kind === "ClusterRole") as Obj;
  const baselineCrds = new Set((await admin.requestJson<{ items: Obj[] }>("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions")).items.map(nameOf));
  // The server's own namespaces and the collector's are left alone; every other one is a case's.
  const baselineNamespaces = new Set((await admin.requestJson<{ items: Obj[] }>("GET", "/api/v1/namespaces")).items.map(nameOf));
  let tokenCount = 0;

  /** A token for the collector's service account, valid while the Secret it is bound to exists. */
  async function issueToken(): Promise<{ token: string; secret: string }> {
    const secret = `collector-token-${++tokenCount}`;
    const created = await admin.requestJson<Obj>("POST", `/api/v1/namespaces/${COLLECTOR_NAMESPACE}/secrets`, { body: { apiVersion: "v1", kind: "Secret", metadata: { name: secret }, type: "Opaque" } });
    const uid = String((created.metadata as Obj).uid);
    const review = await admin.requestJson<{ status: { token: string } }>("POST", `/api/v1/namespaces/${COLLECTOR_NAMESPACE}/serviceaccounts/driftwatch-collector/token`, {
      body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 3600, boundObjectRef: { apiVersion: "v1", kind: "Secret", name: secret, uid } } },
    });
    return { token: review.status.token, secret };
  }

  async function tokenStatus(probe: ClusterClient): Promise<number> {
    try {
      await probe.requestJson("GET", "/api/v1/namespaces/default/configmaps?limit=1");
      return 200;
    } catch (e) {
      return e instanceof KubeError ? (e.status ?? 0) : 0;
    }
  }

  async function wipeCase(): Promise<void> {
    const discovery = await discover(admin);
    const namespaces = (await admin.requestJson<{ items: Obj[] }>("GET", "/api/v1/namespaces")).items.map(nameOf);
    const deletable = [...discovery.byGroupKind.values()].filter((r) => r.namespaced && r.verbs.includes("deletecollection"));
    for (const ns of namespaces) {
      if (baselineNamespaces.has(ns)) continue;
      // Emptied first: a namespace deleted with objects left in etcd would hand them to the next case of that name.
      await Promise.all(deletable.map((r) => admin.requestJson("DELETE", resourcePath(r, ns)).catch(() => undefined)));
      await admin.requestJson("DELETE", `/api/v1/namespaces/${ns}`).catch(() => undefined);
      // The namespace controller (kube-controller-manager) would empty and finalise it; here nothing else will.
      await admin.requestJson("PUT", `/api/v1/namespaces/${ns}/finalize`, { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: ns }, spec: { finalizers: [] } } }).catch(() => undefined);
    }
    const crdNames = async () => (await admin.requestJson<{ items: Obj[] }>("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions")).items.map(nameOf);
    for (const crd of await crdNames()) {
      if (!baselineCrds.has(crd)) await admin.requestJson("DELETE", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`).catch(() => undefined);
    }
    // A CRD's deletion finishes asynchronously (its objects are removed first). The next case may apply the same CRD:
    // applied while the old one is still terminating, it would vanish under that case a moment later.
    await until("the case's CRDs are deleted", async () => (await crdNames()).every((crd) => baselineCrds.has(crd)), 30_000);
    await apply(admin, role);
  }

  return {
    kind: "kube-apiserver",
    async forCase(dir) {
      const port = Number(new URL(kube.server).port);
      const proxy: SwitchableProxy = await startSwitchableProxy({ host: "127.0.0.1", port });
      const viaProxy = `https://127.0.0.1:${proxy.port}`;
      const kubeconfigPath = path.join(dir, "kubeconfig");
      let current = await issueToken();
      const write = () => fs.writeFileSync(kubeconfigPath, caseKubeconfig(kube.server, viaProxy, kube.caPem, kube.readWriteToken, current.token), { mode: 0o600 });
      write();
      let stopped = false;
      let revoked = false;
      const resume = () => {
        if (stopped) process.kill(apiserverPid, "SIGCONT");
        stopped = false;
      };
      const grants: Array<{ group: string; resource: string }> = [];
      const setRole = async (without?: { resource: string; group: string }) => {
        const rules = (role.rules as Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>)
          .map((r) => (without && r.apiGroups.includes(without.group) ? { ...r, resources: r.resources.filter((x) => x !== without.resource) } : r))
          .filter((r) => r.resources.length > 0);
        for (const g of grants) rules.push({ apiGroups: [g.group], resources: [g.resource], verbs: ["get", "list", "watch"] });
        await apply(admin, { ...role, rules });
      };
      const faults: ClusterFaults = {
        async unavailable(mode) {
          if (mode === "hang") {
            // The process is frozen: the kernel still accepts connections, nothing answers on them or on the open ones.
            process.kill(apiserverPid, "SIGSTOP");
            stopped = true;
          } else if (mode === "refuse") {
            proxy.mode = "refuse";
          } else {
            resume();
            proxy.mode = "up";
          }
        },
        async latency(ms) {
          proxy.latencyMs = ms;
        },
        async revokeCollectorToken() {
          const probe = createClusterClient({ kubeconfig: kubeconfigPath, context: "t-readonly" }, { timeoutMs: 5_000 });
          await admin.requestJson("DELETE", `/api/v1/namespaces/${COLLECTOR_NAMESPACE}/secrets/${current.secret}`);
          revoked = true;
          // The API server remembers a token it accepted for up to 10 s (its authentication cache).
          const until = Date.now() + 30_000;
          while ((await tokenStatus(probe)) !== 401) {
            if (Date.now() > until) throw new Error("the revoked token is still accepted after 30 s");
            await new Promise((r) => setTimeout(r, 200));
          }
        },
        async forbid(resource, group = "") {
          await setRole({ resource, group });
          // RBAC is read from the API server's own watch cache: wait until the denial is in force.
          const probe = createClusterClient({ kubeconfig: kubeconfigPath, context: "t-readonly" }, { timeoutMs: 5_000 });
          const r = (await discover(admin)).byGroupKind;
          const res = [...r.values()].find((x) => x.resource === resource && x.group === group);
          if (!res) throw new Error(`no resource ${group}/${resource}`);
          await until(`${resource} to be forbidden`, async () => {
            try {
              await probe.requestJson("GET", resourcePath(res, "default") + "?limit=1");
              return false;
            } catch (e) {
              return e instanceof KubeError && e.category === "forbidden";
            }
          });
        },
        async closeWatches(how) {
          proxy.dropConnections(how);
        },
        async expireHistory() {
          // A compaction keeps the revision it compacts to, and a watch from version N starts at N + 1:
          // two writes first, so every version handed out so far falls below the compacted one.
          for (let i = 0; i < 2; i++) await apply(admin, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "history", namespace: "kube-system" }, data: { at: String(process.hrtime.bigint()) } });
          await compactEtcd(kube.etcdUrl);
        },
        async clear() {
          resume();
          proxy.mode = "up";
          proxy.latencyMs = 0;
          await setRole();
          if (revoked) {
            current = await issueToken();
            revoked = false;
            write();
          }
        },
      };
      return {
        kind: "kube-apiserver",
        kubeconfigPath,
        collectorToken: () => current.token,
        faults,
        async grantRead(group, resource) {
          grants.push({ group, resource });
          await setRole();
        },
        async release() {
          resume();
          await proxy.close();
          grants.length = 0;
          await wipeCase();
        },
      };
    },
    async stop() {
      try {
        process.kill(apiserverPid, "SIGCONT");
      } catch {
        // already gone
      }
      await kube.stop();
    },
  };
}

const discoveries = new WeakMap<ClusterClient, Discovery>();

async function apply(client: ClusterClient, obj: Obj): Promise<void> {
  const [group, version] = String(obj.apiVersion).includes("/") ? String(obj.apiVersion).split("/") : ["", String(obj.apiVersion)];
  const find = (d: Discovery | undefined) => d?.byGroupKind.get(`${group}/${String(obj.kind)}`);
  let r = find(discoveries.get(client));
  if (!r) {
    const fresh = await discover(client);
    discoveries.set(client, fresh);
    r = find(fresh);
  }
  if (!r) throw new Error(`the cluster does not serve ${String(obj.apiVersion)} ${String(obj.kind)}`);
  const meta = obj.metadata as { name: string; namespace?: string };
  await client.requestJson("PATCH", resourcePath({ ...r, version: version ?? r.version }, meta.namespace, meta.name), {
    query: { fieldManager: "driftwatch-tests", force: true },
    body: JSON.stringify(obj),
    contentType: "application/apply-patch+yaml",
  });
}

function nameOf(o: Obj): string {
  return String((o.metadata as Obj | undefined)?.name ?? "");
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Compacts etcd up to its current revision through its JSON gateway: every older revision is gone. */
async function compactEtcd(etcdUrl: string): Promise<void> {
  const status = await fetch(`${etcdUrl}/v3/kv/range`, { method: "POST", body: JSON.stringify({ key: Buffer.from("/").toString("base64"), limit: 1 }) });
  if (!status.ok) throw new Error(`etcd range: ${status.status} ${await status.text()}`);
  const revision = ((await status.json()) as { header: { revision: string } }).header.revision;
  const compacted = await fetch(`${etcdUrl}/v3/kv/compaction`, { method: "POST", body: JSON.stringify({ revision, physical: true }) });
  if (!compacted.ok) throw new Error(`etcd compaction: ${compacted.status} ${await compacted.text()}`);
}
