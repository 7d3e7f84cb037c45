// Which live objects belong to the environment even when Git does not have
// them (so their absence from Git is `Extra`, not "someone else's object").

import { groupOf, type ExtraTracking, type KubeObject } from "./types";

export const ARGO_TRACKING_ANNOTATION = "argocd.argoproj.io/tracking-id";

export interface CompiledTracking {
  readonly flux: ReadonlySet<string> | null;
  /** The names an Application goes by in tracking ids; null: any. */
  readonly argoApp: ReadonlySet<string> | null;
  readonly argoTrackingId: boolean;
  readonly label: { readonly key: string; readonly value: string } | null;
}

export function compileTracking(t: ExtraTracking = {}): CompiledTracking {
  let label: CompiledTracking["label"] = null;
  if (typeof t.label === "string") {
    const eq = t.label.indexOf("=");
    if (eq <= 0) throw new Error(`tracking label must be key=value, got ${JSON.stringify(t.label)}`);
    label = { key: t.label.slice(0, eq), value: t.label.slice(eq + 1) };
  } else if (t.label) {
    label = { key: t.label.key, value: t.label.value };
  }
  return {
    flux: t.fluxInventory ? new Set(t.fluxInventory) : null,
    argoApp: t.argoApp ? new Set([t.argoApp, ...(t.argoAppNamespace ? [`${t.argoAppNamespace}_${t.argoApp}`] : [])]) : null,
    argoTrackingId: t.argoTrackingId ?? true,
    label,
  };
}

/** Flux inventory id: `namespace_name_group_kind` (empty namespace/group stay empty). */
export function fluxInventoryId(obj: Pick<KubeObject, "apiVersion" | "kind" | "metadata">): string {
  return `${obj.metadata.namespace ?? ""}_${obj.metadata.name}_${groupOf(obj.apiVersion)}_${obj.kind}`;
}

export interface ArgoTrackingId {
  app: string;
  group: string;
  kind: string;
  namespace: string;
  name: string;
}

/** `<app>:<group>/<kind>:<namespace>/<name>`; null when malformed. */
export function parseArgoTrackingId(id: string): ArgoTrackingId | null {
  const m = /^([^:]+):([^/:]*)\/([^/:]+):([^/:]*)\/([^/:]+)$/.exec(id.trim());
  if (!m) return null;
  return { app: m[1] as string, group: m[2] as string, kind: m[3] as string, namespace: m[4] as string, name: m[5] as string };
}

/** Whether the environment's controller tracks this live object. */
export function isTrackedByEnvironment(live: KubeObject, t: CompiledTracking): boolean {
  if (t.flux && t.flux.has(fluxInventoryId(live))) return true;
  const meta = live.metadata;
  if (t.argoTrackingId) {
    const raw = meta.annotations?.[ARGO_TRACKING_ANNOTATION];
    if (typeof raw === "string") {
      const id = parseArgoTrackingId(raw);
      // A copied object keeps the tracking id of the one it was copied from: only an id naming this very object counts.
      if (
        id &&
        (t.argoApp === null || t.argoApp.has(id.app)) &&
        id.group === groupOf(live.apiVersion) &&
        id.kind === live.kind &&
        id.namespace === (meta.namespace ?? "") &&
        id.name === meta.name
      )
        return true;
    }
  }
  // Labels are copied into what an object makes (a template's labels onto its pods and ReplicaSets):
  // an object whose controller is another object is that object's doing, not an orphan of the environment.
  if (t.label && meta.labels?.[t.label.key] === t.label.value && !hasControllerOwner(live) && !madeByKubernetesController(live)) return true;
  return false;
}

/**
 * Kubernetes' endpoint controllers copy a Service's labels onto the Endpoints and
 * EndpointSlices they make, and mark them with their own managed-by label; the
 * Endpoints has no owner reference. Those are the Service's, not orphans.
 */
const KUBERNETES_CONTROLLER_LABELS: ReadonlyArray<[key: string, value: string | null]> = [
  ["endpoints.kubernetes.io/managed-by", "endpoint-controller"],
  ["endpointslice.kubernetes.io/managed-by", null],
];

function madeByKubernetesController(obj: KubeObject): boolean {
  const labels = obj.metadata.labels;
  if (!labels) return false;
  return KUBERNETES_CONTROLLER_LABELS.some(([key, value]) => key in labels && (value === null || labels[key] === value));
}

function hasControllerOwner(obj: KubeObject): boolean {
  const refs = obj.metadata.ownerReferences;
  return Array.isArray(refs) && refs.some((r) => typeof r === "object" && r !== null && (r as { controller?: unknown }).controller === true);
}
