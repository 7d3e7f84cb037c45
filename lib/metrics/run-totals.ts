// Totals over finished collection runs, kept per process and topped up on
// each scrape: a finished run never changes again, so only runs above a
// watermark (every run at or below it is finished) need reading. The first
// scrape after start reads the whole table once; later ones read minutes' worth.
import { DURATION_BUCKETS, type Db, type HistogramSeries } from "./shared";

/**
 * width_bucket counts thresholds <= x; a Prometheus bucket holds values <= le,
 * so the bucket index is the count of bounds < s = n - (count of -b <= -s).
 */
const NEGATED_BOUNDS = [...DURATION_BUCKETS].reverse().map((b) => -b);

interface Row {
  environment: string;
  status: string;
  category: string | null;
  idx: number;
  n: number;
  total: number;
}

export class RunTotals {
  private watermark = 0;
  /** JSON of labels → count. */
  readonly runs = new Map<string, number>();
  readonly failures = new Map<string, number>();
  readonly durations = new Map<string, HistogramSeries>();
  private pending: Promise<this> | null = null;

  refresh(db: Db): Promise<this> {
    // Concurrent scrapes share one top-up, so no range is counted twice.
    this.pending ??= this.topUp(db).finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async topUp(db: Db): Promise<this> {
    const [mark] = await db.$queryRaw<Array<{ w: number }>>`
      SELECT COALESCE((SELECT min(id) - 1 FROM "CollectionRun" WHERE status IN ('queued', 'running')),
                      (SELECT max(id) FROM "CollectionRun"), 0)::int AS w`;
    const upTo = mark?.w ?? 0;
    if (upTo <= this.watermark) return this;
    const rows = await db.$queryRaw<Row[]>`
      SELECT e.name AS environment, r.status::text AS status,
             CASE WHEN r.status = 'failed' THEN COALESCE(r.errors->0->>'category', 'internal') END AS category,
             CASE WHEN r."startedAt" IS NULL OR r."finishedAt" IS NULL THEN -1
                  ELSE (${DURATION_BUCKETS.length}::int - width_bucket(-GREATEST(EXTRACT(EPOCH FROM r."finishedAt" - r."startedAt"), 0)::float8, ${NEGATED_BOUNDS}::float8[]))
             END::int AS idx,
             count(*)::int AS n,
             COALESCE(sum(GREATEST(EXTRACT(EPOCH FROM r."finishedAt" - r."startedAt"), 0)), 0)::float8 AS total
      FROM "CollectionRun" r JOIN "Environment" e ON e.id = r."environmentId"
      WHERE r.id > ${this.watermark} AND r.id <= ${upTo} AND r.status IN ('succeeded', 'partial', 'failed')
      GROUP BY 1, 2, 3, 4`;
    const add = (m: Map<string, number>, labels: Record<string, string>, n: number) => {
      const k = JSON.stringify(labels);
      m.set(k, (m.get(k) ?? 0) + n);
    };
    for (const r of rows) {
      add(this.runs, { environment: r.environment, status: r.status }, r.n);
      if (r.category !== null) add(this.failures, { environment: r.environment, category: r.category }, r.n);
      if (r.idx < 0) continue; // never started (a reaped lease on a queued run): no duration
      const s = this.durations.get(r.environment) ?? { labels: { environment: r.environment }, buckets: new Array<number>(DURATION_BUCKETS.length).fill(0), count: 0, sum: 0 };
      for (let i = r.idx; i < DURATION_BUCKETS.length; i++) s.buckets[i] = (s.buckets[i] ?? 0) + r.n;
      s.count += r.n;
      s.sum += r.total;
      this.durations.set(r.environment, s);
    }
    this.watermark = upTo;
    return this;
  }
}
