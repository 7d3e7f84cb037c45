// The render settings a controller object carries: a Flux Kustomization's
// spec (patches, images, names, namespace, commonMetadata, postBuild) and an
// Argo CD Application's source (directory, kustomize). Pure: objects in,
// settings out; anything of the wrong shape is left out, as the API server's
// schema would not have let it in.
import type { ArgoBuildEnv, ArgoDirectoryOptions, ArgoKustomizeOptions, ArgoKustomizePatch, FluxRenderSpec, FluxSelector, FluxSubstituteReference } from "@/lib/git";

type Obj = Record<string, unknown>;

function rec(v: unknown): Obj | undefined {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined;
}
function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}
function strMap(v: unknown): Record<string, string> | undefined {
  const r = rec(v);
  if (!r) return undefined;
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(r)) if (typeof val === "string") out[k] = val;
  return out;
}
function strList(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : undefined;
}
function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

function selector(v: unknown): FluxSelector | undefined {
  const r = rec(v);
  if (!r) return undefined;
  return dropUndefined({
    group: str(r.group),
    version: str(r.version),
    kind: str(r.kind),
    name: str(r.name),
    namespace: str(r.namespace),
    labelSelector: str(r.labelSelector),
    annotationSelector: str(r.annotationSelector),
  });
}

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
          return patch === undefined ? [] : [dropUndefined({ patch, target: selector(r?.target) })];
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

function argoPatch(v: unknown): ArgoKustomizePatch[] {
  const r = rec(v);
  if (!r) return [];
  const options = rec(r.options);
  return [
    dropUndefined({
      path: str(r.path) || undefined,
      patch: str(r.patch) || undefined,
      target: selector(r.target),
      options: options ? Object.fromEntries(Object.entries(options).filter((e): e is [string, boolean] => typeof e[1] === "boolean")) : undefined,
    }),
  ];
}

/** The render-relevant part of an Argo CD `Application` source (argoproj.io/v1alpha1), and the build variables it gives kustomize. */
export function argoRenderOptionsOf(app: Obj, path: string): { directory?: ArgoDirectoryOptions; kustomize?: ArgoKustomizeOptions; env: ArgoBuildEnv } {
  const source = sourceOf(app, path) ?? {};
  const dir = rec(source.directory);
  const k = rec(source.kustomize);
  const spec = rec(app.spec) ?? {};
  const env = dropUndefined({
    appName: str(rec(app.metadata)?.name),
    appNamespace: str(rec(spec.destination)?.namespace),
    project: str(spec.project),
    repoURL: str(source.repoURL),
    sourcePath: str(source.path),
    targetRevision: str(source.targetRevision),
  });
  return dropUndefined({
    env,
    directory: dir ? dropUndefined({ recurse: dir.recurse === true ? true : undefined, include: str(dir.include) || undefined, exclude: str(dir.exclude) || undefined }) : undefined,
    kustomize: k
      ? dropUndefined({
          namePrefix: str(k.namePrefix) || undefined,
          nameSuffix: str(k.nameSuffix) || undefined,
          images: strList(k.images),
          commonLabels: strMap(k.commonLabels),
          commonAnnotations: strMap(k.commonAnnotations),
          forceCommonLabels: k.forceCommonLabels === true ? true : undefined,
          forceCommonAnnotations: k.forceCommonAnnotations === true ? true : undefined,
          labelWithoutSelector: k.labelWithoutSelector === true ? true : undefined,
          labelIncludeTemplates: k.labelIncludeTemplates === true ? true : undefined,
          namespace: str(k.namespace) || undefined,
          replicas: Array.isArray(k.replicas)
            ? k.replicas.flatMap((x) => {
                const r = rec(x);
                const name = str(r?.name);
                const count = r?.count;
                return name !== undefined && (typeof count === "number" || typeof count === "string") ? [{ name, count }] : [];
              })
            : undefined,
          patches: Array.isArray(k.patches) ? k.patches.flatMap(argoPatch) : undefined,
          components: strList(k.components),
          ignoreMissingComponents: k.ignoreMissingComponents === true ? true : undefined,
          commonAnnotationsEnvsubst: k.commonAnnotationsEnvsubst === true ? true : undefined,
        })
      : undefined,
  });
}
