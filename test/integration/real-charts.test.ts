// Two real public charts (test/fixtures/real-charts) as Argo CD Helm sources
// on a real kube-apiserver: the test renders each with the real helm and the
// arguments Argo CD would pass (written out here, independently of
// Driftwatch), applies the result client-side with Argo CD's tracking
// annotation as argocd-controller, and records the Application's sync status.
// The collector, rendering the same Application itself, finds no drift; real
// kubectl edits are found and attributed; a values change committed to Git
// shows up once the Application reports that revision, and resolves once applied.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startRealKube, type RealKube } from "@/tools/realkube/cluster";
import { TestRepo } from "@/lib/git/test-support/repo-fixture";
import { parseConfig, type DriftwatchConfig } from "@/lib/config";
import type { PrismaClient } from "@/lib/db/generated/client";
import { syncConfigToDatabase } from "@/lib/collector";
import { collectOnce, databaseWith, openDriftOf } from "../support/argo-collect";
import { appliedObjects, clusterCapabilities, groupOf, installArgoApplications, metaOf as meta, repoServerTools } from "../support/real-argo";
import { stopRealEstate } from "../support/real-kube-access";
import { setProcessEnv } from "../support/process-env";
import { requiredHelm, requiredKubectl } from "../support/required-tools";

type Obj = Record<string, unknown>;
const kubectlBin = requiredKubectl();
const helmBin = requiredHelm();
/** The URL the Applications name for the charts repository (the test repository stands for it). */
const CHARTS_URL = "https://github.com/example/charts";
const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/real-charts");

interface ChartApp {
  name: string;
  chart: string;
  destination: string;
  /** Namespaces the chart writes to besides the destination (metrics-server's auth-reader RoleBinding lives in kube-system). */
  alsoWritesTo?: string[];
  /** spec.source.helm of the Application. */
  helm: { valueFiles?: string[]; parameters?: Array<{ name: string; value: string; forceString?: boolean }>; valuesObject?: Obj };
}

const APPS: ChartApp[] = [
  // The chart's own production values file, and a parameter as set in the Application.
  { name: "podinfo", chart: "podinfo", destination: "podinfo", helm: { valueFiles: ["values-prod.yaml"], parameters: [{ name: "ui.message", value: "from Argo CD, with a comma" }] } },
  // The chart's CI values; the aggregated API stays off (nothing would serve it on this API server).
  { name: "metrics-server", chart: "metrics-server", destination: "monitoring", alsoWritesTo: ["kube-system"], helm: { valueFiles: ["ci/ci-values.yaml"], valuesObject: { apiService: { create: false }, replicas: 2 } } },
];

let kube: RealKube;
let repo: TestRepo;
let workDir: string;
let db: PrismaClient;
let config: DriftwatchConfig;
let restoreEnv: () => void;

const { run, kubectl } = repoServerTools(kubectlBin, () => kube, () => workDir);

/** What Argo CD's repo server renders: helm template with the cluster's version and API versions, the app's values, CRDs; hooks are not applied. */
function argoRender(app: ChartApp): Obj[] {
  const { gitVersion: version, apiVersions } = clusterCapabilities(kubectl);
  const inline = path.join(workDir, `${app.name}-inline.yaml`);
  fs.writeFileSync(inline, stringify(app.helm.valuesObject ?? {}));
  const chartDir = path.join(repo.dir, "charts", app.chart);
  const args = ["template", ".", "--name-template", app.name, "--namespace", app.destination, "--kube-version", version];
  for (const p of app.helm.parameters ?? []) args.push("--set", `${p.name}=${p.value.replace(/,/g, "\\,")}`);
  for (const f of app.helm.valueFiles ?? []) args.push("--values", path.join(chartDir, f));
  if (app.helm.valuesObject) args.push("--values", inline);
  for (const v of apiVersions) args.push("--api-versions", v);
  args.push("--include-crds");
  return appliedObjects(run(helmBin, args, "", chartDir));
}

