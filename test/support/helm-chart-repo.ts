// A real Helm chart repository on 127.0.0.1: a chart packaged and indexed by
// the pinned `helm` (tools/realkube), its index.yaml and .tgz served over
// plain HTTP the way any static chart repository (GitHub Pages, S3) serves
// them. Flux's HelmRepository reads the index, source-controller downloads
// the package, helm-controller installs it.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { binaryPath, isBuilt } from "@/tools/realkube/binaries";

export interface HelmChartRepo {
  /** http://127.0.0.1:PORT — a HelmRepository's spec.url. */
  url: string;
  /** Paths requested so far (index.yaml, the package). */
  requests: string[];
  close(): Promise<void>;
}

export interface ChartFiles {
  name: string;
  version: string;
  /** Files under templates/, by name. */
  templates: Record<string, string>;
  values?: string;
}

function helm(args: string[], home: string): string {
  if (!isBuilt("helm")) throw new Error("helm is not built yet; run `npm run realkube:build` (npm test does it first)");
  // Helm keeps caches and config under HOME/XDG: a throwaway folder, never the user's.
  return execFileSync(binaryPath("helm"), args, {
    encoding: "utf8",
    env: { NODE_ENV: process.env.NODE_ENV, PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, HELM_CACHE_HOME: path.join(home, "cache"), HELM_CONFIG_HOME: path.join(home, "config"), HELM_DATA_HOME: path.join(home, "data") },
  });
}

/** `charts` are written here; `chartDirs` are chart folders as they are (a real chart's copy in test/fixtures), packaged too. */
export async function startHelmChartRepo(charts: ChartFiles[], chartDirs: string[] = []): Promise<HelmChartRepo> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-chartrepo-"));
  const served = path.join(dir, "repo");
  fs.mkdirSync(served);
  for (const chartDir of chartDirs) helm(["package", chartDir, "--destination", served], dir);
  for (const chart of charts) {
    const src = path.join(dir, "src", chart.name);
    fs.mkdirSync(path.join(src, "templates"), { recursive: true });
    fs.writeFileSync(path.join(src, "Chart.yaml"), `apiVersion: v2\nname: ${chart.name}\nversion: ${chart.version}\ndescription: test chart served by a local repository\ntype: application\n`);
    fs.writeFileSync(path.join(src, "values.yaml"), chart.values ?? "");
    for (const [file, text] of Object.entries(chart.templates)) fs.writeFileSync(path.join(src, "templates", file), text);
    helm(["package", src, "--destination", served], dir);
  }

  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url ?? "/", "http://127.0.0.1").pathname).replace(/^\/+/, "");
    requests.push(name);
    const file = path.join(served, name);
    if (!name || name.includes("/") || !fs.existsSync(file)) {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found\n");
      return;
    }
    res.writeHead(200, { "content-type": name.endsWith(".yaml") ? "application/x-yaml" : "application/gzip" });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The index names each package by its absolute URL, which exists only now that the port is known.
  helm(["repo", "index", served, "--url", url], dir);
  return {
    url,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          fs.rmSync(dir, { recursive: true, force: true });
          resolve();
        });
      }),
  };
}
