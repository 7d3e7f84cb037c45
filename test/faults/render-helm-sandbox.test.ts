// Attacks through a Helm source, performed for real: each case commits a
// hostile chart (or hostile Argo CD Helm settings) to a real repository and
// renders it with the real helm as the collector does. Each is refused
// before helm runs (naming the file and reference) or is inert: no marker
// file appears, the local HTTP listener (standing in for a cluster, a chart
// repository and a metadata endpoint) sees no request, and nothing of the
// host's secret file reaches the output.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ControllerRender } from "@/lib/git/controller-render";
import { syncMirror } from "@/lib/git/mirror";
import { clearRenderCache, renderManifests, RenderRefusedError, type RenderResult } from "@/lib/git/render";
import { networkIsolation } from "@/lib/git/sandbox";
import { TestRepo } from "@/lib/git/test-support/repo-fixture";
import { setProcessEnv } from "../support/process-env";
import { requiredHelm } from "../support/required-tools";

const helmBin = requiredHelm();
const HOST_SECRET = "HOST-ONLY-SECRET-h3lm";
const CHART = "charts/web";

let listener: http.Server;
let port: number;
const requests: string[] = [];
let scratch: string;
let marker: string;
let hostFile: string;
let repo: TestRepo;
let mirrors: string;
let restoreEnv: () => void;

beforeAll(async () => {
  listener = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ kind: "SecretList", apiVersion: "v1", items: [{ metadata: { name: "stolen" }, data: { token: "ZnJvbS10aGUtY2x1c3Rlcg==" } }] }));
  });
  await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r));
  port = (listener.address() as { port: number }).port;
  console.log(`[render-helm-sandbox] network isolation: ${networkIsolation().prefix.join(" ") || `none (${networkIsolation().reason})`}`);
});
afterAll(async () => {
  await new Promise((r) => listener.close(r));
});

beforeEach(() => {
  requests.length = 0;
  clearRenderCache();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-helm-attack-"));
  marker = path.join(scratch, "MARKER");
  hostFile = path.join(scratch, "host-secret.txt");
  fs.writeFileSync(hostFile, `${HOST_SECRET}\n`);
  // The collector's own environment as an attacker would wish it: a kubeconfig to a reachable "cluster" and a plugin folder with a plugin that leaves a marker.
  const kubeconfig = path.join(scratch, "kubeconfig");
  fs.writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}"}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\nusers: [{name: u, user: {token: t}}]\n`);
  const plugin = path.join(scratch, "plugins", "evil");
  fs.mkdirSync(plugin, { recursive: true });
  fs.writeFileSync(path.join(plugin, "plugin.yaml"), `name: evil\nversion: 0.1.0\nusage: leaves a marker\ndescription: attack\ncommand: "sh -c 'touch ${marker}'"\ndownloaders:\n- command: "sh -c 'touch ${marker}'"\n  protocols: [evil]\n`);
  restoreEnv = setProcessEnv({ KUBECONFIG: kubeconfig, HELM_PLUGINS: path.join(scratch, "plugins"), HELM_POST_RENDERER: path.join(scratch, "nope") });
  repo = TestRepo.create("helm-attack");
  repo.write(`${CHART}/Chart.yaml`, "apiVersion: v2\nname: web\nversion: 0.1.0\n");
  repo.write(`${CHART}/values.yaml`, "replicas: 1\n");
  repo.write(`${CHART}/templates/cm.yaml`, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\ndata: {replicas: "{{ .Values.replicas }}"}\n');
  mirrors = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-helm-attack-mirrors-"));
});
afterEach(() => {
  restoreEnv();
  fs.rmSync(scratch, { recursive: true, force: true });
  fs.rmSync(repo.dir, { recursive: true, force: true });
  fs.rmSync(mirrors, { recursive: true, force: true });
});

async function render(helm: NonNullable<Extract<ControllerRender, { type: "argocd" }>["helm"]> = {}): Promise<RenderResult> {
  const sha = repo.commit("attack");
  const mirror = (await syncMirror({ name: "web", url: repo.dir, auth: { type: "none" } }, mirrors)).mirrorPath;
  return renderManifests(mirror, sha, { path: CHART, mode: "helm", defaultNamespace: "web", controller: { type: "argocd", helm, env: { appName: "web", appNamespace: "web" } }, helm: { bin: helmBin, cluster: { apiVersions: [] } } });
}

