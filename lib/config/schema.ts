// driftwatch.yaml, validated. Credentials are only ever referenced (an env
// var name or a file path); their values never enter the database.
import { z } from "zod";
import { parseDuration } from "./duration";
import { discoverSchema } from "@/lib/applications/discovery-config";
import { clusterSchema, envVarName, type ClusterConfig } from "./cluster";

const NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

const duration = z
  .string()
  .refine((s) => parseDuration(s) !== null, { message: 'expected a duration such as "30s", "10m", "2h" or "7d"' })
  .transform((s) => parseDuration(s) ?? 0);


const repositoryAuth = z.discriminatedUnion("type", [
  z.object({ type: z.literal("none") }),
  z.object({ type: z.literal("token"), tokenEnv: envVarName, username: z.string().default("x-access-token") }),
  z.object({ type: z.literal("ssh"), keyFile: z.string().min(1), knownHostsFile: z.string().optional() }),
]);

export const repositorySchema = z
  .object({
    name: z.string().regex(NAME, "lower-case letters, digits and '-'"),
    url: z.string().min(1),
    auth: repositoryAuth.default({ type: "none" }),
    /** Other URLs of the same repository (its ssh and https forms, a mirror): controllers that name it so resolve to this entry. */
    aliases: z.array(z.string().min(1)).optional(),
    /** Env var holding the webhook secret for pushes to this repository. */
    webhookSecretEnv: envVarName.optional(),
  })
  .strict()
  .superRefine((repo, ctx) => {
    if (/^[a-z]+:\/\/[^/@]*:[^/@]*@/i.test(repo.url)) {
      ctx.addIssue({ code: "custom", path: ["url"], message: "must not contain credentials; use auth.tokenEnv" });
    }
    repo.aliases?.forEach((alias, i) => {
      if (/^[a-z]+:\/\/[^/@]*:[^/@]*@/i.test(alias)) ctx.addIssue({ code: "custom", path: ["aliases", i], message: "must not contain credentials; use auth" });
    });
  });

/** Auth for every repository whose URL starts with urlPrefix (as Argo CD's credential templates), declared or not. */
export const credentialSchema = z
  .object({ urlPrefix: z.string().min(1), auth: repositoryAuth })
  .strict()
  .superRefine((c, ctx) => {
    if (/^[a-z]+:\/\/[^/@]*:[^/@]*@/i.test(c.urlPrefix)) {
      ctx.addIssue({ code: "custom", path: ["urlPrefix"], message: "must not contain credentials; use auth" });
    }
  });

const controllerSchema = z.discriminatedUnion("type", [
  z
    .object({
      type: z.literal("flux"),
      // A HelmRelease's desired state is the release Helm installed (lib/helm); a Kustomization's is its render.
      kind: z.enum(["Kustomization", "HelmRelease"]).default("Kustomization"),
      namespace: z.string().default("flux-system"),
      name: z.string().min(1),
    })
    .strict(),
  z.object({ type: z.literal("argocd"), namespace: z.string().default("argocd"), name: z.string().min(1) }).strict(),
]);

export const ignoreRuleSchema = z
  .object({
    name: z.string().min(1),
    kinds: z.array(z.string()).optional(),
    names: z.array(z.string()).optional(),
    namespaces: z.array(z.string()).optional(),
    jsonPointers: z.array(z.string().startsWith("/", "a JSON pointer starts with '/'")).optional(),
    paths: z.array(z.string().min(1)).optional(),
    managers: z.array(z.string().min(1)).optional(),
  })
  .strict()
  .refine((r) => (r.jsonPointers?.length ?? 0) + (r.paths?.length ?? 0) + (r.managers?.length ?? 0) > 0, {
    message: "an ignore rule needs jsonPointers, paths or managers",
  });

const stringMap = z.record(z.string(), z.string());

const fluxSelectorSchema = z
  .object({
    group: z.string().optional(),
    version: z.string().optional(),
    kind: z.string().optional(),
    name: z.string().optional(),
    namespace: z.string().optional(),
    labelSelector: z.string().optional(),
    annotationSelector: z.string().optional(),
  })
  .strict();

