// The real kubectl against kubesim's workload controllers: what a user sees
// from get pods, rollout status/undo/history, describe and get events.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKubeSim, type KubeSim } from "./index";
import { eventually } from "./test-helpers";
import { requiredKubectl } from "@/test/support/required-tools";

const run = promisify(execFile);
const kubectlPath = requiredKubectl();
let sim: KubeSim;
let dir: string;

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run(kubectlPath, ["--cache-dir", path.join(dir, "cache"), ...args], {
    env: { ...process.env, KUBECONFIG: sim.kubeconfigPath, HOME: dir },
    timeout: 20_000,
  });
  return stdout;
}

async function apply(yaml: string): Promise<string> {
  const file = path.join(dir, `m-${Math.random().toString(36).slice(2)}.yaml`);
  await fs.writeFile(file, yaml);
  return kubectl("apply", "-f", file);
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: "nginx:1.27"}]}
`;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "kubesim-workloads-"));
  sim = await startKubeSim({ adminPort: false, workloadControllers: true });
  await kubectl("create", "namespace", "shop");
});

afterAll(async () => {
  await sim?.stop();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe("Deployments", () => {
  it("roll out through a ReplicaSet whose Pods report Running", async () => {
    await apply(deployment);
    expect(await kubectl("rollout", "status", "deployment/web", "-n", "shop", "--timeout=10s")).toContain('deployment "web" successfully rolled out');
    const pods = (await kubectl("get", "pods", "-n", "shop", "--no-headers")).trim().split("\n");
    expect(pods).toHaveLength(2);
    for (const line of pods) expect(line).toMatch(/^web-[a-z0-9]{10}-[a-z0-9]{5}\s+1\/1\s+Running\s+0\s+/);
    const rs = JSON.parse(await kubectl("get", "rs", "-n", "shop", "-o", "json")) as { items: Array<{ metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string>; ownerReferences: Array<{ kind: string; name: string; controller: boolean }> } }> };
    expect(rs.items).toHaveLength(1);
    const set = rs.items[0]!;
    const hash = set.metadata.labels["pod-template-hash"];
    expect(set.metadata.name).toBe(`web-${hash}`);
    expect(set.metadata.annotations).toMatchObject({ "deployment.kubernetes.io/revision": "1", "deployment.kubernetes.io/desired-replicas": "2", "deployment.kubernetes.io/max-replicas": "3" });
    expect(set.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: "Deployment", name: "web", controller: true })]);
    const pod = JSON.parse(await kubectl("get", "pods", "-n", "shop", "-o", "json")) as { items: Array<{ metadata: { labels: Record<string, string>; ownerReferences: Array<{ kind: string; name: string }> }; status: { phase: string; podIP: string } }> };
    expect(pod.items[0]?.metadata.labels).toEqual({ app: "web", "pod-template-hash": hash });
    expect(pod.items[0]?.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: "ReplicaSet", name: `web-${hash}` })]);
    expect(pod.items[0]?.status.podIP).toMatch(/^10\.244\./);
  });

  it("records revisions, rolls back with kubectl rollout undo, and says so in describe and events", async () => {
    await kubectl("set", "image", "deployment/web", "web=nginx:1.28", "-n", "shop");
    await kubectl("rollout", "status", "deployment/web", "-n", "shop", "--timeout=10s");
    expect(await kubectl("get", "pods", "-n", "shop", "-o", "jsonpath={.items[*].spec.containers[0].image}")).toBe("nginx:1.28 nginx:1.28");
    expect(await kubectl("rollout", "history", "deployment/web", "-n", "shop")).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);

    expect(await kubectl("rollout", "undo", "deployment/web", "-n", "shop")).toContain("deployment.apps/web rolled back");
    await kubectl("rollout", "status", "deployment/web", "-n", "shop", "--timeout=10s");
    await eventually(async () => (await kubectl("get", "pods", "-n", "shop", "-o", "jsonpath={.items[*].spec.containers[0].image}")) === "nginx:1.27 nginx:1.27", 10_000, 100);
    expect(await kubectl("rollout", "history", "deployment/web", "-n", "shop")).toMatch(/REVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+<none>/);
    expect(await kubectl("get", "deployment", "web", "-n", "shop", "-o", "jsonpath={.spec.template.spec.containers[0].image}")).toBe("nginx:1.27");

    const described = await kubectl("describe", "deployment", "web", "-n", "shop");
    expect(described).toMatch(/Replicas:\s+2 desired \| 2 updated \| 2 total \| 2 available \| 0 unavailable/);
    expect(described).toMatch(/NewReplicaSet:\s+web-[a-z0-9]{10} \(2\/2 replicas created\)/);
    expect(described).toMatch(/Normal\s+ScalingReplicaSet\s+\S+\s+deployment-controller\s+Scaled down replica set web-[a-z0-9]{10} from 2 to 0/);

    const events = await kubectl("get", "events", "-n", "shop");
    expect(events).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/m);
    expect(events).toMatch(/Normal\s+SuccessfulCreate\s+replicaset\/web-[a-z0-9]{10}\s+Created pod: web-/);
    expect(events).toMatch(/Normal\s+Scheduled\s+pod\/web-\S+\s+Successfully assigned shop\/web-\S+ to kubesim-node/);
  });

  it("takes its ReplicaSets and Pods with it when deleted", async () => {
    await kubectl("delete", "deployment", "web", "-n", "shop");
    await eventually(async () => (await kubectl("get", "rs,pods", "-n", "shop", "-o", "name")).trim() === "", 5000, 100);
  });
});

describe("StatefulSets, DaemonSets and Jobs", () => {
  it("create their Pods: ordinal names, one per node, and a Job that completes", async () => {
    await apply(`apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: "postgres:17"}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: shop}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: "fluent-bit:3"}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: migrate, namespace: shop}
