// A thin, fast client for what the collector needs (discovery, paginated
// lists, gets). Configuration and authentication come from
// @kubernetes/client-node's KubeConfig; list pages are read as raw JSON so
// 50,000 objects do not pay for typed model deserialisation.
import https from "node:https";
import http from "node:http";
import fs from "node:fs";
import { KubeConfig } from "@kubernetes/client-node";
import type { ClusterConfig } from "@/lib/config";
import { env, namedVariable } from "@/lib/env";
import { KubeError, categoryForNetworkError, categoryForStatus } from "./errors";

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  timeoutMs?: number;
  /** Identifies the caller to the API server; a real server names the field manager after it when none is given. */
  userAgent?: string;
  /** Accept header; default application/json. */
  accept?: string;
}

export interface ClusterClient {
  readonly kc: KubeConfig;
  readonly server: string;
  requestJson<T>(method: string, path: string, opts?: RequestOptions): Promise<T>;
}

export function kubeConfigFor(cluster: ClusterConfig): KubeConfig {
  const kc = new KubeConfig();
  if ("kubeconfig" in cluster) {
    const file = cluster.kubeconfig.replace(/^~(?=\/)/, env().HOME ?? "~");
    if (!fs.existsSync(file)) throw new KubeError("unreachable", `kubeconfig ${file} does not exist`);
    kc.loadFromFile(file);
    if (cluster.context) {
      if (!kc.getContexts().some((c) => c.name === cluster.context)) {
        throw new KubeError("unreachable", `kubeconfig ${file} has no context "${cluster.context}"`);
      }
      kc.setCurrentContext(cluster.context);
    }
  } else if ("inCluster" in cluster) {
    kc.loadFromCluster();
  } else {
    const token = namedVariable(cluster.tokenEnv);
    if (!token) throw new KubeError("unauthorised", `environment variable ${cluster.tokenEnv} (the cluster token) is not set`);
    kc.loadFromOptions({
      clusters: [{ name: "c", server: cluster.server, caFile: cluster.caFile, skipTLSVerify: cluster.insecureSkipTlsVerify }],
      users: [{ name: "u", token }],
      contexts: [{ name: "c", cluster: "c", user: "u" }],
      currentContext: "c",
    });
  }
  return kc;
}

function statusMessage(body: string, fallback: string): string {
  try {
    const parsed = JSON.parse(body) as { kind?: string; message?: string };
    if (parsed.kind === "Status" && parsed.message) return parsed.message;
  } catch {
    // not a Status object
  }
  return fallback;
}

export function createClusterClient(cluster: ClusterConfig, defaults: { timeoutMs?: number } = {}): ClusterClient {
  const kc = kubeConfigFor(cluster);
  const current = kc.getCurrentCluster();
  if (!current) throw new KubeError("unreachable", "kubeconfig has no current cluster");
  const server = current.server.replace(/\/$/, "");
  const base = new URL(server);
  const isHttps = base.protocol === "https:";
  const agentOptions: https.RequestOptions = {};
  const ready = kc.applyToHTTPSOptions(agentOptions);
  const agent = isHttps ? new https.Agent({ keepAlive: true, maxSockets: 8 }) : new http.Agent({ keepAlive: true, maxSockets: 8 });

  async function requestJson<T>(
    method: string,
    path: string,
    opts: RequestOptions = {},
  ): Promise<T> {
    await ready;
    const url = new URL(base.pathname.replace(/\/$/, "") + path, base);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const timeoutMs = opts.timeoutMs ?? defaults.timeoutMs ?? 30_000;
    const payload = opts.body === undefined ? undefined : Buffer.from(typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body));
    const headers: Record<string, string> = {
      accept: opts.accept ?? "application/json",
      "user-agent": opts.userAgent ?? "driftwatch/0.1 (collector)",
      ...(agentOptions.headers as Record<string, string> | undefined),
    };
    if (payload) {
      headers["content-type"] = opts.contentType ?? "application/json";
      headers["content-length"] = String(payload.length);
    }
    return new Promise<T>((resolve, reject) => {
      const req = (isHttps ? https : http).request(
        url,
        {
          method,
          agent,
          headers,
          ca: agentOptions.ca,
          cert: agentOptions.cert,
          key: agentOptions.key,
          rejectUnauthorized: agentOptions.rejectUnauthorized,
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", (e) => reject(new KubeError(categoryForNetworkError(e), `reading ${path}: ${e.message}`)));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) {
              try {
                resolve(JSON.parse(text) as T);
              } catch {
                reject(new KubeError("protocol", `${path}: the API answered ${status} with a body that is not JSON`, status));
              }
              return;
            }
            reject(new KubeError(categoryForStatus(status), statusMessage(text, `${method} ${path}: HTTP ${status}`), status));
          });
        },
      );
      const timer = setTimeout(() => req.destroy(Object.assign(new Error(`no answer from ${server} within ${timeoutMs} ms`), { code: "ETIMEDOUT" })), timeoutMs);
      req.on("close", () => clearTimeout(timer));
      req.on("timeout", () => req.destroy(Object.assign(new Error(`no answer from ${server} within ${timeoutMs} ms`), { code: "ETIMEDOUT" })));
      req.on("error", (e) => {
        if (e instanceof KubeError) return reject(e);
        const category = categoryForNetworkError(e);
        reject(new KubeError(category, category === "timeout" ? e.message : `cannot reach ${server}: ${e.message}`));
      });
      if (payload) req.write(payload);
      req.end();
    });
  }

  return { kc, server, requestJson };
}
