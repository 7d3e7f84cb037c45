import type { PrismaClient } from "@/lib/db/generated/client";

/** Seconds; chosen around what a collection takes from a small to a 10,000-object environment. */
export const DURATION_BUCKETS = [0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export type Db = Pick<PrismaClient, "$queryRaw">;

export interface HistogramSeries {
  labels: Record<string, string>;
  /** Cumulative counts per bucket in DURATION_BUCKETS order. */
  buckets: number[];
  count: number;
  sum: number;
}
