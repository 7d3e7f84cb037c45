// Claims of drift (temporary divergences) and the patch that adopts one into Git.
import { z } from "zod";
import { DRIFT_TYPES } from "./drift";
import { isoTime, named, object } from "./schema";

export const CLAIM_STATUSES = ["active", "released", "resolved", "transferred"] as const;

export const ClaimItemDto = object({
  driftItemId: z.string(),
  environment: z.string(),
  key: z.string(),
  kind: z.string(),
  namespace: z.string(),
  name: z.string(),
  type: z.enum(DRIFT_TYPES),
  resolvedAt: isoTime.nullable(),
  resolution: z.enum(["reverted", "adopted", "deleted", "ignored"]).nullable(),
  resolutionSha: z.string().nullable(),
});
export type ClaimItemDto = z.infer<typeof ClaimItemDto>;

export const ClaimDto = named(
  "Claim",
  object({
    id: z.string(),
    owner: z.string(),
    createdBy: z.string(),
    reason: z.string(),
    incidentUrl: z.string().nullable(),
    expiresAt: isoTime,
    expired: z.boolean(),
    returnPath: z.enum(["revert", "adopt"]),
    status: z.enum(CLAIM_STATUSES),
    createdAt: isoTime,
    endedAt: isoTime.nullable(),
    endReason: z.string().nullable(),
    resolutionSha: z.string().nullable(),
    items: z.array(ClaimItemDto),
  }),
  "A temporary divergence: owner, reason, incident link, expiry, return path and the drift items it covers",
);
export type ClaimDto = z.infer<typeof ClaimDto>;

export const ClaimList = named("ClaimList", object({ claims: z.array(ClaimDto) }));
export const ClaimAnswer = named("ClaimAnswer", object({ claim: ClaimDto }));

export const AdoptFile = object({
  path: z.string(),
  change: z
    .enum(["modified", "added", "removed-document", "approximate"])
    .describe("modified: the Git file patched; added: a new file for an object only live has; removed-document: a document deleted; approximate: Git file not found, desired-vs-live of the object instead"),
  objects: z.array(z.string()),
});
export type AdoptFile = z.infer<typeof AdoptFile>;

export const AdoptPatch = named(
  "AdoptPatch",
  object({
    claimId: z.string(),
    repository: z.string().nullable(),
    revision: z.string().nullable(),
    files: z.array(AdoptFile),
    patch: z.string().describe("Unified diff, `git apply -p1` ready for the files whose change is not approximate"),
    notes: z.array(z.string()),
  }),
);
export type AdoptPatch = z.infer<typeof AdoptPatch>;

export const claimListQuery = z.object({
  environment: z.string().max(100).optional().describe("One environment"),
  status: z.enum(CLAIM_STATUSES).optional(),
  owner: z.string().max(100).optional().describe("Owner's username"),
  driftItemId: z.uuid().optional().describe("Claims covering this drift item"),
  limit: z.coerce.number().int().min(1).max(1000).optional().describe("At most"),
});

export const adoptPatchQuery = z.object({ format: z.enum(["patch", "json"]).default("patch").describe("patch (a unified diff to download) or json (the files and notes)") });
