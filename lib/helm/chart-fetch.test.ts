// Charts from a Helm repository and an OCI registry, both served on
// 127.0.0.1 by the test: the archive is a real `helm package` output, the
// digest is checked, the cache is keyed by it, credentials go where
// driftwatch.yaml says, and a tampered archive is refused.
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { helmRepositorySchema } from "@/lib/config/schema";
import { renderManifests } from "@/lib/git/render";
import { syncMirror } from "@/lib/git/mirror";
import { TestRepo, tempDir } from "@/lib/git/test-support/repo-fixture";
import { setProcessEnv } from "@/test/support/process-env";
import { requiredHelm } from "@/test/support/required-tools";
import { fetchChart } from "./chart-fetch";

const helmBin = requiredHelm();
const PASSWORD = "chart-repo-password-9931";

interface Served {
  url: string;
  requests: Array<{ path: string; authorization?: string }>;
  files: Map<string, Buffer>;
  close(): Promise<void>;
}

async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse, served: Served) => void): Promise<Served> {
  const served: Served = { url: "", requests: [], files: new Map(), close: async () => undefined };
  const server = http.createServer((req, res) => {
    served.requests.push({ path: req.url ?? "", authorization: req.headers.authorization });
    handler(req, res, served);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  served.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  served.close = () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); });
  return served;
}

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
let work: string;
const archives = new Map<string, Buffer>();

function packageChart(version: string): Buffer {
  const src = path.join(work, `src-${version}`, "web");
  mkdirSync(path.join(src, "templates"), { recursive: true });
  writeFileSync(path.join(src, "Chart.yaml"), `apiVersion: v2\nname: web\nversion: ${version}\n`);
  writeFileSync(path.join(src, "values.yaml"), "replicas: 1\n");
  writeFileSync(path.join(src, "templates", "cm.yaml"), `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "{{ .Release.Name }}-web"}\ndata: {version: "{{ .Chart.Version }}", replicas: "{{ .Values.replicas }}"}\n`);
  execFileSync(helmBin, ["package", src, "--destination", work], { env: { NODE_ENV: process.env.NODE_ENV, PATH: process.env.PATH, HOME: work } });
  return readFileSync(path.join(work, `web-${version}.tgz`));
}

