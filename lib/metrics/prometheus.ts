// GET /api/metrics: Prometheus text built from the database on each scrape,
// so every web replica answers the same whatever number of collector
// processes wrote the data, and nothing is lost when a process restarts.
// Counters are totals over kept history (runs and audit events are never
// pruned), so they only grow. Each query is one aggregate over an indexed or
// small table; run totals are read incrementally (run-totals.ts).
import { Counter, Gauge, Registry, type Metric } from "prom-client";
import { RunTotals } from "./run-totals";
import { DURATION_BUCKETS, type Db, type HistogramSeries } from "./shared";

export { DURATION_BUCKETS };

/**
 * prom-client's Histogram only learns by observe(); a histogram read back from
 * the database needs its buckets set directly. The registry formats anything
 * with name, type and get(), so this small metric supplies the series.
 */
function precomputedHistogram(name: string, help: string, bounds: number[], series: HistogramSeries[]): Metric {
  const metric = {
    name,
    help,
    type: "histogram",
    aggregator: "sum",
    get: () => ({
      name,
      help,
      type: "histogram",
      aggregator: "sum",
      values: series.flatMap((s) => [
        ...bounds.map((le, i) => ({ metricName: `${name}_bucket`, labels: { ...s.labels, le }, value: s.buckets[i] ?? 0 })),
        { metricName: `${name}_bucket`, labels: { ...s.labels, le: "+Inf" }, value: s.count },
        { metricName: `${name}_sum`, labels: s.labels, value: s.sum },
        { metricName: `${name}_count`, labels: s.labels, value: s.count },
      ]),
    }),
  };
  return metric as unknown as Metric;
}

