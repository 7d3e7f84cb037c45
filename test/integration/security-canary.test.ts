// Secrets stay secret. A canary value is planted in a Secret in Git (as
// stringData and as base64 data, and in a file that fails to parse) and live
// (applied, then changed by hand with kubectl's last-applied annotation, so
// there is Secret drift). After collections, a claim, and a call of every
// GET route of the API and every dashboard data loader, the value — raw, in
// base64 and in hex — appears in no table, no log line, and no JSON, CSV,
// patch or HTML the dashboard produced.
// The same canary is a Flux HelmRelease's value too: taken from a valuesFrom
// Secret, kept by Helm's release storage (a helm.sh/release.v1 Secret) in the
// release's config, and put by the chart into a ConfigMap — the HelmRelease
// environment stores only keyed hashes of it.
import { responseText } from "@/test/support/response-text";
import { execFileSync } from "node:child_process";
import zlib from "node:zlib";
import { parseAllDocuments } from "yaml";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { NextRequest } from "next/server";
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createCollectorFixture, deploymentYaml, KUBECTL_UA, type CollectorFixture } from "../support/collector-env";
import { pageHtml } from "../support/page-text";
import { resourcePath } from "@/lib/kube/discovery";
import { createTestSession, type TestSession } from "@/lib/auth/testing";
import { logger } from "@/lib/log";
import { getConfig, resetConfigCache, type DriftwatchConfig } from "@/lib/config";
import { syncConfigToDatabase } from "@/lib/collector";
import { runWith } from "../faults/support";
import { resetEnvCache } from "@/lib/env";
import * as dashboard from "@/lib/dashboard";
import * as contract from "@/lib/api/contract";
import { segmentsOfKey } from "@/lib/dashboard/object-key";
import { buildMetrics } from "@/lib/metrics";
import { POST as createClaim } from "@/app/api/claims/route";
import { HelmReleasePanel } from "@/components/helm/helm-release-panel";
import { getApplication } from "@/lib/dashboard/applications";
import { GET as getAdoptPatch } from "@/app/api/claims/[id]/adopt.patch/route";

const root = path.resolve(import.meta.dirname, "../..");
const CANARY = `canary-${randomBytes(12).toString("hex")}`;
const ROTATED = `rotated-${randomBytes(12).toString("hex")}`;
const IN_BROKEN_FILE = `broken-${randomBytes(12).toString("hex")}`;
const SECRET_KEY = "/Secret/shop/api-credentials";
const WORKER_KEY = "apps/Deployment/shop/worker";
const WORKER = deploymentYaml("worker", "shop/worker:2.0.0", 2);
const HELM_SETTINGS_KEY = "/ConfigMap/shop/web-settings";

/** Every form a leak could take. */
const needles = [CANARY, ROTATED, IN_BROKEN_FILE].flatMap((v) => [v, Buffer.from(v).toString("base64"), Buffer.from(v).toString("hex")]);

let f: CollectorFixture;
let config: DriftwatchConfig;
let admin: TestSession;
const outputs: Array<{ where: string; text: string }> = [];
const logLines: string[] = [];
const saved = { config: process.env.DRIFTWATCH_CONFIG };
const restore: Array<() => void> = [];

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return routeFiles(p);
    return e.name === "route.ts" ? [p] : [];
  });
}

type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

