// One API server as the differential scenarios see it: kubesim or the real
// kube-apiserver, reached the same ways (raw HTTPS, @kubernetes/client-node,
// the real kubectl), plus the one operation that has to be done differently
// on each: forgetting history, so that old resourceVersions expire.
import { execFile } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { startKubeSim } from "@driftwatch/kubesim";
import { startRealKube } from "@/tools/realkube/cluster";
import { requiredKubectl } from "@/test/support/required-tools";

export type ServerKind = "kubesim" | "real";

export interface HttpOptions {
  /** Send the read-only token, or none at all, instead of the read-write one. */
  as?: "read-only" | "anonymous";
  body?: unknown;
  contentType?: string;
  accept?: string;
  userAgent?: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Target {
  kind: ServerKind;
  kubeconfigPath: string;
  /** A fresh client configuration (read-write context). */
  kubeConfig(): KubeConfig;
  http(method: string, urlPath: string, options?: HttpOptions): Promise<HttpResponse>;
  /** Collects a watch's events until the server ends the stream (use timeoutSeconds). */
  watch(urlPath: string, duringWatch?: () => Promise<void>): Promise<{ status: number; events: Array<{ type: string; object: Record<string, unknown> }> }>;
  kubectl(args: string[], options?: { input?: string; env?: Record<string, string> }): Promise<KubectlResult>;
  /** A scratch folder for files a scenario hands to kubectl. */
  dir: string;
  /** Makes every resourceVersion up to now too old for continue tokens. */
  forgetHistory(): Promise<void>;
  stop(): Promise<void>;
}

/** kubesim's history window in the harness; forgetHistory writes past it. */
const KUBESIM_HISTORY = 50;

const kubectlPath = requiredKubectl();

interface Tokens {
  readWrite: string;
  readOnly: string;
}

function request(server: string, caPem: string, tokens: Tokens, method: string, urlPath: string, o: HttpOptions = {}): Promise<HttpResponse> {
  const url = new URL(urlPath, server);
  const body = o.body === undefined ? undefined : typeof o.body === "string" ? o.body : JSON.stringify(o.body);
  const headers: Record<string, string> = { Accept: o.accept ?? "application/json", "User-Agent": o.userAgent ?? "conformance/v0.0.0" };
  if (o.as !== "anonymous") headers.Authorization = `Bearer ${o.as === "read-only" ? tokens.readOnly : tokens.readWrite}`;
  if (body !== undefined) {
    headers["Content-Type"] = o.contentType ?? "application/json";
    headers["Content-Length"] = String(Buffer.byteLength(body));
  }
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method, headers, ca: caPem }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

function watchStream(server: string, caPem: string, token: string, urlPath: string, duringWatch?: () => Promise<void>): ReturnType<Target["watch"]> {
  const url = new URL(urlPath, server);
  return new Promise((resolve, reject) => {
    const events: Array<{ type: string; object: Record<string, unknown> }> = [];
    const req = https.request(url, { method: "GET", headers: { Authorization: `Bearer ${token}`, Accept: "application/json" }, ca: caPem }, (res) => {
      let buf = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim()) events.push(JSON.parse(line) as (typeof events)[number]);
        }
      });
      const during = duringWatch ? duringWatch() : Promise.resolve();
      res.on("end", () => void during.then(() => resolve({ status: res.statusCode ?? 0, events }), reject));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

function runKubectl(kubeconfigPath: string, home: string, args: string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(
      kubectlPath,
      ["--kubeconfig", kubeconfigPath, "--cache-dir", path.join(home, "cache"), ...args],
      { env: { ...process.env, KUBECONFIG: kubeconfigPath, HOME: home, ...options.env }, timeout: 30_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(options.input ?? "");
  });
}

function build(kind: ServerKind, server: string, caPem: string, tokens: Tokens, kubeconfigPath: string, forgetHistory: () => Promise<void>, stopServer: () => Promise<void>): Target {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `conformance-${kind}-`));
  const target: Target = {
    kind,
    kubeconfigPath,
    dir,
    kubeConfig() {
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfigPath);
      return kc;
    },
    http: (method, urlPath, options) => request(server, caPem, tokens, method, urlPath, options),
    watch: (urlPath, duringWatch) => watchStream(server, caPem, tokens.readWrite, urlPath, duringWatch),
    kubectl: (args, options) => runKubectl(kubeconfigPath, dir, args, options),
    forgetHistory,
    async stop() {
      await stopServer();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return target;
}

export async function startKubeSimTarget(): Promise<Target> {
  // Without controllers: the real server in the harness runs no kube-controller-manager either,
  // so only what the API server itself does is compared.
  const sim = await startKubeSim({ controllers: false, adminPort: false, historyLimit: KUBESIM_HISTORY });
  const target = build(
    "kubesim",
    sim.url,
    sim.caPem,
    { readWrite: sim.tokens.admin, readOnly: sim.tokens.readonly },
    sim.kubeconfigPath,
    async () => {
      // kubesim keeps a window of recent events per resource: write past it, leaving nothing behind.
      for (let i = 0; i < KUBESIM_HISTORY; i++) {
        await target.http("POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "history-churn" } } });
        await target.http("DELETE", "/api/v1/namespaces/default/configmaps/history-churn");
      }
    },
    () => sim.stop(),
  );
  return target;
}

export async function startRealTarget(): Promise<Target> {
  const kube = await startRealKube({
    // Paginated lists then read etcd, as they did before 1.34 made cache snapshots the default:
    // compacting etcd expires continue tokens at once instead of after the cache's 15 s poll.
    apiserverArgs: ["--feature-gates=ListFromCacheSnapshot=false"],
  });
  const target = build(
    "real",
    kube.server,
    kube.caPem,
    { readWrite: kube.readWriteToken, readOnly: kube.readOnlyToken },
    kube.kubeconfigPath,
    async () => {
      // Compacting at the newest revision keeps that revision readable: move past every revision handed out first.
      await target.http("POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "history-churn" } } });
      await target.http("DELETE", "/api/v1/namespaces/default/configmaps/history-churn");
      const head = (await (await fetch(`${kube.etcdUrl}/v3/kv/range`, { method: "POST", body: JSON.stringify({ key: Buffer.from("/").toString("base64") }) })).json()) as { header: { revision: string } };
      const compacted = await fetch(`${kube.etcdUrl}/v3/kv/compaction`, { method: "POST", body: JSON.stringify({ revision: head.header.revision, physical: true }) });
      if (!compacted.ok) throw new Error(`etcd compaction failed: ${compacted.status} ${await compacted.text()}`);
    },
    () => kube.stop(),
  );
  return target;
}