const CLUSTER_SCOPED = new Set(["ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "APIService", "Namespace"]);

/** Argo CD's client-side apply: destination namespace where none is set, the tracking annotation, as argocd-controller; then the Application's status. */
function argoSync(app: ChartApp, sha: string): Obj[] {
  const objects = argoRender(app).map((o): Obj => {
    const m = meta(o);
    const namespace = CLUSTER_SCOPED.has(String(o.kind)) ? undefined : (m.namespace ?? app.destination);
    const trackingId = `${app.name}:${groupOf(o.apiVersion)}/${String(o.kind)}:${namespace ?? ""}/${m.name}`;
    return { ...o, metadata: { ...m, ...(namespace ? { namespace } : {}), annotations: { ...m.annotations, "argocd.argoproj.io/tracking-id": trackingId } } };
  });
  kubectl(["apply", "--field-manager=argocd-controller", "-f", "-"], objects.map((o) => stringify(o)).join("---\n"));
  const status = {
    sync: { status: "Synced", revision: sha },
    health: { status: "Healthy" },
    resources: objects.map((o) => ({ group: groupOf(o.apiVersion), version: String(o.apiVersion).split("/").pop(), kind: o.kind, namespace: meta(o).namespace ?? "", name: meta(o).name, status: "Synced" })),
  };
  reportRevision(app, sha, status);
  return objects;
}

/** The app's Argo CD Application: its chart folder in the charts repository at `targetRevision`, with its Helm settings. */
function applyApplication(app: ChartApp, targetRevision: string): void {
  const application = {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name: app.name, namespace: "argocd" },
    spec: {
      project: "default",
      source: { repoURL: CHARTS_URL, targetRevision, path: `charts/${app.chart}`, helm: app.helm },
      destination: { server: "https://kubernetes.default.svc", namespace: app.destination },
    },
  };
  kubectl(["apply", "--server-side", "-f", "-"], stringify(application));
}

function reportRevision(app: ChartApp, sha: string, status: Obj = { sync: { status: "Synced", revision: sha } }): void {
  kubectl(["-n", "argocd", "patch", "applications.argoproj.io", app.name, "--field-manager=argocd-application-controller", "--type=merge", "-p", JSON.stringify({ status })]);
}

const collect = (envName: string) => collectOnce(db, config, envName, workDir);
const openDrift = async (envName: string) => (await openDriftOf(db, envName)).map((d) => ({ key: d.key, type: d.type, changes: d.changes }));

const applied = new Map<string, Obj[]>();

beforeAll(async () => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-real-charts-"));
  restoreEnv = setProcessEnv({ HELM_BIN: helmBin });
  repo = TestRepo.create("real-charts");
  for (const chart of fs.readdirSync(FIXTURES).filter((f) => fs.statSync(path.join(FIXTURES, f)).isDirectory())) fs.cpSync(path.join(FIXTURES, chart), path.join(repo.dir, "charts", chart), { recursive: true });
  const sha = repo.commit("charts as published");
  kube = await startRealKube();
  installArgoApplications(kubectl, ["argocd", ...APPS.map((a) => a.destination)]);
  for (const app of APPS) {
    applyApplication(app, "HEAD");
    applied.set(app.name, argoSync(app, sha));
  }
  config = parseConfig(
    stringify({
      repositories: [{ name: "charts", url: repo.dir }],
      environments: APPS.map((app) => ({
        name: app.name,
        cluster: { kubeconfig: kube.kubeconfigPath, context: "realkube" },
        namespaces: [app.destination, ...(app.alsoWritesTo ?? [])],
        defaultNamespace: app.destination,
        source: { repository: "charts", branch: "main", path: `charts/${app.chart}`, render: "helm" },
        controller: { type: "argocd", namespace: "argocd", name: app.name },
      })),
    }),
  );
  db = await databaseWith(config);
}, 180_000);

afterAll(async () => {
  await stopRealEstate({ restoreEnv, kube, repo, tmp: workDir });
});

