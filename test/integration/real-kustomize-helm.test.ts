// A real public chart (test/fixtures/real-charts/podinfo) inflated through a
// kustomization's helmCharts, as an Argo CD Application with
// `kustomize.buildOptions: --enable-helm` renders it, on a real
// kube-apiserver. The test renders with kubectl's kustomize and the pinned
// helm the way Argo CD's repo server calls them (written out here,
// independently of Driftwatch), applies the result as argocd-controller and
// records the Application's status. The collector, rendering the same
// Application itself, finds no drift; a kubectl edit is found and attributed.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startRealKube, type RealKube } from "@/tools/realkube/cluster";
import { TestRepo } from "@/lib/git/test-support/repo-fixture";
import { parseConfig, type DriftwatchConfig } from "@/lib/config";
import type { PrismaClient } from "@/lib/db/generated/client";
import { collectOnce, databaseWith, openDriftOf } from "../support/argo-collect";
import { appliedObjects, clusterCapabilities, groupOf, installArgoApplications, metaOf as meta, repoServerTools } from "../support/real-argo";
import { stopRealEstate } from "../support/real-kube-access";
import { setProcessEnv } from "../support/process-env";
import { requiredHelm, requiredKubectl } from "../support/required-tools";

type Obj = Record<string, unknown>;
const kubectlBin = requiredKubectl();
const helmBin = requiredHelm();
const NS = "podinfo-kustomize";
const APP = "podinfo-kustomize";

let kube: RealKube;
let repo: TestRepo;
let workDir: string;
let db: PrismaClient;
let config: DriftwatchConfig;
let restoreEnv: () => void;
let applied: Obj[] = [];

const { run, kubectl } = repoServerTools(kubectlBin, () => kube, () => workDir);

/**
 * Argo CD's repo server with `--enable-helm` in kustomize.buildOptions:
 * `kustomize build <path> --enable-helm --helm-kube-version … --helm-api-versions …`
 * from the repository root. kubectl 1.32's kustomize (5.5) accepts only a helm
 * that answers `version -c` as v3; the pinned helm is v4, so the test's own
 * wrapper answers that one question and runs helm for everything else.
 */
function argoRender(): Obj[] {
  const { gitVersion, apiVersions } = clusterCapabilities(kubectl);
  const version = gitVersion.replace(/^v?(\d+\.\d+\.\d+).*$/, "v$1");
  const wrapper = path.join(workDir, "helm3-answering-helm");
  fs.writeFileSync(wrapper, `#!/bin/sh\nif [ "$1" = version ]; then echo v3.99.0; exit 0; fi\nexec '${helmBin}' "$@"\n`, { mode: 0o755 });
  const args = ["kustomize", `apps/${APP}`, "--enable-helm", "--helm-command", wrapper, "--helm-kube-version", version, ...apiVersions.flatMap((v) => ["--helm-api-versions", v])];
  return appliedObjects(run(kubectlBin, args, "", repo.dir));
}

function argoSync(sha: string): Obj[] {
  const objects = argoRender().map((o): Obj => {
    const m = meta(o);
    const namespace = m.namespace ?? NS;
    return { ...o, metadata: { ...m, namespace, annotations: { ...m.annotations, "argocd.argoproj.io/tracking-id": `${APP}:${groupOf(o.apiVersion)}/${String(o.kind)}:${namespace}/${m.name}` } } };
  });
  kubectl(["apply", "--field-manager=argocd-controller", "-f", "-"], objects.map((o) => stringify(o)).join("---\n"));
  const status = { sync: { status: "Synced", revision: sha }, health: { status: "Healthy" } };
  kubectl(["-n", "argocd", "patch", "applications.argoproj.io", APP, "--field-manager=argocd-application-controller", "--type=merge", "-p", JSON.stringify({ status })]);
  return objects;
}

const collect = () => collectOnce(db, config, APP, workDir);
const openDrift = async () => (await openDriftOf(db, APP)).map((d) => ({ key: d.key, type: d.type, changes: d.changes }));

beforeAll(async () => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-real-kustomize-helm-"));
  restoreEnv = setProcessEnv({ HELM_BIN: helmBin });
  repo = TestRepo.create("real-kustomize-helm");
  fs.cpSync(path.resolve(import.meta.dirname, "../fixtures/real-charts/podinfo"), path.join(repo.dir, "apps", APP, "charts", "podinfo"), { recursive: true });
  repo.write(
    `apps/${APP}/kustomization.yaml`,
    stringify({
      namespace: NS,
      helmCharts: [{ name: "podinfo", releaseName: "podinfo", namespace: NS, valuesFile: "charts/podinfo/values-prod.yaml", valuesInline: { ui: { message: "inflated by kustomize" } }, includeCRDs: true }],
      labels: [{ pairs: { team: "web" } }],
    }),
  );
  const sha = repo.commit("podinfo through kustomize helmCharts");
  kube = await startRealKube();
  installArgoApplications(kubectl, ["argocd", NS]);
  const application = {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name: APP, namespace: "argocd" },
    spec: { project: "default", source: { repoURL: "https://github.com/example/apps", targetRevision: "HEAD", path: `apps/${APP}` }, destination: { server: "https://kubernetes.default.svc", namespace: NS } },
  };
  kubectl(["apply", "--server-side", "-f", "-"], stringify(application));
  applied = argoSync(sha);
  config = parseConfig(
    stringify({
      repositories: [{ name: "apps", url: repo.dir }],
      environments: [
        {
          name: APP,
          cluster: { kubeconfig: kube.kubeconfigPath, context: "realkube" },
          namespaces: [NS],
          defaultNamespace: NS,
          source: { repository: "apps", branch: "main", path: `apps/${APP}`, render: "kustomize" },
          controller: { type: "argocd", namespace: "argocd", name: APP },
        },
      ],
    }),
  );
  db = await databaseWith(config);
}, 180_000);

afterAll(async () => {
  await stopRealEstate({ restoreEnv, kube, repo, tmp: workDir });
});

describe("a real chart through kustomize helmCharts, applied as Argo CD applies it", () => {
  it("the collector inflates the chart itself and finds no drift; every applied object is compared", async () => {
    const out = await collect();
    expect(out.errors.filter((e) => e.severity !== "warning"), JSON.stringify(out.errors)).toEqual([]);
    expect(out.status).toBe("succeeded");
    expect(await openDrift()).toEqual([]);
    expect(applied.length).toBeGreaterThan(3);
    expect(out.stats?.desired).toBe(applied.length);
    // The inline values and the kustomization's labels reached what was applied, so the comparison saw them.
    expect(JSON.stringify(applied)).toContain("inflated by kustomize");
    expect(applied.every((o) => (o.metadata as { labels?: Record<string, string> }).labels?.team === "web")).toBe(true);
  }, 120_000);

  it("a kubectl set env on the chart's Deployment is found and attributed, and resolves once Argo CD puts Git back", async () => {
    kubectl(["-n", NS, "set", "env", "deployment/podinfo", "PODINFO_UI_COLOR=#ff0000"]);
    expect((await collect()).status).toBe("succeeded");
    const drift = await openDrift();
    expect(drift.map((d) => [d.key, d.type])).toEqual([[`apps/Deployment/${NS}/podinfo`, "Modified"]]);
    expect(JSON.stringify(drift[0]!.changes)).toMatch(/kubectl-set/);
    argoSync(repo.head());
    expect((await collect()).status).toBe("succeeded");
    expect(await openDrift()).toEqual([]);
  }, 180_000);
});
