// The HTTPS front of the imitation: starts the API server and its admin
// endpoint, wires authentication, fault injection, persistence and the
// controllers, and hands requests to non-resource-requests.ts (discovery,
// OpenAPI) or resource-requests.ts (everything under /api and /apis).
import { mkdtempSync, rmSync } from "node:fs";
import type http from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import { ApiCore } from "./apiserver";
import { Authenticator, newToken, type TokenScope } from "./auth";
import { tlsMaterial } from "./certs";
import { Controllers } from "./controllers";
import { internalError, StatusError } from "./errors";
import { faultControls, injected, newFaultState, startAdminServer, type FaultControls } from "./faults";
import { readBody, sendError } from "./http-io";
import { asObj, asStr, clone, type Obj } from "./json";
import { writeKubeconfig } from "./kubeconfig";
import { serveNonResource } from "./non-resource-requests";
import { served } from "./objects";
import { loadState, persistState, type StatePersister } from "./persistence";
import { Registry, typesFromCRD, type ResourceType } from "./registry";
import { serveResource, type ResourceContext } from "./resource-requests";
import { Store } from "./store";
import type { ActiveWatch } from "./watch";

export interface KubeSimOptions {
  /** 0/undefined = random free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** JSON file to load from and persist to (debounced writes). */
  state?: string;
  /** Watch event history window per resource (for 410 Expired); default 1000. */
  historyLimit?: number;
  /** Where to write the kubeconfig; default a temp file. */
  kubeconfigPath?: string;
  /** Name used in the kubeconfig (default "kubesim"). */
  clusterName?: string;
  /** HTTP admin endpoint for fault controls on another port (default random; false = off). */
  adminPort?: number | false;
  /** Run the minimal controllers (deployment/statefulset status, namespace defaults); default true. */
  controllers?: boolean;
  /** Interval between watch BOOKMARK events; default 60 s like the real watch cache. */
  bookmarkIntervalMs?: number;
  /**
   * Workload controllers: Deployments roll out through ReplicaSets, and ReplicaSets, StatefulSets,
   * DaemonSets and Jobs create Pods that report Running (Succeeded for Jobs), with Events. Default
   * false, so tests and benches that seed many workloads do not multiply their objects; the demo
   * and `npm run kubesim` turn it on. Needs `controllers`.
   */
  workloadControllers?: boolean;
  /** Delay before controllers reconcile; default 0. */
  controllerDelayMs?: number;
  /** Fixed bearer tokens instead of generated (or persisted) ones. */
  tokens?: { admin?: string; readonly?: string };
}


export interface KubeSim {
  url: string;
  caPem: string;
  kubeconfigPath: string;
  tokens: { admin: string; readonly: string };
  adminUrl: string | null;
  addToken(token: string, scope: TokenScope): void;
  seed(objects: Array<Record<string, unknown>>, opts?: { manager?: string }): void;
  objects(): Array<Record<string, unknown>>;
  faults: FaultControls;
  stop(): Promise<void>;
}

