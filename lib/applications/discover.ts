// Discovery: the applications of the environments that share one cluster,
// read from their controller objects in one pass (every kind listed once,
// whatever number of environments, then each object handed to the
// environments that select it). A cluster without Flux or Argo CD simply has
// no applications of that kind; a kind the credential may not list is a
// warning, and its applications are reported unknown (not gone) for this run.
import type { ClusterClient } from "@/lib/kube/client";
import type { ApiResource, Discovery } from "@/lib/kube/discovery";
import { listPaged } from "@/lib/kube/list";
import { KubeError } from "@/lib/kube/errors";
import { rec, str, strMap, type Obj } from "@/lib/git";
import type { ApplicationSpec, ControllerRef } from "./spec";
import type { DiscoverConfig } from "./discovery-config";
import { fluxHelmReleaseSpec, fluxKustomizationSpec, refOf, type SourceLookup, type TransformOptions, type TransformResult } from "./flux-application";
import { argoApplicationSpec } from "./argocd-application";
import { compileSelection, destinationMatches, type ObjectIdentity, type Selector } from "./selection";
import { resolveRepository, type RepositoryCatalog } from "./repositories";

export interface DiscoveryTarget {
  environment: string;
  discover: DiscoverConfig;
}

export type DiscoveryWarningCode = "forbidden" | "source" | "unsupported" | "unmatched-destination" | "invalid-object";

export interface DiscoveryWarning {
  code: DiscoveryWarningCode;
  message: string;
  controller?: ControllerRef;
}

/** A controller kind (in a namespace, or everywhere: null) whose objects could not be listed this run. */
export interface UnlistedKind {
  kind: string;
  namespace: string | null;
  reason: string;
}

/** An Argo CD Application on a hub whose destination no environment's `discover.argocd.destination` names. */
export interface UnmatchedApplication {
  controller: ControllerRef;
  destination: { server?: string; name?: string; namespace?: string };
}

export interface DiscoveryOutcome {
  /** Per environment, sorted by name. */
  applications: Map<string, ApplicationSpec[]>;
  unmatched: UnmatchedApplication[];
  warnings: DiscoveryWarning[];
  /** The applications of these kinds and namespaces are unknown this run, not gone: keep what was known. */
  unlisted: UnlistedKind[];
  /** Controller and source objects read. */
  objectsRead: number;
}

const FLUX_SOURCE_GROUP = "source.toolkit.fluxcd.io";
/** The labels kustomize-controller puts on every object it applies, naming its Kustomization. */
export const FLUX_PARENT_NAME = "kustomize.toolkit.fluxcd.io/name";
export const FLUX_PARENT_NAMESPACE = "kustomize.toolkit.fluxcd.io/namespace";
const KINDS = {
  Kustomization: "kustomize.toolkit.fluxcd.io",
  HelmRelease: "helm.toolkit.fluxcd.io",
  Application: "argoproj.io",
  GitRepository: FLUX_SOURCE_GROUP,
  OCIRepository: FLUX_SOURCE_GROUP,
  HelmRepository: FLUX_SOURCE_GROUP,
  HelmChart: FLUX_SOURCE_GROUP,
} as const;
type ListedKind = keyof typeof KINDS;
const CONTROLLER_KINDS = { Kustomization: true, HelmRelease: true, Application: true };

/** Where to list a kind: everywhere (null) or in these namespaces. */
type Scope = null | Set<string>;

function widen(scope: Scope | undefined, namespaces: string[]): Scope {
  if (scope === null || namespaces.length === 0) return null;
  return new Set([...(scope ?? []), ...namespaces]);
}

interface Listing {
  objects: Obj[];
  /** Namespaces (null: the whole cluster) the kind could not be listed in. */
  unreadable: Array<string | null>;
}

function identity(obj: Obj): ObjectIdentity {
  const meta = rec(obj.metadata) ?? {};
  return { namespace: str(meta.namespace) ?? "", name: str(meta.name) ?? "", labels: strMap(meta.labels) ?? {} };
}

/**
 * Lists a kind where the scope says. A controller kind the credential may not
 * list is reported (warning + unlisted); a source kind is not: the
 * applications that name a source there say it could not be read.
 */