describe("real charts applied as Argo CD applies a Helm source", () => {
  it.each(APPS.map((a) => [a.name, a] as const))("%s: the collector renders the chart itself and finds no drift", async (name) => {
    const out = await collect(name);
    expect(out.errors.filter((e) => e.severity !== "warning"), JSON.stringify(out.errors)).toEqual([]);
    expect(out.status).toBe("succeeded");
    expect(await openDrift(name)).toEqual([]);
    // Every object Argo CD applied was compared (hooks are not applied and not compared).
    expect(out.stats?.desired).toBe(applied.get(name)!.length);
    expect(applied.get(name)!.length).toBeGreaterThan(3);
  }, 120_000);

  it("a kubectl scale and a kubectl set env on the charts' Deployments are found and attributed", async () => {
    kubectl(["-n", "monitoring", "scale", "deployment", "metrics-server", "--replicas=4"]);
    kubectl(["-n", "podinfo", "set", "env", "deployment/podinfo", "PODINFO_UI_COLOR=#ff0000"]);
    for (const app of APPS) expect((await collect(app.name)).status).toBe("succeeded");
    const metrics = await openDrift("metrics-server");
    expect(metrics.map((d) => [d.key, d.type])).toEqual([["apps/Deployment/monitoring/metrics-server", "Modified"]]);
    expect(JSON.stringify(metrics[0]!.changes)).toMatch(/spec\.replicas/);
    expect(JSON.stringify(metrics[0]!.changes)).toMatch(/"kubectl"/);
    const podinfo = await openDrift("podinfo");
    expect(podinfo.map((d) => [d.key, d.type])).toEqual([["apps/Deployment/podinfo/podinfo", "Modified"]]);
    expect(JSON.stringify(podinfo[0]!.changes)).toMatch(/kubectl-set/);
    // Argo CD's self-heal puts Git back: the drift resolves.
    for (const app of APPS) argoSync(app, repo.head());
    for (const app of APPS) {
      expect((await collect(app.name)).status).toBe("succeeded");
      expect(await openDrift(app.name)).toEqual([]);
    }
  }, 180_000);

  it("a values change committed to Git shows up when the Application reports that revision, and resolves once applied", async () => {
    const app = APPS.find((a) => a.name === "podinfo")!;
    const file = path.join(repo.dir, "charts/podinfo/values-prod.yaml");
    const text = fs.readFileSync(file, "utf8");
    const changed = text.replace('color: "#34577c"', 'color: "#00aa00"');
    expect(changed).not.toBe(text);
    repo.write("charts/podinfo/values-prod.yaml", changed);
    const sha = repo.commit("podinfo: green UI in production");
    // Argo CD has seen the commit but has not applied it yet (a sync in progress): desired is the new revision's render.
    reportRevision(app, sha);
    expect((await collect("podinfo")).status).toBe("succeeded");
    const drift = await openDrift("podinfo");
    expect(drift.map((d) => [d.key, d.type])).toEqual([["apps/Deployment/podinfo/podinfo", "Modified"]]);
    expect(JSON.stringify(drift[0]!.changes)).toContain("#00aa00");
    argoSync(app, sha);
    expect((await collect("podinfo")).status).toBe("succeeded");
    expect(await openDrift("podinfo")).toEqual([]);
  }, 180_000);

  // Last: it replaces the configuration with one environment that discovers.
  it("the same chart discovered from its Application (no source in driftwatch.yaml) renders from the Application's Helm settings, with no false drift", async () => {
    const podinfo = APPS.find((a) => a.name === "podinfo")!;
    const app: ChartApp = { ...podinfo, name: "podinfo-main", destination: "podinfo-main" };
    kubectl(["create", "namespace", app.destination]);
    applyApplication(app, "main");
    const objects = argoSync(app, repo.head());
    const discovered = parseConfig(
      stringify({
        repositories: [{ name: "charts", url: repo.dir, aliases: [CHARTS_URL] }],
        environments: [
          { name: "discovered", cluster: { kubeconfig: kube.kubeconfigPath, context: "realkube" }, namespaces: [app.destination], discover: { argocd: { namespace: "argocd", include: [app.name] } } },
        ],
      }),
    );
    await syncConfigToDatabase(db, discovered);
    const out = await collectOnce(db, discovered, "discovered", workDir);
    expect(out.errors.filter((e) => e.severity !== "warning"), JSON.stringify(out.errors)).toEqual([]);
    expect(out.status).toBe("succeeded");
    expect(await openDrift("discovered")).toEqual([]);
    const row = await db.application.findFirstOrThrow({ where: { name: `argocd/${app.name}` } });
    expect(row).toMatchObject({ kind: "argocd-application", lastError: null, objectCount: objects.filter((o) => meta(o).namespace === app.destination).length });
    // And a hand edit to what it deployed is found there.
    kubectl(["-n", app.destination, "scale", "deployment", "podinfo-main", "--replicas=5"]);
    expect((await collectOnce(db, discovered, "discovered", workDir)).status).toBe("succeeded");
    expect((await openDrift("discovered")).map((d) => [d.key, d.type])).toEqual([[`apps/Deployment/${app.destination}/podinfo-main`, "Modified"]]);
  }, 180_000);
});