export async function startKubeSim(opts: KubeSimOptions = {}): Promise<KubeSim> {
  const tls = tlsMaterial();
  const host = opts.host ?? "127.0.0.1";
  const clusterName = opts.clusterName ?? "kubesim";
  const registry = new Registry();
  const store = new Store(opts.historyLimit ?? 1000);
  const auth = new Authenticator();
  const watches = new Set<ActiveWatch>();
  const sockets = new Set<Socket>();
  const hanging = new Set<Socket>();
  const faults = newFaultState();
  // Assigned once the core exists; the core's hooks reach it lazily.
  const ctl: { controllers?: Controllers } = {};
  let stopping = false;

  const core: ApiCore = new ApiCore(registry, store, {
    crdChanged(crd, name) {
      if (!crd) registry.removeCRD(name);
      else registry.setCRD(name, typesFromCRD(crd));
    },
    deletionRequested(rt, obj) {
      ctl.controllers?.deletionRequested(rt, obj);
    },
  });

  // ---- state ----
  let tokens = { admin: newToken(), readonly: newToken() };
  const loaded = opts.state ? await loadState(opts.state, registry, store, core) : undefined;
  if (loaded?.tokens) tokens = loaded.tokens;
  if (opts.tokens?.admin) tokens.admin = opts.tokens.admin;
  if (opts.tokens?.readonly) tokens.readonly = opts.tokens.readonly;
  auth.add(tokens.admin, { verbs: "write", user: "kubesim-admin" });
  auth.add(tokens.readonly, { verbs: "read", user: "kubesim-readonly" });
  const persister: StatePersister | undefined = opts.state ? persistState(opts.state, store, tokens) : undefined;

  const controllers = new Controllers(core, registry, { enabled: opts.controllers !== false, workloads: opts.workloadControllers === true, caPem: tls.caPem, delayMs: opts.controllerDelayMs });
  ctl.controllers = controllers;
  controllers.start();

  // ---- HTTP ----
  const server = https.createServer({ key: tls.keyPem, cert: tls.certPem }, (req, res) => {
    void handle(req, res);
  });
  server.on("connection", (s: Socket) => {
    if (faults.unavailable === "reset") {
      s.destroy();
      return;
    }
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.on("tlsClientError", () => undefined);
  server.keepAliveTimeout = 60_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  const url = `https://${host.includes(":") ? `[${host}]` : host}:${port}`;

  if (!loaded) bootstrap();

  const resources: ResourceContext = { core, registry, store, watches, faults, bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000 };

  function bootstrap(): void {
    const ns = registry.find("", "v1", "namespaces") as ResourceType;
    for (const n of ["default", "kube-system", "kube-public", "kube-node-lease"]) {
      core.createAs(ns, { apiVersion: "v1", kind: "Namespace", metadata: { name: n } }, "kube-apiserver");
    }
    const svc = registry.find("", "v1", "services") as ResourceType;
    core.createAs(
      svc,
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "kubernetes", namespace: "default", labels: { component: "apiserver", provider: "kubernetes" } },
        spec: { clusterIP: "10.96.0.1", ports: [{ name: "https", port: 443, protocol: "TCP", targetPort: port }] },
      },
      "kube-apiserver",
    );
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (faults.unavailable === "reset") {
      req.socket.destroy();
      return;
    }
    if (faults.unavailable === "hang") {
      hanging.add(req.socket);
      return;
    }
    try {
      if (faults.latencyMs > 0) await new Promise((r) => setTimeout(r, faults.latencyMs));
      const body = req.method === "GET" || req.method === "HEAD" ? Buffer.alloc(0) : await readBody(req);
      const u = new URL(req.url ?? "/", "https://kubesim.invalid");
      const p = u.pathname.replace(/\/+$/, "") || "/";
      const user = auth.authenticate(req.headers.authorization);
      if (faults.failNext > 0) {
        faults.failNext -= 1;
        throw injected(faults.failStatus);
      }
      const segs = p.split("/").filter(Boolean);
      if (serveNonResource(registry, `${host}:${port}`, req, res, p, segs, user)) return;
      serveResource(resources, req, res, u, p, segs, body, user);
    } catch (e) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (e instanceof StatusError) sendError(res, e);
      else {
        console.error("kubesim: internal error", e);
        sendError(res, internalError(e instanceof Error ? e.message : String(e)));
      }
    }
  }

  // ---- admin endpoint ----
  const faultApi = faultControls(faults, { auth, watches, sockets, hanging });
  let adminServer: http.Server | undefined;
  let adminUrl: string | null = null;
  if (opts.adminPort !== false) {
    adminServer = await startAdminServer(typeof opts.adminPort === "number" ? opts.adminPort : 0, faults, faultApi, watches, {
      objects: () => api.objects(),
      seed: (objects, o) => api.seed(objects, o),
    });
    adminUrl = `http://127.0.0.1:${(adminServer.address() as { port: number }).port}`;
  }

  // ---- kubeconfig ----
  let tempDir: string | undefined;
  let kubeconfigPath = opts.kubeconfigPath;
  if (!kubeconfigPath) {
    tempDir = mkdtempSync(path.join(os.tmpdir(), "kubesim-"));
    kubeconfigPath = path.join(tempDir, "kubeconfig");
  }
  await writeKubeconfig(kubeconfigPath, clusterName, url, tls.caPem, tokens);

  const api: KubeSim = {
    url,
    caPem: tls.caPem,
    kubeconfigPath,
    tokens,
    adminUrl,
    addToken(token, scope) {
      auth.add(token, scope);
    },
    seed(objects, o = {}) {
      const manager = o.manager ?? "kubesim";
      const nsRT = registry.find("", "v1", "namespaces") as ResourceType;
      for (const raw of objects) {
        const obj = clone(raw) as Obj;
        const apiVersion = asStr(obj.apiVersion) ?? "";
        const kind = asStr(obj.kind) ?? "";
        const rt = registry.byKind(apiVersion, kind);
        if (!rt) throw new Error(`kubesim.seed: no kind ${kind} is served in ${apiVersion}`);
        const m = asObj(obj.metadata) ?? {};
        obj.metadata = m;
        if (rt.namespaced) {
          if (!m.namespace) m.namespace = "default";
          const nsName = String(m.namespace);
          if (!store.get("/namespaces", nsName)) core.applyAs(nsRT, { apiVersion: "v1", kind: "Namespace", metadata: { name: nsName } }, manager);
        } else delete m.namespace;
        const status = obj.status;
        core.applyAs(rt, obj, manager);
        if (status !== undefined && rt.status) {
          core.applyAs(rt, { apiVersion, kind, metadata: { name: m.name, namespace: m.namespace }, status }, manager, true, "status");
        }
      }
    },
    objects() {
      return store.all().map(({ gr, stored }) => {
        const [group, resource] = [gr.slice(0, gr.indexOf("/")), gr.slice(gr.indexOf("/") + 1)];
        const rt = registry.storageType(group, resource);
        return clone(rt ? served(rt, stored.obj) : stored.obj);
      });
    },
    faults: faultApi,
    async stop() {
      if (stopping) return;
      stopping = true;
      controllers.stop();
      for (const w of [...watches]) w.close("end");
      persister?.stop();
      if (persister) await persister.saveNow();
      for (const s of hanging) s.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      if (adminServer) {
        const a = adminServer;
        await new Promise<void>((resolve) => {
          a.close(() => resolve());
          a.closeAllConnections();
        });
      }
      if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    },
  };
  return api;
}
