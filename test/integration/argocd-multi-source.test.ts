// A multi-source Argo CD Application (spec.sources), discovered from the
// cluster: a chart kept in one Git repository, rendered with a values file
// of a second repository (`$values/…`, lent by a ref-only source), and a
// plain folder of that second repository whose ConfigMap repeats one the
// chart renders. The cluster holds what Argo CD would have applied (the test
// renders it with the real helm and joins the sources itself, the last
// source's copy winning): no false drift, Argo CD's RepeatedResourceWarning
// shown, a real `kubectl patch` is drift attributed; a new commit to the
// values file makes the application stale (not drifted) until Argo CD
// reports that revision synced. On the imitation and on a real kube-apiserver.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { forEachCluster, type TestCluster } from "../support/clusters";
import { installControllerCrds, kubectlFor } from "../support/estate-kube";
import { applicationsByName, runCollection } from "../support/collector-env";
import { argoSync, createApplication } from "../support/argo-sync";
import { setProcessEnv } from "../support/process-env";
import { requiredHelm } from "../support/required-tools";
import { TestRepo } from "@/lib/git/test-support/repo-fixture";
import { parseConfig, type DriftwatchConfig } from "@/lib/config";
import { getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { getApplication } from "@/lib/dashboard/applications";

const helmBin = requiredHelm();
const CHARTS_URL = "https://git.example.com/acme/charts.git";
const VALUES_URL = "https://git.example.com/acme/values.git";

const db = getPrisma();
let dir: string;
let cluster: TestCluster | undefined;
let charts: TestRepo;
let values: TestRepo;
let config: DriftwatchConfig;
let restoreEnv: () => void;
const kubectl = kubectlFor(() => cluster);
const commits: Record<string, string> = {};

const configMap = (name: string, data: Record<string, string>) => stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data });

function authorCharts(): void {
  charts.write("charts/web/Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.1.0\n");
  charts.write("charts/web/values.yaml", "replicaCount: 1\ngreeting: hello\n");
  charts.write(
    "charts/web/templates/deployment.yaml",
    `apiVersion: apps/v1
kind: Deployment
metadata: {name: "{{ .Release.Name }}"}
spec:
  replicas: {{ .Values.replicaCount }}
  selector: {matchLabels: {app: "{{ .Release.Name }}"}}
  template:
    metadata: {labels: {app: "{{ .Release.Name }}"}}
    spec: {containers: [{name: web, image: "nginx:1.27"}]}
`,
  );
  charts.write("charts/web/templates/configmap.yaml", `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "{{ .Release.Name }}-settings"}\ndata: {greeting: "{{ .Values.greeting }}", from: chart}\n`);
  commits.charts = charts.commit("web chart", { date: "2026-03-01T00:00:00Z" });
}

function authorValues(replicas: number, date: string): string {
  values.write("web/prod.yaml", `replicaCount: ${replicas}\ngreeting: hello from prod\n`);
  values.write("extras/settings.yaml", configMap("web-settings", { greeting: "hello from extras", from: "extras" }));
  values.write("extras/extra.yaml", configMap("extra", { owner: "platform" }));
  return values.commit(`web at ${replicas} replicas`, { date });
}

/** What Argo CD applies: each source rendered (the chart by helm with the ref's values file), joined in order (the last copy wins), tracking annotation, as argocd-controller. */
async function syncWeb(valuesSha: string): Promise<void> {
  const prod = path.join(dir, "prod.yaml");
  fs.writeFileSync(prod, spawnSync("git", ["-C", values.dir, "show", `${valuesSha}:web/prod.yaml`], { encoding: "utf8" }).stdout);
  const r = spawnSync(helmBin, ["template", path.join(charts.dir, "charts/web"), "--name-template", "web", "--namespace", "shop", "--values", prod, "--include-crds"], { encoding: "utf8", env: { NODE_ENV: process.env.NODE_ENV, PATH: process.env.PATH, HOME: dir } });
  if (r.status !== 0) throw new Error(r.stderr);
  const extras = ["extras/settings.yaml", "extras/extra.yaml"].map((f) => spawnSync("git", ["-C", values.dir, "show", `${valuesSha}:${f}`], { encoding: "utf8" }).stdout);
  await argoSync(kubectl, "web", "shop", [r.stdout, ...extras], { revisions: [commits.charts, valuesSha, valuesSha] });
}

const run = () => runCollection(db, config, path.join(dir, "mirrors"), "production");
const web = async () => (await applicationsByName(db)).get("argocd/web");

beforeAll(() => {
  restoreEnv = setProcessEnv({ HELM_BIN: helmBin });
});
afterAll(() => restoreEnv?.());