async function listKind(client: ClusterClient, resource: ApiResource | undefined, scope: Scope, report: { unlisted: UnlistedKind[]; warnings: DiscoveryWarning[] } | null): Promise<Listing> {
  const listing: Listing = { objects: [], unreadable: [] };
  // Not served: Flux or Argo CD is not installed there, so there is nothing of this kind.
  if (!resource) return listing;
  const namespaces: Array<string | undefined> = scope === null ? [undefined] : [...scope];
  await Promise.all(
    namespaces.map(async (namespace) => {
      const page: Obj[] = [];
      try {
        await listPaged(client, resource, { namespace, onRestart: () => (page.length = 0) }, (items) => {
          page.push(...items);
        });
        listing.objects.push(...page);
      } catch (e) {
        if (e instanceof KubeError && e.category === "not-found") return; // the CRD went away since discovery
        if (e instanceof KubeError && (e.category === "forbidden" || e.category === "unauthorised")) {
          const where = namespace ? `in namespace ${namespace}` : "in any namespace";
          listing.unreadable.push(namespace ?? null);
          report?.unlisted.push({ kind: resource.kind, namespace: namespace ?? null, reason: e.message });
          report?.warnings.push({ code: "forbidden", message: `cannot list ${resource.resource}.${resource.group} ${where}: ${e.message}. Its applications are not discovered; grant list on it to the collector's role.` });
          return;
        }
        throw e;
      }
    }),
  );
  return listing;
}

function sourceLookup(listings: Partial<Record<ListedKind, Listing>>): SourceLookup {
  const byKey = new Map<string, Obj>();
  for (const [kind, listing] of Object.entries(listings)) {
    for (const o of listing?.objects ?? []) {
      const { namespace, name } = refOf(o);
      byKey.set(`${kind}/${namespace}/${name}`, o);
    }
  }
  return {
    find(kind, namespace, name) {
      const found = byKey.get(`${kind}/${namespace}/${name}`);
      if (found) return found;
      const unreadable = listings[kind as ListedKind]?.unreadable ?? [];
      return unreadable.includes(null) || unreadable.includes(namespace) ? "unreadable" : "missing";
    },
  };
}

