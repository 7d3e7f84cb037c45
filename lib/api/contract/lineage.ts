// Lineage: where a commit is live, and the commits of each followed branch.
import { z } from "zod";
import type { Hop as DomainHop } from "@/lib/lineage/promotion";
import { RevisionDto } from "./environments";
import { assertSameShape, count, isoTime, named, object, type SameShape } from "./schema";

export const EnvironmentBadgeDto = named(
  "Badge",
  object({
    environment: z.string(),
    application: z.string().nullable().describe("The application this answer is about, when the environment holds several (each follows its own path); null: the environment as a whole"),
    position: count,
    state: z.enum(["live", "pending", "not-approved", "unknown"]),
    since: isoTime.nullable().describe("Live: since when (start of the unbroken stretch)"),
    through: RevisionDto.nullable().describe("The applied revision the answer is through"),
    viaDescendant: z.boolean().describe("Live through a later applied commit that contains this one"),
    inferred: z.boolean().describe("The applied revision was inferred from live state (no controller reports one)"),
    firstLiveAt: isoTime.nullable(),
    reason: z.string().nullable().describe('Pending: why, in words ("source AuthenticationFailed for 2h")'),
    reasonSince: isoTime.nullable(),
  }),
  "Whether a commit is live in one environment",
);
export type EnvironmentBadgeDto = z.infer<typeof EnvironmentBadgeDto>;

export const Hop = object({
  from: z.string().nullable().describe("null for the first hop, which starts at the commit itself"),
  to: z.string(),
  startedAt: isoTime.nullable(),
  reachedAt: isoTime.nullable(),
  durationMs: count.nullable(),
});
export type Hop = z.infer<typeof Hop>;
assertSameShape<SameShape<Hop, DomainHop>>();

export const CommitDto = named(
  "Commit",
  object({
    revision: object({
      ...RevisionDto.shape,
      parents: z.array(z.string()),
      authorEmail: z.string(),
      fullMessage: z.string(),
      changedPaths: z.array(z.string()),
    }),
    repository: z.string(),
    environments: z.array(EnvironmentBadgeDto),
    hops: z.array(Hop),
  }),
);
export type CommitDto = z.infer<typeof CommitDto>;

export const CommitLookupDto = named(
  "CommitLookup",
  z.discriminatedUnion("match", [
    object({ match: z.literal("exact"), commit: CommitDto }),
    object({ match: z.literal("ambiguous"), candidates: z.array(RevisionDto) }),
  ]),
  "A short sha matching several commits answers `match: ambiguous` with the candidates",
);
export type CommitLookupDto = z.infer<typeof CommitLookupDto>;

export const LineageDto = named(
  "Lineage",
  object({
    repositories: z.array(
      object({
        name: z.string(),
        branches: z.array(
          object({
            branch: z.string(),
            head: z.string().nullable(),
            environments: z.array(z.string()),
            tracks: z
              .array(object({ environment: z.string(), application: z.string().nullable(), path: z.string() }))
              .describe("The columns: each environment, or each application of an environment that holds several, following this branch"),
            commits: z.array(object({ ...RevisionDto.shape, badges: z.array(EnvironmentBadgeDto) })),
          }),
        ),
      }),
    ),
    environments: z.array(
      object({
        name: z.string(),
        position: count,
        applied: RevisionDto.nullable().describe("What the environment runs; null when unknown, or when its applications follow sources of their own (perApplication)"),
        perApplication: z.boolean().describe("The environment's applications follow sources of their own (discover:): no one revision is the environment's; each application's column says what it runs"),
      }),
    ),
    now: isoTime,
  }),
  "Newest commits that change an environment's or application's path, per repository and branch, with a badge per environment (or per application where an environment holds several)",
);
export type LineageDto = z.infer<typeof LineageDto>;

export const lineageQuerySchema = z.object({ limit: z.coerce.number().int().min(1).max(200).default(30).describe("Commits per branch") });