beforeAll(() => {
  work = tempDir("chart-fetch");
  for (const v of ["1.0.0", "1.1.0", "2.0.0"]) archives.set(v, packageChart(v));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A static chart repository behind basic auth; `tamper` serves other bytes than the index's digest names. */
async function chartRepository(opts: { tamper?: boolean } = {}): Promise<Served> {
  return serve((req, res, served) => {
    if (req.headers.authorization !== `Basic ${Buffer.from(`reader:${PASSWORD}`).toString("base64")}`) {
      res.writeHead(401).end();
      return;
    }
    const name = (req.url ?? "").replace(/^\//, "");
    if (name === "index.yaml") {
      const entries = [...archives].map(([version, body]) => `  - name: web\n    version: ${version}\n    digest: ${sha256(body)}\n    urls: [charts/web-${version}.tgz]\n`).join("");
      res.writeHead(200).end(`apiVersion: v1\nentries:\n  web:\n${entries}`);
      return;
    }
    const m = /^charts\/web-(.+)\.tgz$/.exec(name);
    const body = m ? archives.get(m[1]!) : undefined;
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200).end(opts.tamper ? Buffer.concat([body, Buffer.from("x")]) : body);
    void served;
  });
}

describe("charts from a Helm repository", () => {
  let restoreEnv: () => void;
  beforeAll(() => {
    restoreEnv = setProcessEnv({ CHART_REPO_PASSWORD: PASSWORD });
  });
  afterAll(() => restoreEnv());

  it("resolves a range from the index, downloads with the configured credentials, verifies the digest and reuses the verified copy", async () => {
    const server = await chartRepository();
    const cacheDir = path.join(work, "cache-1");
    try {
      const repositories = [helmRepositorySchema.parse({ name: "charts", url: `${server.url}/`, auth: { type: "basic", username: "reader", passwordEnv: "CHART_REPO_PASSWORD" } })];
      const chart = await fetchChart({ repoURL: server.url, chart: "web", targetRevision: "^1.0" }, { repositories, cacheDir });
      expect(chart).toMatchObject({ name: "web", version: "1.1.0", digest: `sha256:${sha256(archives.get("1.1.0")!)}` });
      expect(readFileSync(chart.file).equals(archives.get("1.1.0")!)).toBe(true);
      expect(server.requests.map((r) => r.path)).toEqual(["/index.yaml", "/charts/web-1.1.0.tgz"]);
      const again = await fetchChart({ repoURL: server.url, chart: "web", targetRevision: "1.1.0" }, { repositories, cacheDir });
      expect(again.file).toBe(chart.file);
      expect(server.requests.map((r) => r.path)).toEqual(["/index.yaml", "/charts/web-1.1.0.tgz", "/index.yaml"]);
    } finally {
      await server.close();
    }
  });

  it("refuses a tampered archive and keeps nothing of it", async () => {
    const server = await chartRepository({ tamper: true });
    const cacheDir = path.join(work, "cache-2");
    try {
      const repositories = [helmRepositorySchema.parse({ name: "charts", url: server.url, auth: { type: "basic", username: "reader", passwordEnv: "CHART_REPO_PASSWORD" } })];
      await expect(fetchChart({ repoURL: server.url, chart: "web", targetRevision: "2.0.0" }, { repositories, cacheDir })).rejects.toThrow(/does not match the index's digest/);
      expect(() => readFileSync(path.join(cacheDir, `sha256-${sha256(archives.get("2.0.0")!)}.tgz`))).toThrow();
    } finally {
      await server.close();
    }
  });

  it("fetches only from configured repositories, and a missing version says so", async () => {
    const server = await chartRepository();
    try {
      const repositories = [helmRepositorySchema.parse({ name: "charts", url: server.url, auth: { type: "basic", username: "reader", passwordEnv: "CHART_REPO_PASSWORD" } })];
      await expect(fetchChart({ repoURL: "https://charts.example.com", chart: "web", targetRevision: "1.0.0" }, { repositories, cacheDir: work })).rejects.toThrow(/not in helmRepositories/);
      await expect(fetchChart({ repoURL: server.url, chart: "web", targetRevision: "3.x" }, { repositories, cacheDir: work })).rejects.toThrow(/no version of "web" matching "3.x"/);
      expect(server.requests.length).toBe(1);
    } finally {
      await server.close();
    }
  });

  it("renders the fetched chart as the Argo CD Application's Helm source", async () => {
    const server = await chartRepository();
    const repo = TestRepo.create("chart-app");
    const mirrors = tempDir("chart-app-mirrors");
    try {
      repo.write("README.md", "the Application names a chart repository\n");
      const sha = repo.commit("init");
      const mirror = (await syncMirror({ name: "app", url: repo.dir, auth: { type: "none" } }, mirrors)).mirrorPath;
      const repositories = [helmRepositorySchema.parse({ name: "charts", url: server.url, auth: { type: "basic", username: "reader", passwordEnv: "CHART_REPO_PASSWORD" } })];
      const result = await renderManifests(mirror, sha, {
        path: ".",
        mode: "plain",
        defaultNamespace: "default",
        controller: { type: "argocd", chart: { repoURL: server.url, chart: "web", targetRevision: "2.0.0" }, helm: { parameters: [{ name: "replicas", value: "4" }] }, env: { appName: "web-prod", appNamespace: "web" } },
        helm: { bin: helmBin, cluster: { apiVersions: [] }, fetchChart: (ref) => fetchChart(ref, { repositories, cacheDir: path.join(work, "cache-4") }) },
      });
      expect(result.objects.map((o) => o.object)).toEqual([{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "web-prod-web", namespace: "web" }, data: { version: "2.0.0", replicas: "4" } }]);
    } finally {
      await server.close();
      rmSync(repo.dir, { recursive: true, force: true });
      rmSync(mirrors, { recursive: true, force: true });
    }
  });
});

describe("charts from an OCI registry", () => {
  /** The registry API's GETs a chart pull makes, behind the token flow an anonymous pull from a public registry goes through. */
  async function registry(opts: { tamperLayer?: boolean } = {}): Promise<Served> {
    return serve((req, res, served) => {
      const url = new URL(req.url ?? "/", served.url);
      if (url.pathname === "/token") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ token: "anon-pull-token" }));
      if (req.headers.authorization !== "Bearer anon-pull-token") {
        return void res.writeHead(401, { "www-authenticate": `Bearer realm="${served.url}/token",service="registry.test",scope="repository:charts/web:pull"` }).end();
      }
      if (url.pathname === "/v2/charts/web/tags/list") return void res.writeHead(200).end(JSON.stringify({ name: "charts/web", tags: [...archives.keys()] }));
      const manifest = /^\/v2\/charts\/web\/manifests\/(.+)$/.exec(url.pathname);
      if (manifest) {
        const body = archives.get(decodeURIComponent(manifest[1]!));
        if (!body) return void res.writeHead(404).end();
        const layer = { mediaType: "application/vnd.cncf.helm.chart.content.v1.tar+gzip", digest: `sha256:${sha256(body)}`, size: body.length };
        return void res.writeHead(200, { "content-type": "application/vnd.oci.image.manifest.v1+json" }).end(JSON.stringify({ schemaVersion: 2, config: { mediaType: "application/vnd.cncf.helm.config.v1+json", digest: "sha256:00", size: 0 }, layers: [layer] }));
      }
      const blob = /^\/v2\/charts\/web\/blobs\/sha256:([0-9a-f]{64})$/.exec(url.pathname);
      const body = blob ? [...archives.values()].find((b) => sha256(b) === blob[1]) : undefined;
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200).end(opts.tamperLayer ? Buffer.concat([body, Buffer.from("x")]) : body);
    });
  }

  it("resolves the version from the tags, follows the token flow, verifies the layer digest and caches by it", async () => {
    const server = await registry();
    const cacheDir = path.join(work, "cache-oci");
    try {
      const host = server.url.replace(/^http:\/\//, "");
      const repositories = [helmRepositorySchema.parse({ name: "registry", url: `oci://${host}/charts`, plainHttp: true })];
      // Argo CD names an OCI repository without the scheme.
      const chart = await fetchChart({ repoURL: `${host}/charts`, chart: "web", targetRevision: ">=1.0.0 <2.0.0" }, { repositories, cacheDir });
      expect(chart).toMatchObject({ version: "1.1.0", digest: `sha256:${sha256(archives.get("1.1.0")!)}` });
      expect(readFileSync(chart.file).equals(archives.get("1.1.0")!)).toBe(true);
      const paths = server.requests.map((r) => r.path);
      expect(paths).toContain("/v2/charts/web/blobs/sha256:" + sha256(archives.get("1.1.0")!));
      const before = paths.length;
      await fetchChart({ repoURL: `oci://${host}/charts`, chart: "web", targetRevision: "1.1.0" }, { repositories, cacheDir });
      expect(server.requests.slice(before).map((r) => r.path).filter((p) => p.includes("/blobs/"))).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("refuses a layer whose bytes do not match the manifest's digest", async () => {
    const server = await registry({ tamperLayer: true });
    try {
      const host = server.url.replace(/^http:\/\//, "");
      const repositories = [helmRepositorySchema.parse({ name: "registry", url: `oci://${host}/charts`, plainHttp: true })];
      await expect(fetchChart({ repoURL: `oci://${host}/charts`, chart: "web", targetRevision: "2.0.0" }, { repositories, cacheDir: path.join(work, "cache-oci-2") })).rejects.toThrow(/does not match its manifest's layer digest/);
    } finally {
      await server.close();
    }
  });
});