beforeAll(async () => {
  // Capture every log line at debug level: the app's logger, its children, and the console.
  const sym = pino.symbols.streamSym as unknown as keyof typeof logger;
  const stream = logger[sym];
  const level = logger.level;
  (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] = { write: (s: string) => void logLines.push(s) };
  logger.level = "debug";
  restore.push(() => {
    (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] = stream;
    logger.level = level;
  });
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    const original = console[method];
    console[method] = (...args: unknown[]) => {
      logLines.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
    };
    restore.push(() => {
      console[method] = original;
    });
  }

  const secret = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "api-credentials", namespace: "shop" },
    type: "Opaque",
    stringData: { PAYMENT_API_KEY: CANARY },
    data: { DB_PASSWORD: Buffer.from(CANARY).toString("base64") },
  };
  const api = deploymentYaml("api", "shop/api:1.4.0", 2);
  // A file where a Deployment sits between two Secrets: adopting the Deployment's drift must not carry their
  // text. Their values come first, right after the `---`: an ordinary diff's context would show them.
  const neighbour = (name: string) => ({ stringData: secret.stringData, data: secret.data, apiVersion: "v1", kind: "Secret", metadata: { name, namespace: "shop" }, type: "Opaque" });
  f = await createCollectorFixture({
    "envs/test/app.yaml": [api],
    "envs/test/secret.yaml": [secret],
    "envs/test/worker.yaml": [neighbour("worker-before"), WORKER, neighbour("worker-after")],
  });
  // A Secret file that does not parse, with the value on the line the parser complains about.
  f.repo.write("envs/test/broken-secret.yaml", `apiVersion: v1\nkind: Secret\nmetadata:\n  name: broken\n  namespace: shop\nstringData:\n  TOKEN: ${IN_BROKEN_FILE}\n   OTHER: [${IN_BROKEN_FILE}\n`);
  f.repo.commit("secrets");
  // Two environments on the same cluster and path, so comparisons have something to compare.
  const configFile = path.join(f.dir, "driftwatch.yaml");
  const environment = (name: string) => ({
    name,
    cluster: { kubeconfig: f.cluster.kubeconfigPath, context: "t-readonly" },
    namespaces: ["shop"],
    defaultNamespace: "shop",
    source: { repository: "shop", branch: "main", path: "envs/test" },
  });
  await seedHelmRelease();
  const helmEnvironment = { ...environment("helm"), source: { repository: "shop", branch: "main", path: "envs/helm" }, controller: { type: "flux", kind: "HelmRelease", namespace: "shop", name: "web" } };
  fs.writeFileSync(configFile, stringify({ repositories: [{ name: "shop", url: f.repo.dir }], environments: [environment("test"), environment("staging"), helmEnvironment] }));
  process.env.DRIFTWATCH_CONFIG = configFile;
  resetEnvCache();
  resetConfigCache();
  config = getConfig().config;
  await syncConfigToDatabase(f.db, config);

  await f.applyAsController([api, secret, neighbour("worker-before"), WORKER, neighbour("worker-after")]);
  await runWith({ db: f.db, dir: f.dir, config });
  await runWith({ db: f.db, dir: f.dir, config }, {}, "staging");
  // Someone rotates the value by hand with client-side `kubectl apply`: the new
  // value also sits in the last-applied-configuration annotation.
  const r = f.admin.discovery.lookup("v1", "Secret");
  if (!r) throw new Error("no secrets");
  const applied = { ...secret, stringData: { PAYMENT_API_KEY: ROTATED }, data: { DB_PASSWORD: Buffer.from(ROTATED).toString("base64") } };
  await f.admin.client.requestJson("PATCH", resourcePath(r, "shop", "api-credentials"), {
    body: { ...applied, metadata: { ...applied.metadata, annotations: { "kubectl.kubernetes.io/last-applied-configuration": JSON.stringify(applied) } } },
    contentType: "application/merge-patch+json",
    userAgent: KUBECTL_UA,
    query: { fieldManager: "kubectl-client-side-apply" },
  });
  // And someone scales the worker by hand: drift whose adoption patches a file shared with Secrets.
  const deployments = f.admin.discovery.lookup("apps/v1", "Deployment");
  if (!deployments) throw new Error("no deployments");
  // The memory request is the document's last line: the next document, a Secret, follows it.
  const workerContainer = { name: "worker", image: "shop/worker:2.0.0", env: [], resources: { requests: { cpu: "0.5", memory: "2Gi" } } };
  await f.admin.client.requestJson("PATCH", resourcePath(deployments, "shop", "worker"), {
    body: { spec: { replicas: 7, template: { spec: { containers: [workerContainer] } } } },
    contentType: "application/merge-patch+json",
    userAgent: KUBECTL_UA,
    query: { fieldManager: "kubectl-edit" },
  });
  const helm = await runWith({ db: f.db, dir: f.dir, config }, {}, "helm");
  expect(helm.status, JSON.stringify(helm.errors)).toBe("succeeded");
  const second = await runWith({ db: f.db, dir: f.dir, config });
  expect(second.errors.some((e) => e.path === "envs/test/broken-secret.yaml")).toBe(true);
  await runWith({ db: f.db, dir: f.dir, config }, {}, "staging");

  admin = await createTestSession(f.db, "admin", "canary-admin");
  const item = await f.db.driftItem.findFirstOrThrow({ where: { key: SECRET_KEY, resolvedAt: null } });
  const claim = await createClaim(
    new NextRequest("http://localhost/api/claims", {
      method: "POST",
      headers: { ...admin.headers, host: "localhost" },
      body: JSON.stringify({ driftItemIds: [item.id], reason: "rotating the payment key", duration: "4h", returnPath: "adopt" }),
    }),
    { params: Promise.resolve({}) },
  );
  expect(claim.status).toBe(201);
}, 120_000);

