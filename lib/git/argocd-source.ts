// An Argo CD Application source's render options (directory, kustomize) read
// from its JSON, and the override files the repo server merges into it before
// rendering: `.argocd-source.yaml`, then `.argocd-source-<app>.yaml`, each a
// JSON merge patch (Argo CD Image Updater writes its image tags there). Pure.
import { parse as parseYaml } from "yaml";
import type { ArgoDirectoryOptions, ArgoKustomizeOptions, ArgoKustomizePatch } from "./argocd-directory";
import { argoHelmOptionsOf, type ArgoHelmOptions } from "@/lib/helm/argocd-helm";
import { dropUndefined, rec, selectorOf, str, strList, strMap, type Obj } from "./shape";

export interface ArgoSourceOptions {
  directory?: ArgoDirectoryOptions;
  kustomize?: ArgoKustomizeOptions;
  helm?: ArgoHelmOptions;
}

function argoPatch(v: unknown): ArgoKustomizePatch[] {
  const r = rec(v);
  if (!r) return [];
  const options = rec(r.options);
  return [
    dropUndefined({
      path: str(r.path) || undefined,
      patch: str(r.patch) || undefined,
      target: selectorOf(r.target),
      options: options ? Object.fromEntries(Object.entries(options).filter((e): e is [string, boolean] => typeof e[1] === "boolean")) : undefined,
    }),
  ];
}

/** The render-relevant part of an Argo CD `ApplicationSource` (argoproj.io/v1alpha1). */
export function argoSourceOptions(source: Obj): ArgoSourceOptions {
  const dir = rec(source.directory);
  const k = rec(source.kustomize);
  return dropUndefined({
    helm: argoHelmOptionsOf(source),
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

/** RFC 7386 JSON merge patch, as jsonpatch.MergePatch applies it. */
export function jsonMergePatch(target: unknown, patch: unknown): unknown {
  if (!patch || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const out: Obj = target && typeof target === "object" && !Array.isArray(target) ? { ...(target as Obj) } : {};
  for (const [k, v] of Object.entries(patch as Obj)) {
    if (v === null) delete out[k];
    else out[k] = jsonMergePatch(out[k], v);
  }
  return out;
}

/** The override files Argo CD reads for the app in `dir`, in the order it merges them. */
export function argoSourceOverrideFiles(dir: string, appName: string | undefined): string[] {
  const prefix = dir ? `${dir}/` : "";
  return [`${prefix}.argocd-source.yaml`, ...(appName ? [`${prefix}.argocd-source-${appName}.yaml`] : [])];
}

export type OverrideResult = { ok: true; options: ArgoSourceOptions } | { ok: false; file: string; message: string };

/**
 * The options after the override files present (file, text), merged in order
 * over the Application's; only the tools' settings count, as in Argo CD.
 */
export function mergeArgoSourceOverrides(options: ArgoSourceOptions, overrides: ReadonlyArray<{ file: string; text: string }>): OverrideResult {
  let merged: unknown = options;
  for (const { file, text } of overrides) {
    let patch: unknown;
    try {
      patch = parseYaml(text);
    } catch (e) {
      return { ok: false, file, message: `${file}: ${(e as Error).message.split("\n")[0]}` };
    }
    if (patch === null || patch === undefined) continue;
    if (typeof patch !== "object" || Array.isArray(patch)) return { ok: false, file, message: `${file}: not a mapping` };
    merged = jsonMergePatch(merged, patch);
  }
  return { ok: true, options: argoSourceOptions((merged ?? {}) as Obj) };
}
