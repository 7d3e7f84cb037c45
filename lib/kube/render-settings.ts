// The render settings a controller object carries: a Flux Kustomization's
// spec (patches, images, names, namespace, commonMetadata, postBuild) and an
// Argo CD Application's source (directory, kustomize). Pure: objects in,
// settings out; anything of the wrong shape is left out, as the API server's
// schema would not have let it in.
import type { IgnoreRule } from "@/lib/drift";
import { argoChartReferenceOf, type ArgoChartReference } from "@/lib/helm/argocd-helm";
import { argoSourceOptions, dropUndefined, rec, selectorOf, str, strList, strMap, type ArgoBuildEnv, type ArgoSourceOptions, type FluxRenderSpec, type FluxSubstituteReference, type Obj } from "@/lib/git";

/** The render-relevant part of a Flux `Kustomization` (kustomize.toolkit.fluxcd.io/v1). */
export function fluxRenderSpecOf(kustomization: Obj): FluxRenderSpec {
  const spec = rec(kustomization.spec) ?? {};
  const postBuild = rec(spec.postBuild);
  const common = rec(spec.commonMetadata);
  return dropUndefined({
    targetNamespace: str(spec.targetNamespace),
    namePrefix: str(spec.namePrefix),
    nameSuffix: str(spec.nameSuffix),
    patches: Array.isArray(spec.patches)
      ? spec.patches.flatMap((p) => {
          const r = rec(p);
          const patch = str(r?.patch);
          return patch === undefined ? [] : [dropUndefined({ patch, target: selectorOf(r?.target) })];
        })
      : undefined,
    images: Array.isArray(spec.images)
      ? spec.images.flatMap((i) => {
          const r = rec(i);
          const name = str(r?.name);
          return name === undefined ? [] : [dropUndefined({ name, newName: str(r?.newName), newTag: str(r?.newTag), digest: str(r?.digest) })];
        })
      : undefined,
    components: strList(spec.components),
    ignoreMissingComponents: spec.ignoreMissingComponents === true ? true : undefined,
    commonMetadata: common ? dropUndefined({ labels: strMap(common.labels), annotations: strMap(common.annotations) }) : undefined,
    postBuild: postBuild
      ? dropUndefined({
          substitute: strMap(postBuild.substitute),
          substituteFrom: Array.isArray(postBuild.substituteFrom)
            ? postBuild.substituteFrom.flatMap((s): FluxSubstituteReference[] => {
                const r = rec(s);
                const kind = str(r?.kind);
                const name = str(r?.name);
                if ((kind !== "ConfigMap" && kind !== "Secret") || !name) return [];
                return [{ kind, name, optional: r?.optional === true }];
              })
            : undefined,
        })
      : undefined,
  });
}

/** An Application's single source, or of several the one at `path` (the environment's). */
function sourceOf(app: Obj, path: string): Obj | undefined {
  const spec = rec(app.spec) ?? {};
  const single = rec(spec.source);
  if (single) return single;
  const norm = (p: unknown) => String(p ?? "").replace(/^\.\//, "").replace(/\/$/, "");
  const sources = Array.isArray(spec.sources) ? spec.sources.map(rec).filter((s): s is Obj => s !== undefined) : [];
  return sources.find((s) => norm(s.path) === norm(path)) ?? sources[0];
}

/** The render-relevant part of an Argo CD `Application` source (argoproj.io/v1alpha1), and the build variables it gives kustomize. */
export function argoRenderOptionsOf(app: Obj, path: string): ArgoSourceOptions & { env: ArgoBuildEnv; chart?: ArgoChartReference } {
  return argoSourceRenderOptions(app, sourceOf(app, path) ?? {});
}

/** The render-relevant part of one source of an Application (a `spec.sources` entry of a multi-source one). */
export function argoSourceRenderOptions(app: Obj, source: Obj): ArgoSourceOptions & { env: ArgoBuildEnv; chart?: ArgoChartReference } {
  const spec = rec(app.spec) ?? {};
  const env = dropUndefined({
    appName: str(rec(app.metadata)?.name),
    appNamespace: str(rec(spec.destination)?.namespace),
    project: str(spec.project),
    repoURL: str(source.repoURL),
    sourcePath: str(source.path),
    targetRevision: str(source.targetRevision),
  });
  const chart = argoChartReferenceOf(source);
  return { env, ...argoSourceOptions(source), ...(chart ? { chart } : {}) };
}

/**
 * An Application's `spec.ignoreDifferences` as ignore rules: what Argo CD leaves
 * out of its comparison is not drift here either. JSON pointers and managed-fields
 * managers translate; jq path expressions are not evaluated, so an entry of only
 * those hides nothing (never the whole object).
 */
export function argoIgnoreRulesOf(app: Obj): IgnoreRule[] {
  const entries = rec(app.spec)?.ignoreDifferences;
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((entry, i): IgnoreRule[] => {
    const e = rec(entry);
    const kind = str(e?.kind);
    if (!e || !kind) return [];
    const jsonPointers = (strList(e.jsonPointers) ?? []).filter((p) => p.startsWith("/"));
    const managers = strList(e.managedFieldsManagers) ?? [];
    if (jsonPointers.length === 0 && managers.length === 0) return [];
    const group = str(e.group) ?? "";
    const name = str(e.name);
    const namespace = str(e.namespace);
    return [
      dropUndefined({
        name: `Argo CD ignoreDifferences[${i}]`,
        kinds: kind === "*" ? undefined : [group === "*" ? kind : `${group}/${kind}`],
        names: name ? [name] : undefined,
        namespaces: namespace ? [namespace] : undefined,
        jsonPointers: jsonPointers.length > 0 ? jsonPointers : undefined,
        managers: managers.length > 0 ? managers : undefined,
      }),
    ];
  });
}
