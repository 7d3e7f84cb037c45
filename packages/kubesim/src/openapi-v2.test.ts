// /openapi/v2 as kubectl downloads it (protobuf, via client-go discovery) and
// as JSON, built from the same schemas as the v3 documents.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startKubeSim, type KubeSim } from "./index";
import { raw } from "./test-helpers";
import { requiredKubectl } from "@/test/support/required-tools";

const run = promisify(execFile);
const kubectlPath = requiredKubectl();
let sim: KubeSim;
let dir: string;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "kubesim-openapi-"));
  sim = await startKubeSim({ adminPort: false, controllers: false });
});

afterAll(async () => {
  await sim?.stop();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

async function explainV2(field: string): Promise<string> {
  const { stdout } = await run(kubectlPath, ["--cache-dir", path.join(dir, "cache"), "explain", field, "--output=plaintext-openapiv2"], {
    env: { ...process.env, KUBECONFIG: sim.kubeconfigPath, HOME: dir },
  });
  return stdout;
}

it("is read by kubectl from its protobuf form", async () => {
  expect(await explainV2("deployment.spec.replicas")).toMatch(/KIND:\s+Deployment\nVERSION:\s+apps\/v1\n\nFIELD:\s+replicas <integer>/);
  const cron = await explainV2("cronjob.spec");
  expect(cron).toMatch(/KIND:\s+CronJob\nVERSION:\s+batch\/v1/);
  expect(cron).toMatch(/^\s+schedule\t<string>$/m);
  expect(cron).toMatch(/^\s+jobTemplate\t<Object>$/m);
});

it("lets kubectl explain (OpenAPI v3) find built-in kinds and their field types", async () => {
  const { stdout } = await run(kubectlPath, ["--cache-dir", path.join(dir, "cache"), "explain", "deployment.spec.replicas"], {
    env: { ...process.env, KUBECONFIG: sim.kubeconfigPath, HOME: dir },
  });
  expect(stdout).toMatch(/GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1\n\nFIELD: replicas <integer>/);
});

it("is served as JSON with a definition per served kind, found by group-version-kind", async () => {
  const res = await raw(sim, "GET", "/openapi/v2", { accept: "application/json" });
  expect(res.status).toBe(200);
  const doc = res.json as { swagger: string; definitions: Record<string, { "x-kubernetes-group-version-kind"?: Array<{ group: string; kind: string; version: string }> }> };
  expect(doc.swagger).toBe("2.0");
  const gvks = Object.values(doc.definitions).flatMap((d) => d["x-kubernetes-group-version-kind"] ?? []).map((g) => `${g.group}/${g.version}/${g.kind}`);
  for (const k of ["/v1/Pod", "apps/v1/Deployment", "batch/v1/CronJob", "rbac.authorization.k8s.io/v1/ClusterRoleBinding", "policy/v1/PodDisruptionBudget", "networking.k8s.io/v1/NetworkPolicy"]) {
    expect(gvks).toContain(k);
  }
  expect(JSON.stringify(doc)).not.toContain("#/components/schemas/");
});
