// The built-in kinds GitOps repositories carry beyond Deployments and
// Services, created with the real kubectl: the server's defaults (checked
// against kube-apiserver 1.34 with the same manifests) and its 422s for
// missing required fields.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKubeSim, type KubeSim } from "./index";
import { requiredKubectl } from "@/test/support/required-tools";

const run = promisify(execFile);
const kubectlPath = requiredKubectl();

let sim: KubeSim;
let dir: string;

async function kubectl(args: string[], stdin?: string): Promise<{ stdout: string; stderr: string; code: number }> {
  const file = stdin === undefined ? undefined : path.join(dir, `in-${Math.random().toString(36).slice(2)}.yaml`);
  if (file) await fs.writeFile(file, stdin ?? "");
  try {
    const r = await run(kubectlPath, ["--cache-dir", path.join(dir, "cache"), ...args.map((a) => (a === "-" && file ? file : a))], {
      env: { ...process.env, KUBECONFIG: sim.kubeconfigPath, HOME: dir },
      timeout: 20_000,
    });
    return { stdout: r.stdout, stderr: r.stderr, code: 0 };
  } catch (e) {
    const x = e as { stdout?: string; stderr?: string; code?: number };
    return { stdout: x.stdout ?? "", stderr: x.stderr ?? "", code: x.code ?? 1 };
  }
}

const MANIFESTS = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds}
spec:
  selector: {matchLabels: {app: ds}}
  template:
    metadata: {labels: {app: ds}}
    spec: {containers: [{name: c, image: "nginx:1.27"}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: job}
spec:
  template:
    spec: {restartPolicy: Never, containers: [{name: c, image: "busybox:1.36"}]}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj}
spec:
  schedule: "*/5 * * * *"
  jobTemplate:
    spec:
      template:
        spec: {restartPolicy: OnFailure, containers: [{name: c, image: "busybox:1.36"}]}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: pvc}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: rb}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: role}
subjects: [{kind: ServiceAccount, name: default, namespace: default}, {kind: User, name: alice}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: kubesim-test-cr}
rules: [{apiGroups: ["apps"], resources: [deployments], verbs: ["*"]}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: np}
spec:
  podSelector: {}
  egress: [{to: [{ipBlock: {cidr: 10.0.0.0/8}}], ports: [{port: 53}]}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: web}}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: rq}
spec:
  hard: {pods: "10", limits.memory: 16384Mi}
---
apiVersion: v1
kind: LimitRange
metadata: {name: lr}
spec:
  limits: [{type: Container, default: {cpu: 500m, memory: 512Mi}, defaultRequest: {cpu: 100m}}]
