// The applications one run of an environment collects: the ones driftwatch.yaml
// declares and, for an environment with `discover:`, the ones its controllers
// hold (read from the cluster this run), each with the repository it is
// fetched from. What discovery could not read this run is kept as it was known,
// never taken for gone.
import type { EnvironmentConfig, RepositoryConfig } from "@/lib/config";
import type { RunError } from "@/lib/domain/types";
import type { ClusterClient } from "@/lib/kube/client";
import type { Discovery } from "@/lib/kube/discovery";
import { declaredApplications } from "@/lib/applications/declared";
import { discoverApplications, type DiscoveryWarning, type UnlistedKind } from "@/lib/applications/discover";
import type { DiscoverConfig } from "@/lib/applications/discovery-config";
import { repositoryOfSource } from "@/lib/applications/repositories";
import { helmRepositoryFor } from "@/lib/helm/chart-fetch";
import { applicationSpecSchema, controllerRefSchema, type ApplicationSpec, type ControllerRef } from "@/lib/applications/spec";
import { RunFailure, kubeRunError, type CollectorContext } from "./run-context";
import { clusterFor } from "./run-memo";

/** An application stored by an earlier run (readPersistInputs' applicationRows). */
export interface KnownApplication {
  id: string;
  name: string;
  removedAt: Date | null;
  controllerRef: unknown;
  spec: unknown;
}

export interface RunApplications {
  /** To collect this run, names unique, declared ones first. */
  specs: ApplicationSpec[];
  /** Discovery's warnings and name clashes, as the run reports them. */
  warnings: RunError[];
  /**
   * Applications known before whose controller kind could not be listed this
   * run: not collected, not removed; their last good state stays, with the reason.
   */
  keptForUnlistedKinds: Array<{ spec: ApplicationSpec; error: RunError }>;
  /** The repository each source repository name stands for this run (declared, or made up from a credential). */
  repositories: Map<string, RepositoryConfig>;
  /** Why an application cannot be fetched (its source maps to no repository), by application name. */
  unfetchable: Map<string, string>;
}

function unlistedFor(controller: ControllerRef | undefined, unlisted: readonly UnlistedKind[]): UnlistedKind | undefined {
  if (!controller) return undefined;
  return unlisted.find((u) => u.kind === controller.kind && (u.namespace === null || u.namespace === controller.namespace));
}

/**
 * The API client and discovery of the Argo CD hub an environment's
 * Applications live in (`discover.argocd.hub`), kept like the environment's own.
 */
export function hubClusterFor(ctx: CollectorContext, env: EnvironmentConfig): Promise<{ client: ClusterClient; discovery: Discovery }> | null {
  const hub = env.discover?.argocd?.hub;
  if (!hub) return null;
  return clusterFor(`${env.name}\0argocd-hub`, hub, ctx.clusterTimeoutMs ?? 20_000).catch(hubFailure);
}

/** A failure reaching the hub fails the run, saying it was the hub. */
function hubFailure(e: unknown): never {
  const error = kubeRunError(e);
  throw new RunFailure([{ ...error, message: `the Argo CD hub: ${error.message}` }]);
}

/**
 * Discovery in the environment's cluster and, when Argo CD runs in a hub,
 * of the Argo CD Applications there (marked as the hub's, so their status is
 * read there and a pause of them is recorded, not performed).
 */
async function discoverEverywhere(
  ctx: CollectorContext,
  env: EnvironmentConfig,
  discover: DiscoverConfig,
  cluster: () => Promise<{ client: ClusterClient; discovery: Discovery }>,
): Promise<{ applications: ApplicationSpec[]; warnings: DiscoveryWarning[]; unlisted: UnlistedKind[] }> {
  const failed = (e: unknown) => {
    throw e instanceof RunFailure ? e : new RunFailure([kubeRunError(e)]);
  };
  const onHub = Boolean(discover.argocd?.hub);
  const local: DiscoverConfig = onHub ? { ...discover, argocd: undefined } : discover;
  const outcomes = [];
  if (local.flux || local.argocd) {
    const { client, discovery } = await cluster();
    outcomes.push(await discoverApplications(client, discovery, [{ environment: env.name, discover: local }], ctx.config).catch(failed));
  }
  const hub = onHub ? hubClusterFor(ctx, env) : null;
  if (hub) {
    const { client, discovery } = await hub;
    const found = await discoverApplications(client, discovery, [{ environment: env.name, discover: { argocd: discover.argocd, promotionKeys: discover.promotionKeys } }], ctx.config).catch(hubFailure);
    const markHub = (spec: ApplicationSpec): ApplicationSpec => (spec.controller ? { ...spec, controller: { ...spec.controller, hub: true } } : spec);
    outcomes.push({ ...found, applications: new Map([...found.applications].map(([k, specs]) => [k, specs.map(markHub)])) });
  }
  return {
    applications: outcomes.flatMap((o) => o.applications.get(env.name) ?? []),
    warnings: outcomes.flatMap((o) => o.warnings),
    unlisted: outcomes.flatMap((o) => o.unlisted),
  };
}