/** Nothing ran, nothing was fetched, nothing of the host was read. */
function expectContained(result?: RenderResult): void {
  expect(fs.existsSync(marker)).toBe(false);
  expect(requests).toEqual([]);
  if (result) expect(JSON.stringify(result)).not.toContain(HOST_SECRET);
}

async function expectRefused(helm: Parameters<typeof render>[0], file: string, reference: RegExp): Promise<void> {
  const error = await render(helm).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RenderRefusedError);
  expect((error as RenderRefusedError).refusals).toEqual(expect.arrayContaining([expect.objectContaining({ file, reference: expect.stringMatching(reference) })]));
  expectContained();
}

describe("hostile Helm sources (real helm, real git)", () => {
  it("a template's lookup answers nothing, even with a reachable cluster in the collector's KUBECONFIG", async () => {
    repo.write(`${CHART}/templates/steal.yaml`, '{{- $s := lookup "v1" "Secret" "kube-system" "" }}\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: stolen}\ndata: {found: {{ $s | toJson | quote }}}\n');
    const result = await render();
    expect(result.objects.find((o) => (o.object.metadata as { name: string }).name === "stolen")?.object.data).toEqual({ found: "{}" });
    expect(JSON.stringify(result)).not.toContain("from-the-cluster");
    expectContained(result);
  });

  it("a values file reached through ../ is refused", async () => {
    await expectRefused({ valueFiles: [`../../../../${path.relative("/", hostFile)}`] }, `${CHART}/Chart.yaml`, /valueFiles: /);
  });

  it("a values file that is a symbolic link to a host file is refused, inside the chart or beside it", async () => {
    fs.mkdirSync(path.join(repo.dir, "env"));
    fs.symlinkSync(hostFile, path.join(repo.dir, "env", "prod.yaml"));
    await expectRefused({ valueFiles: ["../../env/prod.yaml"] }, `${CHART}/Chart.yaml`, /env\/prod\.yaml/);
    fs.symlinkSync(hostFile, path.join(repo.dir, CHART, "values-prod.yaml"));
    await expectRefused({ valueFiles: ["values-prod.yaml"] }, `${CHART}/values-prod.yaml`, /values-prod\.yaml/);
  });

  it("a template that is a symbolic link to a host file is refused, and .Files.Get outside the chart reads nothing", async () => {
    fs.symlinkSync(hostFile, path.join(repo.dir, CHART, "templates", "host.yaml"));
    await expectRefused({}, `${CHART}/templates/host.yaml`, /host\.yaml/);
    fs.rmSync(path.join(repo.dir, CHART, "templates", "host.yaml"));
    repo.write(`${CHART}/templates/files.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: files}\ndata: {a: {{ .Files.Get "../../../../${path.relative("/", hostFile)}" | quote }}, b: {{ .Files.Get "${hostFile}" | quote }}}\n`);
    const result = await render();
    expect(result.objects.find((o) => (o.object.metadata as { name: string }).name === "files")?.object.data).toEqual({ a: "", b: "" });
    expectContained(result);
  });

  it("a dependency on a remote chart repository is refused, not downloaded", async () => {
    repo.write(`${CHART}/Chart.yaml`, `apiVersion: v2\nname: web\nversion: 0.1.0\ndependencies:\n- name: redis\n  version: 1.0.0\n  repository: http://127.0.0.1:${port}/charts\n`);
    await expectRefused({}, `${CHART}/Chart.yaml`, /redis \(http:\/\/127\.0\.0\.1/);
  });

  it("--set-file outside the repository is refused", async () => {
    await expectRefused({ fileParameters: [{ name: "stolen", path: hostFile }] }, `${CHART}/Chart.yaml`, /fileParameters: stolen=/);
    await expectRefused({ fileParameters: [{ name: "stolen", path: "../../../../etc/passwd" }] }, `${CHART}/Chart.yaml`, /fileParameters: stolen=/);
  });

  it("a plugin in the collector's HELM_PLUGINS is never found: a downloader scheme is refused and the render runs without it", async () => {
    await expectRefused({ valueFiles: ["evil://values.yaml"] }, `${CHART}/Chart.yaml`, /evil:\/\//);
    const result = await render({ parameters: [{ name: "replicas", value: "2" }] });
    expect(result.objects.map((o) => o.object.data)).toEqual([{ replicas: "2" }]);
    expectContained(result);
  });
});