`;

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "kubesim-kinds-"));
  sim = await startKubeSim({ adminPort: false, controllers: false });
});

afterAll(async () => {
  await sim?.stop();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe("built-in kinds beyond the core set", () => {
  it("are created by kubectl with the real server's defaults", async () => {
    const r = await kubectl(["create", "-f", "-", "-o", "json"], MANIFESTS);
    expect(r.stderr).toBe("");
    const docs = r.stdout.trim().startsWith("{") ? (JSON.parse(`[${r.stdout.replace(/}\s*{/g, "},{")}]`) as Obj[]) : [];
    const byKind = new Map(docs.map((d) => [d.kind as string, d]));
    expect([...byKind.keys()].sort()).toEqual(
      ["ClusterRole", "CronJob", "DaemonSet", "Job", "LimitRange", "NetworkPolicy", "PersistentVolumeClaim", "PodDisruptionBudget", "ResourceQuota", "RoleBinding"].sort(),
    );
    const ds = byKind.get("DaemonSet") as Obj;
    expect(ds.metadata.annotations).toEqual({ "deprecated.daemonset.template.generation": "1" });
    expect(ds.spec.updateStrategy).toEqual({ type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    expect(ds.status).toEqual({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 });
    const job = byKind.get("Job") as Obj;
    const uid = job.metadata.uid as string;
    expect(job.spec).toMatchObject({ backoffLimit: 6, completionMode: "NonIndexed", completions: 1, parallelism: 1, manualSelector: false, suspend: false, podReplacementPolicy: "TerminatingOrFailed" });
    expect(job.spec.selector).toEqual({ matchLabels: { "batch.kubernetes.io/controller-uid": uid } });
    expect(job.metadata.labels).toEqual({ "batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": "job", "controller-uid": uid, "job-name": "job" });
    expect(byKind.get("CronJob")?.spec).toMatchObject({ concurrencyPolicy: "Allow", suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    const pvc = byKind.get("PersistentVolumeClaim") as Obj;
    expect(pvc.metadata.finalizers).toEqual(["kubernetes.io/pvc-protection"]);
    expect(pvc.spec.volumeMode).toBe("Filesystem");
    expect(pvc.status).toEqual({ phase: "Pending" });
    expect((byKind.get("RoleBinding") as Obj).subjects).toEqual([
      { kind: "ServiceAccount", name: "default", namespace: "default" },
      { kind: "User", name: "alice", apiGroup: "rbac.authorization.k8s.io" },
    ]);
    const np = byKind.get("NetworkPolicy") as Obj;
    expect(np.spec.policyTypes).toEqual(["Ingress", "Egress"]);
    expect(np.spec.egress[0].ports).toEqual([{ port: 53, protocol: "TCP" }]);
    expect(byKind.get("PodDisruptionBudget")?.status).toEqual({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
    expect(byKind.get("ResourceQuota")?.spec.hard).toEqual({ pods: "10", "limits.memory": "16Gi" });
    expect(byKind.get("LimitRange")?.spec.limits[0].defaultRequest).toEqual({ cpu: "100m", memory: "512Mi" });
  });

  it("records what the create strategy sets the way the real server does in the creator's managedFields", async () => {
    const fields = async (res: string) => JSON.parse((await kubectl(["get", res, "-o", "jsonpath={.metadata.managedFields[0].fieldsV1}", "--show-managed-fields"])).stdout) as Obj;
    const ds = await fields("daemonset/ds");
    expect(ds["f:metadata"]).toEqual({ "f:annotations": { ".": {}, "f:deprecated.daemonset.template.generation": {} } });
    const job = await fields("job/job");
    expect(job["f:spec"]["f:manualSelector"]).toEqual({});
    expect(job["f:spec"]["f:selector"]).toBeUndefined();
    expect(job["f:metadata"]).toBeUndefined();
  });

  it("answers missing required fields with the real server's 422 messages", async () => {
    const bad = `apiVersion: batch/v1
kind: CronJob
metadata: {name: bad}
spec: {jobTemplate: {spec: {template: {spec: {containers: []}}}}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: bad}
spec: {}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: bad}
subjects: [{kind: User}]
roleRef: {kind: Role, name: ""}
`;
    const r = await kubectl(["create", "--validate=false", "-f", "-"], bad);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'CronJob.batch "bad" is invalid: [spec.schedule: Required value, spec.jobTemplate.spec.template.spec.containers: Required value, spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"]',
    );
    expect(r.stderr).toContain('PersistentVolumeClaim "bad" is invalid: [spec.accessModes: Required value: at least 1 access mode is required, spec.resources[storage]: Required value]');
    expect(r.stderr).toContain('RoleBinding.rbac.authorization.k8s.io "bad" is invalid: [roleRef.name: Required value, subjects[0].name: Required value]');
  });

  it("prints them with their own kubectl get columns", async () => {
    const r = await kubectl(["get", "cronjobs,pvc,netpol,pdb,rolebindings", "-o", "wide"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/m);
    expect(r.stdout).toMatch(/^cronjob\.batch\/cj\s+\*\/5 \* \* \* \*\s+<none>\s+False\s+0\s+<none>/m);
    expect(r.stdout).toMatch(/^persistentvolumeclaim\/pvc\s+Pending\s+/m);
    expect(r.stdout).toMatch(/^poddisruptionbudget\.policy\/pdb\s+1\s+N\/A\s+0\s+/m);
    expect(r.stdout).toMatch(/^rolebinding\.rbac\.authorization\.k8s\.io\/rb\s+Role\/role\s+\S+\s+alice\s+default\/default$/m);
  });

  it("lifts the claim-protection finalizer when a claim is deleted, as nothing here uses it", async () => {
    const r = await kubectl(["delete", "pvc", "pvc", "--wait=true", "--timeout=10s"]);
    expect(r.stdout).toContain('persistentvolumeclaim "pvc" deleted');
    expect((await kubectl(["get", "pvc", "pvc"])).stderr).toContain("NotFound");
  });
});
