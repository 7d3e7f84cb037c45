// An Argo CD Application whose chart comes from a Helm repository (not Git),
// discovered from the cluster: the repository is served on 127.0.0.1 by the
// test behind basic auth (the credential found by the longest URL prefix in
// helmRepositories), its charts packaged here by the real helm. The cluster
// holds what Argo CD would have applied (the chart rendered by helm with the
// Application's value file and parameter, tracking annotation, as
// argocd-controller): no false drift; a real `kubectl patch` is drift
// attributed to kubectl-patch; a new chart version in the Application's range
// is approved (at the index's `created` time) and the application is stale
// until Argo CD reports that version synced. On the imitation and on a real
// kube-apiserver, with the same assertions.
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
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
import { parseConfig, type DriftwatchConfig } from "@/lib/config";
import { getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { getApplication } from "@/lib/dashboard/applications";

const helmBin = requiredHelm();
const PASSWORD = "chart-reader-password-5521";
const CREATED: Record<string, string> = { "1.0.0": "2026-02-01T10:00:00Z", "1.1.0": "2026-02-03T12:30:00Z" };

const db = getPrisma();
let work: string;
let dir: string;
let cluster: TestCluster | undefined;
let config: DriftwatchConfig;
let restoreEnv: () => void;
let server: http.Server;
let origin: string;
/** The versions the repository publishes, as packaged archives. */
const published = new Map<string, Buffer>();
const kubectl = kubectlFor(() => cluster);

function helm(args: string[], cwd = work): string {
  const r = spawnSync(helmBin, args, { cwd, encoding: "utf8", env: { NODE_ENV: process.env.NODE_ENV, PATH: process.env.PATH, HOME: work } });
  if (r.status !== 0) throw new Error(`helm ${args[0]} failed: ${r.stderr}`);
  return r.stdout;
}

/** The chart "web" at `version`: a Deployment and a ConfigMap, with a production values file in the chart. */
function chartSource(version: string): string {
  const src = path.join(work, `web-${version}`, "web");
  fs.mkdirSync(path.join(src, "templates"), { recursive: true });
  fs.writeFileSync(path.join(src, "Chart.yaml"), `apiVersion: v2\nname: web\nversion: ${version}\nappVersion: "${version}"\n`);
  fs.writeFileSync(path.join(src, "values.yaml"), "replicaCount: 1\nmessage: default\n");
  fs.writeFileSync(path.join(src, "values-prod.yaml"), "replicaCount: 2\n");
  fs.writeFileSync(
    path.join(src, "templates", "deployment.yaml"),
    `apiVersion: apps/v1
kind: Deployment
metadata: {name: "{{ .Release.Name }}", labels: {app: "{{ .Release.Name }}"}}
spec:
  replicas: {{ .Values.replicaCount }}
  selector: {matchLabels: {app: "{{ .Release.Name }}"}}
  template:
    metadata: {labels: {app: "{{ .Release.Name }}"}}
    spec: {containers: [{name: web, image: "nginx:{{ .Chart.AppVersion }}"}]}
`,
  );
  fs.writeFileSync(path.join(src, "templates", "configmap.yaml"), `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "{{ .Release.Name }}-config"}\ndata: {message: "{{ .Values.message }}", version: "{{ .Chart.Version }}"}\n`);
  return src;
}

function publish(version: string): void {
  const src = chartSource(version);
  helm(["package", src, "--destination", work]);
  published.set(version, fs.readFileSync(path.join(work, `web-${version}.tgz`)));
}

/** What Argo CD applies for the Application at `version`: helm template with its release name, namespace, value file and parameter; tracking annotation; as argocd-controller. */
async function syncWeb(version: string): Promise<void> {
  const src = path.join(work, `web-${version}`, "web");
  const out = helm(["template", path.join(work, `web-${version}.tgz`), "--name-template", "web", "--namespace", "shop", "--set", "message=from argo", "--values", path.join(src, "values-prod.yaml"), "--include-crds"]);
  await argoSync(kubectl, "web", "shop", [out], { revision: version });
}

const run = () => runCollection(db, config, path.join(dir, "mirrors"), "production");
const web = async () => (await applicationsByName(db)).get("argocd/web");

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-repo-chart-"));
  restoreEnv = setProcessEnv({ HELM_BIN: helmBin, DW_CHART_READER_PASSWORD: PASSWORD, DW_WRONG_PASSWORD: "not-the-password", DRIFTWATCH_DATA_DIR: path.join(work, "data") });
  // The repository lives under /charts/stable; only its reader's credential opens it.
  server = http.createServer((req, res) => {
    if (req.headers.authorization !== `Basic ${Buffer.from(`reader:${PASSWORD}`).toString("base64")}`) return void res.writeHead(401).end();
    const name = (req.url ?? "").replace(/^\/charts\/stable\//, "");
    if (name === "index.yaml") {
      const entries = [...published].map(([v, body]) => `  - name: web\n    version: ${v}\n    appVersion: "${v}"\n    created: "${CREATED[v]}"\n    digest: ${createHash("sha256").update(body).digest("hex")}\n    urls: [web-${v}.tgz]\n`);
      return void res.writeHead(200).end(`apiVersion: v1\nentries:\n  web:\n${entries.join("")}`);
    }
    const m = /^web-(.+)\.tgz$/.exec(name);
    const body = m ? published.get(m[1]!) : undefined;
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200).end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  restoreEnv?.();
  await new Promise<void>((r) => {
    server.closeAllConnections();
    server.close(() => r());
  });
  fs.rmSync(work, { recursive: true, force: true });
});

forEachCluster((clusterServer) => {
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-repo-chart-case-"));
    cluster = await clusterServer().forCase(dir);
    published.clear();
    publish("1.0.0");
    config = parseConfig(
      stringify({
        // The host's entry would be refused; the longer prefix's reader credential is the one used.
        helmRepositories: [
          { name: "host", url: origin, auth: { type: "basic", username: "reader", passwordEnv: "DW_WRONG_PASSWORD" } },
          { name: "charts", url: `${origin}/charts`, auth: { type: "basic", username: "reader", passwordEnv: "DW_CHART_READER_PASSWORD" } },
        ],
        environments: [{ name: "production", cluster: { kubeconfig: cluster.kubeconfigPath, context: "t-readonly" }, namespaces: ["shop"], extraKinds: [], discover: { argocd: { namespace: "argocd" } } }],
      }),
    );
    await resetDatabase(db);
    await installControllerCrds(kubectl, cluster);
    for (const ns of ["argocd", "shop"]) await kubectl(["create", "namespace", ns]);
    await createApplication(kubectl, "web", "shop", {
      source: { repoURL: `${origin}/charts/stable`, chart: "web", targetRevision: "1.*", helm: { valueFiles: ["values-prod.yaml"], parameters: [{ name: "message", value: "from argo" }] } },
    });
    await syncWeb("1.0.0");
  }, 120_000);
  afterEach(async () => {
    await cluster?.release();
    cluster = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  describe("an Argo CD Application installing a chart from a Helm repository", () => {
    it("is collected at the synced chart version: no false drift, the approved version and its publication time, and a hand edit attributed", async () => {
      const first = await run();
      expect(first.errors.filter((e) => e.severity !== "warning")).toEqual([]);
      expect(first.status).toBe("succeeded");
      expect(await web()).toMatchObject({ approvedSha: "1.0.0", appliedSha: "1.0.0", appliedBehind: false, driftCount: 0, lastError: null, objectCount: 2 });
      expect((await web())?.approvedAt?.toISOString()).toBe("2026-02-01T10:00:00.000Z");
      const page = (await getApplication(db, "production", "argocd/web")).application;
      expect(page.sources.map((s) => ({ url: s.url, chart: s.chart, approved: s.approved, applied: s.applied }))).toEqual([{ url: `${origin}/charts/stable`, chart: "web", approved: "1.0.0", applied: "1.0.0" }]);

      await kubectl(["-n", "shop", "patch", "deployment", "web", "--type=merge", "-p", JSON.stringify({ spec: { replicas: 5 } })]);
      await run();
      expect(await web()).toMatchObject({ driftCount: 1 });
      const items = await db.driftItem.findMany({ where: { resolvedAt: null }, select: { key: true, type: true, attributionManager: true } });
      expect(items).toEqual([{ key: "apps/Deployment/shop/web", type: "Modified", attributionManager: "kubectl-patch" }]);
    }, 120_000);

    it("another chart's same version does not lend its publication time, and a range nothing matches leaves only its application out", async () => {
      // Another chart repository already known with a version "1.0.0" of its own, published long before.
      const other = await db.repository.create({ data: { name: "helm-chart:https://elsewhere.example/charts/api", url: "https://elsewhere.example/charts/api" } });
      const old = new Date("2020-01-01T00:00:00Z");
      await db.revision.create({ data: { repositoryId: other.id, sha: "1.0.0", parents: [], authorName: "", authorEmail: "", authoredAt: old, committerName: "", committerEmail: "", committedAt: old, message: "api 1.0.0", changedPaths: [] } });
      // An Application on a range the repository has no version in.
      await createApplication(kubectl, "future", "shop", { source: { repoURL: `${origin}/charts/stable`, chart: "web", targetRevision: "9.*" } });
      const out = await run();
      expect(out.status).toBe("partial");
      expect(out.errors.filter((e) => e.severity !== "warning")).toEqual([]);
      expect(await web()).toMatchObject({ approvedSha: "1.0.0", appliedSha: "1.0.0", driftCount: 0, lastError: null });
      expect((await web())?.approvedAt?.toISOString()).toBe("2026-02-01T10:00:00.000Z");
      expect((await applicationsByName(db)).get("argocd/future")?.lastError).toMatchObject({ message: expect.stringContaining('has no version of "web" matching "9.*"') });
    }, 120_000);

    it("a new chart version in the range is approved and the application is stale until Argo CD syncs it", async () => {
      await run();
      publish("1.1.0");
      const second = await run();
      expect(second.errors.filter((e) => e.severity !== "warning")).toEqual([]);
      // Compared with what Argo CD synced (1.0.0): a pending version is stale, not drift.
      expect(await web()).toMatchObject({ approvedSha: "1.1.0", appliedSha: "1.0.0", appliedBehind: true, driftCount: 0 });
      expect((await web())?.approvedAt?.toISOString()).toBe("2026-02-03T12:30:00.000Z");

      await syncWeb("1.1.0");
      await run();
      expect(await web()).toMatchObject({ approvedSha: "1.1.0", appliedSha: "1.1.0", appliedBehind: false, driftCount: 0 });
      const live = JSON.parse(await kubectl(["-n", "shop", "get", "configmap", "web-config", "-o", "json"])) as { data: Record<string, string> };
      expect(live.data).toEqual({ message: "from argo", version: "1.1.0" });
    }, 120_000);
  });
});