afterAll(async () => {
  while (restore.length) restore.pop()?.();
  if (saved.config === undefined) delete process.env.DRIFTWATCH_CONFIG;
  else process.env.DRIFTWATCH_CONFIG = saved.config;
  resetEnvCache();
  resetConfigCache();
  await f?.cleanup();
});

describe("canary Secret value", () => {
  it("is really there to be leaked: Git holds it and live holds it", async () => {
    expect(f.repo.git("show", "HEAD:envs/test/secret.yaml")).toContain(CANARY);
    const r = f.admin.discovery.lookup("v1", "Secret");
    if (!r) throw new Error("no secrets");
    const live = await f.admin.client.requestJson<{ data: Record<string, string> }>("GET", resourcePath(r, "shop", "api-credentials"));
    expect(Buffer.from(live.data.PAYMENT_API_KEY ?? "", "base64").toString()).toBe(ROTATED);
    // And the change was seen: a Secret drift item, masked.
    const item = await f.db.driftItem.findFirstOrThrow({ where: { key: SECRET_KEY, resolvedAt: null } });
    expect(JSON.stringify(item.changes)).toContain("(changed)");
  });

  it("is really there in the HelmRelease's release storage and the object its chart rendered, and Driftwatch compared that object", async () => {
    const secrets = f.admin.discovery.lookup("v1", "Secret");
    if (!secrets) throw new Error("no secrets");
    const storage = await f.admin.client.requestJson<{ data: { release: string } }>("GET", resourcePath(secrets, "shop", "sh.helm.release.v1.web.v1"));
    const release = JSON.parse(zlib.gunzipSync(Buffer.from(Buffer.from(storage.data.release, "base64").toString(), "base64")).toString()) as { config: Record<string, string> };
    expect(release.config.password).toBe(CANARY);
    const env = await f.db.environment.findUniqueOrThrow({ where: { name: "helm" } });
    const desired = await f.db.desiredObject.findMany({ where: { environmentId: env.id }, select: { key: true } });
    // The release manifest's object is the desired state, compared with live (equal: both masked the same way).
    expect(desired.map((d) => d.key)).toEqual([HELM_SETTINGS_KEY]);
    expect(await f.db.driftItem.count({ where: { environmentId: env.id, resolvedAt: null } })).toBe(0);
    const live = await f.db.liveObject.findFirstOrThrow({ where: { environmentId: env.id, key: HELM_SETTINGS_KEY } });
    const body = (await f.db.objectBlob.findUniqueOrThrow({ where: { hash: live.blobHash } })).body as { data: Record<string, string> };
    expect(body.data.greeting).toBe("hello");
    expect(body.data.password).toMatch(/^\(secret-derived [0-9a-f]{16}\)$/);
  });

  it("shows on the HelmRelease application's page as its chart, version, values diff and history, the values masked", async () => {
    const detail = await getApplication(f.db, "helm", "default");
    expect(contract.ApplicationDetailDto.parse(detail)).toEqual(detail);
    expect(detail.helm).toMatchObject({ releaseName: "web", storageNamespace: "shop", released: { revision: 1, status: "deployed", chart: { name: "web", version: "1.0.0" } }, declared: { chart: "web", version: "1.0.0" } });
    expect(detail.helm?.history).toEqual([expect.objectContaining({ revision: 1, status: "deployed", chartVersion: "1.0.0" })]);
    const html = renderToString(createElement(HelmReleasePanel, { release: detail.helm! }));
    const text = html.replace(/<!-- -->/g, "");
    expect(text).toContain("<strong>web</strong> 1.0.0 (app 1.0.0) · revision 1 · deployed");
    // Git's values (password from valuesFrom) against the release's: compared by keyed hash, equal here.
    expect(text).toContain("Git&#x27;s values are the released ones.");
    expect(text).toContain("revision 1 · deployed · chart 1.0.0");
    assertNoLeak([{ where: "the application page's Helm release", text: JSON.stringify(detail) + html }]);
  });

  it("is in no response of any GET route of the API", async () => {
    const env = await f.db.environment.findUniqueOrThrow({ where: { name: "test" } });
    const run = await f.db.collectionRun.findFirstOrThrow({ orderBy: { id: "desc" } });
    const claim = await f.db.divergenceClaim.findFirstOrThrow();
    const sha = env.approvedSha ?? "";
    const values: Record<string, string> = { env: "test", sha, username: admin.user.username };
    const idFor = (route: string) => (route.includes("/runs/") ? String(run.id) : route.includes("/claims/") ? claim.id : "00000000-0000-4000-8000-000000000000");
    const objectSegments = segmentsOfKey(SECRET_KEY).split("/");
    const extraQueries: Record<string, string[]> = {
      "/api/audit": ["", "format=csv", "format=jsonl"],
      "/api/timeline": ["", "format=csv", "format=md", "environment=test"],
      "/api/claims/[id]/adopt.patch": ["", "format=json"],
      "/api/compare": ["from=test&to=staging", "from=test&to=staging&mode=desired"],
      "/api/environments/[env]/drift": ["", "q=api-credentials", "kind=Secret"],
      "/api/commits/[sha]": [""],
    };
    let called = 0;
    for (const file of routeFiles(path.join(root, "app", "api"))) {
      const mod = (await import(file)) as Record<string, unknown>;
      const handler = mod.GET as Handler | undefined;
      if (typeof handler !== "function") continue;
      const rel = path.relative(path.join(root, "app"), path.dirname(file)).split(path.sep);
      const route = "/" + rel.join("/");
      if (route.startsWith("/api/auth/oidc")) continue; // redirects to an identity provider; no data
      const params: Record<string, string> = {};
      let objectIndex = 0;
      const segments = rel.map((seg) => {
        const dyn = /^\[(\w+)\]$/.exec(seg);
        if (!dyn) return seg;
        const name = dyn[1] ?? "";
        const value = ["group", "kind", "namespace", "name"].includes(name) ? (objectSegments[objectIndex++] ?? "_") : name === "id" ? idFor(route) : (values[name] ?? "x");
        params[name] = decodeURIComponent(value);
        return value;
      });
      for (const q of extraQueries[route] ?? [""]) {
        const url = `http://localhost/${segments.join("/")}${q ? `?${q}` : ""}`;
        const res = await handler(new NextRequest(url, { headers: { cookie: admin.cookie, host: "localhost" } }), { params: Promise.resolve(params) });
        const text = await responseText(res);
        expect(res.status, `GET ${url}: ${text.slice(0, 200)}`).toBeLessThan(500);
        outputs.push({ where: `GET ${url}`, text });
        called++;
      }
    }
    expect(called).toBeGreaterThanOrEqual(25);
    // The object route did serve the Secret (masked), so its absence below means something.
    expect(outputs.find((o) => o.where.includes("/objects/_/Secret/shop/api-credentials"))?.text).toContain("api-credentials");
    expect(outputs.find((o) => o.where.includes("adopt.patch?format=json"))?.text).toMatch(/Secrets are not adopted/);
    assertNoLeak(outputs);
  }, 60_000);

  it("is in no adopt patch, also when the adopted object shares its Git file with Secrets, and that patch applies", async () => {
    const item = await f.db.driftItem.findFirstOrThrow({ where: { key: WORKER_KEY, resolvedAt: null } });
    const claim = await createClaim(
      new NextRequest("http://localhost/api/claims", {
        method: "POST",
        headers: { ...admin.headers, host: "localhost" },
        body: JSON.stringify({ driftItemIds: [item.id], reason: "keep seven workers", duration: "4h", returnPath: "adopt" }),
      }),
      { params: Promise.resolve({}) },
    );
    expect(claim.status).toBe(201);
    const { id } = ((await claim.json()) as { claim: { id: string } }).claim;
    // The route reads the Git file from the mirrors in the data folder: the collections above kept them in f.dir.
    const savedDataDir = process.env.DRIFTWATCH_DATA_DIR;
    process.env.DRIFTWATCH_DATA_DIR = f.dir;
    resetEnvCache();
    let patch: string;
    try {
      const res = await getAdoptPatch(new NextRequest(`http://localhost/api/claims/${id}/adopt.patch`, { headers: { cookie: admin.cookie, host: "localhost" } }), {
        params: Promise.resolve({ id }),
      });
      patch = await res.text();
    } finally {
      if (savedDataDir === undefined) delete process.env.DRIFTWATCH_DATA_DIR;
      else process.env.DRIFTWATCH_DATA_DIR = savedDataDir;
      resetEnvCache();
    }
    // Made from the Git file itself, not the whole-object fallback.
    expect(patch).not.toContain("the defining file was not found");
    outputs.push({ where: "adopt patch of the worker", text: patch });
    // It is the real change to the shared file…
    expect(patch).toContain("+++ b/envs/test/worker.yaml");
    expect(patch).toMatch(/^-\s+replicas: 2$/m);
    expect(patch).toMatch(/^\+\s+replicas: 7$/m);
    expect(patch).toMatch(/^\+\s+memory: 2Gi$/m);
    // …with none of the neighbouring Secrets in it: not their values, not their documents.
    assertNoLeak([{ where: "adopt patch of the worker", text: patch }]);
    expect(patch).not.toMatch(/kind: Secret|worker-before|worker-after|stringData|PAYMENT_API_KEY|DB_PASSWORD/);
    // And it still applies to the repository as Git has it.
    const checkout = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-canary-apply-"));
    try {
      execFileSync("git", ["clone", "--quiet", f.repo.dir, checkout]);
      fs.writeFileSync(path.join(checkout, "adopt.patch"), patch);
      execFileSync("git", ["apply", "-p1", "adopt.patch"], { cwd: checkout });
      const applied = fs.readFileSync(path.join(checkout, "envs/test/worker.yaml"), "utf8");
      expect(applied).toMatch(/replicas: 7[\s\S]*memory: 2Gi/);
      expect(applied).toContain(CANARY); // the Secrets around it are untouched
    } finally {
      fs.rmSync(checkout, { recursive: true, force: true });
    }
  });

  it("is in nothing the dashboard's page loaders return, nor in the HTML of the pages that show them", async () => {
    const db = f.db;
    const env = await db.environment.findUniqueOrThrow({ where: { name: "test" } });
    const run = await db.collectionRun.findFirstOrThrow({ orderBy: { id: "desc" } });
    const loaded: Record<string, unknown> = {
      environments: await dashboard.listEnvironments(db, { path: "driftwatch.yaml", exists: true, declared: 1 }),
      detail: await dashboard.getEnvironmentDetail(db, "test"),
      drift: await dashboard.listDrift(db, "test", contract.driftQuerySchema.parse({})),
      object: await dashboard.getObjectDetail(db, "test", SECRET_KEY),
      commit: await dashboard.lookupCommit(db, env.approvedSha ?? ""),
      lineage: await dashboard.getLineage(db),
      timeline: await dashboard.getTimeline(db, contract.timelineQuerySchema.parse({})),
      compare: await dashboard.compareEnvironments(db, contract.compareQuerySchema.parse({ from: "test", to: "staging" })),
      metrics: await dashboard.getMetrics(db, 30),
      run: await dashboard.getRun(db, run.id),
      prometheus: await (await buildMetrics(db)).metrics(),
    };
    for (const [name, value] of Object.entries(loaded)) outputs.push({ where: `loader ${name}`, text: typeof value === "string" ? value : JSON.stringify(value) });

    // HTML: each page hands its loader's result to a client component; render those to strings
    // (with the router contexts a page has), as the server does for the first paint.
    const { EnvironmentsClient } = await import("@/app/environments-client");
    const { EnvironmentClient } = await import("@/app/environments/[env]/environment-client");
    const { ObjectClient } = await import("@/app/environments/[env]/objects/[...key]/object-client");
    const { CommitClient } = await import("@/app/commits/[sha]/commit-client");
    const { LineageClient } = await import("@/app/lineage/lineage-client");
    const { TimelineClient } = await import("@/app/timeline/timeline-client");
    const { CompareClient } = await import("@/app/compare/compare-client");
    const { MetricsClient } = await import("@/app/metrics/metrics-client");
    const pages: Array<[string, ReturnType<typeof createElement>]> = [
      ["/", createElement(EnvironmentsClient, { initial: loaded.environments as contract.EnvironmentListDto })],
      ["/environments/test", createElement(EnvironmentClient, { initial: loaded.detail as contract.EnvironmentDetailDto, initialDrift: loaded.drift as contract.DriftListDto, initialFilters: "" })],
      ["/environments/test/objects/_/Secret/shop/api-credentials", createElement(ObjectClient, { initial: loaded.object as contract.ObjectDetailDto })],
      ["/commits/x", createElement(CommitClient, { sha: env.approvedSha ?? "", initial: loaded.commit as contract.CommitLookupDto, now: new Date().toISOString() })],
      ["/lineage", createElement(LineageClient, { initial: loaded.lineage as contract.LineageDto })],
      ["/timeline", createElement(TimelineClient, { initial: loaded.timeline as contract.TimelineDto, initialParams: "", problem: null })],
      ["/compare", createElement(CompareClient, { environments: ["test", "staging"], initial: loaded.compare as contract.CompareDto, initialParams: "from=test&to=staging", problem: null })],
      ["/metrics", createElement(MetricsClient, { initial: loaded.metrics as contract.MetricsDto })],
    ];
    for (const [pathname, node] of pages) outputs.push({ where: `HTML ${pathname}`, text: await pageHtml(node, pathname) });
    // The pages that show the Secret did render it (masked), so its values' absence means something.
    expect(outputs.find((o) => o.where === "HTML /environments/test/objects/_/Secret/shop/api-credentials")?.text).toMatch(/api-credentials[\s\S]*PAYMENT_API_KEY/);
    expect(outputs.find((o) => o.where === "HTML /environments/test")?.text).toContain("api-credentials");
    assertNoLeak(outputs);
  });

  it("is in no column of any table", async () => {
    const columns = await f.db.$queryRaw<Array<{ table: string; column: string }>>`
      SELECT table_name AS table, column_name AS column FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name <> '_prisma_migrations'`;
    expect(columns.length).toBeGreaterThan(100);
    const tables = new Set(columns.map((c) => c.table));
    expect([...tables]).toEqual(expect.arrayContaining(["ObjectBlob", "DriftItem", "CollectionRun", "AuditEvent", "Environment", "ObjectVersion", "Alert"]));
    // Non-empty where a leak would land.
    for (const t of ["ObjectBlob", "DriftItem", "CollectionRun", "AuditEvent", "DesiredObject", "LiveObject"]) {
      const n = await f.db.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM "${t}"`);
      expect(n[0]?.n, t).toBeGreaterThan(0);
    }
    const hits: string[] = [];
    for (const { table, column } of columns) {
      for (const needle of needles) {
        const rows = await f.db.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM "${table}" WHERE "${column}"::text ILIKE $1`, `%${needle}%`);
        if ((rows[0]?.n ?? 0) > 0) hits.push(`${table}.${column} contains ${needle}`);
      }
    }
    expect(hits).toEqual([]);
  }, 60_000);

  it("is in no log line", () => {
    expect(logLines.length).toBeGreaterThan(0);
    assertNoLeak(logLines.map((text, i) => ({ where: `log line ${i}`, text })));
  });
});

