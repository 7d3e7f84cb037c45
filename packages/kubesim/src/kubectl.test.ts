// The real kubectl against the imitation: each command must work, and leave
// the managedFields entries (manager, operation, subresource) a real API server records.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKubeSim, type KubeSim } from "./index";
import { eventually, raw } from "./test-helpers";
import { requiredKubectl } from "@/test/support/required-tools";

const run = promisify(execFile);

const kubectlPath = requiredKubectl();

let sim: KubeSim;
let dir: string;

async function kubectl(args: string[], env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run(kubectlPath, ["--cache-dir", path.join(dir, "cache"), ...args], {
    env: { ...process.env, KUBECONFIG: sim.kubeconfigPath, HOME: dir, ...env },
    timeout: 20_000,
  });
  return stdout;
}

type Entry = { manager: string; operation: string; subresource?: string; apiVersion: string; time?: string; fieldsV1: Record<string, unknown> };

async function managed(kind: string, name: string): Promise<Entry[]> {
  const out = JSON.parse(await kubectl(["get", kind, name, "-o", "json", "--show-managed-fields"])) as { metadata: { managedFields: Entry[] } };
  return out.metadata.managedFields;
}

function entry(list: Entry[], manager: string): Entry | undefined {
  return list.find((e) => e.manager === manager);
}

const deploymentYaml = (replicas: number, image = "nginx:1.25") => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: ${image}
        ports: [{containerPort: 80}]
