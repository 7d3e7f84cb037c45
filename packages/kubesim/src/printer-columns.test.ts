// kubectl get of custom resources shows the CRD's additionalPrinterColumns,
// filters included, as kube-apiserver's table convertor computes them.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { FLUX_KUSTOMIZATION_CRD, startKubeSim, type KubeSim } from "./index";
import { eventually } from "./test-helpers";
import { requiredKubectl } from "@/test/support/required-tools";

const run = promisify(execFile);
const kubectlPath = requiredKubectl();
let sim: KubeSim;
let dir: string;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "kubesim-columns-"));
  sim = await startKubeSim({ adminPort: false, controllers: false });
  sim.seed([FLUX_KUSTOMIZATION_CRD as Record<string, unknown>]);
});

afterAll(async () => {
  await sim?.stop();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

it("fills filtered printer columns such as Ready from status.conditions", async () => {
  const ks = (name: string, conditions: unknown[]) => ({
    apiVersion: "kustomize.toolkit.fluxcd.io/v1",
    kind: "Kustomization",
    metadata: { name, namespace: "flux-system" },
    spec: { interval: "5m", path: "./apps", prune: true, sourceRef: { kind: "GitRepository", name: "app" } },
    status: { conditions },
  });
  await eventually(() => {
    try {
      sim.seed([
        ks("ready", [
          { type: "Reconciling", status: "False", reason: "Done", message: "done", lastTransitionTime: "2024-01-01T00:00:00Z" },
          { type: "Ready", status: "True", reason: "ReconciliationSucceeded", message: "Applied revision: main@sha1:abc", lastTransitionTime: "2024-01-01T00:00:00Z" },
        ]),
        ks("failing", [{ type: "Ready", status: "False", reason: "BuildFailed", message: "kustomize build failed", lastTransitionTime: "2024-01-01T00:00:00Z" }]),
        ks("new", []),
      ]);
      return true;
    } catch {
      return false;
    }
  });
  const { stdout } = await run(kubectlPath, ["--cache-dir", path.join(dir, "cache"), "get", "kustomizations", "-n", "flux-system"], {
    env: { ...process.env, KUBECONFIG: sim.kubeconfigPath, HOME: dir },
  });
  const lines = stdout.trim().split("\n");
  expect(lines[0]).toMatch(/^NAME\s+AGE\s+READY\s+STATUS$/);
  expect(lines).toContainEqual(expect.stringMatching(/^ready\s+\S+\s+True\s+Applied revision: main@sha1:abc$/));
  expect(lines).toContainEqual(expect.stringMatching(/^failing\s+\S+\s+False\s+kustomize build failed$/));
  expect(lines).toContainEqual(expect.stringMatching(/^new\s+\S+\s*$/));
});