function assertNoLeak(texts: Array<{ where: string; text: string }>): void {
  const hits: string[] = [];
  for (const { where, text } of texts) {
    const lower = text.toLowerCase();
    for (const n of needles) if (lower.includes(n.toLowerCase())) hits.push(`${where} contains ${n}`);
  }
  expect(hits).toEqual([]);
}

/**
 * A HelmRelease in Git (envs/helm) whose values come partly from a Secret
 * holding the canary, and what helm-controller would have left in the
 * cluster: the values Secret, Helm's release storage (the canary in the
 * release's config and, through the chart's template, in its manifest), the
 * ConfigMap the release created, and the HelmRelease with its history.
 */
async function seedHelmRelease(): Promise<void> {
  const crd = parseAllDocuments(fs.readFileSync(path.join(root, "test/fixtures/flux-crds/helm.toolkit.fluxcd.io_helmreleases.yaml"), "utf8"))[0]?.toJSON() as Record<string, unknown>;
  await f.installCrds([crd]);
  const helmRelease = {
    apiVersion: "helm.toolkit.fluxcd.io/v2",
    kind: "HelmRelease",
    metadata: { name: "web", namespace: "shop" },
    spec: { interval: "5m", chart: { spec: { chart: "web", version: "1.0.0", sourceRef: { kind: "HelmRepository", name: "charts" } } }, valuesFrom: [{ kind: "Secret", name: "web-values" }], values: { greeting: "hello" } },
  };
  f.repo.write("envs/helm/release.yaml", stringify(helmRelease));
  f.repo.commit("web: a HelmRelease");
  const settings = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "web-settings", namespace: "shop", labels: { "helm.toolkit.fluxcd.io/name": "web", "helm.toolkit.fluxcd.io/namespace": "shop" } }, data: { greeting: "hello", password: CANARY } };
  const release = {
    name: "web",
    namespace: "shop",
    version: 1,
    info: { status: "deployed", last_deployed: "2026-12-01T10:00:00Z", description: "Install complete" },
    chart: { metadata: { name: "web", version: "1.0.0", appVersion: "1.0.0" } },
    config: { password: CANARY, greeting: "hello" },
    manifest: `---\n# Source: web/templates/settings.yaml\n${stringify(settings)}`,
  };
  const stored = Buffer.from(zlib.gzipSync(Buffer.from(JSON.stringify(release))).toString("base64")).toString("base64");
  await f.seed(
    [
      { apiVersion: "v1", kind: "Secret", metadata: { name: "web-values", namespace: "shop" }, type: "Opaque", data: { "values.yaml": Buffer.from(`password: ${CANARY}\n`).toString("base64") } },
      { apiVersion: "v1", kind: "Secret", metadata: { name: "sh.helm.release.v1.web.v1", namespace: "shop", labels: { owner: "helm", name: "web", status: "deployed", version: "1" } }, type: "helm.sh/release.v1", data: { release: stored } },
    ],
    "kubectl",
  );
  await f.seed([settings], "helm-controller");
  await f.applyAsController([helmRelease]);
}
