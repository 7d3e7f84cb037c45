// A Flux HelmRelease as Driftwatch's environment, against the real thing:
// etcd + kube-apiserver (tools/realkube), the three Flux controllers
// (tools/realkube/flux), a Git repository served by `git http-backend`, and a
// real public chart (stefanprodan/podinfo, test/fixtures/real-charts/podinfo)
// served by a local chart repository. Flux's kustomize-controller applies the
// HelmRelease from Git, helm-controller installs the chart and writes Helm's
// release storage; Driftwatch reads with the shipped collector role. In order:
//   the release's manifest is the desired state: zero drift right after install,
//   and the config digest Driftwatch computes equals helm-controller's →
//   `kubectl scale` and `kubectl edit` on the chart's Deployment are drift
//   attributed to their field managers → the pause account may change only
//   spec.suspend → a values change committed to Git while
//   the HelmRelease is paused (from Driftwatch) shows as "not released yet" with
//   the applied revision still the old commit → resuming lets helm-controller
//   upgrade, and the environment is applied at the new commit.
// A value from a valuesFrom Secret lands in the Deployment (an env var): it is
// never stored, only its keyed hash.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { runProcess, type ProcessResult } from "@/test/support/run-process";
import { realKubeAccess, stopRealEstate, waitFor as waitUntil } from "@/test/support/real-kube-access";
import { parseConfig, type DriftwatchConfig } from "@/lib/config";
import { getPrisma } from "@/lib/db";
import type { RunOutcome } from "@/lib/collector";
import type { TestSession } from "@/lib/auth/testing";
import { helmConfigDigest } from "@/lib/helm/config-digest";
import { TestRepo } from "@/lib/git/test-support/repo-fixture";
import { startGitHttpServer, type GitHttpServer } from "@/lib/git/test-support/git-http-server";
import { POST as postPause } from "@/app/api/pauses/route";
import { POST as postResume } from "@/app/api/pauses/[id]/resume/route";
import { GET as getEnvironment } from "@/app/api/environments/[env]/route";
import type { EnvironmentDetailDto } from "@/lib/api/contract";
import { startRealKube, type RealKube } from "@/tools/realkube/cluster";
import { startFlux, type RealFlux } from "@/tools/realkube/flux";
import { startHelmChartRepo, type HelmChartRepo } from "../support/helm-chart-repo";
import { requiredKubectl, requiredKustomize } from "../support/required-tools";
import { collectSucceeded, driftwatchFor, fluxGitKustomization, installDriftwatchAccounts, yamlDocuments } from "../support/real-flux-estate";

const kubectlBin = requiredKubectl();
requiredKustomize();

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (v && typeof v === "object" ? (v as Obj) : {});

const INTERVAL = "5s";
const HELMRELEASE = "/apis/helm.toolkit.fluxcd.io/v2/namespaces/podinfo/helmreleases/podinfo";
const KUSTOMIZATION = "/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations/apps";
const CHART_DIR = path.resolve(import.meta.dirname, "../fixtures/real-charts/podinfo");
// Put into the release only through a valuesFrom Secret; the chart renders it into the Deployment's env.
const CANARY = "canary-helm-values-7f3a9c2e51";
const DEPLOYMENT_KEY = "apps/Deployment/podinfo/podinfo";

const db = getPrisma();
let kube: RealKube;
let flux: RealFlux;
let git: GitHttpServer;
let charts: HelmChartRepo;
let repo: TestRepo;
let config: DriftwatchConfig;
let operator: TestSession;
let tmp: string;
let environmentId: string;
let installSha: string;
let upgradeSha: string;
let outputs = "";

const { kubectlOk, getObject } = realKubeAccess(() => kube, kubectlBin);
/** helm-controller installs and upgrades a real chart: longer than the shared default. */
const waitFor = <T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 90_000, logOf?: () => string) => waitUntil(what, probe, timeoutMs, logOf);

const conditionOf = (obj: Obj | null, type: string) => ((rec(obj?.status).conditions as Array<{ type: string; status: string; reason?: string; message?: string }> | undefined) ?? []).find((c) => c.type === type);
const historyOf = (obj: Obj | null) => (rec(obj?.status).history as Array<{ version: number; chartVersion: string; configDigest: string; status: string }> | undefined) ?? [];
const controllerLogs = () => `${flux.logTail("helm-controller", 20)}\n${flux.logTail("kustomize-controller", 10)}\n${flux.logTail("source-controller", 10)}`;

async function collect(): Promise<RunOutcome> {
  const outcome = await collectSucceeded(db, config, tmp);
  outputs += JSON.stringify(outcome);
  return outcome;
}

