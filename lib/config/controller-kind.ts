import type { ControllerConfig } from "./schema";

export type ControllerKind = "Kustomization" | "HelmRelease" | "Application";

/** The kind of an environment's controller object (configs written before HelmRelease support say no kind: a Kustomization). */
export function controllerKindOf(c: Pick<ControllerConfig, "type"> & { kind?: "Kustomization" | "HelmRelease" }): ControllerKind {
  return c.type === "argocd" ? "Application" : (c.kind ?? "Kustomization");
}
