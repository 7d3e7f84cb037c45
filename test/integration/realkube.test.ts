// The real etcd + kube-apiserver helper (tools/realkube): what kubectl and
// @kubernetes/client-node can do with each of its two tokens, and that
// stopping it leaves no process and no folder behind. Needs the binaries that
// `npm test` builds first (npm run realkube:build); without them this fails.
import fs from "node:fs";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProcess, type ProcessResult } from "@/test/support/run-process";
import { startRealKube, type RealKube } from "@/tools/realkube/cluster";

const kubectlBin = process.env.KUBECTL ?? "kubectl";
let kube: RealKube;

beforeAll(async () => {
  kube = await startRealKube();
  console.log(`[realkube] etcd + kube-apiserver ready in ${(kube.startMillis / 1000).toFixed(1)} s`);
}, 90_000);
afterAll(async () => {
  await kube?.stop();
});

function kubectl(args: string[], input = ""): Promise<ProcessResult> {
  return runProcess(kubectlBin, ["--kubeconfig", kube.kubeconfigPath, ...args], input);
}

const manifest = `apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
data:
  mode: live
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27
`;

describe("realkube: a real etcd + kube-apiserver", () => {
  it("accepts kubectl apply with the read-write token, validating against the server's OpenAPI", async () => {
    // Default validation downloads /openapi/v2 (or v3) first; an unknown field proves it was used.
    const invalid = await kubectl(["apply", "-f", "-"], manifest.replace("replicas: 2", "replicas: 2\n  replicaz: 3"));
    expect(invalid.status).not.toBe(0);
    expect(invalid.stderr).toMatch(/unknown field "spec.replicaz"/);

    const applied = await kubectl(["apply", "-f", "-"], manifest);
    expect(applied.status, applied.stderr).toBe(0);
    expect(applied.stdout).toContain("deployment.apps/web created");
    const got = await kubectl(["-n", "shop", "get", "deployment", "web", "-o", "jsonpath={.spec.replicas} {.spec.strategy.type}"]);
    // The strategy default comes from the real server's defaulting, not from the manifest.
    expect(got.stdout).toBe("2 RollingUpdate");
  });

  it("lets the read-only token read but not write or read Secrets", async () => {
    const read = await kubectl(["--context", "realkube-ro", "-n", "shop", "get", "configmap", "settings", "-o", "jsonpath={.data.mode}"]);
    expect(read.status, read.stderr).toBe(0);
    expect(read.stdout).toBe("live");

    const write = await kubectl(["--context", "realkube-ro", "-n", "shop", "scale", "deployment", "web", "--replicas=5"]);
    expect(write.status).not.toBe(0);
    expect(write.stderr).toMatch(/forbidden: User "realkube-ro" cannot patch resource "deployments\/scale"/);

    const apply = await kubectl(["--context", "realkube-ro", "apply", "-f", "-"], manifest.replace("mode: live", "mode: changed"));
    expect(apply.status).not.toBe(0);
    expect(apply.stderr).toMatch(/forbidden/);

    const secrets = await kubectl(["--context", "realkube-ro", "-n", "shop", "get", "secrets"]);
    expect(secrets.status).not.toBe(0);
    expect(secrets.stderr).toMatch(/cannot list resource "secrets"/);
  });

  it("serves @kubernetes/client-node with the written kubeconfig", async () => {
    const config = new KubeConfig();
    config.loadFromFile(kube.kubeconfigPath);
    const names = (await config.makeApiClient(CoreV1Api).listNamespace()).items.map((n) => n.metadata?.name);
    expect(names).toEqual(expect.arrayContaining(["default", "kube-system", "shop"]));

    config.setCurrentContext("realkube-ro");
    const ro = config.makeApiClient(CoreV1Api);
    expect((await ro.listNamespace()).items.length).toBe(names.length);
    await expect(ro.deleteNamespace({ name: "shop" })).rejects.toMatchObject({ code: 403 });
  });
});

describe("realkube: stop", () => {
  it("ends both processes and removes the instance folder", async () => {
    const other = await startRealKube();
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(other.pids.every(alive)).toBe(true);
    expect(fs.existsSync(other.dir)).toBe(true);
    await other.stop();
    expect(other.pids.filter(alive)).toEqual([]);
    expect(fs.existsSync(other.dir)).toBe(false);
  }, 90_000);
});