export async function buildMetrics(db: Db, now: Date = new Date(), totals: RunTotals = new RunTotals()): Promise<Registry> {
  const registry = new Registry();
  const gauge = (name: string, help: string, labelNames: string[]) => new Gauge({ name, help, labelNames, registers: [registry] });
  const counter = (name: string, help: string, labelNames: string[]) => new Counter({ name, help, labelNames, registers: [registry] });

  const [envs, applications, drift, runs, queue, alerts, webhooks, pauses] = await Promise.all([
    // Behind since the oldest approved revision one of its applications has not applied, by the ancestry the
    // collector checked (a newer commit elsewhere in the repository is not waiting).
    db.$queryRaw<Array<{ name: string; behindSince: Date | null; lastGoodCollectedAt: Date | null; failing: boolean; objectCount: number }>>`
      SELECT name, "lastGoodCollectedAt", "objectCount",
             (SELECT min(a."approvedAt") FROM "Application" a
              WHERE a."environmentId" = e.id AND a."removedAt" IS NULL AND a."appliedBehind") AS "behindSince",
             ("lastError" IS NOT NULL AND "lastError" <> 'null'::jsonb) AS failing
      FROM "Environment" e WHERE "removedAt" IS NULL`,
    // Each application's own: an environment that discovers many says above only its worst wait and
    // whether its run failed, not which application is behind or cannot be collected.
    db.$queryRaw<Array<{ environment: string; application: string; behindSince: Date | null; failing: boolean }>>`
      SELECT e.name AS environment, a.name AS application,
             CASE WHEN a."appliedBehind" THEN a."approvedAt" END AS "behindSince",
             (a."lastError" IS NOT NULL AND a."lastError" <> 'null'::jsonb) AS failing
      FROM "Application" a JOIN "Environment" e ON e.id = a."environmentId"
      WHERE a."removedAt" IS NULL AND e."removedAt" IS NULL`,
    db.$queryRaw<Array<{ environment: string; type: string; owned: boolean; n: number }>>`
      SELECT e.name AS environment, d.type::text AS type,
             EXISTS (SELECT 1 FROM "ClaimItem" ci JOIN "DivergenceClaim" c ON c.id = ci."claimId"
                     WHERE ci."driftItemId" = d.id AND c.status = 'active') AS owned,
             count(*)::int AS n
      FROM "DriftItem" d JOIN "Environment" e ON e.id = d."environmentId"
      WHERE d."resolvedAt" IS NULL AND e."removedAt" IS NULL
      GROUP BY 1, 2, 3`,
    totals.refresh(db),
    db.$queryRaw<Array<{ state: string; n: number }>>`
      SELECT status::text AS state, count(*)::int AS n FROM "CollectionRun"
      WHERE status IN ('queued', 'running') GROUP BY 1`,
    db.$queryRaw<Array<{ environment: string | null; type: string; severity: string; n: number }>>`
      SELECT e.name AS environment, a.type, a.severity, count(*)::int AS n
      FROM "Alert" a LEFT JOIN "Environment" e ON e.id = a."environmentId"
      WHERE a."resolvedAt" IS NULL
      GROUP BY 1, 2, 3`,
    db.$queryRaw<Array<{ outcome: string; provider: string; n: number }>>`
      SELECT CASE action WHEN 'webhook.accepted' THEN 'accepted' ELSE 'rejected' END AS outcome,
             COALESCE(after->>'provider', after->>'method', 'unknown') AS provider,
             -- Rejections after an address's first in a window are one summary row with their count (lib/auth/failed-attempts).
             CASE action WHEN 'webhook.accepted' THEN count(DISTINCT "targetId") ELSE sum(COALESCE((after->>'count')::int, 1)) END::int AS n
      FROM "AuditEvent" WHERE action IN ('webhook.accepted', 'webhook.rejected')
      GROUP BY action, 2`,
    db.$queryRaw<Array<{ environment: string; origin: string; n: number }>>`
      SELECT e.name AS environment, p.origin::text AS origin, count(*)::int AS n
      FROM "Pause" p JOIN "Environment" e ON e.id = p."environmentId"
      WHERE p."endedAt" IS NULL GROUP BY 1, 2`,
  ]);

  const behind = gauge("driftwatch_environment_seconds_behind", "Seconds the oldest approved revision an application has not applied has waited (0 when every applied revision contains its approved one).", ["environment"]);
  const failing = gauge("driftwatch_environment_failing", "1 when the environment's last collection failed (the dashboard shows its last good state as stale).", ["environment"]);
  const lastGood = gauge("driftwatch_environment_last_success_timestamp_seconds", "When the environment was last collected successfully (Unix time).", ["environment"]);
  const objects = gauge("driftwatch_environment_objects", "Objects in the environment's desired and live sets at the last good collection.", ["environment"]);
  for (const e of envs) {
    const waiting = e.behindSince ? Math.max(0, (now.getTime() - e.behindSince.getTime()) / 1000) : 0;
    behind.set({ environment: e.name }, waiting);
    failing.set({ environment: e.name }, e.failing ? 1 : 0);
    if (e.lastGoodCollectedAt) lastGood.set({ environment: e.name }, e.lastGoodCollectedAt.getTime() / 1000);
    objects.set({ environment: e.name }, e.objectCount);
  }

  const appBehind = gauge("driftwatch_application_seconds_behind", "Seconds the application's approved revision has waited to be applied (0 when its applied revision contains it).", ["environment", "application"]);
  const appFailing = gauge("driftwatch_application_failing", "1 when the last run could not collect the application (its source, render or controller failed: the error is on its page); the environment's run may still have succeeded.", ["environment", "application"]);
  for (const a of applications) {
    const labels = { environment: a.environment, application: a.application };
    appBehind.set(labels, a.behindSince ? Math.max(0, (now.getTime() - a.behindSince.getTime()) / 1000) : 0);
    appFailing.set(labels, a.failing ? 1 : 0);
  }

  const driftGauge = gauge("driftwatch_drift_items", "Open drift items; owned = claimed by someone as a temporary divergence.", ["environment", "type", "owned"]);
  for (const e of envs) for (const type of ["Modified", "Missing", "Extra"]) for (const owned of ["true", "false"]) driftGauge.set({ environment: e.name, type, owned }, 0);
  for (const d of drift) driftGauge.set({ environment: d.environment, type: d.type, owned: String(d.owned) }, d.n);

  const runCounter = counter("driftwatch_collection_runs_total", "Finished collection runs by outcome.", ["environment", "status"]);
  for (const [k, n] of runs.runs) runCounter.inc(JSON.parse(k) as Record<string, string>, n);
  const failureCounter = counter("driftwatch_collection_failures_total", "Failed collection runs by the category of their first error (unreachable, timeout, unauthorised, forbidden, git-auth, git-fetch, render, parse, database, worker-lost, internal).", ["environment", "category"]);
  for (const [k, n] of runs.failures) failureCounter.inc(JSON.parse(k) as Record<string, string>, n);

  registry.registerMetric(precomputedHistogram("driftwatch_collection_duration_seconds", "Wall time of finished collection runs.", DURATION_BUCKETS, [...runs.durations.values()]));

  const queueGauge = gauge("driftwatch_collection_runs_pending", "Collection runs waiting for a worker (queued) or under way (running).", ["state"]);
  for (const state of ["queued", "running"]) queueGauge.set({ state }, queue.find((q) => q.state === state)?.n ?? 0);

  const alertGauge = gauge("driftwatch_alerts_open", "Open alerts.", ["environment", "type", "severity"]);
  for (const a of alerts) alertGauge.set({ environment: a.environment ?? "", type: a.type, severity: a.severity }, a.n);

  const webhookCounter = counter("driftwatch_webhook_deliveries_total", "Webhook deliveries received, by sender and outcome (rejected: bad or missing signature, or a replay).", ["provider", "outcome"]);
  for (const w of webhooks) webhookCounter.inc({ provider: w.provider, outcome: w.outcome }, w.n);

  const pauseGauge = gauge("driftwatch_pauses_active", "Reconciliation pauses in force, made through the dashboard or detected in the cluster.", ["environment", "origin"]);
  for (const p of pauses) pauseGauge.set({ environment: p.environment, origin: p.origin }, p.n);

  return registry;
}

export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/**
 * The exposition text, built at most once per `cacheMs` per process (several
 * Prometheus servers may scrape). Run totals are kept between scrapes and
 * only runs finished since the last one are read.
 */
export function metricsRenderer(cacheMs = 5_000): (db: Db) => Promise<string> {
  let cached: { at: number; text: Promise<string> } | null = null;
  const totals = new RunTotals();
  return (db) => {
    const t = Date.now();
    if (cached && t - cached.at < cacheMs) return cached.text;
    const text = buildMetrics(db, new Date(), totals).then((r) => r.metrics());
    cached = { at: t, text };
    text.catch(() => {
      cached = null;
    });
    return text;
  };
}
