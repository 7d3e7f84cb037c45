// The append-only, hash-chained audit log.
import { z } from "zod";
import { auditFilterSchema, type AuditEventDto as DomainAuditEvent } from "@/lib/audit/query";
import type { ChainVerification as DomainChainVerification } from "@/lib/audit/chain";
import { assertSameShape, count, isoTime, json, named, object, type SameShape } from "./schema";

export const AuditEventDto = named(
  "AuditEvent",
  object({
    id: z.string(),
    at: isoTime,
    actorType: z.string(),
    actorId: z.string().nullable(),
    actorName: z.string(),
    action: z.string(),
    targetType: z.string(),
    targetId: z.string(),
    environment: z.string().nullable(),
    reason: z.string().nullable(),
    before: json,
    after: json,
    prevHash: z.string(),
    hash: z.string(),
  }),
);
export type AuditEventDto = z.infer<typeof AuditEventDto>;
assertSameShape<SameShape<AuditEventDto, DomainAuditEvent>>();

export const AuditPage = named(
  "AuditPage",
  object({ events: z.array(AuditEventDto).describe("Newest first"), nextBefore: z.string().nullable().describe("Pass as `before` for the next page") }),
);

export const ChainVerification = named(
  "ChainVerification",
  object({
    ok: z.boolean(),
    checked: count,
    firstBroken: object({ id: z.string(), reason: z.string() }).optional(),
    unkeyed: count.optional().describe("Events before the keyed epoch (a chain begun by an earlier release)"),
    checkpoint: object({ id: z.string(), hash: z.string(), writtenAt: isoTime, matches: z.boolean() })
      .optional()
      .describe("How the chain compares with the newest checkpoint kept outside the database"),
  }),
);
export type ChainVerification = z.infer<typeof ChainVerification>;
assertSameShape<SameShape<ChainVerification, DomainChainVerification>>();

export const auditQuery = auditFilterSchema.extend({
  format: z.enum(["json", "csv", "jsonl"]).default("json").describe("json (a page), csv or jsonl (every matching event)"),
  before: z.string().regex(/^\d{1,18}$/, "expected an event id").optional().describe("Page before this event id"),
  limit: z.coerce.number().int().min(1).max(500).default(100).describe("Page size (json)"),
});
