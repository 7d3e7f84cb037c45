// The incident timeline and its JSON download.
import { z } from "zod";
import { TIMELINE_TYPES, type TimelineEvent as DomainTimelineEvent } from "@/lib/timeline/merge";
import { assertSameShape, isoTime, named, object, type SameShape } from "./schema";

export const TimelineType = z.enum(TIMELINE_TYPES);
export type TimelineType = z.infer<typeof TimelineType>;

export const TimelineEvent = named(
  "TimelineEvent",
  object({
    id: z.string().describe('Stable across requests: "audit:<id>" or "commit:<sha>"'),
    at: isoTime,
    type: TimelineType,
    action: z.string().describe('The audit action ("drift.opened", …) or "commit"'),
    environment: z.string().nullable(),
    environments: z.array(z.string()),
    actor: z.string(),
    title: z.string(),
    detail: z.string().nullable(),
    reason: z.string().nullable(),
    sha: z.string().nullable(),
    link: z.string().nullable().describe("A page of this app that shows more (relative; absolute in a download)"),
  }),
);
export type TimelineEvent = z.infer<typeof TimelineEvent>;
assertSameShape<SameShape<TimelineEvent, DomainTimelineEvent>>();

export const TimelineDto = named(
  "Timeline",
  object({
    events: z.array(TimelineEvent),
    from: isoTime,
    to: isoTime,
    environment: z.string().nullable(),
    application: z.string().nullable(),
    types: z.array(TimelineType).nullable(),
    truncated: z.boolean().describe("More events matched than returned: the newest were kept"),
    environments: z.array(z.string()),
    applications: z.array(z.string()).describe("The chosen environment's applications (removed ones included), to filter by; empty without an environment"),
  }),
);
export type TimelineDto = z.infer<typeof TimelineDto>;

export const TimelineDownload = named(
  "TimelineDownload",
  object({
    generatedAt: isoTime,
    filter: object({ environment: z.string().nullable(), application: z.string().nullable(), types: z.array(TimelineType).nullable(), from: isoTime.nullable(), to: isoTime.nullable() }),
    truncated: z.boolean(),
    events: z.array(TimelineEvent),
  }),
  "The download of `format=json`: the events with the filter that selected them and absolute links",
);

export const TimelineAnswer = named("TimelineAnswer", z.union([TimelineDto, TimelineDownload]), "The timeline; with format=json, its download");

const isoDate = z
  .string()
  .max(64)
  .refine((s) => !Number.isNaN(Date.parse(s)), { message: "expected a date/time such as 2025-03-10T14:00:00Z" });

export const timelineQuerySchema = z
  .object({
    environment: z.string().max(100).optional().describe("One environment"),
    application: z.string().max(300).optional().describe("One application of that environment (needs `environment`): its events, and the commits that change its files"),
    type: z
      .string()
      .max(300)
      .transform((s) => s.split(",").map((x) => x.trim()).filter(Boolean))
      .pipe(z.array(TimelineType))
      .optional()
      .describe("Comma-separated: commit, approved, applied, drift, pause, claim, alert, collection, access"),
    from: isoDate.optional().describe("Start (ISO 8601); default 24 h before `to`"),
    to: isoDate.optional().describe("End (ISO 8601); default now"),
    limit: z.coerce.number().int().min(1).max(5000).default(1000).describe("At most this many events (the newest are kept)"),
    format: z.enum(["json", "csv", "md"]).optional().describe("A download: CSV, JSON, or Markdown that reads as an incident write-up"),
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.from) <= Date.parse(q.to), { message: "from must not be after to", path: ["from"] })
  .refine((q) => !q.application || q.environment, { message: "an application is chosen within an environment: give environment too", path: ["application"] });
export type TimelineQuery = z.infer<typeof timelineQuerySchema>;