async function openDrift() {
  const items = await db.driftItem.findMany({ where: { environmentId, resolvedAt: null } });
  return items.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** The environment as the page gets it, through the API route (its zod contract included). */
async function environmentPage(): Promise<EnvironmentDetailDto> {
  const res = await getEnvironment(new NextRequest("http://localhost/api/environments/test", { headers: { host: "localhost", ...operator.headers } }), { params: Promise.resolve({ env: "test" }) });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(text).not.toContain(CANARY);
  return JSON.parse(text) as EnvironmentDetailDto;
}

function postJson(url: string, body: unknown): NextRequest {
  return new NextRequest(url, { method: "POST", headers: { host: "localhost", ...operator.headers }, body: JSON.stringify(body) });
}

/** The HelmRelease and its chart repository as Git holds them. */
function releaseYaml(message: string): string {
  return yamlDocuments([
    { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "HelmRepository", metadata: { name: "charts", namespace: "podinfo" }, spec: { interval: "1m", url: charts.url } },
    {
      apiVersion: "helm.toolkit.fluxcd.io/v2",
      kind: "HelmRelease",
      metadata: { name: "podinfo", namespace: "podinfo" },
      spec: {
        interval: INTERVAL,
        chart: { spec: { chart: "podinfo", version: "6.14.1", sourceRef: { kind: "HelmRepository", name: "charts" }, interval: "1m" } },
        // No kubelet runs here: Pods never become ready, so helm-controller must not wait for them.
        install: { disableWait: true },
        upgrade: { disableWait: true },
        valuesFrom: [{ kind: "Secret", name: "podinfo-secret-values" }],
        values: { replicaCount: 2, ui: { message, color: "#34577c" }, resources: { requests: { cpu: "10m", memory: "16Mi" } } },
      },
    },
  ]);
}

const secretValuesYaml = `extraEnvs:\n  - name: API_TOKEN\n    value: ${CANARY}\n`;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-real-flux-helm-"));
  kube = await startRealKube();
  flux = await startFlux(kube);
  console.log(`[real-flux-helmrelease] kube-apiserver ready in ${(kube.startMillis / 1000).toFixed(1)} s, Flux ready in ${(flux.startMillis / 1000).toFixed(1)} s`);
  charts = await startHelmChartRepo([], [CHART_DIR]);

  repo = TestRepo.create("real-flux-helmrelease");
  repo.write("apps/podinfo/release.yaml", releaseYaml("hello from Git"));
  installSha = repo.commit("podinfo: install 6.14.1");
  git = await startGitHttpServer({ projectRoot: repo.dir });
  const repoUrl = `${git.origin}/.git`;

  const kubeconfig = path.join(tmp, "driftwatch-kubeconfig");
  config = parseConfig(
    stringify({
      repositories: [{ name: "apps", url: repoUrl }],
      environments: [
        {
          name: "test",
          cluster: { kubeconfig, context: "collector" },
          write: { kubeconfig, context: "pause" },
          namespaces: ["podinfo"],
          defaultNamespace: "podinfo",
          source: { repository: "apps", branch: "main", path: "apps/podinfo" },
          controller: { type: "flux", kind: "HelmRelease", namespace: "podinfo", name: "podinfo" },
        },
      ],
    }),
  );

  await kubectlOk(["create", "namespace", "podinfo"]);
  await installDriftwatchAccounts(kube, kubectlOk, config, kubeconfig);

  // The Secret a team keeps out of Git (created by hand, SOPS or an operator), then Flux pointed at the repository.
  await kubectlOk(["-n", "podinfo", "create", "secret", "generic", "podinfo-secret-values", `--from-literal=values.yaml=${secretValuesYaml}`]);
  await kubectlOk(["apply", "-f", "-"], yamlDocuments(fluxGitKustomization("apps", repoUrl, "./apps/podinfo", INTERVAL)));

  ({ environmentId, operator } = await driftwatchFor(config));
}, 120_000);

afterAll(async () => {
  await stopRealEstate({ flux, kube, git, charts, repo, tmp });
});

