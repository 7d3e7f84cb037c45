// Delivery metrics over environments that only discover their applications:
// the Flux fleet (test/fixtures/estates/flux-fleet) committed into a real Git
// repository, its staging and production clusters reconciled as Flux would,
// each collected by real runs on a clock the test sets. The metrics page's
// lead time per hop and stale time come from the applications, since the
// environments' own revisions describe none of them: a commit's staging →
// production hop is timed by the applications that carry it, and production
// is stale while any of its applications is behind.
//
// Prometheus's per-application series name the application that is behind or
// failing where the environment's series can only say that one is.
//
// Two kubesim clusters (staging and production hold Flux objects of the same
// names, so the two environments cannot share one real server's namespace).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startClusterServer, type TestCluster } from "../support/clusters";
import { applyFleetAsFlux, commitFluxFleet, installControllerCrds, kubectlFor, reconcileFleetProduction, type Kubectl } from "../support/estate-kube";
import { TestRepo } from "@/lib/git/test-support/repo-fixture";
import { parseConfig, type DriftwatchConfig } from "@/lib/config";
import { getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { collectorContext, enqueueRun, executeRun, leaseRunById, syncConfigToDatabase } from "@/lib/collector";
import { getMetrics } from "@/lib/dashboard/metrics";
import { logger } from "@/lib/log";
import { buildMetrics } from "@/lib/metrics/prometheus";
import { seedEnvironment, seedShop } from "../fixtures/dashboard";

const FLEET_URL = "https://git.example.com/acme/flux-fleet.git";
const H = 3_600_000;
const STAGING_KUSTOMIZATIONS = ["flux-system", "infra-controllers", "infra-configs", "apps"];
const PRODUCTION_KUSTOMIZATIONS = [...STAGING_KUSTOMIZATIONS, "shop-api", "shop-cart", "shop-web", "shop-worker"];

const db = getPrisma();
let dir: string;
let staging: TestCluster;
let production: TestCluster;
let fleet: TestRepo;
let config: DriftwatchConfig;
const kubectl = { staging: kubectlFor(() => staging), production: kubectlFor(() => production) };

/** The fleet's staging cluster once Flux has reconciled it: one Kustomization `apps` over the staging overlay. */
async function reconcileFleetStaging(k: Kubectl, cluster: TestCluster): Promise<void> {
  await installControllerCrds(k, cluster, { argocd: false });
  await k(["create", "namespace", "flux-system"]);
  await applyFleetAsFlux(k, "clusters/staging");
  await applyFleetAsFlux(k, "infrastructure/controllers");
  await applyFleetAsFlux(k, "infrastructure/configs", { cluster_env: "staging" });
  await applyFleetAsFlux(k, "apps/staging");
}

/** What kustomize-controller reports once it has applied `sha` for each named Kustomization. */
async function fluxApplied(k: Kubectl, names: readonly string[], sha: string): Promise<void> {
  const status = JSON.stringify({ status: { lastAppliedRevision: `main@sha1:${sha}` } });
  for (const name of names) await k(["-n", "flux-system", "patch", "kustomization", name, "--subresource=status", "--type=merge", "-p", status]);
}

/** One run of the environment as a worker does it, with the collector's clock at `at`. */
async function collect(environment: string, at: Date): Promise<void> {
  await syncConfigToDatabase(db, config);
  const env = await db.environment.findUniqueOrThrow({ where: { name: environment } });
  const runId = await enqueueRun(db, env.id, "test");
  const leased = await leaseRunById(db, runId, "test-worker", 60_000, at);
  if (!leased) throw new Error("could not lease the run");
  const ctx = collectorContext(db, config, { mirrorsDir: path.join(dir, "mirrors"), secretKey: Buffer.from("test-instance-key-0123456789abcdef"), log: logger.child({ test: true }), now: () => at });
  const outcome = await executeRun(ctx, leased, "test-worker", 60_000);
  expect(outcome.errors.filter((e) => e.severity !== "warning"), `${environment} at ${at.toISOString()}`).toEqual([]);
}

/** GET /api/metrics's series as Prometheus would read them at `now`: one value by name and labels. */
async function scrape(now: Date): Promise<(name: string, labels: Record<string, string>) => number | undefined> {
  const series = await (await buildMetrics(db, now)).getMetricsAsJSON();
  return (name, labels) =>
    series.find((m) => m.name === name)?.values.find((v) => Object.entries(labels).every(([k, x]) => (v.labels as Record<string, unknown>)[k] === x))?.value;
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-metrics-discovered-"));
  const server = await startClusterServer("kubesim");
  fs.mkdirSync(path.join(dir, "staging"));
  fs.mkdirSync(path.join(dir, "production"));
  staging = await server.forCase(path.join(dir, "staging"));
  production = await server.forCase(path.join(dir, "production"));
  fleet = TestRepo.create("flux-fleet");
  const discovered = (name: string, cluster: TestCluster) => ({ name, cluster: { kubeconfig: cluster.kubeconfigPath, context: "t-readonly" }, extraKinds: [], discover: { flux: {} } });
  config = parseConfig(
    stringify({
      repositories: [{ name: "fleet", url: fleet.dir, aliases: [FLEET_URL] }],
      environments: [discovered("staging", staging), discovered("production", production)],
    }),
  );
  await resetDatabase(db);
  await reconcileFleetStaging(kubectl.staging, staging);
  await reconcileFleetProduction(kubectl.production, production);
}, 180_000);

