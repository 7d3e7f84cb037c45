// How one application compares desired with live: its controller's field
// managers, its ignore rules (driftwatch.yaml's and the controller's own), and
// what marks a live object Git lacks as tracked by it (Extra).
import type { DriftwatchConfig, EnvironmentConfig } from "@/lib/config";
import type { ControllerStatus } from "@/lib/domain/types";
import type { CompareOptions, IgnoreRule } from "@/lib/drift";

export function compareOptionsFor(
  env: EnvironmentConfig,
  config: DriftwatchConfig,
  controller: ControllerStatus | null,
  secretKey: Buffer,
  controllerIgnore: IgnoreRule[] = [],
  /** The pauses Driftwatch holds: what they wrote on a controller object this application declares is not drift. */
  ownPauseIds: string[] = [],
): CompareOptions {
  const controllerManagers =
    env.controller?.type === "flux" ? [env.controller.kind === "HelmRelease" ? "helm-controller" : "kustomize-controller"] : env.controller?.type === "argocd" ? ["argocd-controller", "argocd-application-controller"] : [];
  const [labelKey, labelValue] = env.trackingLabel ? env.trackingLabel.split("=") : [];
  return {
    controllerManagers: [...controllerManagers, ...(config.managers.controller ?? [])],
    controllerManaged: Boolean(env.controller),
    extraManagers: { human: config.managers.human, system: config.managers.system },
    // What the controller itself leaves out of its comparison (Argo CD's ignoreDifferences) is not drift either.
    ignoreRules: [...env.ignore, ...controllerIgnore],
    secretKey,
    ownPauseIds,
    extraTracking: {
      fluxInventory: controller?.type === "flux" ? controller.inventory : undefined,
      argoApp: env.controller?.type === "argocd" ? env.controller.name : undefined,
      argoAppNamespace: env.controller?.type === "argocd" ? env.controller.namespace : undefined,
      argoTrackingId: env.controller?.type === "argocd",
      label: labelKey && labelValue !== undefined ? { key: labelKey, value: labelValue } : undefined,
    },
  };
}
