// Two environments compared object by object and field by field.
import { z } from "zod";
import { RevisionDto } from "./environments";
import { count, json, named, object } from "./schema";

export const CompareFieldDto = object({ path: z.string(), from: json.optional(), to: json.optional(), kind: z.enum(["changed", "added", "removed"]) });
export type CompareFieldDto = z.infer<typeof CompareFieldDto>;

export const CompareObjectDto = object({
  key: z.string(),
  kind: z.string(),
  namespace: z.string(),
  name: z.string(),
  state: z.enum(["differs", "only-from", "only-to"]),
  fields: z.array(CompareFieldDto),
});
export type CompareObjectDto = z.infer<typeof CompareObjectDto>;

const side = object({
  environment: z.string(),
  revision: RevisionDto.nullable().describe("What the environment runs (Git at, in desired mode); narrowed to an application, that application's, resolved in its own repository"),
  perApplication: z
    .boolean()
    .describe("The environment's applications follow sources of their own (discover:) and no application was chosen: no one revision is the environment's, so revision is null and each application's commit is in applications"),
});

const applicationSide = object({
  name: z.string(),
  appliedSha: z.string().nullable(),
  driftCount: count,
  objectCount: count,
});

export const CompareApplicationDto = object({
  promotionKey: z.string().describe("What matches an application across environments: its name, unless an annotation or driftwatch.yaml says otherwise"),
  from: applicationSide.nullable().describe("null: the first environment has no such application"),
  to: applicationSide.nullable().describe("null: the second environment has no such application"),
  sameRevision: z.boolean().describe("Both run the same commit"),
});
export type CompareApplicationDto = z.infer<typeof CompareApplicationDto>;

export const CompareDto = named(
  "Compare",
  object({
    from: side,
    to: side,
    application: z.string().nullable().describe("The promotion key the objects were narrowed to, or null for every application"),
    applications: z.array(CompareApplicationDto).describe("The applications of both environments matched by promotion key"),
    mode: z.enum(["live", "desired"]),
    objects: z.array(CompareObjectDto),
    same: count,
    differs: count,
    onlyFrom: count,
    onlyTo: count,
    truncated: z.boolean().describe("More differing objects than returned"),
    environments: z.array(z.string()),
  }),
  "Identical objects are counted, differing ones listed with their fields",
);
export type CompareDto = z.infer<typeof CompareDto>;

export const compareQuerySchema = z.object({
  from: z.string().min(1, "from: name the first environment").max(100).describe("First environment"),
  to: z.string().min(1, "to: name the second environment").max(100).describe("Second environment"),
  mode: z.enum(["live", "desired"]).default("live").describe("live vs live, or desired (Git) vs desired"),
  kind: z.string().max(100).optional().describe("Only this kind"),
  application: z.string().max(253).optional().describe("Only the objects of the application with this promotion key, in both environments"),
  limit: z.coerce.number().int().min(1).max(2000).default(500).describe("At most this many objects"),
});
export type CompareQuery = z.infer<typeof compareQuerySchema>;
