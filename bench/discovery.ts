// Discovery of 300 controller objects (Flux Kustomizations and HelmReleases,
// Argo CD Applications, with the GitRepositories and HelmRepositories they
// name) on kubesim (in a process of its own) and on a real kube-apiserver
// (tools/realkube), each beside a same-run baseline: a bare paged list of the
// same kinds from the same server. Samples alternate discovery and baseline,
// so load on the shared machine falls on both.
//
//   npx tsx bench/discovery.ts [--objects 300] [--samples 30] [--servers kubesim,kube-apiserver]
//
// Prints one JSON line: per server, the median and p95 of each, their ratio,
// and whether discovery's median met the target (≤ 200 ms).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseAllDocuments } from "yaml";
import { ARGOCD_APPLICATION_CRD } from "@driftwatch/kubesim";
import { discoverApplications } from "../lib/applications/discover";
import { discoverSchema } from "../lib/applications/discovery-config";
import { createClusterClient, type ClusterClient } from "../lib/kube/client";
import { discover, type Discovery } from "../lib/kube/discovery";
import { listPaged } from "../lib/kube/list";
import { startRealKube } from "../tools/realkube/cluster";
import { startBenchCluster } from "./support/cluster";
import { loadAverage, median, percentile, round, runIfMain, stringArg } from "./support/stats";

const TARGET_MS = 200;
const FLUX_CRDS = path.resolve(import.meta.dirname, "../test/fixtures/flux-crds");

export interface DiscoveryServerResult {
  server: "kubesim" | "kube-apiserver";
  controllerObjects: number;
  sourceObjects: number;
  applications: number;
  samples: number;
  discovery: { medianMs: number; p95Ms: number };
  baseline: { medianMs: number; p95Ms: number };
  ratio: number;
  seedMs: number;
}

export interface DiscoveryBenchResult {
  servers: DiscoveryServerResult[];
  loadAverage1m: number;
  target: { maxMedianMs: number; met: boolean };
}

type Obj = Record<string, unknown>;

function crds(): Obj[] {
  const flux = fs
    .readdirSync(FLUX_CRDS)
    .filter((f) => f.endsWith(".yaml"))
    .flatMap((f) => parseAllDocuments(fs.readFileSync(path.join(FLUX_CRDS, f), "utf8")).map((d) => d.toJSON() as Obj));
  return [...flux, ARGOCD_APPLICATION_CRD];
}

