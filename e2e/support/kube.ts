// Manual changes to the demo's clusters, made the way a person makes them:
// with the real kubectl when it is installed, otherwise with the same request
// kubectl would send (its User-Agent, its field manager) through
// @kubernetes/client-node. Either way the cluster records the same manager.
import { execFile } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import path from "node:path";
import { promisify } from "node:util";
import { KubeConfig } from "@kubernetes/client-node";

const run = promisify(execFile);
const KUBECTL = process.env.KUBECTL ?? "/usr/bin/kubectl";
const KUBECTL_UA = "kubectl/v1.32.4 (linux/amd64) kubernetes/59526cd";

export type DemoEnv = "test" | "staging" | "production";

export interface ChangeResult {
  /** "kubectl" or "client-node (kubectl not found)": printed so a reader knows which path ran. */
  via: string;
  output: string;
}

export class Kube {
  constructor(private readonly dataDir: string) {}

  kubeconfig(env: DemoEnv): string {
    return path.join(this.dataDir, "kube", `${env}.kubeconfig`);
  }

  hasKubectl(): boolean {
    return fs.existsSync(KUBECTL);
  }

  /** `kubectl -n NS label deployment NAME KEY=VALUE --overwrite` with the environment's read-write context. */
  async labelDeployment(env: DemoEnv, namespace: string, name: string, key: string, value: string): Promise<ChangeResult> {
    if (this.hasKubectl()) {
      const { stdout, stderr } = await run(
        KUBECTL,
        ["--kubeconfig", this.kubeconfig(env), "--context", env, "-n", namespace, "label", "deployment", name, `${key}=${value}`, "--overwrite"],
        { timeout: 30_000 },
      );
      return { via: "kubectl", output: (stdout + stderr).trim() };
    }
    // kubectl label sends a JSON merge patch with fieldManager=kubectl-label.
    const status = await this.request(env, "PATCH", `/apis/apps/v1/namespaces/${namespace}/deployments/${name}?fieldManager=kubectl-label`, "application/merge-patch+json", {
      metadata: { labels: { [key]: value } },
    });
    return { via: `client-node (no kubectl at ${KUBECTL}), HTTP ${status}`, output: `deployment.apps/${name} labeled` };
  }

  /** `kubectl -n NS label deployment NAME KEY-`: removes the label (a no-op when it is absent). */
  async unlabelDeployment(env: DemoEnv, namespace: string, name: string, key: string): Promise<ChangeResult> {
    if (this.hasKubectl()) {
      const { stdout, stderr } = await run(KUBECTL, ["--kubeconfig", this.kubeconfig(env), "--context", env, "-n", namespace, "label", "deployment", name, `${key}-`], { timeout: 30_000 });
      return { via: "kubectl", output: (stdout + stderr).trim() };
    }
    const status = await this.request(env, "PATCH", `/apis/apps/v1/namespaces/${namespace}/deployments/${name}?fieldManager=kubectl-label`, "application/merge-patch+json", {
      metadata: { labels: { [key]: null } },
    });
    return { via: `client-node (no kubectl at ${KUBECTL}), HTTP ${status}`, output: `deployment.apps/${name} unlabeled` };
  }

  /**
   * `kubectl -n NS annotate deployment NAME KEY=VALUE --overwrite`, or `KEY-` to
   * remove it when value is null (kubectl sends a merge patch, manager kubectl-annotate).
   */
  async annotateDeployment(env: DemoEnv, namespace: string, name: string, key: string, value: string | null): Promise<ChangeResult> {
    if (this.hasKubectl()) {
      const arg = value === null ? `${key}-` : `${key}=${value}`;
      const { stdout, stderr } = await run(
        KUBECTL,
        ["--kubeconfig", this.kubeconfig(env), "--context", env, "-n", namespace, "annotate", "deployment", name, arg, ...(value === null ? [] : ["--overwrite"])],
        { timeout: 30_000 },
      );
      return { via: "kubectl", output: (stdout + stderr).trim() };
    }
    const status = await this.request(env, "PATCH", `/apis/apps/v1/namespaces/${namespace}/deployments/${name}?fieldManager=kubectl-annotate`, "application/merge-patch+json", {
      metadata: { annotations: { [key]: value } },
    });
    return { via: `client-node (no kubectl at ${KUBECTL}), HTTP ${status}`, output: `deployment.apps/${name} annotated` };
  }

  /** Reads a deployment's labels with the read-only context. */
  async deploymentLabels(env: DemoEnv, namespace: string, name: string): Promise<Record<string, string>> {
    if (this.hasKubectl()) {
      const { stdout } = await run(KUBECTL, ["--kubeconfig", this.kubeconfig(env), "--context", `${env}-readonly`, "-n", namespace, "get", "deployment", name, "-o", "json"], { timeout: 30_000 });
      const body = JSON.parse(stdout) as { metadata?: { labels?: Record<string, string> } };
      return body.metadata?.labels ?? {};
    }
    let out: Record<string, string> = {};
    await this.request(env, "GET", `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`, null, null, (body) => {
      const parsed = JSON.parse(body) as { metadata?: { labels?: Record<string, string> } };
      out = parsed.metadata?.labels ?? {};
    });
    return out;
  }

  private async request(env: DemoEnv, method: string, pathAndQuery: string, contentType: string | null, body: unknown, onBody?: (text: string) => void): Promise<number> {
    const kc = new KubeConfig();
    kc.loadFromFile(this.kubeconfig(env));
    kc.setCurrentContext(env);
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error(`no cluster in ${this.kubeconfig(env)}`);
    const url = new URL(pathAndQuery, cluster.server);
    const opts: https.RequestOptions = { method, hostname: url.hostname, port: url.port, path: url.pathname + url.search, headers: {} };
    await kc.applyToHTTPSOptions(opts);
    opts.headers = { ...opts.headers, "user-agent": KUBECTL_UA, accept: "application/json", ...(contentType ? { "content-type": contentType } : {}) };
    return await new Promise<number>((resolve, reject) => {
      const req = https.request(opts, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        res.on("end", () => {
          const code = res.statusCode ?? 0;
          if (code >= 400) reject(new Error(`${method} ${pathAndQuery}: HTTP ${code} ${text.slice(0, 300)}`));
          else {
            onBody?.(text);
            resolve(code);
          }
        });
      });
      req.on("error", reject);
      if (body !== null) req.write(JSON.stringify(body));
      req.end();
    });
  }
}