forEachCluster((server) => {
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-multi-source-"));
    cluster = await server().forCase(dir);
    charts = TestRepo.create("multi-charts");
    values = TestRepo.create("multi-values");
    authorCharts();
    commits.values = authorValues(3, "2026-03-02T00:00:00Z");
    config = parseConfig(
      stringify({
        repositories: [
          { name: "charts", url: charts.dir, aliases: [CHARTS_URL] },
          { name: "values", url: values.dir, aliases: [VALUES_URL] },
        ],
        environments: [{ name: "production", cluster: { kubeconfig: cluster.kubeconfigPath, context: "t-readonly" }, namespaces: ["shop"], extraKinds: [], discover: { argocd: { namespace: "argocd" } } }],
      }),
    );
    await resetDatabase(db);
    await installControllerCrds(kubectl, cluster);
    for (const ns of ["argocd", "shop"]) await kubectl(["create", "namespace", ns]);
    await createApplication(kubectl, "web", "shop", {
      sources: [
        { repoURL: CHARTS_URL, targetRevision: "main", path: "charts/web", helm: { valueFiles: ["$values/web/prod.yaml"] } },
        { repoURL: VALUES_URL, targetRevision: "main", ref: "values" },
        { repoURL: VALUES_URL, targetRevision: "main", path: "extras" },
      ],
    });
    await syncWeb(commits.values);
  }, 120_000);
  afterEach(async () => {
    await cluster?.release();
    cluster = undefined;
    charts.cleanup();
    values.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  describe("a multi-source Argo CD Application", () => {
    it("renders each source at its synced revision and joins them as Argo CD does: no false drift, the repeated ConfigMap warned, every source shown, a hand edit attributed", async () => {
      const first = await run();
      expect(first.errors.filter((e) => e.severity !== "warning")).toEqual([]);
      expect(first.status).toBe("succeeded");
      expect(first.errors.map((e) => e.message)).toContain("Resource /ConfigMap/shop/web-settings appeared 2 times among application resources. The last source's is compared, as Argo CD applies it");
      expect(await web()).toMatchObject({ approvedSha: commits.charts, appliedSha: commits.charts, appliedBehind: false, driftCount: 0, lastError: null, objectCount: 3 });
      const page = (await getApplication(db, "production", "argocd/web")).application;
      expect(page.sources.map((s) => ({ url: s.url, path: s.path, refName: s.refName, refOnly: s.refOnly, approved: s.approved, applied: s.applied }))).toEqual([
        { url: CHARTS_URL, path: "charts/web", refName: null, refOnly: false, approved: commits.charts, applied: commits.charts },
        { url: VALUES_URL, path: ".", refName: "values", refOnly: true, approved: commits.values, applied: commits.values },
        { url: VALUES_URL, path: "extras", refName: null, refOnly: false, approved: commits.values, applied: commits.values },
      ]);
      const conditions = ((await web())?.controller as { conditions: Array<{ type: string; message: string }> }).conditions;
      expect(conditions).toContainEqual(expect.objectContaining({ type: "RepeatedResourceWarning", message: "Resource /ConfigMap/shop/web-settings appeared 2 times among application resources." }));

      await kubectl(["-n", "shop", "patch", "configmap", "extra", "--type=merge", "-p", JSON.stringify({ data: { owner: "someone-else" } })]);
      await run();
      expect(await web()).toMatchObject({ driftCount: 1 });
      const items = await db.driftItem.findMany({ where: { resolvedAt: null }, select: { key: true, type: true, attributionManager: true } });
      expect(items).toEqual([{ key: "/ConfigMap/shop/extra", type: "Modified", attributionManager: "kubectl-patch" }]);
    }, 120_000);

    it("a new commit to the ref source's values file is stale, not drift, until Argo CD syncs it", async () => {
      await run();
      commits.next = authorValues(4, "2026-03-03T00:00:00Z");
      const second = await run();
      expect(second.errors.filter((e) => e.severity !== "warning")).toEqual([]);
      expect(await web()).toMatchObject({ appliedBehind: true, driftCount: 0 });
      let page = (await getApplication(db, "production", "argocd/web")).application;
      expect(page.sources.map((s) => [s.approved, s.applied])).toEqual([
        [commits.charts, commits.charts],
        [commits.next, commits.values],
        // The extras folder did not change: its approved revision stays.
        [commits.values, commits.values],
      ]);

      await syncWeb(commits.next);
      await run();
      expect(await web()).toMatchObject({ appliedBehind: false, driftCount: 0 });
      page = (await getApplication(db, "production", "argocd/web")).application;
      expect(page.sources[1]).toMatchObject({ approved: commits.next, applied: commits.next });
      const live = JSON.parse(await kubectl(["-n", "shop", "get", "deployment", "web", "-o", "json"])) as { spec: { replicas: number } };
      expect(live.spec.replicas).toBe(4);
    }, 120_000);
  });
});
