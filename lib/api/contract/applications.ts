// Applications: the deployable units of an environment (Flux Kustomizations
// and HelmReleases, Argo CD Applications, declared sources), listed with the
// environment's rollup, and one application with its drift and revisions.
import { z } from "zod";
import { APPLICATION_STATUSES } from "@/lib/applications/rollup";
import { applicationKindSchema, FOLLOWS_KINDS } from "@/lib/applications/spec";
import { ApplicationRollupDto } from "./application-rollup";
import { DRIFT_TYPES } from "./drift";
import { HelmReleaseDto, RevisionDto, RollbackDto } from "./environments";
import { envName } from "./params";
import { count, isoTime, named, object } from "./schema";

export const FollowsDto = named(
  "Follows",
  object({
    kind: z.enum(FOLLOWS_KINDS),
    ref: z.string().describe("The ref as the controller names it: a branch, tag, semver range, commit, full ref name, HEAD or digest"),
    resolved: z.string().nullable().describe("What it resolved to on the last run: a semver range's tag, the default branch's name"),
    text: z.string().describe('In words: "tag v1.2.3", "semver >=1.0 <2 → v1.4.0", "commit abc1234", "default branch (main)"'),
  }),
  "What a source follows in its repository",
);

export const ApplicationSummaryDto = named(
  "ApplicationSummary",
  object({
    name: z.string(),
    kind: applicationKindSchema,
    promotionKey: z.string(),
    status: z.enum(APPLICATION_STATUSES),
    controller: object({ type: z.enum(["flux", "argocd"]), kind: z.string(), namespace: z.string(), name: z.string() }).nullable(),
    sources: z.array(
      object({
        url: z.string(),
        repository: z.string().nullable(),
        ref: z.string().describe("branch, tag, semver range or commit, as the controller names it"),
        follows: FollowsDto,
        path: z.string(),
        render: z.string(),
        chart: z.string().nullable().describe("A chart from a Helm repository or OCI registry: its name (url is the repository)"),
        refName: z.string().nullable().describe("Argo CD multi-source `ref:`: other sources read its files as `$<refName>/…` in their Helm valueFiles"),
        refOnly: z.boolean().describe("A `ref:` source without path or chart: it renders nothing and only lends its files"),
        approved: z.string().nullable().describe("This source's approved revision: a commit, or a chart version for a chart from a Helm repository"),
        applied: z.string().nullable().describe("The revision its controller reports it synced (Argo CD status.sync.revision, or revisions[i] of a multi-source application)"),
      }),
    ),
    approvedSha: z.string().nullable(),
    approvedAt: isoTime.nullable(),
    appliedSha: z.string().nullable(),
    appliedSource: z.string().nullable(),
    appliedSince: isoTime.nullable(),
    objectCount: count,
    driftCount: count,
    lastError: object({ message: z.string(), at: isoTime.nullable() }).nullable(),
    firstSeenAt: isoTime,
    lastSeenAt: isoTime.nullable().describe("When a collection last saw it, to within 5 minutes (a removed application: removedAt is exact)"),
    removedAt: isoTime.nullable(),
  }),
  "One application as the last good collection saw it",
);
export type ApplicationSummaryDto = z.infer<typeof ApplicationSummaryDto>;

export const ApplicationListDto = named(
  "ApplicationList",
  object({
    environment: z.string(),
    collectedAt: isoTime.nullable().describe("The environment's last good collection; null before the first (an empty list then means not collected yet, not no applications)"),
    rollup: ApplicationRollupDto,
    total: count.describe("Applications matching the filters"), applications: z.array(ApplicationSummaryDto) }),
  "An environment's applications, worst first (failing, paused, stale, drifted, in sync, removed), then by name",
);
export type ApplicationListDto = z.infer<typeof ApplicationListDto>;

export const ApplicationDetailDto = named(
  "ApplicationDetail",
  object({
    environment: z.string(),
    application: ApplicationSummaryDto,
    approved: RevisionDto.nullable().describe("The approved revision's commit, resolved in the application's own repository (message null for a chart version or a commit not fetched yet)"),
    applied: RevisionDto.nullable().describe("The applied revision's commit, resolved in the application's own repository"),
    drift: z.array(object({ key: z.string(), type: z.enum(DRIFT_TYPES), kind: z.string(), namespace: z.string(), name: z.string(), openedAt: isoTime, attributionManager: z.string().nullable() })),
    revisions: z.array(object({ sha: z.string(), revision: RevisionDto.nullable().describe("The commit in the application's repository; null for a chart version"), source: z.string(), firstSeenAt: isoTime, lastSeenAt: isoTime, endedAt: isoTime.nullable() })),
    rollback: RollbackDto.nullable().describe(
      "Rollback guidance for the application's own source (its repository, branch and path, from its own applied revisions); null when it has none to revert: a source that follows no branch (a tag, semver range or pinned commit: rolled back where its ref is declared), a chart from a Helm repository, or a source whose repository is not declared",
    ),
    helm: HelmReleaseDto.nullable().describe("A Flux HelmRelease application's release (chart, version, masked values diff, history) as of its last collection; null for any other"),
    manualSync: z.boolean().describe("An Argo CD Application that syncs by hand by design: no automated sync policy live nor declared in Git. Not a pause; it goes stale when an approved commit is not synced"),
  }),
  "One application: its summary, its open drift (up to 500, by key), the revisions it applied (newest first, up to 50), rollback guidance for its own source and, for a HelmRelease, its release",
);
export type ApplicationDetailDto = z.infer<typeof ApplicationDetailDto>;

export const applicationParams = z.object({
  env: envName,
  app: z.string().min(1).max(253).regex(/^[^\s]+$/, "an application name has no spaces").describe("Application name (URL-encoded; discovered ones are namespace/name)"),
});

const FILTERABLE = APPLICATION_STATUSES;
export const applicationListQuery = z.object({
  q: z.string().trim().max(200).optional().describe("Text in the name, promotion key, path or repository"),
  status: z
    .string()
    .max(200)
    .transform((s) => s.split(",").map((x) => x.trim()).filter(Boolean))
    .pipe(z.array(z.enum(FILTERABLE)).max(FILTERABLE.length))
    .optional()
    .describe("Comma-separated statuses"),
  kind: applicationKindSchema.optional(),
  removed: z.enum(["include", "exclude", "only"]).default("exclude").describe("Removed applications (their history kept)"),
});
export type ApplicationListQuery = z.infer<typeof applicationListQuery>;
