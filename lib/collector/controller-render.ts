// Which render settings an environment's desired state follows: the
// controller object's as read from the cluster, else driftwatch.yaml's, and
// Flux's postBuild variables read from the ConfigMaps and Secrets it names.
// Secret values exist here only in memory: they go into the render and
// nowhere else (no log line, no error message, no cache key).
import type { EnvironmentConfig } from "@/lib/config";
import type { ControllerRender } from "@/lib/git/controller-render";
import { mergeVariables } from "@/lib/git/postbuild";
import { argoRenderOptionsOf, fluxRenderSpecOf } from "@/lib/kube/render-settings";

type Obj = Record<string, unknown>;

/** A postBuild source that is required and cannot be read: the render cannot be what Flux renders. */
export class SubstituteSourceError extends Error {}

/** Reads one ConfigMap or Secret (null when it does not exist); other failures throw. */
export type ReadObject = (kind: "ConfigMap" | "Secret", namespace: string, name: string) => Promise<Obj | null>;

export async function controllerRenderFor(env: EnvironmentConfig, controllerObject: Obj | null, read: ReadObject): Promise<ControllerRender | undefined> {
  const type = env.controller?.type ?? (env.source.flux ? "flux" : env.source.argocd ? "argocd" : undefined);
  if (type === "argocd") {
    const settings = controllerObject ? argoRenderOptionsOf(controllerObject, env.source.path) : (env.source.argocd ?? {});
    return { type: "argocd", ...settings };
  }
  if (type !== "flux") return undefined;
  const spec = controllerObject ? fluxRenderSpecOf(controllerObject) : (env.source.flux ?? {});
  if (!spec.postBuild) return { type: "flux", spec };
  // Flux reads substituteFrom in the Kustomization's own namespace.
  const namespace = String((controllerObject?.metadata as { namespace?: unknown } | undefined)?.namespace ?? env.controller?.namespace ?? "flux-system");
  const sources: Array<Record<string, string>> = [];
  for (const ref of spec.postBuild.substituteFrom ?? []) {
    const obj = await read(ref.kind, namespace, ref.name);
    if (!obj) {
      if (ref.optional) continue;
      throw new SubstituteSourceError(`substitute from '${ref.kind}/${ref.name}' error: ${ref.kind} ${namespace}/${ref.name} not found`);
    }
    const data = (obj.data ?? {}) as Record<string, unknown>;
    const values: Record<string, string> = {};
    for (const [k, v] of Object.entries(data)) {
      if (typeof v !== "string") continue;
      values[k] = ref.kind === "Secret" ? Buffer.from(v, "base64").toString("utf8") : v;
    }
    sources.push(values);
  }
  return { type: "flux", spec, variables: mergeVariables(sources, spec.postBuild.substitute) };
}
