// Which helmRepositories entry a chart's repoURL is fetched with: its own, else
// the longest URL prefix's (its credentials lent to the place the Application names),
// and what a fetch through it says of the version (its publication time).
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { helmRepositorySchema } from "@/lib/config/schema";
import { tempDir } from "@/lib/git/test-support/repo-fixture";
import { setProcessEnv } from "@/test/support/process-env";
import { fetchChart, helmRepositoryFor } from "./chart-fetch";

const repo = (name: string, url: string, user = name) => helmRepositorySchema.parse({ name, url, auth: { type: "basic", username: user, passwordEnv: "X" } });
const repositories = [repo("host", "https://charts.example"), repo("team", "https://charts.example/team/"), repo("registry", "oci://ghcr.io/acme")];

describe("the helm repository of a chart's repoURL", () => {
  it("is the entry of that URL, with or without a trailing slash", () => {
    expect(helmRepositoryFor("https://charts.example/team", repositories)).toMatchObject({ name: "team", url: "https://charts.example/team/" });
  });

  it("is else the longest prefix at a path boundary, at the URL the Application names", () => {
    expect(helmRepositoryFor("https://charts.example/team/stable", repositories)).toMatchObject({ name: "team", url: "https://charts.example/team/stable", auth: { username: "team" } });
    expect(helmRepositoryFor("https://charts.example/other", repositories)).toMatchObject({ name: "host", url: "https://charts.example/other" });
    // "teamwork" is not under "team".
    expect(helmRepositoryFor("https://charts.example/teamwork", repositories)).toMatchObject({ name: "host" });
  });

  it("names an OCI registry with or without oci://, and nothing configured matches nothing", () => {
    expect(helmRepositoryFor("ghcr.io/acme/charts", repositories)).toMatchObject({ name: "registry", url: "oci://ghcr.io/acme/charts" });
    expect(helmRepositoryFor("https://elsewhere.example", repositories)).toBe(null);
  });
});

describe("a chart fetched through the longest prefix's entry", () => {
  it("uses that entry's credentials at the Application's URL, resolves the range and keeps the index's created time", async () => {
    const work = tempDir("repo-prefix");
    // A chart archive is a gzipped tar of one top folder (tar writes the same format helm package does).
    mkdirSync(path.join(work, "web"));
    writeFileSync(path.join(work, "web", "Chart.yaml"), "apiVersion: v2\nname: web\nversion: 1.2.0\n");
    execFileSync("tar", ["-czf", path.join(work, "web-1.2.0.tgz"), "-C", work, "web"]);
    const archive = readFileSync(path.join(work, "web-1.2.0.tgz"));
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(`${req.url} ${req.headers.authorization ?? "-"}`);
      if (req.headers.authorization !== `Basic ${Buffer.from("team:team-secret").toString("base64")}`) return void res.writeHead(401).end();
      if (req.url === "/team/stable/index.yaml") {
        const digest = createHash("sha256").update(archive).digest("hex");
        return void res.writeHead(200).end(`apiVersion: v1\nentries:\n  web:\n  - {name: web, version: 1.2.0, created: "2026-05-01T08:00:00Z", digest: ${digest}, urls: [web-1.2.0.tgz]}\n  - {name: web, version: 2.0.0, created: "2026-06-01T08:00:00Z", digest: ${"0".repeat(64)}, urls: [web-2.0.0.tgz]}\n`);
      }
      if (req.url === "/team/stable/web-1.2.0.tgz") return void res.writeHead(200).end(archive);
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const restore = setProcessEnv({ DW_HOST_SECRET: "host-secret", DW_TEAM_SECRET: "team-secret" });
    try {
      const configured = [
        helmRepositorySchema.parse({ name: "host", url: origin, auth: { type: "basic", username: "host", passwordEnv: "DW_HOST_SECRET" } }),
        helmRepositorySchema.parse({ name: "team", url: `${origin}/team`, auth: { type: "basic", username: "team", passwordEnv: "DW_TEAM_SECRET" } }),
      ];
      const fetched = await fetchChart({ repoURL: `${origin}/team/stable`, chart: "web", targetRevision: "^1.0" }, { repositories: configured, cacheDir: path.join(work, "cache") });
      expect(fetched).toMatchObject({ name: "web", version: "1.2.0", created: "2026-05-01T08:00:00Z", digest: `sha256:${createHash("sha256").update(archive).digest("hex")}` });
      expect(seen.every((s) => s.endsWith(`Basic ${Buffer.from("team:team-secret").toString("base64")}`))).toBe(true);
    } finally {
      restore();
      await new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      });
      rmSync(work, { recursive: true, force: true });
    }
  });
});
