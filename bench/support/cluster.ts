// A kubesim child process for benchmarks: seeding through its admin endpoint
// (fast bulk apply), edits through the real API as kubectl would send them.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { createClusterClient, type ClusterClient } from "../../lib/kube/client";
import { discover, resourcePath, type Discovery } from "../../lib/kube/discovery";
import type { KubeListPage } from "../../lib/kube/list";
import type { KubeSimOptions } from "@driftwatch/kubesim";

export const KUBECTL_UA = "kubectl/v1.32.4 (linux/amd64) kubernetes/59526cd";

export interface BenchCluster {
  url: string;
  adminUrl: string;
  kubeconfigPath: string;
  /** Admin credentials (context `<clusterName>`); the collector uses `<clusterName>-readonly`. */
  client: ClusterClient;
  discovery: Discovery;
  pid: number;
  seed(objects: Array<Record<string, unknown>>, manager: string): Promise<void>;
  /** A merge patch as `kubectl patch`/`edit` sends it; returns the size of the object the server answered with (JSON bytes). */
  patch(obj: { apiVersion: string; kind: string; namespace?: string; name: string }, body: unknown, fieldManager: string, sub?: string): Promise<number>;
  closeWatches(mode?: "end" | "reset"): Promise<void>;
  /** Resident and peak resident memory of the server process, bytes. */
  memory(): { rss: number; peak: number };
  stop(): Promise<void>;
}

/** A merge patch as `kubectl patch`/`edit` sends it, on any API server; the size of the object it answered with (JSON bytes). */
export async function patchAs(
  client: ClusterClient,
  discovery: Discovery,
  obj: { apiVersion: string; kind: string; namespace?: string; name: string },
  body: unknown,
  fieldManager: string,
  sub?: string,
): Promise<number> {
  const r = discovery.lookup(obj.apiVersion, obj.kind);
  if (!r) throw new Error(`no ${obj.kind}`);
  const updated = await client.requestJson<unknown>("PATCH", resourcePath(r, obj.namespace, obj.name) + (sub ? `/${sub}` : ""), {
    body,
    contentType: "application/merge-patch+json",
    userAgent: KUBECTL_UA,
    query: { fieldManager },
  });
  return Buffer.byteLength(JSON.stringify(updated));
}

const ROOT = path.resolve(import.meta.dirname, "..", "..");

export async function startBenchCluster(dir: string, opts: KubeSimOptions & { clusterName?: string } = {}): Promise<BenchCluster> {
  const kubeconfigPath = path.join(dir, "kubeconfig");
  const clusterName = opts.clusterName ?? "bench";
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "bench/support/kubesim-child.ts"), JSON.stringify({ ...opts, kubeconfigPath, clusterName })], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, LOG_LEVEL: "warn" },
  });
  const first = await new Promise<string>((resolve, reject) => {
    const rl = readline.createInterface({ input: child.stdout! });
    rl.once("line", (line) => {
      rl.close();
      resolve(line);
    });
    child.once("exit", (code) => reject(new Error(`kubesim child exited with ${code} before it was ready`)));
  });
  const info = JSON.parse(first) as { url: string; adminUrl: string };
  const client = createClusterClient({ kubeconfig: kubeconfigPath, context: clusterName }, { timeoutMs: 120_000 });
  const discovery = await discover(client);

  async function admin(p: string, body?: string): Promise<void> {
    const res = await fetch(`${info.adminUrl}${p}`, { method: "POST", body, headers: body ? { "content-type": "application/json" } : {} });
    if (!res.ok) throw new Error(`kubesim admin ${p}: ${res.status} ${await res.text()}`);
  }

  return {
    url: info.url,
    adminUrl: info.adminUrl,
    kubeconfigPath,
    client,
    discovery,
    pid: child.pid ?? 0,
    async seed(objects, manager) {
      for (let i = 0; i < objects.length; i += 2_000) {
        await admin(`/seed?manager=${encodeURIComponent(manager)}`, JSON.stringify(objects.slice(i, i + 2_000)));
      }
    },
    patch: (obj, body, fieldManager, sub) => patchAs(client, discovery, obj, body, fieldManager, sub),
    closeWatches: (mode = "end") => admin(`/faults/close-watches?mode=${mode}`),
    memory() {
      try {
        const status = fs.readFileSync(`/proc/${child.pid}/status`, "utf8");
        const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0) * 1024;
        return { rss: kb("VmRSS"), peak: kb("VmHWM") };
      } catch {
        return { rss: 0, peak: 0 };
      }
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export const BENCH_KINDS: Array<[string, string]> = [
  ["v1", "ConfigMap"],
  ["apps/v1", "Deployment"],
  ["v1", "Service"],
  ["v1", "Secret"],
  ["v1", "ServiceAccount"],
];

/**
 * What any client pays at least for the bench objects: every page (500) of
 * every kind in every namespace, parsed; the number of objects listed.
 */
export async function bareListOf(client: ClusterClient, discovery: Discovery, namespaces: string[]): Promise<number> {
  let count = 0;
  for (const [apiVersion, kind] of BENCH_KINDS) {
    const r = discovery.lookup(apiVersion, kind);
    if (!r) throw new Error(`no ${kind}`);
    for (const ns of namespaces) {
      let cont: string | undefined;
      do {
        const page = await client.requestJson<KubeListPage>("GET", resourcePath(r, ns), { query: { limit: 500, continue: cont } });
        count += page.items.length;
        cont = page.metadata?.continue || undefined;
      } while (cont);
    }
  }
  return count;
}