/** A Flux Kustomization's render settings (its spec's field names), used when the object cannot be read from the cluster. */
const fluxRenderSchema = z
  .object({
    targetNamespace: z.string().optional(),
    namePrefix: z.string().optional(),
    nameSuffix: z.string().optional(),
    patches: z.array(z.object({ patch: z.string().min(1), target: fluxSelectorSchema.optional() }).strict()).optional(),
    images: z.array(z.object({ name: z.string().min(1), newName: z.string().optional(), newTag: z.string().optional(), digest: z.string().optional() }).strict()).optional(),
    components: z.array(z.string()).optional(),
    ignoreMissingComponents: z.boolean().optional(),
    commonMetadata: z.object({ labels: stringMap.optional(), annotations: stringMap.optional() }).strict().optional(),
    postBuild: z
      .object({
        substitute: stringMap.optional(),
        substituteFrom: z.array(z.object({ kind: z.enum(["ConfigMap", "Secret"]), name: z.string().min(1), optional: z.boolean().optional() }).strict()).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/** An Argo CD Helm source's settings (ApplicationSourceHelm's field names). */
const argocdHelmSchema = z
  .object({
    releaseName: z.string().optional(),
    namespace: z.string().optional(),
    valueFiles: z.array(z.string().min(1)).optional(),
    ignoreMissingValueFiles: z.boolean().optional(),
    values: z.string().optional(),
    valuesObject: z.record(z.string(), z.unknown()).optional(),
    parameters: z.array(z.object({ name: z.string().min(1), value: z.string().default(""), forceString: z.boolean().optional() }).strict()).optional(),
    fileParameters: z.array(z.object({ name: z.string().min(1), path: z.string().min(1) }).strict()).optional(),
    skipCrds: z.boolean().optional(),
    skipSchemaValidation: z.boolean().optional(),
    skipTests: z.boolean().optional(),
    kubeVersion: z.string().optional(),
    apiVersions: z.array(z.string().min(1)).optional(),
  })
  .strict();

/** An Argo CD Application source's render settings (its field names), used when the object cannot be read from the cluster. */
const argocdRenderSchema = z
  .object({
    helm: argocdHelmSchema.optional(),
    /** A chart from a Helm repository (`helmRepositories`) in place of the Git path: the Application's repoURL, chart and targetRevision. */
    chart: z.object({ repoURL: z.string().min(1), chart: z.string().min(1), targetRevision: z.string().default("") }).strict().optional(),
    directory: z.object({ recurse: z.boolean().optional(), include: z.string().optional(), exclude: z.string().optional() }).strict().optional(),
    kustomize: z
      .object({
        namePrefix: z.string().optional(),
        nameSuffix: z.string().optional(),
        images: z.array(z.string().min(1)).optional(),
        commonLabels: stringMap.optional(),
        commonAnnotations: stringMap.optional(),
        forceCommonLabels: z.boolean().optional(),
        forceCommonAnnotations: z.boolean().optional(),
        labelWithoutSelector: z.boolean().optional(),
        labelIncludeTemplates: z.boolean().optional(),
        namespace: z.string().optional(),
        replicas: z.array(z.object({ name: z.string().min(1), count: z.union([z.number().int(), z.string().regex(/^[+-]?\d+$/, "an integer")]) }).strict()).optional(),
        patches: z
          .array(
            z
              .object({ path: z.string().optional(), patch: z.string().optional(), target: fluxSelectorSchema.optional(), options: z.record(z.string(), z.boolean()).optional() })
              .strict()
              .refine((p) => Boolean(p.path || p.patch), { message: "a patch needs path or patch" }),
          )
          .optional(),
        components: z.array(z.string().min(1)).optional(),
        ignoreMissingComponents: z.boolean().optional(),
        commonAnnotationsEnvsubst: z.boolean().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const sourceSchema = z
  .object({
    repository: z.string().min(1),
    branch: z.string().min(1).default("main"),
    path: z.string().default("."),
    /** `helm`: the path is a chart folder rendered as Argo CD renders a Helm source (source.argocd.helm). */
    render: z.enum(["plain", "kustomize", "helm"]).default("plain"),
    /** Render as Flux renders with these settings (the Kustomization's, when it can be read, win). */
    flux: fluxRenderSchema.optional(),
    /** Render as Argo CD renders with these settings (the Application's, when it can be read, win). */
    argocd: argocdRenderSchema.optional(),
  })
  .strict()
  .refine((s) => !(s.flux && s.argocd), { message: "a source renders as Flux or as Argo CD, not both", path: ["argocd"] });

/** The name today's single `source:` gets as an application; also its promotion key, so such environments still form one chain. */
export const DEFAULT_APPLICATION_NAME = "default";

/** One application declared in driftwatch.yaml: a source, and the controller object that applies it when one runs. */
const declaredApplicationSchema = z
  .object({
    name: z.string().regex(NAME, "lower-case letters, digits and '-'"),
    source: sourceSchema,
    controller: controllerSchema.optional(),
    /** Matches this application across environments; default: its name. */
    promotionKey: z.string().min(1).optional(),
    /** A label `key=value` that marks live objects as this application's (for Extra drift); default: the environment's. */
    trackingLabel: z
      .string()
      .regex(/^[^=\s]+=[^=\s]*$/, "expected key=value")
      .optional(),
  })
  .strict();

export const environmentSchema = z
  .object({
    name: z.string().regex(NAME, "lower-case letters, digits and '-'"),
    description: z.string().optional(),
    cluster: clusterSchema,
    /** Namespaces in scope; empty means every namespace the credential can read. */
    namespaces: z.array(z.string()).default([]),
    defaultNamespace: z.string().default("default"),
    /** One source: the environment holds one declared application named "default" (the layout before applications). */
    source: sourceSchema.optional(),
    /** Declared applications, for clusters where no controller runs (or to name them yourself); instead of `source`. */
    applications: z.array(declaredApplicationSchema).optional(),
    controller: controllerSchema.optional(),
    /** Applications found in the cluster: Flux Kustomizations/HelmReleases, Argo CD Applications (lib/applications). */
    discover: discoverSchema.optional(),
    /** A label `key=value` that marks live objects as belonging to this environment (for Extra drift). */
    trackingLabel: z
      .string()
      .regex(/^[^=\s]+=[^=\s]*$/, "expected key=value")
      .optional(),
    /**
     * Where to look for tracked objects Git lacks (Extra) when no controller record names them
     * (tracking by label, or an Argo CD Application without status.resources): kinds as `Kind`
     * (core) or `group/Kind`. Unset: every namespaced kind the credential can list (metadata
     * only, once per run). `[]`: only the kinds Git declares.
     */
    extraKinds: z.array(z.string().regex(/^([a-z0-9.-]+\/)?[A-Z][A-Za-z0-9]*$/, "expected Kind or group/Kind")).optional(),
    mode: z.enum(["poll", "watch"]).default("poll"),
    interval: duration.default(60_000),
    /** Approved ≠ applied for longer than this raises the stale alert. */
    staleAfter: duration.default(600_000),
    maxPause: duration.default(7 * 86_400_000),
    autoResume: z.boolean().default(false),
    /** Typing the environment's name is required to pause it (production). */
    confirmPause: z.boolean().default(false),
    /** Credential with write access to the controller object, for pause/resume. */
    write: clusterSchema.optional(),
    ignore: z.array(ignoreRuleSchema).default([]),
  })
  .strict()
  .superRefine((e, ctx) => {
    if (e.source && e.applications) ctx.addIssue({ code: "custom", path: ["applications"], message: "give either source (one application) or applications, not both" });
    if (!e.source && !e.applications?.length && !e.discover) ctx.addIssue({ code: "custom", path: ["source"], message: "an environment needs a source, a list of applications or discover" });
    if (e.applications && e.controller) ctx.addIssue({ code: "custom", path: ["controller"], message: "with applications, each application names its own controller" });
    const names = new Set<string>();
    e.applications?.forEach((a, i) => {
      if (names.has(a.name)) ctx.addIssue({ code: "custom", path: ["applications", i, "name"], message: `duplicate application "${a.name}"` });
      names.add(a.name);
    });
  })
  // Views that are still per environment (the environment summary) read
  // `source`/`controller`: with applications they see the first one; an
  // environment that only discovers has none (its sources are known at run time).
  // Collection reads every application (lib/collector/run-applications.ts).
  .transform((e) => {
    const first = e.applications?.[0];
    return { ...e, source: e.source ?? first?.source, controller: e.controller ?? first?.controller };
  });

const managerLists = z
  .object({
    human: z.array(z.string()).optional(),
    system: z.array(z.string()).optional(),
    controller: z.array(z.string()).optional(),
  })
  .strict();

const helmRepositoryAuth = z.discriminatedUnion("type", [
  z.object({ type: z.literal("none") }),
  z.object({ type: z.literal("basic"), username: z.string().min(1), passwordEnv: envVarName }).strict(),
  z.object({ type: z.literal("token"), tokenEnv: envVarName }).strict(),
]);

/** A Helm chart repository (https index) or OCI registry (`oci://host/path`) Driftwatch may fetch charts from. */
export const helmRepositorySchema = z
  .object({
    name: z.string().regex(NAME, "lower-case letters, digits and '-'"),
    url: z.string().regex(/^(https?|oci):\/\/[^\s]+$/, "an http(s):// repository or oci:// registry URL"),
    auth: helmRepositoryAuth.default({ type: "none" }),
    /** OCI only: speak plain HTTP to the registry (helm's --plain-http), for a registry on a private network. */
    plainHttp: z.boolean().default(false),
  })
  .strict()
  .superRefine((repo, ctx) => {
    if (/^[a-z]+:\/\/[^/@]*:[^/@]*@/i.test(repo.url)) ctx.addIssue({ code: "custom", path: ["url"], message: "must not contain credentials; use auth" });
  });

export const configSchema = z
  .object({
    repositories: z.array(repositorySchema).default([]),
    credentials: z.array(credentialSchema).default([]),
    /** The chart repositories and OCI registries Argo CD Helm sources may name: the only places Driftwatch fetches charts from. */
    helmRepositories: z.array(helmRepositorySchema).default([]),
    /**
     * Repositories a kustomization may name as a remote base. Driftwatch
     * fetches them itself (with their auth) and kustomize reads the local copy;
     * every other remote reference is refused.
     */
    remoteBases: z.array(z.string().min(1)).default([]),
    environments: z.array(environmentSchema).default([]),
    managers: managerLists.default({}),
    auth: z
      .object({
        local: z.boolean().default(true),
        oidc: z
          .object({
            issuer: z.string().url(),
            clientId: z.string().min(1),
            clientSecretEnv: envVarName,
            groupsClaim: z.string().default("groups"),
            roles: z
              .object({
                admin: z.array(z.string()).default([]),
                operator: z.array(z.string()).default([]),
                viewer: z.array(z.string()).default([]),
              })
              .strict()
              .default({ admin: [], operator: [], viewer: [] }),
            defaultRole: z.enum(["viewer", "operator", "admin"]).nullable().default("viewer"),
          })
          .strict()
          .optional(),
      })
      .strict()
      .default({ local: true }),
    alerts: z
      .object({
        webhooks: z
          .array(z.object({ name: z.string().min(1), url: z.string().url(), secretEnv: envVarName.optional() }).strict())
          .default([]),
        runbooks: z.record(z.string(), z.string().url()).default({}),
        /** Also send each new audit checkpoint (the chain's newest hash) to the webhooks: a copy outside this machine. */
        auditCheckpoints: z.boolean().default(false),
      })
      .strict()
      .default({ webhooks: [], runbooks: {}, auditCheckpoints: false }),
    retention: z
      .object({ rawSnapshots: duration.default(30 * 86_400_000) })
      .strict()
      .default({ rawSnapshots: 30 * 86_400_000 }),
  })
  .strict()
  .superRefine((cfg, ctx) => {
    const repoNames = new Set<string>();
    cfg.repositories.forEach((r, i) => {
      if (repoNames.has(r.name)) ctx.addIssue({ code: "custom", path: ["repositories", i, "name"], message: `duplicate repository "${r.name}"` });
      repoNames.add(r.name);
    });
    cfg.remoteBases.forEach((name, i) => {
      if (!repoNames.has(name)) {
        ctx.addIssue({ code: "custom", path: ["remoteBases", i], message: `unknown repository "${name}" (remote bases name a declared repository)` });
      }
    });
    const envNames = new Set<string>();
    cfg.environments.forEach((e, i) => {
      if (envNames.has(e.name)) ctx.addIssue({ code: "custom", path: ["environments", i, "name"], message: `duplicate environment "${e.name}"` });
      envNames.add(e.name);
      const sources = e.applications ? e.applications.map((a, j) => ({ source: a.source, path: ["environments", i, "applications", j, "source", "repository"] })) : [{ source: e.source, path: ["environments", i, "source", "repository"] }];
      for (const { source, path } of sources) {
        if (!source || repoNames.has(source.repository)) continue;
        ctx.addIssue({ code: "custom", path, message: `unknown repository "${source.repository}" (declared: ${[...repoNames].join(", ") || "none"})` });
      }
    });
  });

export type DriftwatchConfig = z.infer<typeof configSchema>;
export type EnvironmentConfig = z.infer<typeof environmentSchema>;
export type RepositoryConfig = z.infer<typeof repositorySchema>;
export type CredentialConfig = z.infer<typeof credentialSchema>;
export type HelmRepositoryConfig = z.infer<typeof helmRepositorySchema>;
export type IgnoreRuleConfig = z.infer<typeof ignoreRuleSchema>;
export type { ClusterConfig };
export type ControllerConfig = z.infer<typeof controllerSchema>;
export type SourceConfig = z.output<typeof sourceSchema>;
/** An environment as one application's collection sees it: always with a source (lib/applications/declared.ts's applicationView). */
export type ApplicationEnvironment = EnvironmentConfig & { source: SourceConfig };
export type DeclaredApplicationConfig = z.output<typeof declaredApplicationSchema>;