afterAll(async () => {
  await staging?.release();
  await production?.release();
  fleet?.cleanup();
  fs.rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe("delivery metrics of discovered environments", () => {
  it("time staging → production from the applications, and count production stale while any application is behind", async () => {
    // The estate's commit, then Flux in each cluster applying it: staging an hour later, production two.
    commitFluxFleet(fleet);
    const estate = fleet.head();
    // Whole seconds: Git keeps commit dates to the second.
    const t0 = Math.ceil(Date.now() / 1000) * 1000;
    const at = (hours: number) => new Date(t0 + hours * H);
    await fluxApplied(kubectl.staging, STAGING_KUSTOMIZATIONS, estate);
    await fluxApplied(kubectl.production, PRODUCTION_KUSTOMIZATIONS, estate);
    await collect("staging", at(1));
    await collect("production", at(2));

    // A change to the cluster settings both clusters apply (infra-configs): staging has it an hour after, production five.
    fleet.write("infrastructure/configs/README.md", "# cluster settings\n");
    const settings = fleet.commit("infra-configs: a readme", { date: at(3) });
    await fluxApplied(kubectl.staging, STAGING_KUSTOMIZATIONS, settings);
    await collect("staging", at(4));
    await collect("production", at(5));
    // Prometheus, then: production waits on one application, named; the HelmRelease nobody's Kustomization
    // declares cannot be collected, though production's run succeeded.
    const gauges = await scrape(at(5));
    expect(gauges("driftwatch_environment_seconds_behind", { environment: "production" })).toBe(2 * 3600);
    expect(gauges("driftwatch_application_seconds_behind", { environment: "production", application: "flux-system/infra-configs" })).toBe(2 * 3600);
    expect(gauges("driftwatch_application_seconds_behind", { environment: "production", application: "flux-system/shop-api" })).toBe(0);
    expect(gauges("driftwatch_application_seconds_behind", { environment: "staging", application: "flux-system/infra-configs" })).toBe(0);
    expect(gauges("driftwatch_environment_failing", { environment: "production" })).toBe(0);
    expect(gauges("driftwatch_application_failing", { environment: "production", application: "ingress-nginx/ingress-nginx" })).toBe(1);
    expect(gauges("driftwatch_application_failing", { environment: "production", application: "flux-system/infra-configs" })).toBe(0);
    // A change to production's api only (staging's one `apps` Kustomization does not follow production's files).
    fleet.write("apps/production/api/README.md", "# shop-api\n");
    const api = fleet.commit("api: a readme", { date: at(6) });
    await fluxApplied(kubectl.production, PRODUCTION_KUSTOMIZATIONS, api);
    await collect("production", at(8));

    const estateAt = (await db.revision.findFirstOrThrow({ where: { sha: estate } })).committedAt.getTime();
    const m = await getMetrics(db, 7, at(10));
    const hop = (from: string | null, to: string) => m.leadTime.find((h) => h.from === from && h.to === to);
    // Hops into discovered environments appear, in promotion order. The estate's commit counts once per hop,
    // although four applications (flux-system, infra-controllers, infra-configs, apps) carry it from staging on.
    expect(m.leadTime.map((h) => [h.from, h.to])).toEqual([
      [null, "staging"],
      [null, "production"],
      ["staging", "production"],
    ]);
    expect(hop(null, "staging")).toEqual({ from: null, to: "staging", samples: 2, medianMs: 1 * H, p90Ms: at(1).getTime() - estateAt, maxMs: at(1).getTime() - estateAt });
    // estate → production two hours after staging's first look; the api's readme went straight to production (its
    // application is production's alone), two hours after it was committed.
    expect(hop(null, "production")).toEqual({ from: null, to: "production", samples: 2, medianMs: 2 * H, p90Ms: at(2).getTime() - estateAt, maxMs: at(2).getTime() - estateAt });
    // estate: staging at +1 h, production at +2 h; the settings: staging at +4 h, production at +8 h.
    expect(hop("staging", "production")).toEqual({ from: "staging", to: "production", samples: 2, medianMs: 1 * H, p90Ms: 4 * H, maxMs: 4 * H });

    // Stale time, per environment, the union of its applications' waits: production's infra-configs waited for the
    // settings from +3 h to +8 h; its apps and shop-api for the api's readme from +6 h to +8 h, inside that period.
    // (A sum would say 9 h.)
    const staleOf = (environment: string) => m.staleTime.find((s) => s.environment === environment);
    expect(staleOf("production")).toEqual({ environment: "production", totalMs: 5 * H, intervals: [{ start: at(3).toISOString(), end: at(8).toISOString() }] });
    expect(staleOf("staging")).toEqual({ environment: "staging", totalMs: 1 * H, intervals: [{ start: at(3).toISOString(), end: at(4).toISOString() }] });
    expect(m.staleTime.map((s) => s.environment)).toEqual(["staging", "production"]);

    // Narrowed to infra-configs, the figures are that application's own (as before).
    const settingsOnly = await getMetrics(db, 7, at(10), "infra-configs");
    expect(settingsOnly.leadTime.find((h) => h.from === "staging")).toMatchObject({ samples: 2, maxMs: 4 * H });
    expect(settingsOnly.staleTime.find((s) => s.environment === "production")?.totalMs).toBe(5 * H);
  }, 180_000);
});

describe("delivery metrics where a discovered environment follows environments with a source of their own", () => {
  it("times the hop from the last such environment to the discovered one, and leaves their own figures as they were", async () => {
    // The shop (test → staging → production, each `source:` over one folder of the shop repository), then a
    // discovered production-eu whose one application follows production's folder and runs api 1.3 since 20 h ago.
    await resetDatabase(db);
    const shop = await seedShop(db);
    const ago = (hours: number) => new Date(shop.now.getTime() - hours * H);
    const before = await getMetrics(db, 7, shop.now);
    const eu = await seedEnvironment(db, { name: "production-eu", position: 3, repositoryId: null, branch: "", path: "" });
    const api = await db.application.create({
      data: {
        environmentId: eu.id,
        name: "flux-system/api",
        promotionKey: "api",
        kind: "flux-kustomization",
        spec: {},
        sources: [{ repository: "shop", url: "https://git.example.com/acme/shop.git", ref: { branch: "main" }, path: "deploy/production" }],
        approvedSha: shop.commits.apiProd14,
        appliedSha: shop.commits.apiProd13,
        appliedSince: ago(20),
        appliedBehind: true,
        firstSeenAt: ago(14 * 24),
      },
    });
    await db.appliedRevision.createMany({
      data: [
        { environmentId: eu.id, applicationId: api.id, sha: shop.commits.init, source: "controller", firstSeenAt: ago(14 * 24), lastSeenAt: ago(20), endedAt: ago(20) },
        { environmentId: eu.id, applicationId: api.id, sha: shop.commits.apiProd13, source: "controller", firstSeenAt: ago(20), lastSeenAt: shop.now, endedAt: null },
      ],
    });

    const m = await getMetrics(db, 7, shop.now);
    // api 1.3's production commit: live in production 10 min after it was made (24 h ago), in production-eu 20 h ago.
    // Its test and staging commits (a change made in test is timed from test) went live in production with the same
    // revision and reached production-eu with it: three samples of the one hop, all 3 h 50 min.
    // api 1.4's has not reached production-eu: no sample.
    expect(m.leadTime.filter((h) => h.to === "production-eu")).toEqual([{ from: "production", to: "production-eu", samples: 3, medianMs: 4 * H - 10 * 60_000, p90Ms: 4 * H - 10 * 60_000, maxMs: 4 * H - 10 * 60_000 }]);
    // production-eu stale while its application waited: for api 1.3 (committed 24 h ago) until 20 h ago, and for api 1.4
    // since it was committed 2.5 h ago.
    expect(m.staleTime.find((s) => s.environment === "production-eu")).toEqual({
      environment: "production-eu",
      totalMs: 6.5 * H,
      intervals: [
        { start: ago(24).toISOString(), end: ago(20).toISOString() },
        { start: ago(2.5).toISOString(), end: shop.now.toISOString() },
      ],
    });
    // The environments with a source of their own: the same figures as before production-eu existed.
    expect(m.leadTime.filter((h) => h.to !== "production-eu")).toEqual(before.leadTime);
    expect(m.staleTime.filter((s) => s.environment !== "production-eu")).toEqual(before.staleTime);
  });
});
