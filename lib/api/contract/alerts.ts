// Alerts with their runbooks.
import { z } from "zod";
import { ALERT_TYPES } from "@/lib/alerts/rules";
import { count, isoTime, json, named, object } from "./schema";

export const Runbook = object({
  summary: z.string(),
  check: z.array(z.string()),
  act: z.array(z.string()),
  url: z.string().nullable().describe("The team's runbook from driftwatch.yaml, when configured"),
});
export type Runbook = z.infer<typeof Runbook>;

export const AlertRecordDto = named(
  "Alert",
  object({
    id: z.string(),
    type: z.enum(ALERT_TYPES),
    severity: z.enum(["critical", "warning", "info"]),
    title: z.string(),
    environment: z.string().nullable(),
    details: z.record(z.string(), json),
    runbook: Runbook,
    openedAt: isoTime,
    updatedAt: isoTime,
    resolvedAt: isoTime.nullable(),
    notifiedAt: isoTime.nullable(),
  }),
);
export type AlertRecordDto = z.infer<typeof AlertRecordDto>;

export const AlertList = named("AlertList", object({ alerts: z.array(AlertRecordDto) }));
export const AlertRefresh = named("AlertRefresh", object({ opened: count, updated: count, resolved: count }));

export const alertListQuery = z.object({
  open: z.enum(["true", "false"]).optional().describe("Only open (true) or resolved (false)"),
  environment: z.string().max(100).optional().describe("One environment"),
  limit: z.coerce.number().int().min(1).max(1000).optional().describe("At most"),
});