/** Gives each environment unique application names: `namespace/name`, the kind added where two kinds share one. */
export function withUniqueNames(specs: ApplicationSpec[]): ApplicationSpec[] {
  const counts = new Map<string, number>();
  for (const s of specs) counts.set(s.name, (counts.get(s.name) ?? 0) + 1);
  return specs
    .map((s) => ((counts.get(s.name) ?? 0) > 1 && s.controller ? { ...s, name: `${s.controller.namespace}/${s.controller.kind.toLowerCase()}/${s.controller.name}` } : s))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Flux read in some namespaces: its sources are read where the controllers
 * point (a sourceRef may cross namespaces), and a HelmChart named by a
 * chartRef points on to its own source, in its own namespace.
 */
async function listReferencedSources(
  kustomizations: Obj[],
  helmReleases: Obj[],
  sourceKinds: ListedKind[],
  list: (kind: ListedKind, scope: Scope | undefined) => Promise<Listing>,
): Promise<Partial<Record<ListedKind, Listing>>> {
  const scopes: Partial<Record<ListedKind, Set<string>>> = {};
  const want = (kind: string | undefined, namespace: string) => {
    if (kind && kind in KINDS) (scopes[kind as ListedKind] ??= new Set()).add(namespace);
  };
  for (const o of [...kustomizations, ...helmReleases]) {
    const from = refOf(o).namespace;
    const spec = rec(o.spec) ?? {};
    for (const ref of [rec(spec.sourceRef), rec(spec.chartRef), rec(rec(rec(spec.chart)?.spec)?.sourceRef)]) want(str(ref?.kind), str(ref?.namespace) || from);
  }
  const first = await Promise.all(sourceKinds.map((k) => list(k, scopes[k])));
  const listings: Partial<Record<ListedKind, Listing>> = Object.fromEntries(sourceKinds.map((k, i) => [k, first[i]]));
  const more: Partial<Record<ListedKind, Set<string>>> = {};
  for (const chart of listings.HelmChart?.objects ?? []) {
    const kind = str(rec(rec(chart.spec)?.sourceRef)?.kind);
    const namespace = refOf(chart).namespace;
    if (kind && kind in KINDS && !scopes[kind as ListedKind]?.has(namespace)) (more[kind as ListedKind] ??= new Set()).add(namespace);
  }
  for (const [kind, namespaces] of Object.entries(more) as Array<[ListedKind, Set<string>]>) {
    const extra = await list(kind, namespaces);
    const into = (listings[kind] ??= { objects: [], unreadable: [] });
    into.objects.push(...extra.objects);
    into.unreadable.push(...extra.unreadable);
  }
  return listings;
}

/**
 * Discovers the applications of `targets` (environments whose controller
 * objects live in this cluster: one, or several on an Argo CD hub). Throws
 * KubeError only for what stops the whole cluster being read (unreachable,
 * timeouts, server errors); a forbidden kind is a warning plus `unlisted`.
 */
export async function discoverApplications(client: ClusterClient, discovery: Discovery, targets: DiscoveryTarget[], catalog: RepositoryCatalog): Promise<DiscoveryOutcome> {
  const warnings: DiscoveryWarning[] = [];
  const unlisted: UnlistedKind[] = [];
  const resource = (kind: ListedKind) => discovery.byGroupKind.get(`${KINDS[kind]}/${kind}`);

  let fluxScope: Scope | undefined;
  let argoScope: Scope | undefined;
  for (const t of targets) {
    if (t.discover.flux) fluxScope = widen(fluxScope, t.discover.flux.namespaces);
    if (t.discover.argocd) argoScope = widen(argoScope, t.discover.argocd.namespaces);
  }
  const list = (kind: ListedKind, scope: Scope | undefined) =>
    scope === undefined ? Promise.resolve<Listing>({ objects: [], unreadable: [] }) : listKind(client, resource(kind), scope, kind in CONTROLLER_KINDS ? { unlisted, warnings } : null);
  const sourceKinds: ListedKind[] = ["GitRepository", "OCIRepository", "HelmRepository", "HelmChart"];
  // With Flux read everywhere its sources are too: listed beside the controllers, in the same round trip.
  const sourcesEverywhere = fluxScope === null;
  const [kustomizations, helmReleases, applications, ...prefetched] = await Promise.all([
    list("Kustomization", fluxScope),
    list("HelmRelease", fluxScope),
    list("Application", argoScope),
    ...(sourcesEverywhere ? sourceKinds.map((k) => list(k, null)) : []),
  ]);
  const listings: Partial<Record<ListedKind, Listing>> = sourcesEverywhere
    ? Object.fromEntries(sourceKinds.map((k, i) => [k, prefetched[i]]))
    : await listReferencedSources(kustomizations.objects, helmReleases.objects, sourceKinds, list);
  const sources = sourceLookup(listings);

  const repositories = new Map<string, string | undefined>();
  const repositoryFor = (url: string) => {
    if (!repositories.has(url)) {
      const resolved = resolveRepository(url, catalog);
      repositories.set(url, resolved.origin === "anonymous" ? undefined : resolved.repository.name);
    }
    return repositories.get(url);
  };

  const perEnvironment = new Map<string, ApplicationSpec[]>(targets.map((t) => [t.environment, []]));
  const fluxSelectors = targets.flatMap((t) => (t.discover.flux ? [{ target: t, select: compileSelection(t.discover.flux) }] : []));
  const argoSelectors = targets.flatMap((t) => (t.discover.argocd ? [{ target: t, config: t.discover.argocd, select: compileSelection(t.discover.argocd) }] : []));
  const seenProblems = new Set<string>();

  const transform = (obj: Obj, controller: ControllerRef, promotionKeys: Record<string, string>, fn: (opts: TransformOptions) => TransformResult): ApplicationSpec | undefined => {
    let result: TransformResult;
    try {
      result = fn({ repositoryFor, promotionKeys });
    } catch (e) {
      const message = `${controller.kind} ${controller.namespace}/${controller.name} cannot be read as an application: ${(e as Error).message}`;
      if (!seenProblems.has(message)) warnings.push({ code: "invalid-object", message, controller });
      seenProblems.add(message);
      return undefined;
    }
    for (const problem of result.problems) {
      if (seenProblems.has(problem.message)) continue;
      seenProblems.add(problem.message);
      warnings.push({ ...problem, controller });
    }
    return result.spec;
  };

  const take = (selectors: Array<{ target: DiscoveryTarget; select: Selector }>, objects: Obj[], kind: "Kustomization" | "HelmRelease") => {
    for (const obj of objects) {
      const id = identity(obj);
      const controller: ControllerRef = { type: "flux", kind, namespace: id.namespace, name: id.name };
      for (const { target, select } of selectors) {
        if (!select(id)) continue;
        const spec = transform(obj, controller, target.discover.promotionKeys, (opts) => (kind === "Kustomization" ? fluxKustomizationSpec(obj, sources, opts) : fluxHelmReleaseSpec(obj, sources, opts)));
        if (spec) perEnvironment.get(target.environment)?.push(spec);
      }
    }
  };
  take(fluxSelectors, kustomizations.objects, "Kustomization");
  take(fluxSelectors, helmReleases.objects, "HelmRelease");
  // A HelmRelease's Git side is the Kustomization that applies it (kustomize-controller labels what it applies).
  const byRef = new Map(kustomizations.objects.map((k) => [`${refOf(k).namespace}/${refOf(k).name}`, k]));
  for (const specs of perEnvironment.values()) {
    for (const [i, s] of specs.entries()) {
      if (s.controller?.kind !== "HelmRelease") continue;
      const parent = byRef.get(`${s.labels[FLUX_PARENT_NAMESPACE] ?? ""}/${s.labels[FLUX_PARENT_NAME] ?? ""}`);
      const declaredIn = parent ? fluxKustomizationSpec(parent, sources, { repositoryFor, promotionKeys: {} }).spec?.sources[0] : undefined;
      if (declaredIn) specs[i] = { ...s, declaredIn };
    }
  }

  const unmatched: UnmatchedApplication[] = [];
  for (const obj of applications.objects) {
    const id = identity(obj);
    const controller: ControllerRef = { type: "argocd", kind: "Application", namespace: id.namespace, name: id.name };
    const destinationObj = rec(rec(obj.spec)?.destination) ?? {};
    const destination = { server: str(destinationObj.server), name: str(destinationObj.name), namespace: str(destinationObj.namespace) };
    // The environments watching this namespace, and of those the ones this Application deploys to.
    const watching = argoSelectors.filter((s) => s.config.namespaces.includes(id.namespace));
    const bound = watching.filter((s) => !s.config.destination || destinationMatches(s.config.destination, destination));
    if (watching.length > 0 && bound.length === 0) {
      unmatched.push({ controller, destination: Object.fromEntries(Object.entries(destination).filter(([, v]) => v !== undefined)) });
      continue;
    }
    for (const { target, select } of bound) {
      if (!select(id)) continue;
      const spec = transform(obj, controller, target.discover.promotionKeys, (opts) => argoApplicationSpec(obj, opts));
      if (spec) perEnvironment.get(target.environment)?.push(spec);
    }
  }
  if (unmatched.length > 0) {
    const named = unmatched.map((u) => `${u.controller.namespace}/${u.controller.name} → ${u.destination.name ?? u.destination.server ?? "(no destination)"}`);
    warnings.push({ code: "unmatched-destination", message: `${unmatched.length} Argo CD Application(s) deploy to a cluster no environment names in discover.argocd.destination: ${named.join(", ")}` });
  }

  const objectsRead = [kustomizations, helmReleases, applications, ...Object.values(listings)].reduce((n, l) => n + (l?.objects.length ?? 0), 0);
  return {
    applications: new Map([...perEnvironment].map(([env, specs]) => [env, withUniqueNames(specs)])),
    unmatched,
    warnings,
    unlisted,
    objectsRead,
  };
}
