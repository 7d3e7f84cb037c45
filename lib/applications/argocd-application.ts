// An Argo CD Application (argoproj.io/v1alpha1) → an ApplicationSpec: each of
// `spec.source` or `spec.sources` becomes a source (repoURL, targetRevision,
// path, chart, how it renders), and the destination says which cluster it
// deploys to (a hub maps it to an environment by it). Pure.
import { rec, str, strMap, type Obj } from "@/lib/git";
import { applicationSpecSchema, type ApplicationSource, type ControllerRef } from "./spec";
import { argoTargetRevisionRef, chartVersionRef, normalisePath, promotionKeyOf } from "./refs";
import { refOf, type TransformOptions, type TransformProblem, type TransformResult } from "./flux-application";

/** `spec.sources` when it has any, else `spec.source`: the sources Argo CD renders, in order. */
export function sourcesOf(spec: Obj): Obj[] {
  const many = Array.isArray(spec.sources) ? spec.sources.map(rec).filter((s): s is Obj => s !== undefined) : [];
  if (many.length > 0) return many;
  const single = rec(spec.source);
  return single ? [single] : [];
}

function sourceOf(owner: string, source: Obj, opts: TransformOptions, problems: TransformProblem[]): ApplicationSource | undefined {
  const url = str(source.repoURL);
  if (!url) {
    problems.push({ code: "source", message: `${owner} has a source without repoURL` });
    return undefined;
  }
  const chart = str(source.chart);
  const path = str(source.path);
  const refName = str(source.ref);
  let out: Omit<ApplicationSource, "repository">;
  // A `ref:` source with neither path nor chart renders nothing: it only lends its files to other sources' Helm valueFiles.
  if (refName && !chart && !path) out = { url, ref: argoTargetRevisionRef(str(source.targetRevision)), path: ".", render: "plain", refName, refOnly: true };
  else if (chart) out = { url, ref: chartVersionRef(str(source.targetRevision)), path: ".", render: "helm", chart };
  else {
    const plugin = rec(source.plugin);
    if (plugin) problems.push({ code: "unsupported", message: `${owner} renders ${normalisePath(path)} with a config management plugin${str(plugin.name) ? ` (${str(plugin.name)})` : ""}, which Driftwatch does not run; it is read as plain YAML` });
    // Without helm or kustomize options Argo CD still detects either from the folder (Chart.yaml,
    // kustomization.yaml); "plain" here means "as the folder holds it".
    const render = rec(source.helm) ? "helm" : rec(source.kustomize) ? "kustomize" : "plain";
    out = { url, ref: argoTargetRevisionRef(str(source.targetRevision)), path: normalisePath(path), render };
  }
  if (refName && !out.refName) out = { ...out, refName };
  const repository = opts.repositoryFor(url);
  return repository ? { ...out, repository } : out;
}

export function argoApplicationSpec(app: Obj, opts: TransformOptions): TransformResult {
  const ref = refOf(app);
  const owner = `Application ${ref.namespace}/${ref.name}`;
  const spec = rec(app.spec) ?? {};
  const problems: TransformProblem[] = [];
  const controller: ControllerRef = { type: "argocd", kind: "Application", ...ref };
  const sources = sourcesOf(spec).flatMap((s) => sourceOf(owner, s, opts, problems) ?? []);
  if (sources.length === 0 && problems.length === 0) problems.push({ code: "source", message: `${owner} has no source` });
  const dest = rec(spec.destination) ?? {};
  const destination = Object.fromEntries(
    (["server", "name", "namespace"] as const).flatMap((k) => (str(dest[k]) ? [[k, str(dest[k])]] : [])),
  ) as { server?: string; name?: string; namespace?: string };
  const meta = rec(app.metadata) ?? {};
  return {
    spec: applicationSpecSchema.parse({
      name: `${ref.namespace}/${ref.name}`,
      kind: "argocd-application",
      promotionKey: promotionKeyOf(app, opts.promotionKeys),
      controller,
      sources,
      destination,
      labels: strMap(meta.labels) ?? {},
    }),
    problems,
  };
}

/**
 * What an Argo CD Application synced, per source in `spec.sources` order (one
 * entry for a single source): `status.sync.revision(s)` while Synced, else
 * the last sync's (the newest `status.history` entry), as Argo CD's own
 * "last synced" reads. For a chart from a Helm repository it is the chart
 * version; for Git, the commit. Null where a source has none. Pure.
 */
export function argoSyncedRevisions(app: Obj): Array<string | null> {
  const spec = rec(app.spec) ?? {};
  const count = Math.max(1, sourcesOf(spec).length);
  const status = rec(app.status) ?? {};
  const sync = rec(status.sync) ?? {};
  const history = Array.isArray(status.history) ? status.history.map(rec) : [];
  const last = history[history.length - 1];
  const from = str(sync.status) === "Synced" ? sync : (last ?? {});
  const many = Array.isArray(from.revisions) ? from.revisions.map((r) => str(r) ?? null) : null;
  if (many && many.length > 0) return Array.from({ length: count }, (_, i) => many[i] ?? null);
  const one = str(from.revision) ?? null;
  return count === 1 ? [one] : Array.from({ length: count }, () => null);
}

/**
 * Argo CD objects repeated among an application's sources: the last one
 * wins, and the application carries Argo CD's RepeatedResourceWarning
 * condition for each (controller/state.go DeduplicateTargetObjects). Pure.
 */
export function joinSources<T extends { object: unknown }>(perSource: ReadonlyArray<readonly T[]>, keyOf: (item: T) => string): { items: T[]; repeated: Array<{ key: string; count: number }> } {
  const byKey = new Map<string, T[]>();
  for (const items of perSource) for (const item of items) (byKey.get(keyOf(item)) ?? byKey.set(keyOf(item), []).get(keyOf(item))!).push(item);
  const repeated = [...byKey].filter(([, all]) => all.length > 1).map(([key, all]) => ({ key, count: all.length }));
  return { items: [...byKey.values()].map((all) => all[all.length - 1]!), repeated };
}

/** Argo CD's RepeatedResourceWarning condition message for an object several sources render. */
export function repeatedResourceMessage(r: { key: string; count: number }): string {
  return `Resource ${r.key} appeared ${r.count} times among application resources.`;
}
