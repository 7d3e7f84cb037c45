// deploy/: the example overlay renders with the real `kubectl kustomize`,
// passes `kubectl apply --dry-run=client` (against a discovery-only stand-in
// for an API server, as kubectl needs one to map kinds even offline), its
// built-in objects pass a strict server-side dry run on the Kubernetes API
// imitation, the RBAC grants exactly what the collector and the pause
// feature need — checked in the rendering and by applying it to a real
// kube-apiserver (tools/realkube), where the pause account's admission policy
// is exercised with Driftwatch's own pause patches — and the shipped
// driftwatch.yaml files are valid configs.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import { parseConfig } from "@/lib/config";
import { startKubeSim, type KubeSim } from "@driftwatch/kubesim";
import { pausePatch, resumePatch, ANNOTATION_PAUSED_BY } from "@/lib/pauses/controller";
import { startRealKube, type RealKube } from "@/tools/realkube/cluster";
import { requiredKubectl } from "../support/required-tools";
import { renderPauseRbac } from "@/scripts/rbac";

const root = path.resolve(import.meta.dirname, "../..");
const overlay = path.join(root, "deploy", "overlays", "example");

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; [k: string]: unknown };
type Rule = { apiGroups?: string[]; resources?: string[]; resourceNames?: string[]; verbs?: string[] };
type Subject = { kind: string; name: string; namespace?: string };

const kubectl = requiredKubectl();
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
    const child = spawn(kubectl, args, { stdio: ["pipe", "pipe", "pipe"] });
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
    "admissionregistration.k8s.io/v1": [
      { name: "validatingadmissionpolicies", kind: "ValidatingAdmissionPolicy", namespaced: false },
      { name: "validatingadmissionpolicybindings", kind: "ValidatingAdmissionPolicyBinding", namespaced: false },
    ],
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