/** An estate of `count` controller objects: two thirds Kustomizations over five tenants, the rest HelmReleases and hub Applications. */
function estate(count: number): { namespaces: Obj[]; sources: Obj[]; controllers: Obj[] } {
  const tenants = ["flux-system", "team-a", "team-b", "team-c", "team-d"];
  const namespaces = [...tenants, "argocd"].map((name) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } }));
  const sources: Obj[] = tenants.flatMap((ns) => [
    ...[0, 1, 2, 3].map((i) => ({ apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", metadata: { name: `repo-${i}`, namespace: ns }, spec: { interval: "1m", url: `https://git.example.com/${ns}/repo-${i}.git`, ref: { branch: "main" } } })),
    { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "HelmRepository", metadata: { name: "charts", namespace: ns }, spec: { interval: "1h", url: `https://charts.example.com/${ns}` } },
  ]);
  const kustomizations = Math.round((count * 2) / 3);
  const helmReleases = Math.round((count - kustomizations) / 2);
  const applications = count - kustomizations - helmReleases;
  const controllers: Obj[] = [];
  for (let i = 0; i < kustomizations; i++) {
    const ns = tenants[i % tenants.length];
    controllers.push({ apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", metadata: { name: `app-${i}`, namespace: ns, labels: { tier: i % 3 === 0 ? "infra" : "apps" } }, spec: { interval: "10m", path: `./apps/app-${i}/production`, prune: true, sourceRef: { kind: "GitRepository", name: `repo-${i % 4}` } } });
  }
  for (let i = 0; i < helmReleases; i++) {
    const ns = tenants[i % tenants.length];
    controllers.push({ apiVersion: "helm.toolkit.fluxcd.io/v2", kind: "HelmRelease", metadata: { name: `release-${i}`, namespace: ns }, spec: { interval: "30m", chart: { spec: { chart: `chart-${i % 7}`, version: "1.x", sourceRef: { kind: "HelmRepository", name: "charts" } } } } });
  }
  for (let i = 0; i < applications; i++) {
    controllers.push({
      apiVersion: "argoproj.io/v1alpha1",
      kind: "Application",
      metadata: { name: `svc-${i}`, namespace: "argocd" },
      spec: { project: "default", source: { repoURL: "https://git.example.com/acme/gitops.git", targetRevision: "main", path: `services/svc-${i}/production` }, destination: { name: i % 2 === 0 ? "production" : "staging", namespace: "shop" } },
    });
  }
  return { namespaces, sources, controllers };
}

const targets = [
  { environment: "production", discover: discoverSchema.parse({ flux: {}, argocd: { destination: { name: "production" } } }) },
  { environment: "staging", discover: discoverSchema.parse({ argocd: { destination: { name: "staging" } } }) },
];
const catalog = { repositories: [], credentials: [{ urlPrefix: "https://git.example.com", auth: { type: "token" as const, tokenEnv: "GIT_TOKEN", username: "x-access-token" } }] };

async function create(client: ClusterClient, discovery: () => Promise<Discovery>, objects: Obj[]): Promise<void> {
  let d = await discovery();
  for (let i = 0; i < objects.length; i += 20) {
    await Promise.all(
      objects.slice(i, i + 20).map(async (o) => {
        let r = d.lookup(String(o.apiVersion), String(o.kind));
        if (!r) {
          d = await discovery();
          r = d.lookup(String(o.apiVersion), String(o.kind));
        }
        if (!r) throw new Error(`${String(o.kind)} is not served`);
        const ns = r.namespaced ? `/namespaces/${(o.metadata as { namespace: string }).namespace}` : "";
        const prefix = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
        await client.requestJson("POST", `${prefix}${ns}/${r.resource}`, { body: o });
      }),
    );
  }
}

async function waitServed(client: ClusterClient, kinds: string[]): Promise<Discovery> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const d = await discover(client);
    if (kinds.every((k) => d.byGroupKind.has(k))) return d;
    if (Date.now() > deadline) throw new Error(`not served after 60 s: ${kinds.filter((k) => !d.byGroupKind.has(k)).join(", ")}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const LISTED = ["kustomize.toolkit.fluxcd.io/Kustomization", "helm.toolkit.fluxcd.io/HelmRelease", "argoproj.io/Application", "source.toolkit.fluxcd.io/GitRepository", "source.toolkit.fluxcd.io/HelmRepository"];

async function measure(server: DiscoveryServerResult["server"], client: ClusterClient, count: number, samples: number): Promise<DiscoveryServerResult> {
  const seedStart = performance.now();
  const { namespaces, sources, controllers } = estate(count);
  await create(client, () => discover(client), [...namespaces, ...crds()]);
  const discovery = await waitServed(client, LISTED);
  await create(client, async () => discovery, [...sources, ...controllers]);
  const seedMs = performance.now() - seedStart;

  const baseline = async () => {
    // The same kinds, listed bare: what any reader of these objects pays at least.
    const counts = await Promise.all(
      LISTED.map(async (key) => {
        const r = discovery.byGroupKind.get(key);
        if (!r) throw new Error(`${key} is not served`);
        let n = 0;
        await listPaged(client, r, {}, (items) => {
          n += items.length;
        });
        return n;
      }),
    );
    return counts.reduce((a, b) => a + b, 0);
  };
  const run = () => discoverApplications(client, discovery, targets, catalog);

  // Warm-up: connections, JIT, the server's caches.
  let applications = 0;
  for (let i = 0; i < 3; i++) {
    await baseline();
    const outcome = await run();
    applications = [...outcome.applications.values()].reduce((n, a) => n + a.length, 0);
    if (outcome.warnings.length > 0) throw new Error(`unexpected warnings: ${outcome.warnings.map((w) => w.message).join("; ")}`);
  }
  if (applications !== count) throw new Error(`discovered ${applications} applications of ${count}`);
  const d: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < samples; i++) {
    // Alternating order so neither always runs on the warmer server.
    const first = i % 2 === 0;
    for (const which of first ? ["d", "b"] : ["b", "d"]) {
      const t = performance.now();
      if (which === "d") await run();
      else await baseline();
      (which === "d" ? d : b).push(performance.now() - t);
    }
  }
  return {
    server,
    controllerObjects: controllers.length,
    sourceObjects: sources.length,
    applications,
    samples,
    discovery: { medianMs: round(median(d), 1), p95Ms: round(percentile(d, 0.95), 1) },
    baseline: { medianMs: round(median(b), 1), p95Ms: round(percentile(b, 0.95), 1) },
    ratio: round(median(d) / median(b), 2),
    seedMs: round(seedMs),
  };
}

export async function main(opts: { objects?: number; samples?: number; servers?: string[] } = {}): Promise<DiscoveryBenchResult> {
  const count = opts.objects ?? 300;
  const samples = opts.samples ?? 30;
  const servers = opts.servers ?? ["kubesim", "kube-apiserver"];
  const results: DiscoveryServerResult[] = [];
  if (servers.includes("kubesim")) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-discovery-"));
    const sim = await startBenchCluster(dir);
    try {
      results.push(await measure("kubesim", sim.client, count, samples));
    } finally {
      await sim.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  if (servers.includes("kube-apiserver")) {
    const kube = await startRealKube();
    try {
      const client = createClusterClient({ kubeconfig: kube.kubeconfigPath, context: "realkube" }, { timeoutMs: 60_000 });
      results.push(await measure("kube-apiserver", client, count, samples));
    } finally {
      await kube.stop();
    }
  }
  const result: DiscoveryBenchResult = {
    servers: results,
    loadAverage1m: loadAverage(),
    target: { maxMedianMs: TARGET_MS, met: results.every((r) => r.discovery.medianMs <= TARGET_MS) },
  };
  console.log(JSON.stringify(result));
  return result;
}

runIfMain(import.meta.url, () =>
  main({
    objects: stringArg("objects") ? Number(stringArg("objects")) : undefined,
    samples: stringArg("samples") ? Number(stringArg("samples")) : undefined,
    servers: stringArg("servers")?.split(","),
  }),
);
