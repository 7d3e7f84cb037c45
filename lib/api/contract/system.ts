// Health probes, the Git webhook and this document.
import { z } from "zod";
import type { Health as DomainHealth, Readiness as DomainReadiness } from "@/lib/server/health";
import { assertSameShape, count, isoTime, json, named, object, type SameShape } from "./schema";

export const Liveness = named("Liveness", object({ alive: z.literal(true), checkedAt: isoTime }));

const notReadyReason = z.enum(["database-not-configured", "database-unreachable", "migrations-pending"]);

const readinessShape = {
  ready: z.boolean(),
  reason: notReadyReason.optional(),
  checkedAt: isoTime.describe("When this answer was computed (reused for up to 2 s)"),
};
export const Readiness = named("Readiness", object(readinessShape));
export type Readiness = z.infer<typeof Readiness>;
assertSameShape<SameShape<Readiness, DomainReadiness>>();

export const Health = named(
  "Health",
  object({
    ...readinessShape,
    database: object({ reachable: z.boolean(), reason: notReadyReason.optional() }),
    migrations: object({ pending: z.array(z.string()) }),
    collection: object({ lastCollectedAt: isoTime.nullable(), environments: count, failing: count }),
  }),
);
export type Health = z.infer<typeof Health>;
assertSameShape<SameShape<Health, DomainHealth>>();

export const WebhookIgnored = named("WebhookIgnored", object({ ok: z.literal(true), ignored: z.string().describe("Why nothing was queued") }));
export const WebhookQueued = named(
  "WebhookQueued",
  object({
    ok: z.literal(true),
    repository: z.string(),
    branch: z.string().optional().describe("The branch pushed to (absent for a tag push)"),
    tag: z.string().optional().describe("The tag pushed (runs the environments that discover: their applications may follow tags)"),
    runs: z.array(object({ environment: z.string(), runId: count })),
    message: z.string().optional(),
  }),
);

export const OpenApiDocument = named("OpenApiDocument", z.record(z.string(), json), "An OpenAPI 3.1 document");
