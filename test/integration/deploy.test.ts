// deploy/: the example overlay renders with the real `kubectl kustomize`,
// passes `kubectl apply --dry-run=client` (against a discovery-only stand-in
// for an API server, as kubectl needs one to map kinds even offline), its
// built-in objects pass a strict server-side dry run on the Kubernetes API
// imitation, the RBAC grants exactly what the collector and the pause
// feature need, and the shipped driftwatch.yaml files are valid configs.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import { parseConfig } from "@/lib/config";
import { startKubeSim, type KubeSim } from "@/lib/kubesim";

const root = path.resolve(import.meta.dirname, "../..");
const overlay = path.join(root, "deploy", "overlays", "example");

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; [k: string]: unknown };
type Rule = { apiGroups?: string[]; resources?: string[]; verbs?: string[] };
type Subject = { kind: string; name: string; namespace?: string };

function findKubectl(): string | null {
  for (const candidate of [process.env.KUBECTL, "kubectl"].filter((c): c is string => Boolean(c))) {
    const r = spawnSync(candidate, ["version", "--client"], { encoding: "utf8" });
    if (r.status === 0 && /Kustomize Version: v[5-9]/.test(r.stdout)) return candidate;
  }
  return null;
}

const kubectl = findKubectl();
if (!kubectl) console.log("[deploy] skipped: no kubectl with Kustomize v5 on PATH (set KUBECTL to one)");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-deploy-"));
let rendered = "";
let objects: Obj[] = [];