spec:
  template:
    spec: {restartPolicy: Never, containers: [{name: migrate, image: "busybox:1.36"}]}
`);
    expect(await kubectl("rollout", "status", "statefulset/db", "-n", "shop", "--timeout=10s")).toContain("roll out complete");
    expect(await kubectl("rollout", "status", "daemonset/agent", "-n", "shop", "--timeout=10s")).toContain('daemon set "agent" successfully rolled out');
    expect(await kubectl("wait", "--for=condition=complete", "job/migrate", "-n", "shop", "--timeout=10s")).toContain("condition met");
    const pods = await kubectl("get", "pods", "-n", "shop", "--no-headers");
    expect(pods).toMatch(/^db-0\s+1\/1\s+Running/m);
    expect(pods).toMatch(/^db-1\s+1\/1\s+Running/m);
    expect(pods).toMatch(/^agent-[a-z0-9]{5}\s+1\/1\s+Running/m);
    expect(pods).toMatch(/^migrate-[a-z0-9]{5}\s+0\/1\s+Completed/m);
    expect(await kubectl("get", "job", "migrate", "-n", "shop", "--no-headers")).toMatch(/^migrate\s+Complete\s+1\/1\s+/);
  });

  it("schedule and start Pods made by hand, and Jobs made with kubectl create", async () => {
    await kubectl("run", "debug", "--image=busybox:1.36", "-n", "shop");
    expect(await kubectl("wait", "--for=condition=Ready", "pod/debug", "-n", "shop", "--timeout=10s")).toContain("condition met");
    const described = await kubectl("describe", "pod", "debug", "-n", "shop");
    expect(described).toMatch(/^Node:\s+kubesim-node\//m);
    expect(described).toMatch(/Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned shop\/debug to kubesim-node/);
    // kubectl create sends protobuf for built-in kinds.
    expect(await kubectl("create", "job", "once", "--image=busybox:1.36", "-n", "shop")).toContain("job.batch/once created");
    expect(await kubectl("wait", "--for=condition=complete", "job/once", "-n", "shop", "--timeout=10s")).toContain("condition met");
  });
});

describe("ResourceQuotas", () => {
  it("report what the namespace uses against their hard limits", async () => {
    await kubectl("create", "namespace", "team");
    await kubectl("create", "quota", "q", "--hard=pods=10,requests.cpu=4,requests.memory=2Gi,configmaps=5", "-n", "team");
    await apply(deployment.replace("namespace: shop", "namespace: team").replace('image: "nginx:1.27"}', 'image: "nginx:1.27", resources: {requests: {cpu: 250m, memory: 256Mi}}}'));
    await kubectl("rollout", "status", "deployment/web", "-n", "team", "--timeout=10s");
    await eventually(async () => /requests\.memory\s+512Mi\s+2Gi/.test(await kubectl("describe", "quota", "q", "-n", "team")), 5000, 100);
    const described = await kubectl("describe", "quota", "q", "-n", "team");
    expect(described).toMatch(/^pods\s+2\s+10$/m);
    expect(described).toMatch(/^requests\.cpu\s+500m\s+4$/m);
    // kube-root-ca.crt, as in every namespace.
    expect(described).toMatch(/^configmaps\s+1\s+5$/m);
  });
});