describe("a Flux HelmRelease environment against real helm-controller and a real chart", () => {
  it("compares live with the manifest of the release helm-controller installed: no drift, applied at the installing commit", async () => {
    const hr = await waitFor("HelmRelease podinfo installed", async () => {
      const o = await getObject(HELMRELEASE);
      return conditionOf(o, "Ready")?.status === "True" && historyOf(o).length > 0 && o;
    }, 120_000, controllerLogs);
    expect(conditionOf(hr, "Ready")?.reason).toBe("InstallSucceeded");
    expect(charts.requests).toEqual(expect.arrayContaining(["index.yaml", "podinfo-6.14.1.tgz"]));

    // Driftwatch's config digest of the values it composes (the Secret's, then Git's on top) is helm-controller's own.
    const composed = { extraEnvs: [{ name: "API_TOKEN", value: CANARY }], replicaCount: 2, ui: { message: "hello from Git", color: "#34577c" }, resources: { requests: { cpu: "10m", memory: "16Mi" } } };
    expect(historyOf(hr)[0]).toMatchObject({ version: 1, chartVersion: "6.14.1", configDigest: helmConfigDigest(composed), status: "deployed" });

    const outcome = await collect();
    expect(outcome.errors).toEqual([]);
    expect(outcome.approvedSha).toBe(installSha);
    expect(outcome.appliedSha).toBe(installSha);
    const desired = await db.desiredObject.findMany({ where: { environmentId }, select: { key: true, sourcePath: true } });
    // The chart's objects with these values (no HPA, Ingress, Redis; hooks and tests are not in a release manifest).
    expect(desired.map((d) => d.key).sort()).toEqual(["/Service/podinfo/podinfo", DEPLOYMENT_KEY]);
    expect(new Set(desired.map((d) => d.sourcePath))).toEqual(new Set(["apps/podinfo/release.yaml"]));
    expect(await openDrift()).toEqual([]);
  });

  it("attributes `kubectl scale` and `kubectl edit` on the chart's Deployment to their field managers", async () => {
    await kubectlOk(["-n", "podinfo", "scale", "deployment", "podinfo", "--replicas=4"]);
    // kubectl edit, non-interactively: the "editor" rewrites the UI colour in the file kubectl hands it.
    const edit = await runProcessWithEditor(["-n", "podinfo", "edit", "deployment", "podinfo"], `sed -i 's/#34577c/#ff0000/'`);
    expect(edit.status, edit.stderr).toBe(0);
    await collect();
    const drift = await openDrift();
    expect(drift.map((d) => [d.key, d.type])).toEqual([[DEPLOYMENT_KEY, "Modified"]]);
    const item = await db.driftItem.findFirstOrThrow({ where: { environmentId, key: DEPLOYMENT_KEY, resolvedAt: null } });
    const changes = item.changes as Array<{ display: string; desired: unknown; live: unknown; attribution: { manager: string; subresource: string | null; class: string } }>;
    // Desired is what helm-controller released (2 replicas from Git's values), each change attributed to who made it.
    expect(changes.map((c) => [c.display, c.desired, c.live, c.attribution.manager, c.attribution.subresource, c.attribution.class])).toEqual([
      ["spec.replicas", 2, 4, "kubectl", "scale", "human"],
      ["spec.template.spec.containers[name=podinfo].env[name=PODINFO_UI_COLOR].value", "#34577c", "#ff0000", "kubectl-edit", null, "human"],
    ]);
  });

  it("lets Driftwatch's pause account change nothing of the HelmRelease but spec.suspend", async () => {
    const asPause = (patch: unknown) =>
      runProcess(kubectlBin, ["--kubeconfig", path.join(tmp, "driftwatch-kubeconfig"), "--context", "pause", "-n", "podinfo", "patch", "helmrelease", "podinfo", "--type=merge", "-p", JSON.stringify(patch)]);
    for (const [what, patch] of [
      ["spec.values", { spec: { values: { replicaCount: 9 } } }],
      ["spec.chart with a suspend", { spec: { suspend: true, chart: { spec: { version: "6.0.0" } } } }],
      ["spec.valuesFrom", { spec: { valuesFrom: [] } }],
    ] as const) {
      const r = await asPause(patch);
      expect(r.status, what).not.toBe(0);
      expect(r.stderr, what).toMatch(/Driftwatch's pause account may change only spec.suspend of a Flux HelmRelease/);
    }
    const hr = await getObject(HELMRELEASE);
    expect(rec(hr?.spec).suspend).toBeUndefined();
    expect(rec(rec(hr?.spec).values).replicaCount).toBe(2);
  });

  it("shows a values change in Git as not released while the HelmRelease is paused, and applied once helm-controller upgrades", async () => {
    const res = await postPause(postJson("http://localhost/api/pauses", { environment: "test", reason: "hold the podinfo upgrade", duration: "1h" }), { params: Promise.resolve({}) });
    const paused = (await res.json()) as { pause?: { id: string; executed: boolean } };
    expect(res.status, JSON.stringify(paused)).toBe(201);
    expect(paused.pause?.executed).toBe(true);
    expect(rec((await getObject(HELMRELEASE))?.spec).suspend).toBe(true);

    repo.write("apps/podinfo/release.yaml", releaseYaml("hello again from Git"));
    upgradeSha = repo.commit("podinfo: a new UI message");
    await waitFor("Kustomization apps to apply the values change", async () => {
      const k = await getObject(KUSTOMIZATION);
      return rec(k?.status).lastAppliedRevision === `main@sha1:${upgradeSha}`;
    }, 60_000, controllerLogs);

    const pending = await collect();
    expect(pending.approvedSha).toBe(upgradeSha);
    // helm-controller has not released it: the applied revision is still the commit it released.
    expect(pending.appliedSha).toBe(installSha);
    const notReleased = pending.errors.find((e) => e.message.includes("changed in Git, not released yet"));
    expect(notReleased?.message).toMatch(/^HelmRelease podinfo\/podinfo: changed in Git, not released yet \(values changed; released revision 1 \(podinfo 6\.14\.1\)\)/);
    const env = await db.environment.findUniqueOrThrow({ where: { id: environmentId } });
    expect([env.approvedSha, env.appliedSha]).toEqual([upgradeSha, installSha]);
    // The page: chart and version released, the verdict, Git's changed value by path, the history.
    const page = (await environmentPage()).controller?.helm;
    expect(page).toMatchObject({
      releaseName: "podinfo",
      released: { revision: 1, status: "deployed", chart: { name: "podinfo", version: "6.14.1" } },
      declared: { chart: "podinfo", version: "6.14.1" },
      verdict: { state: "pending", changes: ["values changed"] },
      valuesDiff: { entries: [{ path: "ui.message", change: "changed", git: '"hello again from Git"' }], total: 1 },
      history: [{ revision: 1, status: "deployed", chartVersion: "6.14.1" }],
    });

    const resumed = await postResume(postJson(`http://localhost/api/pauses/${paused.pause?.id}/resume`, {}), { params: Promise.resolve({ id: paused.pause?.id as string }) });
    expect(resumed.status).toBe(200);
    await waitFor("helm-controller to upgrade podinfo", async () => {
      const o = await getObject(HELMRELEASE);
      return historyOf(o)[0]?.version === 2 && conditionOf(o, "Ready")?.status === "True";
    }, 90_000, controllerLogs);

    const released = await collect();
    expect(released.errors.filter((e) => e.message.includes("not released"))).toEqual([]);
    expect(released.appliedSha).toBe(upgradeSha);
    const after = (await environmentPage()).controller?.helm;
    expect(after).toMatchObject({ released: { revision: 2 }, verdict: { state: "released", changes: [] }, valuesDiff: { entries: [], total: 0 } });
    expect(after?.history.map((h) => [h.revision, h.status])).toEqual([[2, "deployed"], [1, "superseded"]]);
    const deployment = await db.desiredObject.findFirstOrThrow({ where: { environmentId, key: DEPLOYMENT_KEY } });
    expect(JSON.stringify(deployment)).not.toContain("hello from Git");
  });

  it("stores no value from a valuesFrom Secret: not in Postgres, not in the run's output", async () => {
    const tables = ["DesiredObject", "LiveObject", "ObjectBlob", "ObjectVersion", "DriftItem", "CollectionRun", "AuditEvent", "Environment", "AppliedRevision", "Pause"];
    for (const table of tables) {
      const rows = await db.$queryRawUnsafe<Array<{ row: string }>>(`SELECT row_to_json(t)::text AS row FROM "${table}" t`);
      for (const r of rows) expect(r.row, table).not.toContain(CANARY);
    }
    expect(outputs).not.toContain(CANARY);
    // It was there to find: the live Deployment carries it.
    expect(await kubectlOk(["-n", "podinfo", "get", "deployment", "podinfo", "-o", "json"])).toContain(CANARY);
  });
});

/** Runs kubectl with KUBE_EDITOR set, as `kubectl edit` in a terminal would use it. */
async function runProcessWithEditor(args: string[], editor: string): Promise<ProcessResult> {
  const { spawn } = await import("node:child_process");
  return new Promise((resolve) => {
    const child = spawn(kubectlBin, ["--kubeconfig", kube.kubeconfigPath, ...args], { env: { ...process.env, KUBE_EDITOR: editor, EDITOR: editor } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    child.on("close", (status) => resolve({ status, stdout, stderr } as ProcessResult));
  });
}