describe("deploy/ Kubernetes manifests", () => {
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
      // The imitation serves neither RBAC nor admission policies; the real-server block below applies those.
      const builtin = objects.filter((o) => !/^(rbac\.authorization|admissionregistration)\.k8s\.io\//.test(o.apiVersion) && o.kind !== "Namespace");
      const r = await run(["apply", "--dry-run=server", "--validate=strict", "-f", "-"], builtin.map((o) => stringify(o)).join("---\n"));
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/unknown field|Warning/);
      expect(r.stdout).toContain("deployment.apps/driftwatch-web created (server dry run)");
    } finally {
      await sim.stop();
    }
  }, 60_000);

  it("grant the collector no verb beyond get/list/watch, anywhere, on named resources without subresources", () => {
    const collector = rulesOf("ClusterRole", "driftwatch-collector-read");
    expect(collector.length).toBeGreaterThan(0);
    for (const rule of collector) {
      // A wildcard would include pods/log, nodes/proxy and every future subresource.
      for (const group of rule.apiGroups ?? []) expect(group).not.toContain("*");
      for (const resource of rule.resources ?? []) {
        expect(resource).not.toContain("*");
        expect(resource, "a subresource").not.toContain("/");
      }
    }
    const granted = collector.flatMap((r) => (r.apiGroups ?? []).flatMap((g) => (r.resources ?? []).map((res) => `${g}/${res}`)));
    // What the collector reads: the kinds GitOps repositories carry, Secrets (hashed), and the controllers' objects.
    for (const needed of ["/configmaps", "/secrets", "/services", "apps/deployments", "batch/cronjobs", "networking.k8s.io/ingresses", "kustomize.toolkit.fluxcd.io/kustomizations", "helm.toolkit.fluxcd.io/helmreleases", "source.toolkit.fluxcd.io/gitrepositories", "argoproj.io/applications"]) {
      expect(granted).toContain(needed);
    }
    expect(granted).not.toContain("/pods");
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
        // Without resourceNames the account could pause (or, past the admission policy, patch) every controller object.
        expect(rule.resourceNames?.length, `${g.binding} names its objects`).toBeGreaterThan(0);
      }
    }
    expect(grants.flatMap((g) => g.rules.flatMap((r) => r.resourceNames ?? [])).sort()).toEqual(["shop-production", "shop-staging"]);
  });

  it("ship cluster-scoped admission policies that match only the pause account's updates", () => {
    const policies = objects.filter((o) => o.kind === "ValidatingAdmissionPolicy");
    expect(policies.map((p) => p.metadata.name).sort()).toEqual(["driftwatch-pause-argocd", "driftwatch-pause-flux", "driftwatch-pause-flux-helmrelease"]);
    for (const p of objects.filter((o) => o.apiVersion.startsWith("admissionregistration.k8s.io/"))) expect(p.metadata.namespace, p.metadata.name).toBeUndefined();
    for (const p of policies) {
      const spec = p.spec as { failurePolicy: string; matchConditions: Array<{ expression: string }> };
      expect(spec.failurePolicy).toBe("Fail");
      expect(spec.matchConditions.map((c) => c.expression)).toEqual(["request.userInfo.username == 'system:serviceaccount:driftwatch:driftwatch-web'"]);
      const binding = objects.find((o) => o.kind === "ValidatingAdmissionPolicyBinding" && (o.spec as { policyName: string }).policyName === p.metadata.name);
      expect((binding?.spec as { validationActions: string[] } | undefined)?.validationActions).toEqual(["Deny"]);
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
  it("ship the example overlay's pause Roles as `npm run rbac` generates them from its driftwatch.yaml", () => {
    const config = "deploy/overlays/example/driftwatch.yaml";
    const committed = fs.readFileSync(path.join(root, "deploy/overlays/example/pause-rbac.yaml"), "utf8");
    expect(committed).toBe(renderPauseRbac(config));
  });

  it.each([
    ["Kustomization", "kustomize.toolkit.fluxcd.io_kustomizations.yaml", "kustomizations"],
    ["HelmRelease", "helm.toolkit.fluxcd.io_helmreleases.yaml", "helmreleases"],
  ])("guard every spec field of the Flux %s CRD except spec.suspend", (_kind, crdFile, resource) => {
    // CEL cannot iterate over a typed object's fields, so the policy names them; a field it
    // forgets (or misspells: `.?` on an unknown field is simply absent on both sides) could be
    // changed by the pause account. The server's type-checking status that would flag a misspelling
    // is written by kube-controller-manager, which realkube does not run; this check stands in
    // for it. The CRD is the one the real-server test installs.
    const crd = parseAllDocuments(fs.readFileSync(path.join(root, "test/fixtures/flux-crds", crdFile), "utf8"))[0]?.toJSON() as {
      spec: { versions: Array<{ name: string; schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } } }> };
    };
    // The policy that matches this resource, not one of the others in the file.
    const policy = fs
      .readFileSync(path.join(root, "deploy/base/pause-policy.yaml"), "utf8")
      .split(/^---$/m)
      .find((doc) => doc.includes("kind: ValidatingAdmissionPolicy\n") && doc.includes(`resources: ["${resource}"]`));
    expect(policy, resource).toBeDefined();
    for (const version of crd.spec.versions) {
      for (const field of Object.keys(version.schema.openAPIV3Schema.properties.spec.properties)) {
        if (field === "suspend") continue;
        expect(policy, `${version.name} spec.${field}`).toContain(`object.spec.?${field} == oldObject.spec.?${field}`);
      }
    }
    expect(policy).not.toContain("object.spec.?suspend");
  });

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

describe("deploy/ on a real kube-apiserver (tools/realkube) with the real Flux CRDs", () => {
  const pauseAccount = "system:serviceaccount:driftwatch:driftwatch-web";
  const collectorAccount = "system:serviceaccount:driftwatch:driftwatch-collector";
  let kube: RealKube | undefined;

  const run = (args: string[], input?: string) => kubectlAsync(["--kubeconfig", (kube as RealKube).kubeconfigPath, ...args], input);
  const asPause = (args: string[], input?: string) => run([`--as=${pauseAccount}`, ...args], input);
  const asCollector = (args: string[]) => run([`--as=${collectorAccount}`, ...args]);
  const kustomization = (name: string) => `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ${name}
  namespace: flux-system
  annotations: {team: shop}
spec:
  interval: 5m
  path: ./clusters/staging
  prune: true
  sourceRef: {kind: GitRepository, name: platform}
`;
  const fluxSpec = async (name: string) => JSON.parse((await run(["-n", "flux-system", "get", "kustomization", name, "-o", "json"])).stdout) as { metadata: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec: { path: string; suspend?: boolean } };
  const meta = { pauseId: "p1", by: "alice@example.com", reason: "hotfix in progress", until: new Date("2030-01-01T00:00:00Z") };

  beforeAll(async () => {
    if (!kubectl) throw new Error("kubectl with Kustomize v5 is needed on PATH (or KUBECTL) for the real-server RBAC test");
    kube = await startRealKube();
    const crds = await run(["apply", "--server-side", "-f", path.join(root, "test/fixtures/flux-crds")]);
    if (crds.status !== 0) throw new Error(crds.stderr);
    await run(["wait", "--for=condition=Established", "--timeout=30s", "crd/kustomizations.kustomize.toolkit.fluxcd.io", "crd/gitrepositories.source.toolkit.fluxcd.io"]);
    // The controllers' namespaces exist before Driftwatch is installed, as on a real cluster.
    await run(["create", "namespace", "flux-system"]);
    await run(["create", "namespace", "argocd"]);
    const applied = await run(["apply", "-f", "-"], rendered);
    if (applied.status !== 0) throw new Error(`applying the rendered overlay: ${applied.stderr}`);
    const objectsApplied = await run(["apply", "-f", "-"], `${kustomization("shop-staging")}---\n${kustomization("other-team")}`);
    if (objectsApplied.status !== 0) throw new Error(objectsApplied.stderr);
    // Admission policies take effect once the server has compiled them: wait until a
    // forbidden change (a server-side dry run, which admission checks too) is refused.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const probe = await asPause(["-n", "flux-system", "patch", "kustomization", "shop-staging", "--type=merge", "--dry-run=server", "-p", '{"spec":{"path":"./elsewhere"}}']);
      if (probe.status !== 0 && /ValidatingAdmissionPolicy/.test(probe.stderr)) break;
      if (Date.now() > deadline) throw new Error(`the pause policy never took effect: ${probe.stdout}${probe.stderr}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }, 120_000);
  afterAll(async () => {
    await kube?.stop();
  });

  it("lets the pause account suspend and resume a configured Kustomization with Driftwatch's own patches", async () => {
    const paused = await asPause(["-n", "flux-system", "patch", "kustomization", "shop-staging", "--type=merge", "-p", JSON.stringify(pausePatch("flux", meta))]);
    expect(paused.status, paused.stderr).toBe(0);
    let k = await fluxSpec("shop-staging");
    expect(k.spec.suspend).toBe(true);
    expect(k.metadata.annotations?.[ANNOTATION_PAUSED_BY]).toBe("alice@example.com");

    const resumed = await asPause(["-n", "flux-system", "patch", "kustomization", "shop-staging", "--type=merge", "-p", JSON.stringify(resumePatch("flux", { suspend: false }))]);
    expect(resumed.status, resumed.stderr).toBe(0);
    k = await fluxSpec("shop-staging");
    expect(k.spec.suspend).toBe(false);
    expect(k.metadata.annotations?.[ANNOTATION_PAUSED_BY]).toBeUndefined();
    expect(k.metadata.annotations?.team).toBe("shop");
  });

  it("refuses the pause account any other change to a configured Kustomization", async () => {
    for (const [what, patch] of [
      ["spec.path", { spec: { path: "./clusters/attacker" } }],
      ["spec.path with a suspend", { spec: { suspend: true, path: "./clusters/attacker" } }],
      ["spec.sourceRef", { spec: { sourceRef: { kind: "GitRepository", name: "attacker" } } }],
      ["spec.postBuild", { spec: { postBuild: { substitute: { image: "attacker" } } } }],
      ["a label", { metadata: { labels: { owner: "attacker" } } }],
      ["someone else's annotation", { metadata: { annotations: { team: "attacker" } } }],
    ] as const) {
      const r = await asPause(["-n", "flux-system", "patch", "kustomization", "shop-staging", "--type=merge", "-p", JSON.stringify(patch)]);
      expect(r.status, what).not.toBe(0);
      expect(r.stderr, what).toMatch(/denied request: .*Driftwatch's pause account may change only/);
    }
    const k = await fluxSpec("shop-staging");
    expect(k.spec.path).toBe("./clusters/staging");
    expect(k.spec.suspend).not.toBe(true);
    expect(k.metadata.labels?.owner).toBeUndefined();
  });

  it("gives the pause account nothing on a Kustomization driftwatch.yaml does not name", async () => {
    const patch = await asPause(["-n", "flux-system", "patch", "kustomization", "other-team", "--type=merge", "-p", JSON.stringify(pausePatch("flux", meta))]);
    expect(patch.status).not.toBe(0);
    // kubectl reads the object before patching it; the read is already refused.
    expect(patch.stderr).toMatch(/"other-team" is forbidden: User "system:serviceaccount:driftwatch:driftwatch-web" cannot get resource "kustomizations"/);
    const canI = async (what: string) => (await asPause(["-n", "flux-system", "auth", "can-i", "patch", what])).stdout.trim();
    expect(await canI("kustomizations/other-team")).toBe("no");
    expect(await canI("kustomizations/shop-staging")).toBe("yes");
    expect((await asPause(["-n", "flux-system", "get", "kustomization", "other-team"])).status).not.toBe(0);
    expect((await asPause(["-n", "flux-system", "get", "kustomizations"])).stderr).toMatch(/cannot list resource "kustomizations"/);
    expect((await fluxSpec("other-team")).spec.suspend).toBeUndefined();
  });

  it("lets the collector account list what it reads, and not pods, their logs or node proxies", async () => {
    for (const resource of ["namespaces", "configmaps", "secrets", "services", "deployments.apps", "cronjobs.batch", "ingresses.networking.k8s.io", "roles.rbac.authorization.k8s.io", "customresourcedefinitions.apiextensions.k8s.io", "kustomizations.kustomize.toolkit.fluxcd.io", "helmreleases.helm.toolkit.fluxcd.io", "gitrepositories.source.toolkit.fluxcd.io"]) {
      const r = await asCollector(["get", resource, "--all-namespaces", "-o", "name"]);
      expect(r.status, `${resource}: ${r.stderr}`).toBe(0);
    }
    expect((await asCollector(["get", "pods", "--all-namespaces"])).stderr).toMatch(/cannot list resource "pods"/);
    // Authorization comes before lookup: the answer is 403 whether or not the pod or node exists.
    const log = await asCollector(["get", "--raw", "/api/v1/namespaces/driftwatch/pods/anything/log"]);
    expect(log.stderr).toMatch(/Forbidden|forbidden/);
    const proxy = await asCollector(["get", "--raw", "/api/v1/nodes/anything/proxy/metrics"]);
    expect(proxy.stderr).toMatch(/Forbidden|forbidden/);
    const write = await asCollector(["-n", "flux-system", "patch", "kustomization", "shop-staging", "--type=merge", "-p", '{"spec":{"suspend":true}}']);
    expect(write.stderr).toMatch(/cannot patch resource "kustomizations"/);
  });
});
