// Delivery metrics: lead time, drift lifetime, manual edits, pauses, stale time.
import { z } from "zod";
import { count, isoTime, named, object } from "./schema";

export const MetricsDto = named(
  "Metrics",
  object({
    window: object({ from: isoTime, to: isoTime, days: count }),
    leadTime: z.array(object({ from: z.string().nullable(), to: z.string(), samples: count, medianMs: count.nullable(), p90Ms: count.nullable(), maxMs: count.nullable() })),
    driftLifetime: object({ buckets: z.array(object({ label: z.string(), upToMs: count.nullable(), count })), resolved: count, open: count, medianMs: count.nullable() }),
    manualEdits: object({ weeks: z.array(z.string()), managers: z.array(object({ manager: z.string(), counts: z.array(count) })) }),
    pauses: z.array(
      object({
        environment: z.string(),
        controllerRef: z.string().nullable(),
        origin: z.enum(["dashboard", "detected"]),
        startedAt: isoTime,
        endedAt: isoTime.nullable(),
        durationMs: count,
        reason: z.string().nullable(),
      }),
    ),
    staleTime: z.array(object({ environment: z.string(), totalMs: count, intervals: z.array(object({ start: isoTime, end: isoTime })) })),
    environments: z.array(z.string()),
    application: z.string().nullable().describe("The application (promotion key) the figures are narrowed to; null for every environment"),
    applications: z.array(z.string()).describe("Promotion keys of the applications the environments hold, to narrow to"),
  }),
  "Lead time commit → live per hop, drift lifetime distribution, manual edits per week by manager, pauses and their durations, stale time per environment",
);
export type MetricsDto = z.infer<typeof MetricsDto>;

export const metricsQuerySchema = z.object({
  days: z.coerce.number().int().min(1).max(365).default(30).describe("Window in days"),
  application: z.string().min(1).max(300).optional().describe("One application across the environments that hold it (its promotion key)"),
});
