// GET /api/metrics after real collections on the imitation: drift by type and
// ownership, seconds behind, run outcomes, failures by category, the duration
// histogram, open alerts and webhook deliveries, all read from Postgres.
import { NextRequest } from "next/server";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resetEnvCache } from "@/lib/env";
import { createTestSession } from "@/lib/auth/testing";
import { createCollectorFixture, deploymentYaml, KUBECTL_UA, type CollectorFixture } from "@/test/support/collector-env";
import { resourcePath } from "@/lib/kube/discovery";
import { appendAudit } from "@/lib/audit";
import { buildMetrics, DURATION_BUCKETS } from "./prometheus";
import { RunTotals } from "./run-totals";
import { GET } from "@/app/api/metrics/route";

type Sample = { name: string; labels: Record<string, string>; value: number };

function parse(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not Prometheus text: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

function value(samples: Sample[], name: string, labels: Record<string, string>): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

let f: CollectorFixture;
const api = deploymentYaml("api", "shop/api:1.4.0", 3);
const web = deploymentYaml("web", "shop/web:2.0.0", 2);

beforeEach(async () => {
  f = await createCollectorFixture({ "envs/test/app.yaml": [api, web] });
  await f.applyAsController([api, web]);
});
afterEach(async () => {
  await f.cleanup();
});

const TOKEN = "metrics-token-for-tests-0123456789";
const scrape = (authorization?: string, cookie?: string) =>
  new NextRequest("http://localhost/api/metrics", { headers: { host: "localhost", ...(authorization ? { authorization } : {}), ...(cookie ? { cookie } : {}) } });

describe("GET /api/metrics", () => {
  beforeAll(() => {
    process.env.DRIFTWATCH_METRICS_TOKEN = TOKEN;
    resetEnvCache();
  });
  afterAll(() => {
    delete process.env.DRIFTWATCH_METRICS_TOKEN;
    resetEnvCache();
  });

  it("reports drift, runs, failures, durations, alerts and webhooks from the database", async () => {
    await f.run();
    const r = f.admin.discovery.lookup("apps/v1", "Deployment");
    if (!r) throw new Error("no deployments");
    for (const name of ["api", "web"]) {
      await f.admin.client.requestJson("PATCH", resourcePath(r, "shop", name) + "/scale", { body: { spec: { replicas: 9 } }, contentType: "application/merge-patch+json", userAgent: KUBECTL_UA });
    }
    await f.run();
    // One of the two drifted objects is claimed by someone.
    const items = await f.db.driftItem.findMany({ where: { resolvedAt: null }, orderBy: { key: "asc" } });
    expect(items).toHaveLength(2);
    const owner = await f.db.user.create({ data: { username: "oncall", role: "operator" } });
    await f.db.divergenceClaim.create({
      data: { ownerId: owner.id, createdById: owner.id, reason: "load test", expiresAt: new Date(Date.now() + 3_600_000), returnPath: "revert", items: { create: [{ driftItemId: items[0]!.id }] } },
    });
    await f.cluster.faults.unavailable("refuse");
    await f.run();
    await f.cluster.faults.unavailable(false);
    await appendAudit(f.db, { actor: { type: "system", name: "webhook:github" }, action: "webhook.accepted", targetType: "webhook", targetId: "github:1", environment: "test", after: { provider: "github" } });
    await appendAudit(f.db, { actor: { type: "anonymous", name: "x" }, action: "webhook.rejected", targetType: "webhook", targetId: "github", after: { provider: "github" } });
    // Later rejections from the same address, summed up in one row (lib/auth/failed-attempts).
    await appendAudit(f.db, { actor: { type: "anonymous", name: "x" }, action: "webhook.rejected", targetType: "client", targetId: "10.0.0.1", after: { summary: true, method: "github", count: 4 } });
    await f.db.alert.create({ data: { environmentId: items[0]!.environmentId, type: "drift_unowned", fingerprint: "fp", severity: "warning", title: "t", openedAt: new Date(), updatedAt: new Date() } });
    // Approved moves ahead of applied: a new commit the cluster has not seen, dated 10 minutes ago.
    const env = await f.db.environment.findUniqueOrThrow({ where: { name: "test" } });
    await f.db.application.updateMany({ where: { environmentId: env.id }, data: { approvedSha: "f".repeat(40), approvedAt: new Date(Date.now() - 600_000), appliedBehind: true } });

    const res = await GET(scrape(`Bearer ${TOKEN}`));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const s = parse(await res.text());

    expect(value(s, "driftwatch_drift_items", { environment: "test", type: "Modified", owned: "true" })).toBe(1);
    expect(value(s, "driftwatch_drift_items", { environment: "test", type: "Modified", owned: "false" })).toBe(1);
    expect(value(s, "driftwatch_drift_items", { environment: "test", type: "Missing", owned: "false" })).toBe(0);
    expect(value(s, "driftwatch_environment_seconds_behind", { environment: "test" })).toBeGreaterThanOrEqual(599);
    expect(value(s, "driftwatch_environment_failing", { environment: "test" })).toBe(1);
    // The same wait on the environment's one application, by name; the run failed, the application was not singled out.
    expect(value(s, "driftwatch_application_seconds_behind", { environment: "test", application: "default" })).toBeGreaterThanOrEqual(599);
    expect(value(s, "driftwatch_application_failing", { environment: "test", application: "default" })).toBe(0);
    expect(value(s, "driftwatch_collection_runs_total", { environment: "test", status: "succeeded" })).toBe(2);
    expect(value(s, "driftwatch_collection_runs_total", { environment: "test", status: "failed" })).toBe(1);
    const category = s.find((x) => x.name === "driftwatch_collection_failures_total")?.labels.category;
    expect(category).toMatch(/unreachable|timeout/);
    expect(value(s, "driftwatch_collection_duration_seconds_count", { environment: "test" })).toBe(3);
    const inf = value(s, "driftwatch_collection_duration_seconds_bucket", { environment: "test", le: "+Inf" });
    const top = value(s, "driftwatch_collection_duration_seconds_bucket", { environment: "test", le: String(DURATION_BUCKETS.at(-1)) });
    expect(inf).toBe(3);
    expect(top).toBeLessThanOrEqual(3);
    // Buckets are cumulative.
    const buckets = DURATION_BUCKETS.map((le) => value(s, "driftwatch_collection_duration_seconds_bucket", { environment: "test", le: String(le) }) ?? -1);
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]).toBeGreaterThanOrEqual(buckets[i - 1]!);
    expect(value(s, "driftwatch_collection_duration_seconds_sum", { environment: "test" })).toBeGreaterThan(0);
    expect(value(s, "driftwatch_alerts_open", { environment: "test", type: "drift_unowned", severity: "warning" })).toBe(1);
    expect(value(s, "driftwatch_webhook_deliveries_total", { provider: "github", outcome: "accepted" })).toBe(1);
    expect(value(s, "driftwatch_webhook_deliveries_total", { provider: "github", outcome: "rejected" })).toBe(5);
    expect(value(s, "driftwatch_collection_runs_pending", { state: "queued" })).toBe(0);
  }, 60_000);

  // After the reports test: the route renders at most once per 5 s per process, so a scrape
  // here first would hand that test this (empty) database's figures.
  it("takes the bearer token or a signed-in session, and nothing else", async () => {
    for (const [authorization, why] of [[undefined, /Authorization: Bearer/], ["Bearer wrong-token-0123456789", /wrong metrics token/], [`Basic ${TOKEN}`, /Authorization: Bearer/]] as const) {
      const res = await GET(scrape(authorization));
      expect(res.status, String(authorization)).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(why);
    }
    expect((await GET(scrape(`Bearer ${TOKEN}`))).status).toBe(200);
    const viewer = await createTestSession(f.db, "viewer");
    expect((await GET(scrape(undefined, viewer.cookie))).status).toBe(200);
    // With no token configured, Prometheus cannot get in at all; a signed-in user still can.
    delete process.env.DRIFTWATCH_METRICS_TOKEN;
    resetEnvCache();
    try {
      const res = await GET(scrape(`Bearer ${TOKEN}`));
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/DRIFTWATCH_METRICS_TOKEN/);
      expect((await GET(scrape(undefined, viewer.cookie))).status).toBe(200);
    } finally {
      process.env.DRIFTWATCH_METRICS_TOKEN = TOKEN;
      resetEnvCache();
    }
  });

  it("answers cheaply: a scrape of an environment with thousands of runs takes well under a second", async () => {
    const env = await f.db.environment.findUniqueOrThrow({ where: { name: "test" } });
    await f.db.$executeRaw`
      INSERT INTO "CollectionRun" ("environmentId", status, trigger, "queuedAt", "startedAt", "finishedAt", errors)
      SELECT ${env.id}::uuid, CASE WHEN i % 10 = 0 THEN 'failed'::"RunStatus" ELSE 'succeeded'::"RunStatus" END, 'schedule',
             now() - make_interval(secs => i * 60), now() - make_interval(secs => i * 60),
             now() - make_interval(secs => i * 60) + make_interval(secs => (i % 90)::float8 / 3),
             CASE WHEN i % 10 = 0 THEN '[{"category":"timeout","message":"x"}]'::jsonb ELSE '[]'::jsonb END
      FROM generate_series(1, 50000) AS i`;
    const totals = new RunTotals();
    const started = performance.now();
    const text = await (await buildMetrics(f.db, new Date(), totals)).metrics();
    const ms = performance.now() - started;
    // Later scrapes read only the runs finished since: one more run adds exactly one.
    await f.run();
    const again = performance.now();
    const next = parse(await (await buildMetrics(f.db, new Date(), totals)).metrics());
    const incrementalMs = performance.now() - again;
    expect(value(next, "driftwatch_collection_duration_seconds_count", { environment: "test" })).toBe(50_001);
    expect(value(next, "driftwatch_collection_runs_total", { environment: "test", status: "succeeded" })).toBe(45_001);
    const s = parse(text);
    expect(value(s, "driftwatch_collection_duration_seconds_count", { environment: "test" })).toBe(50_000);
    expect(value(s, "driftwatch_collection_failures_total", { environment: "test", category: "timeout" })).toBe(5_000);
    // A run of exactly 1 s counts in le="1" (Prometheus buckets are upper-inclusive).
    let upToOne = 0;
    for (let i = 1; i <= 50_000; i++) if ((i % 90) / 3 <= 1) upToOne++;
    expect(value(s, "driftwatch_collection_duration_seconds_bucket", { environment: "test", le: "1" })).toBe(upToOne);
    console.log(`[metrics] first scrape over 50,000 runs: ${ms.toFixed(0)} ms; next scrape: ${incrementalMs.toFixed(0)} ms`);
    expect(ms).toBeLessThan(2_000);
  }, 60_000);
});
