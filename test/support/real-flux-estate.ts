// What the real-Flux suites set up around the controllers the same way:
// Driftwatch's own accounts as deploy/ installs them, Flux pointed at a Git
// repository, a fresh database and a collection run that must succeed. One copy,
// so the suites cannot come to install Driftwatch differently.
import fs from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { stringify } from "yaml";
import type { DriftwatchConfig } from "@/lib/config";
import type { PrismaClient } from "@/lib/db";
import type { RunOutcome } from "@/lib/collector";
import { createTestSession, type TestSession } from "@/lib/auth/testing";
import { pauseRbac } from "@/lib/pauses/pause-rbac";
import type { RealKube } from "@/tools/realkube/cluster";
import { collectOnce, databaseWith } from "./argo-collect";

const root = path.resolve(import.meta.dirname, "../..");

/** Several objects as one multi-document YAML, for `kubectl apply -f -`. */
export const yamlDocuments = (objects: unknown[]): string => objects.map((o) => stringify(o)).join("---\n");

/**
 * Driftwatch's own accounts, as deploy/ installs them: the collector's read-only
 * ClusterRole, the pause Roles `npm run rbac` generates for this config (for the
 * in-cluster account; here its token travels in a kubeconfig) and the admission
 * policy that limits what that account may change. Writes `kubeconfigPath` with
 * the contexts the config names: `collector` and `pause`.
 */
export async function installDriftwatchAccounts(kube: RealKube, kubectlOk: (args: string[], input?: string) => Promise<string>, config: DriftwatchConfig, kubeconfigPath: string): Promise<void> {
  await kubectlOk(["create", "namespace", "driftwatch"]);
  await kubectlOk(["apply", "-n", "driftwatch", "-f", path.join(root, "deploy/base/rbac.yaml")]);
  await kubectlOk(["apply", "-f", path.join(root, "deploy/base/pause-policy.yaml")]);
  const inCluster = { environments: config.environments.map((e) => ({ ...e, write: { inCluster: true as const } })) };
  await kubectlOk(["apply", "-f", "-"], yamlDocuments(pauseRbac(inCluster)));
  const token = async (account: string) => (await kubectlOk(["-n", "driftwatch", "create", "token", account, "--duration=1h"])).trim();
  const ca = Buffer.from(kube.caPem).toString("base64");
  fs.writeFileSync(
    kubeconfigPath,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "real", cluster: { server: kube.server, "certificate-authority-data": ca } }],
      users: [
        { name: "collector", user: { token: await token("driftwatch-collector") } },
        { name: "pause", user: { token: await token("driftwatch-web") } },
      ],
      contexts: [
        { name: "collector", context: { cluster: "real", user: "collector" } },
        { name: "pause", context: { cluster: "real", user: "pause" } },
      ],
      "current-context": "collector",
    }),
    { mode: 0o600 },
  );
}

/** What `flux create source git` and `flux create kustomization` apply: `name` in flux-system, for one folder of the repository's main. */
export function fluxGitKustomization(name: string, repoUrl: string, folder: string, interval: string): unknown[] {
  return [
    { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", metadata: { name, namespace: "flux-system" }, spec: { interval, url: repoUrl, ref: { branch: "main" } } },
    {
      apiVersion: "kustomize.toolkit.fluxcd.io/v1",
      kind: "Kustomization",
      metadata: { name, namespace: "flux-system" },
      spec: { interval, retryInterval: "2s", timeout: "30s", path: folder, prune: true, sourceRef: { kind: "GitRepository", name } },
    },
  ];
}

/** One collection run of the environment `test` (mirrors under `tmp`); it must succeed. */
export async function collectSucceeded(db: PrismaClient, config: DriftwatchConfig, tmp: string): Promise<RunOutcome> {
  const outcome = await collectOnce(db, config, "test", tmp);
  expect(outcome.status, JSON.stringify(outcome.errors)).toBe("succeeded");
  return outcome;
}

/** A fresh database holding this config: the environment `test`'s id, and the operator olivia signed in to pause it. */
export async function driftwatchFor(config: DriftwatchConfig): Promise<{ environmentId: string; operator: TestSession }> {
  const db = await databaseWith(config);
  const environmentId = (await db.environment.findUniqueOrThrow({ where: { name: "test" } })).id;
  return { environmentId, operator: await createTestSession(db, "operator", "olivia") };
}
