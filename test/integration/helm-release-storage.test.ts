// Helm's release storage as the real `helm` (pinned, tools/realkube) writes it
// into a real kube-apiserver: decoded by lib/helm, the manifest is what Helm
// applied, the values never survive decoding, and the current release follows
// `helm upgrade` and a failed upgrade as `helm status` does.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRealKube, type RealKube } from "@/tools/realkube/cluster";
import { binaryPath } from "@/tools/realkube/binaries";
import { currentRelease, decodeReleaseSecretValue, HELM_RELEASE_SECRET_TYPE, releaseObjects, type HelmRelease } from "@/lib/helm/release-storage";

const DIGEST_KEY = "test-instance-key";
const PASSWORD = "s3cr3t-db-password-4711";
let kube: RealKube;
let work: string;
let core: CoreV1Api;

/** Helm's home folders in the test's own folder: nothing read from or written to the user's. */
const helmEnv = () => ({ ...process.env, HOME: work, HELM_CACHE_HOME: path.join(work, "cache"), HELM_CONFIG_HOME: path.join(work, "config"), HELM_DATA_HOME: path.join(work, "data") });

function helm(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(binaryPath("helm"), [...args, "--kubeconfig", kube.kubeconfigPath], {
    encoding: "utf8",
    env: helmEnv(),
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function releases(namespace: string, name: string): Promise<HelmRelease[]> {
  const list = await core.listNamespacedSecret({ namespace, labelSelector: `owner=helm,name=${name}` });
  return list.items.filter((s) => s.type === HELM_RELEASE_SECRET_TYPE).map((s) => decodeReleaseSecretValue(s.data!.release!, DIGEST_KEY));
}

beforeAll(async () => {
  kube = await startRealKube();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "dw-helm-"));
  // Helm's own starter chart: a Deployment, Service, ServiceAccount and (disabled) Ingress/HPA.
  execFileSync(binaryPath("helm"), ["create", path.join(work, "shop")], { env: helmEnv() });
  fs.writeFileSync(path.join(work, "values-v1.yaml"), `replicaCount: 2\npodAnnotations:\n  db-password: ${PASSWORD}\n`);
  fs.writeFileSync(path.join(work, "values-v2.yaml"), `replicaCount: 3\npodAnnotations:\n  db-password: ${PASSWORD}\n`);
  const kc = new KubeConfig();
  kc.loadFromFile(kube.kubeconfigPath);
  core = kc.makeApiClient(CoreV1Api);
}, 120_000);

afterAll(async () => {
  await kube?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe("Helm release storage (real helm, real kube-apiserver)", () => {
  it("decodes what helm install wrote: chart, revision, status and the manifest Helm applied, without the values", async () => {
    const installed = helm(["install", "shop", path.join(work, "shop"), "-n", "shop", "--create-namespace", "-f", path.join(work, "values-v1.yaml")]);
    expect(installed.status, installed.stderr).toBe(0);

    const [release, ...others] = await releases("shop", "shop");
    expect(others).toEqual([]);
    expect(release).toMatchObject({ name: "shop", namespace: "shop", revision: 1, status: "deployed", chart: { name: "shop", version: "0.1.0" } });
    expect(release!.manifest.trim()).toBe(helm(["get", "manifest", "shop", "-n", "shop"]).stdout.trim());
    const kinds = releaseObjects(release!, (_apiVersion, kind) => kind !== "ClusterRole").map((o) => `${o.kind}/${(o.metadata as { namespace?: string }).namespace}`);
    expect(kinds.sort()).toEqual(["Deployment/shop", "Service/shop", "ServiceAccount/shop"]);
    // The values held a password: it is in the manifest Helm applied (a pod annotation) but not in what is kept of the config.
    expect(JSON.stringify({ ...release, manifest: "" })).not.toContain(PASSWORD);
    expect(release!.configDigest).toMatch(/^sha256-hmac:/);
  });

  it("follows an upgrade (new values, new digest, previous revision superseded) and a failed upgrade (the deployed one stays current)", async () => {
    const upgraded = helm(["upgrade", "shop", path.join(work, "shop"), "-n", "shop", "-f", path.join(work, "values-v2.yaml")]);
    expect(upgraded.status, upgraded.stderr).toBe(0);
    let all = await releases("shop", "shop");
    expect(all.map((r) => `${r.revision}:${r.status}`).sort()).toEqual(["1:superseded", "2:deployed"]);
    const [v1, v2] = [all.find((r) => r.revision === 1)!, all.find((r) => r.revision === 2)!];
    expect(v2.configDigest).not.toBe(v1.configDigest);
    expect(releaseObjects(v2, () => true).find((o) => o.kind === "Deployment")).toMatchObject({ spec: { replicas: 3 } });

    // An upgrade the API server refuses: Helm records a failed revision 3, and revision 2 is still what runs.
    fs.writeFileSync(path.join(work, "shop", "templates", "broken.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Not_A_Valid_Name\n");
    const failed = helm(["upgrade", "shop", path.join(work, "shop"), "-n", "shop", "-f", path.join(work, "values-v2.yaml")]);
    expect(failed.status).not.toBe(0);
    all = await releases("shop", "shop");
    expect(all.map((r) => `${r.revision}:${r.status}`).sort()).toEqual(["1:superseded", "2:deployed", "3:failed"]);
    expect(currentRelease(all)?.revision).toBe(2);
  });

  it("refuses a value that is not a release, naming the problem", () => {
    const notBase64Json = Buffer.from(Buffer.from("not json").toString("base64")).toString("base64");
    expect(() => decodeReleaseSecretValue(notBase64Json, DIGEST_KEY)).toThrow(/not the JSON Helm writes/);
  });
});