`;

describe("real kubectl", () => {
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "kubesim-kubectl-"));
    sim = await startKubeSim({ adminPort: false });
  });

  afterAll(async () => {
    await sim?.stop();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it("apply (client-side) records the last-applied annotation under kubectl-client-side-apply", async () => {
    const file = path.join(dir, "web.yaml");
    await fs.writeFile(file, deploymentYaml(2));
    expect(await kubectl(["apply", "-f", file])).toContain("deployment.apps/web created");
    const obj = JSON.parse(await kubectl(["get", "deployment", "web", "-o", "json"])) as { metadata: { annotations: Record<string, string> } };
    const last = JSON.parse(obj.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"] ?? "{}") as { spec: { replicas: number } };
    expect(last.spec.replicas).toBe(2);
    const e = entry(await managed("deployment", "web"), "kubectl-client-side-apply");
    expect(e).toMatchObject({ operation: "Update", apiVersion: "apps/v1" });
    expect(e?.subresource).toBeUndefined();

    // A second apply sends a strategic merge patch under the same manager.
    await fs.writeFile(file, deploymentYaml(2, "nginx:1.26"));
    expect(await kubectl(["apply", "-f", file])).toContain("deployment.apps/web configured");
    expect(JSON.parse(await kubectl(["get", "deployment", "web", "-o", "json"])).spec.template.spec.containers[0].image).toBe("nginx:1.26");
  });

  it("scale records manager kubectl on the scale subresource", async () => {
    expect(await kubectl(["scale", "deployment", "web", "--replicas=3"])).toContain("scaled");
    const e = entry(await managed("deployment", "web"), "kubectl");
    expect(e).toMatchObject({ operation: "Update", subresource: "scale", apiVersion: "apps/v1", fieldsV1: { "f:spec": { "f:replicas": {} } } });
    // The applier no longer owns replicas.
    expect(JSON.stringify(entry(await managed("deployment", "web"), "kubectl-client-side-apply")?.fieldsV1)).not.toContain("f:replicas");
  });

  it("label, annotate and patch (json, merge, strategic) record their own managers", async () => {
    await kubectl(["label", "deployment", "web", "tier=frontend"]);
    await kubectl(["annotate", "deployment", "web", "owner=team-a"]);
    await kubectl(["patch", "deployment", "web", "--type=json", "-p", '[{"op":"replace","path":"/spec/revisionHistoryLimit","value":5}]']);
    await kubectl(["patch", "deployment", "web", "--type=merge", "-p", '{"spec":{"minReadySeconds":3}}']);
    await kubectl(["patch", "deployment", "web", "--type=strategic", "-p", '{"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"MODE","value":"x"}]}]}}}}']);
    const list = await managed("deployment", "web");
    expect(entry(list, "kubectl-label")?.fieldsV1).toEqual({ "f:metadata": { "f:labels": { "f:tier": {} } } });
    expect(entry(list, "kubectl-annotate")?.fieldsV1).toEqual({ "f:metadata": { "f:annotations": { "f:owner": {} } } });
    const patch = entry(list, "kubectl-patch");
    expect(patch).toMatchObject({ operation: "Update" });
    expect(patch?.fieldsV1).toMatchObject({ "f:spec": { "f:revisionHistoryLimit": {}, "f:minReadySeconds": {} } });
    expect(JSON.stringify(patch?.fieldsV1)).toContain('k:{\\"name\\":\\"MODE\\"}');
    const obj = JSON.parse(await kubectl(["get", "deployment", "web", "-o", "json"]));
    expect(obj.spec.template.spec.containers[0].env).toEqual([{ name: "MODE", value: "x" }]);
    expect(obj.spec.template.spec.containers[0].ports).toEqual([{ containerPort: 80, protocol: "TCP" }]);
  });

  it("edit (scripted KUBE_EDITOR) validates against the server's OpenAPI and records kubectl-edit", async () => {
    const editor = path.join(dir, "editor.sh");
    await fs.writeFile(editor, "#!/bin/sh\nsed -i 's/minReadySeconds: 3/minReadySeconds: 7/' \"$1\"\n", { mode: 0o755 });
    expect(await kubectl(["edit", "deployment", "web"], { KUBE_EDITOR: editor, EDITOR: editor })).toContain("edited");
    const list = await managed("deployment", "web");
    expect(entry(list, "kubectl-edit")).toMatchObject({ operation: "Update", fieldsV1: { "f:spec": { "f:minReadySeconds": {} } } });
  });

  it("rollout restart records kubectl-rollout and the controller moves to a new revision", async () => {
    const before = JSON.parse(await kubectl(["get", "deployment", "web", "-o", "json"])) as { metadata: { annotations: Record<string, string> } };
    await kubectl(["rollout", "restart", "deployment", "web"]);
    const e = entry(await managed("deployment", "web"), "kubectl-rollout");
    expect(e?.fieldsV1).toMatchObject({ "f:spec": { "f:template": { "f:metadata": { "f:annotations": { "f:kubectl.kubernetes.io/restartedAt": {} } } } } });
    await eventually(async () => {
      const d = JSON.parse(await kubectl(["get", "deployment", "web", "-o", "json"])) as { metadata: { generation: number; annotations: Record<string, string> }; status: { observedGeneration: number } };
      return d.status.observedGeneration === d.metadata.generation && Number(d.metadata.annotations["deployment.kubernetes.io/revision"]) > Number(before.metadata.annotations["deployment.kubernetes.io/revision"]);
    });
    const kcm = entry(await managed("deployment", "web"), "kube-controller-manager");
    expect(kcm).toMatchObject({ operation: "Update", subresource: "status" });
  });

  it("apply --server-side records an Apply by manager kubectl and reports conflicts", async () => {
    const file = path.join(dir, "cm.yaml");
    await fs.writeFile(file, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: fast\n");
    expect(await kubectl(["apply", "--server-side", "-f", file])).toContain("configmap/settings serverside-applied");
    expect(entry(await managed("configmap", "settings"), "kubectl")).toMatchObject({ operation: "Apply", fieldsV1: { "f:data": { "f:mode": {} } } });

    const dep = path.join(dir, "web-ssa.yaml");
    await fs.writeFile(dep, deploymentYaml(1));
    const err = await kubectl(["apply", "--server-side", "-f", dep]).then(
      () => "",
      (e: { stderr?: string }) => e.stderr ?? "",
    );
    expect(err).toContain("Apply failed with");
    expect(err).toContain('"kubectl" with subresource "scale" using apps/v1');
    await kubectl(["apply", "--server-side", "--force-conflicts", "-f", dep]);
    const list = await managed("deployment", "web");
    expect(list.find((x) => x.manager === "kubectl" && x.operation === "Apply")).toBeDefined();
    expect(list.find((x) => x.subresource === "scale")).toBeUndefined();
  });

  it("get -o json and get --watch show the objects", async () => {
    const all = JSON.parse(await kubectl(["get", "configmaps", "-o", "json"])) as { kind: string; items: Array<{ metadata: { name: string } }> };
    expect(all.kind).toBe("List");
    expect(all.items.map((i) => i.metadata.name)).toEqual(expect.arrayContaining(["kube-root-ca.crt", "settings"]));

    const watching = kubectl(["get", "configmaps", "--watch", "--request-timeout=2s"]).catch((e: { stdout?: string }) => e.stdout ?? "");
    await new Promise((r) => setTimeout(r, 700));
    await raw(sim, "POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "late" } } });
    const out = await watching;
    expect(out).toMatch(/^NAME\s+DATA\s+AGE/m);
    expect(out).toMatch(/^settings\s+1\s+\d+s$/m);
    expect(out).toMatch(/^late\s+0\s+\d+s$/m);
  });

  it("create generators (protobuf request bodies) record kubectl-create", async () => {
    await kubectl(["create", "namespace", "gen"]);
    await kubectl(["-n", "gen", "create", "configmap", "settings", "--from-literal=mode=fast"]);
    await kubectl(["-n", "gen", "create", "deployment", "api", "--image=nginx:1.25", "--replicas=2", "--port=8080"]);
    await kubectl(["-n", "gen", "create", "service", "clusterip", "api", "--tcp=80:8080"]);
    const cm = JSON.parse(await kubectl(["-n", "gen", "get", "configmap", "settings", "-o", "json", "--show-managed-fields"]));
    expect(cm.data).toEqual({ mode: "fast" });
    expect(cm.metadata.managedFields).toEqual([expect.objectContaining({ manager: "kubectl-create", operation: "Update", fieldsV1: { "f:data": { ".": {}, "f:mode": {} } } })]);
    const dep = JSON.parse(await kubectl(["-n", "gen", "get", "deployment", "api", "-o", "json", "--show-managed-fields"]));
    expect(dep.spec.replicas).toBe(2);
    expect(dep.spec.template.spec.containers[0]).toMatchObject({ name: "nginx", image: "nginx:1.25", ports: [{ containerPort: 8080, protocol: "TCP" }], resources: {} });
    expect(entry(dep.metadata.managedFields, "kubectl-create")).toMatchObject({ operation: "Update" });
    const svc = JSON.parse(await kubectl(["-n", "gen", "get", "service", "api", "-o", "json"]));
    expect(svc.spec.ports).toEqual([{ name: "80-8080", port: 80, protocol: "TCP", targetPort: 8080 }]);
  });

  it("delete removes the object", async () => {
    expect(await kubectl(["delete", "deployment", "web"])).toContain('deployment.apps "web" deleted');
    expect((await raw(sim, "GET", "/apis/apps/v1/namespaces/default/deployments/web")).status).toBe(404);
  });
});
