// What an application is, wherever it comes from: discovered from a controller
// object in the cluster (a Flux Kustomization or HelmRelease, an Argo CD
// Application) or declared in driftwatch.yaml for clusters without a
// controller. An environment (a place in the promotion order) holds many.
//
// This is the contract between discovery (lib/applications/discover*) and
// collection (lib/collector): discovery produces these, collection consumes them.
import { z } from "zod";

/** Which Git revision an application follows, as its controller names it. */
export const gitRefSchema = z
  .object({
    branch: z.string().min(1).optional(),
    tag: z.string().min(1).optional(),
    /** A semver range over tags (Flux GitRepository `ref.semver`). */
    semver: z.string().min(1).optional(),
    /** A pinned commit (Flux `ref.commit`, an Argo CD targetRevision that is a sha). */
    commit: z.string().regex(/^[0-9a-f]{7,40}$/).optional(),
    /** A full ref name (Flux `ref.name`, e.g. refs/pull/1/head). */
    name: z.string().min(1).optional(),
    /** A pinned OCI artifact digest (Flux OCIRepository `ref.digest`, `sha256:…`). */
    digest: z.string().regex(/^[a-z0-9]+:[0-9a-f]{32,}$/).optional(),
  })
  .strict();

/** What a source follows, as the application page names it (lib/applications/refs.ts followsOf). */
export const FOLLOWS_KINDS = ["branch", "tag", "semver", "commit", "ref", "default-branch", "digest"] as const;

export const applicationKindSchema = z.enum(["flux-kustomization", "flux-helmrelease", "argocd-application", "declared"]);

/** The controller object an application was discovered from; pause/resume acts on it. */
export const controllerRefSchema = z
  .object({
    type: z.enum(["flux", "argocd"]),
    kind: z.enum(["Kustomization", "HelmRelease", "Application"]),
    namespace: z.string().min(1),
    name: z.string().min(1),
    /** The object lives in the Argo CD hub cluster (`discover.argocd.hub`), not in the environment's. */
    hub: z.literal(true).optional(),
  })
  .strict();

/** Where an application's desired state comes from in Git (one per Argo CD `sources` entry). */
export const applicationSourceSchema = z
  .object({
    /** The repository URL as the controller names it (no credentials). */
    url: z.string().min(1),
    /** driftwatch.yaml's repository this URL resolved to (by exact URL or credential URL prefix), when any. */
    repository: z.string().optional(),
    ref: gitRefSchema,
    path: z.string().default("."),
    /** How the path renders: plain YAML, kustomize, or a Helm chart (Argo CD Helm sources). */
    render: z.enum(["plain", "kustomize", "helm"]).default("plain"),
    /** Chart reference for Helm sources not in Git (Argo CD `chart:` from a Helm repository or OCI). */
    chart: z.string().optional(),
    /** Argo CD `ref:` of a multi-source entry: other sources' Helm valueFiles name its files as `$<refName>/…`. */
    refName: z.string().optional(),
    /** A `ref:` source with neither path nor chart: it renders nothing and only lends its files. */
    refOnly: z.literal(true).optional(),
    /** What the last collection found this source's approved revision (commit or chart version) to be; set for multi-source and chart applications. */
    approved: z.string().optional(),
    /** What its controller reported this source applied at (Argo CD `status.sync.revisions[i]`), as the last collection read it. */
    applied: z.string().nullable().optional(),
  })
  .strict();

export const applicationSpecSchema = z
  .object({
    /** Unique within its environment; for discovered apps `<namespace>/<name>` of the controller object unless overridden. */
    name: z.string().min(1),
    kind: applicationKindSchema,
    /** Matches the same application across environments (promotion chain). Default: the controller object's name. */
    promotionKey: z.string().min(1),
    controller: controllerRefSchema.optional(),
    sources: z.array(applicationSourceSchema),
    /** Argo CD destination (hub clusters map Applications to environments by it). */
    destination: z.object({ server: z.string().optional(), name: z.string().optional(), namespace: z.string().optional() }).strict().optional(),
    labels: z.record(z.string(), z.string()).default({}),
    /**
     * A Flux HelmRelease's Git side: where its HelmRelease is declared (the
     * source and path of the Kustomization that applies it). Its desired state
     * is the release in Helm's storage; Git says which chart and values should be released.
     */
    declaredIn: applicationSourceSchema.optional(),
  })
  .strict();

export type GitRef = z.infer<typeof gitRefSchema>;
export type ApplicationKind = z.infer<typeof applicationKindSchema>;
export type ControllerRef = z.infer<typeof controllerRefSchema>;
export type ApplicationSource = z.infer<typeof applicationSourceSchema>;
export type ApplicationSpec = z.infer<typeof applicationSpecSchema>;