beforeAll(() => {
  if (!kubectl) return;
  rendered = execFileSync(kubectl, ["kustomize", overlay], { encoding: "utf8" });
  objects = parseAllDocuments(rendered).map((d) => d.toJSON() as Obj).filter(Boolean);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/**
 * kubectl as a child that does not block this process: the servers it talks
 * to (the stub, the imitation) run in this process's event loop.
 */
function kubectlAsync(args: string[], input?: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(kubectl as string, args, { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("error", reject);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    child.stdin.end(input ?? "");
  });
}

/** Just enough of an API server for kubectl's RESTMapper: discovery, and 404 for every object. */
async function discoveryStub(): Promise<{ url: string; close(): Promise<void> }> {
  const core = [
    { name: "namespaces", kind: "Namespace", namespaced: false },
    { name: "serviceaccounts", kind: "ServiceAccount", namespaced: true },
    { name: "configmaps", kind: "ConfigMap", namespaced: true },
    { name: "services", kind: "Service", namespaced: true },
    { name: "secrets", kind: "Secret", namespaced: true },
  ];
  const groups: Record<string, Array<{ name: string; kind: string; namespaced: boolean }>> = {
    "apps/v1": [{ name: "deployments", kind: "Deployment", namespaced: true }],
    "rbac.authorization.k8s.io/v1": [
      { name: "roles", kind: "Role", namespaced: true },
      { name: "rolebindings", kind: "RoleBinding", namespaced: true },
      { name: "clusterroles", kind: "ClusterRole", namespaced: false },
      { name: "clusterrolebindings", kind: "ClusterRoleBinding", namespaced: false },
    ],
    "policy/v1": [{ name: "poddisruptionbudgets", kind: "PodDisruptionBudget", namespaced: true }],
    "networking.k8s.io/v1": [{ name: "networkpolicies", kind: "NetworkPolicy", namespaced: true }],
  };
  const verbs = ["create", "delete", "get", "list", "patch", "update", "watch"];
  const list = (gv: string, rs: typeof core) => ({ kind: "APIResourceList", apiVersion: "v1", groupVersion: gv, resources: rs.map((r) => ({ ...r, singularName: "", verbs })) });
  const server = http.createServer((req, res) => {
    const p = (req.url ?? "/").split("?")[0] ?? "/";
    const json = (code: number, body: unknown) => {
      res.writeHead(code, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (p === "/api") return json(200, { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [] });
    if (p === "/api/v1") return json(200, list("v1", core));
    if (p === "/apis") {
      return json(200, {
        kind: "APIGroupList",
        apiVersion: "v1",
        groups: Object.keys(groups).map((gv) => {
          const [group, version] = gv.split("/");
          return { name: group, versions: [{ groupVersion: gv, version }], preferredVersion: { groupVersion: gv, version } };
        }),
      });
    }
    const gv = /^\/apis\/([^/]+\/[^/]+)$/.exec(p)?.[1];
    const resources = gv ? groups[gv] : undefined;
    if (gv && resources) return json(200, list(gv, resources));
    return json(404, { kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404, message: `${p} not found` });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function rulesOf(kind: string, name: string, namespace?: string): Rule[] {
  const role = objects.find((o) => o.kind === kind && o.metadata.name === name && (namespace === undefined || o.metadata.namespace === namespace));
  if (!role) throw new Error(`no ${kind} ${name}`);
  return (role.rules as Rule[] | undefined) ?? [];
}

/** Every rule any binding grants to a service account. */
function grantsOf(sa: { name: string; namespace: string }): Array<{ binding: string; scope: string; rules: Rule[] }> {
  return objects
    .filter((o) => o.kind === "RoleBinding" || o.kind === "ClusterRoleBinding")
    .filter((b) => ((b.subjects as Subject[] | undefined) ?? []).some((s) => s.kind === "ServiceAccount" && s.name === sa.name && s.namespace === sa.namespace))
    .map((b) => {
      const ref = b.roleRef as { kind: string; name: string };
      return {
        binding: `${b.kind} ${b.metadata.namespace ?? ""}/${b.metadata.name}`,
        scope: b.kind === "ClusterRoleBinding" ? "cluster" : (b.metadata.namespace ?? "?"),
        rules: rulesOf(ref.kind, ref.name, ref.kind === "Role" ? b.metadata.namespace : undefined),
      };
    });
}

function deployment(name: string): { spec: { replicas?: number; template: { spec: Record<string, unknown> & { containers: Array<Record<string, unknown>> } } } } {
  const d = objects.find((o) => o.kind === "Deployment" && o.metadata.name === name);
  if (!d) throw new Error(`no Deployment ${name}`);
  return d as never;
}

describe.skipIf(!kubectl)("deploy/ Kubernetes manifests", () => {
  it("render with kubectl kustomize into the expected objects, in the expected namespaces", () => {
    const names = objects.map((o) => `${o.kind} ${o.metadata.namespace ?? "-"}/${o.metadata.name}`);
    for (const expected of [
      "Namespace -/driftwatch",
      "Deployment driftwatch/driftwatch-web",
      "Deployment driftwatch/driftwatch-collector",
      "Service driftwatch/driftwatch-web",
      "ServiceAccount driftwatch/driftwatch-collector",
      "ServiceAccount driftwatch/driftwatch-web",
      "ClusterRole -/driftwatch-collector-read",
      "ClusterRoleBinding -/driftwatch-collector-read",
      "Role flux-system/driftwatch-pause",
      "Role argocd/driftwatch-pause",
    ]) {
      expect(names).toContain(expected);
    }
    expect(names.some((n) => /^ConfigMap driftwatch\/driftwatch-config-/.test(n))).toBe(true);
  });

  it("pass kubectl apply --dry-run=client", { timeout: 60_000 }, async () => {
    const stub = await discoveryStub();
    try {
      const kubeconfig = path.join(tmp, "stub-kubeconfig");
      fs.writeFileSync(kubeconfig, stringify({ apiVersion: "v1", kind: "Config", clusters: [{ name: "stub", cluster: { server: stub.url } }], users: [{ name: "u", user: {} }], contexts: [{ name: "stub", context: { cluster: "stub", user: "u" } }], "current-context": "stub" }));
      const r = await kubectlAsync(["--kubeconfig", kubeconfig, "apply", "--dry-run=client", "--validate=false", "-f", "-"], rendered);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout.trim().split("\n")).toHaveLength(objects.length);
      expect(r.stdout).toContain("deployment.apps/driftwatch-collector created (dry run)");
      expect(r.stdout).toContain("clusterrole.rbac.authorization.k8s.io/driftwatch-collector-read created (dry run)");
    } finally {
      await stub.close();
    }
  });

  it("pass a strict server-side dry run on the API imitation (built-in kinds: field names and types checked)", async () => {
    const sim: KubeSim = await startKubeSim({ kubeconfigPath: path.join(tmp, "sim-kubeconfig"), clusterName: "t", adminPort: false });
    try {
      const run = (args: string[], input?: string) => kubectlAsync(["--kubeconfig", sim.kubeconfigPath, "--context", "t", ...args], input);
      // A server dry run of namespaced objects needs their namespace to exist, as on a real cluster.
      expect((await run(["create", "namespace", "driftwatch"])).status).toBe(0);
      const builtin = objects.filter((o) => !o.apiVersion.startsWith("rbac.authorization.k8s.io/") && o.kind !== "Namespace");
      const r = await run(["apply", "--dry-run=server", "--validate=strict", "-f", "-"], builtin.map((o) => stringify(o)).join("---\n"));
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/unknown field|Warning/);
      expect(r.stdout).toContain("deployment.apps/driftwatch-web created (server dry run)");
    } finally {
      await sim.stop();
    }
  }, 60_000);

  it("grant the collector no verb beyond get/list/watch, anywhere", () => {
    const collector = rulesOf("ClusterRole", "driftwatch-collector-read");
    expect(collector.length).toBeGreaterThan(0);
    const grants = grantsOf({ name: "driftwatch-collector", namespace: "driftwatch" });
    expect(grants.map((g) => g.binding)).toEqual(["ClusterRoleBinding /driftwatch-collector-read"]);
    for (const g of grants) {
      for (const rule of g.rules) {
        for (const verb of rule.verbs ?? []) expect(["get", "list", "watch"], `${g.binding} grants ${verb}`).toContain(verb);
      }
    }
  });

  it("give the web tier only get/patch on Flux Kustomizations and Argo CD Applications, in their namespaces", () => {
    const grants = grantsOf({ name: "driftwatch-web", namespace: "driftwatch" });
    expect(grants.map((g) => g.scope).sort()).toEqual(["argocd", "flux-system"]);
    const allowed = new Set(["kustomize.toolkit.fluxcd.io/kustomizations", "argoproj.io/applications"]);
    for (const g of grants) {
      for (const rule of g.rules) {
        for (const group of rule.apiGroups ?? []) for (const resource of rule.resources ?? []) expect(allowed, `${g.binding}: ${group}/${resource}`).toContain(`${group}/${resource}`);
        for (const verb of rule.verbs ?? []) expect(["get", "patch"]).toContain(verb);
      }
    }
  });

  it("run the web tier without a collector and the workers as N replicas, non-root, with /api/health/ready and /live probes and the database URL from a Secret", () => {
    const web = deployment("driftwatch-web").spec.template.spec;
    const collector = deployment("driftwatch-collector");
    const [webC] = web.containers as Array<{ args: string[]; env: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>; readinessProbe: { httpGet: { path: string } }; startupProbe: { httpGet: { path: string } }; livenessProbe: { httpGet: { path: string } }; securityContext: Record<string, unknown> }>;
    const [colC] = collector.spec.template.spec.containers as Array<{ args: string[]; env: Array<{ name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>; securityContext: Record<string, unknown> }>;
    if (!webC || !colC) throw new Error("no containers");
    expect(webC.args).toEqual(["npm", "start"]);
    expect(colC.args).toEqual(["npm", "run", "collector"]);
    expect(webC.env.find((e) => e.name === "DRIFTWATCH_IN_PROCESS_COLLECTOR")?.value).toBe("false");
    // A pod's memory limit is sized for one web process; "auto" would start one per CPU of the node.
    expect(webC.env.find((e) => e.name === "DRIFTWATCH_WEB_PROCESSES")?.value).toBe("1");
    expect(collector.spec.replicas).toBe(3);
    expect(webC.readinessProbe.httpGet.path).toBe("/api/health/ready");
    expect(webC.startupProbe.httpGet.path).toBe("/api/health/ready");
    expect(webC.livenessProbe.httpGet.path).toBe("/api/health/live");
    for (const c of [webC, colC]) {
      expect(c.env.find((e) => e.name === "DATABASE_URL")?.valueFrom?.secretKeyRef).toEqual({ name: "driftwatch", key: "database-url" });
      expect(c.env.find((e) => e.name === "DRIFTWATCH_SECRET")?.valueFrom?.secretKeyRef).toEqual({ name: "driftwatch", key: "secret-key" });
      expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
    }
    for (const spec of [web, collector.spec.template.spec]) expect(spec.securityContext).toMatchObject({ runAsNonRoot: true });
  });
});

describe("deploy/ files", () => {
  it("ship valid driftwatch.yaml examples", () => {
    for (const file of ["deploy/base/driftwatch.yaml", "deploy/overlays/example/driftwatch.yaml"]) {
      const config = parseConfig(fs.readFileSync(path.join(root, file), "utf8"), file);
      expect(config.environments.length, file).toBeGreaterThan(0);
      for (const e of config.environments) expect(e.cluster, `${file} ${e.name}`).toEqual({ inCluster: true });
    }
  });

  it("build a multi-stage, non-root image that runs npm start", () => {
    const dockerfile = fs.readFileSync(path.join(root, "deploy", "Dockerfile"), "utf8");
    const stages = [...dockerfile.matchAll(/^FROM\s+\S+(?:\s+AS\s+(\S+))?/gim)].map((m) => m[1]);
    expect(stages.length).toBeGreaterThanOrEqual(3);
    expect(dockerfile).toMatch(/^RUN npm ci\b/m);
    expect(dockerfile).toMatch(/npm run build/);
    const users = [...dockerfile.matchAll(/^USER\s+(\S+)/gm)].map((m) => m[1]);
    expect(users.at(-1)).toBeDefined();
    expect(["root", "0"]).not.toContain(users.at(-1));
    expect(dockerfile).toMatch(/^CMD \["npm", "start"\]/m);
  });
});
