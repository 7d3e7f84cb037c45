// Drift: an environment's drift items (filtered, sorted, paginated) and one
// object's desired-vs-live comparison.
import { z } from "zod";
import { DriftCountsDto, RevisionDto, UserRefDto } from "./environments";
import { count, isoTime, json, named, object } from "./schema";

export const DRIFT_TYPES = ["Modified", "Missing", "Extra"] as const;
export type DriftTypeName = (typeof DRIFT_TYPES)[number];
export const MANAGER_CLASSES = ["human", "controller", "system", "unknown"] as const;
export type ManagerClassName = (typeof MANAGER_CLASSES)[number];

export const ChangeDto = named(
  "Change",
  object({
    path: z.array(z.union([z.string(), count])),
    display: z.string(),
    kind: z.enum(["changed", "added", "removed", "unpruned"]),
    desired: json.optional().describe('Git\'s value as JSON; "(hidden)" for Secret data'),
    live: json.optional().describe('The live value as JSON; "(hidden)" for Secret data'),
    attribution: object({
      manager: z.string().nullable(),
      operation: z.string().nullable(),
      subresource: z.string().nullable(),
      time: isoTime.nullable(),
      class: z.enum(MANAGER_CLASSES),
    }),
    masked: z.boolean().optional(),
  }),
  "One changed field, with who changed it as far as the cluster recorded (managedFields)",
);
export type ChangeDto = z.infer<typeof ChangeDto>;

export const ClaimRefDto = object({
  id: z.string(),
  owner: UserRefDto,
  reason: z.string(),
  incidentUrl: z.string().nullable(),
  expiresAt: isoTime,
  expired: z.boolean(),
  returnPath: z.enum(["revert", "adopt"]),
});
export type ClaimRefDto = z.infer<typeof ClaimRefDto>;

export const DriftItemDto = named(
  "DriftItem",
  object({
    id: z.string(),
    environment: z.string(),
    key: z.string(),
    apiVersion: z.string(),
    group: z.string(),
    kind: z.string(),
    namespace: z.string(),
    name: z.string(),
    application: z.string().nullable().describe("The application whose desired state declares the object (null: none does, such as an Extra object, or not recorded)"),
    type: z.enum(DRIFT_TYPES),
    changes: z.array(ChangeDto),
    attribution: object({ manager: z.string().nullable(), class: z.enum(MANAGER_CLASSES).nullable(), time: isoTime.nullable() }),
    ignored: z.record(z.string(), count).describe("Differences hidden per ignore rule"),
    conflict: object({ path: z.string().nullable(), managers: z.array(z.string()), flips: count }).nullable(),
    openedAt: isoTime,
    lastSeenAt: isoTime,
    resolvedAt: isoTime.nullable(),
    resolution: z.enum(["reverted", "adopted", "deleted", "ignored"]).nullable(),
    resolutionSha: z.string().nullable(),
    reopenCount: count,
    claim: ClaimRefDto.nullable(),
  }),
);
export type DriftItemDto = z.infer<typeof DriftItemDto>;

export const DRIFT_SORTS = ["key", "kind", "namespace", "name", "type", "openedAt", "lastSeenAt", "attributionTime", "manager"] as const;
export type DriftSort = (typeof DRIFT_SORTS)[number];

export const DriftListDto = named(
  "DriftList",
  object({
    environment: z.string(),
    items: z.array(DriftItemDto),
    nextCursor: z.string().nullable().describe("Opaque; pass as `cursor` for the next page. Null on the last page"),
    total: count.nullable().describe("Items matching the filters (all pages); first page only"),
    counts: object({ ...DriftCountsDto.shape, human: count, controller: count })
      .nullable()
      .describe("Counts over the environment's open drift, ignoring the filters, for the filter chips; first page only"),
  }),
);
export type DriftListDto = z.infer<typeof DriftListDto>;

/** Comma-separated values, each one of `values`. */
const list = <T extends string>(values: readonly [T, ...T[]]) =>
  z
    .string()
    .max(500)
    .transform((s) => s.split(",").map((x) => x.trim()).filter(Boolean))
    .pipe(z.array(z.enum(values)).max(values.length));

/** Comma-separated names: "Deployment,Service". */
const names = z
  .string()
  .max(1000)
  .transform((s) => s.split(",").map((x) => x.trim()).filter(Boolean))
  .pipe(z.array(z.string().max(253)).max(50));

export const driftQuerySchema = z.object({
  kind: names.optional().describe("Comma-separated kinds"),
  namespace: names.optional().describe("Comma-separated namespaces; `_` for cluster-scoped"),
  type: list(DRIFT_TYPES).optional().describe("Comma-separated: Modified, Missing, Extra"),
  application: names.optional().describe("Comma-separated application names"),
  owner: z.enum(["owned", "unowned"]).optional().describe("owned (an active claim) or unowned"),
  actor: list(MANAGER_CLASSES).optional().describe("Comma-separated manager classes: human, controller, system, unknown"),
  q: z.string().trim().max(200).optional().describe("Text in the key, the manager or a changed field"),
  status: z.enum(["open", "resolved", "all"]).default("open"),
  sort: z.enum(DRIFT_SORTS).default("key"),
  dir: z.enum(["asc", "desc"]).default("asc"),
  limit: z.coerce.number().int().min(1).max(500).default(50).describe("Page size"),
  // Cursors are base64url: saying so keeps a forged one (or a fuzzer's) to 4,000 ASCII bytes of request line.
  cursor: z.string().max(4000).regex(/^[A-Za-z0-9_-]*$/, "cursor is not one this API issued").optional().describe("From the previous page's nextCursor, with the same sort"),
});
export type DriftQuery = z.infer<typeof driftQuerySchema>;

export const DiffLineDto = object({ line: count, text: z.string() });
export type DiffLineDto = z.infer<typeof DiffLineDto>;

export const DiffRowDto = object({
  left: DiffLineDto.nullable(),
  right: DiffLineDto.nullable(),
  kind: z.enum(["same", "changed", "removed", "added"]),
  change: count.nullable().describe("Index into the object's `changes` that explains this row, if any"),
});
export type DiffRowDto = z.infer<typeof DiffRowDto>;

export const ObjectDetailDto = named(
  "ObjectDetail",
  object({
    environment: z.string(),
    key: z.string(),
    group: z.string(),
    kind: z.string(),
    namespace: z.string(),
    name: z.string(),
    apiVersion: z.string(),
    desired: object({
      yaml: z.string(),
      revision: RevisionDto.nullable(),
      sourcePath: z.string(),
      updatedAt: isoTime,
      repositoryUrl: z.string().nullable().describe("Where the file lives: the environment's repository, when it has a browsable URL"),
    }).nullable(),
    live: object({ yaml: z.string(), resourceVersion: z.string().nullable(), updatedAt: isoTime }).nullable(),
    rows: z.array(DiffRowDto).describe('Side by side, normalised; Secret values are "(hidden)"'),
    changes: z.array(ChangeDto),
    drift: DriftItemDto.nullable(),
    history: z.array(DriftItemDto),
    secret: z.boolean(),
    now: isoTime,
  }),
  "Normalised side-by-side YAML with the changed lines marked, each change's attribution, the drift history and the Git file and commit",
);
export type ObjectDetailDto = z.infer<typeof ObjectDetailDto>;