/**
 * The environment's applications for this run. A test seam
 * (`ctx.applicationsFor`) wins; otherwise the declared ones and, with
 * `discover:`, the discovered ones (a declared application of the same name
 * wins, with a warning). `cluster` is asked only when the environment discovers.
 */
export async function applicationsOfRun(
  ctx: CollectorContext,
  env: EnvironmentConfig,
  cluster: () => Promise<{ client: ClusterClient; discovery: Discovery }>,
  known: () => Promise<readonly KnownApplication[]>,
): Promise<RunApplications> {
  const warnings: RunError[] = [];
  const keptForUnlistedKinds: RunApplications["keptForUnlistedKinds"] = [];
  let specs: ApplicationSpec[];
  if (ctx.applicationsFor) {
    specs = await ctx.applicationsFor(env, await cluster());
  } else {
    specs = declaredApplications(env, ctx.config.repositories);
    if (env.discover) {
      const outcome = await discoverEverywhere(ctx, env, env.discover, cluster);
      for (const w of outcome.warnings) warnings.push({ category: w.code === "forbidden" ? "forbidden" : "render", severity: "warning", message: w.message });
      const declaredNames = new Set(specs.map((s) => s.name));
      for (const found of outcome.applications) {
        if (declaredNames.has(found.name)) {
          const by = found.controller ? ` (${found.controller.kind} ${found.controller.namespace}/${found.controller.name})` : "";
          warnings.push({ category: "render", severity: "warning", message: `application ${found.name} is declared in driftwatch.yaml and discovered${by}; the declared one is collected` });
          continue;
        }
        specs.push(found);
      }
      // Known applications of a kind that could not be listed are unknown this run, not gone.
      const names = new Set(specs.map((s) => s.name));
      for (const row of outcome.unlisted.length > 0 ? await known() : []) {
        if (row.removedAt || names.has(row.name)) continue;
        const controller = controllerRefSchema.safeParse(row.controllerRef);
        const why = unlistedFor(controller.success ? controller.data : undefined, outcome.unlisted);
        const spec = applicationSpecSchema.safeParse(row.spec);
        if (!why || !spec.success) continue;
        const where = why.namespace ? `in namespace ${why.namespace}` : "in any namespace";
        keptForUnlistedKinds.push({ spec: spec.data, error: { category: "forbidden", severity: "warning", message: `its ${why.kind} could not be listed ${where} this run; its last known state is kept` } });
      }
    }
  }

  const repositories = new Map<string, RepositoryConfig>(ctx.config.repositories.map((r) => [r.name, r]));
  const unfetchable = new Map<string, string>();
  for (const spec of specs) {
    // A HelmRelease is fetched where it is declared; a single Helm source is refused on its own grounds (applicationView);
    // every Git source of a multi-source application is fetched (a chart from a Helm repository is not Git).
    // An Argo CD chart from a Helm repository is fetched only from helmRepositories: one no entry covers is this application's failure.
    const chart = (spec.kind === "argocd-application" ? spec.sources : []).find((s) => s.render === "helm" && s.chart && !helmRepositoryFor(s.url, ctx.config.helmRepositories));
    if (chart) {
      unfetchable.set(spec.name, `no helmRepositories entry in driftwatch.yaml matches ${chart.url} (chart ${chart.chart}); Driftwatch fetches charts only from the repositories it lists`);
      continue;
    }
    const single = spec.declaredIn ?? (spec.sources.length === 1 ? spec.sources[0] : undefined);
    const sources = single ? (single.render === "helm" ? [] : [single]) : spec.sources.filter((s) => !(s.render === "helm" && s.chart));
    for (const source of sources) {
      const found = repositoryOfSource(source, ctx.config);
      if (!found.ok) {
        unfetchable.set(spec.name, found.reason);
        break;
      }
      repositories.set(found.repository.name, found.repository);
    }
  }
  return { specs, warnings, keptForUnlistedKinds, repositories, unfetchable };
}
