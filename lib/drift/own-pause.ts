// Driftwatch's own pause writes to a controller object: Flux's spec.suspend,
// or Argo CD's automated sync policy taken away, plus four annotations saying
// who paused, why and until when. When that controller object is itself
// declared in Git (a Flux Kustomization created by a parent Kustomization, an
// Argo CD Application of an app-of-apps), its parent would report the pause as
// drift of its own. An audited pause Driftwatch holds is shown as a pause, not
// as drift: only what the pause wrote is set aside, anything else changed on
// the object still is drift. A pause id Driftwatch does not hold (ended,
// forged, another installation's) sets nothing aside.
import type { KubeObject } from "./types";

export const ANNOTATION_PAUSED_BY = "driftwatch.dev/paused-by";
export const ANNOTATION_REASON = "driftwatch.dev/pause-reason";
export const ANNOTATION_UNTIL = "driftwatch.dev/paused-until";
export const ANNOTATION_PAUSE_ID = "driftwatch.dev/pause-id";
const PAUSE_ANNOTATIONS = [ANNOTATION_PAUSED_BY, ANNOTATION_REASON, ANNOTATION_UNTIL, ANNOTATION_PAUSE_ID];

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined);

/** The controller kinds a pause writes to, by API group. */
const PAUSABLE = new Map([
  ["kustomize.toolkit.fluxcd.io", "Kustomization"],
  ["helm.toolkit.fluxcd.io", "HelmRelease"],
  ["argoproj.io", "Application"],
]);

const groupOfApiVersion = (apiVersion: string) => (apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "");

function isFluxPausable(o: KubeObject): boolean {
  const group = groupOfApiVersion(o.apiVersion);
  return group !== "argoproj.io" && PAUSABLE.get(group) === o.kind;
}

function isArgoApplication(o: KubeObject): boolean {
  return PAUSABLE.get(groupOfApiVersion(o.apiVersion)) === o.kind && o.kind === "Application";
}

/**
 * Whether the object an object key (`group/Kind/namespace/name`) names can
 * carry a pause: only these verdicts change when a pause starts or ends, so
 * only these are compared again then.
 */
export function keyMayCarryOwnPause(key: string): boolean {
  const [group, kind] = key.split("/", 2);
  return group !== undefined && PAUSABLE.get(group) === kind;
}

/** Sets `key` of `into` as `from` has it (absent when `from` lacks it). */
function copyField(into: Obj, from: Obj | undefined, key: string): void {
  if (from && key in from) into[key] = from[key];
  else delete into[key];
}

/**
 * `live` as it would be without the pause Driftwatch holds on it: the fields
 * the pause wrote take Git's values and its annotations go. The same object
 * when it carries no pause Driftwatch holds.
 */
export function withoutOwnPause(desired: KubeObject, live: KubeObject, ownPauseIds: ReadonlySet<string>): KubeObject {
  if (ownPauseIds.size === 0) return live;
  const flux = isFluxPausable(live);
  if (!flux && !isArgoApplication(live)) return live;
  const pauseId = live.metadata.annotations?.[ANNOTATION_PAUSE_ID];
  if (pauseId === undefined || !ownPauseIds.has(pauseId)) return live;

  const annotations = { ...live.metadata.annotations };
  for (const a of PAUSE_ANNOTATIONS) delete annotations[a];
  const metadata = { ...live.metadata, annotations };
  if (Object.keys(annotations).length === 0 && desired.metadata.annotations === undefined) delete (metadata as Obj).annotations;
  const spec: Obj = { ...rec(live.spec) };
  const desiredSpec = rec(desired.spec);
  if (flux) {
    copyField(spec, desiredSpec, "suspend");
  } else {
    const desiredPolicy = rec(desiredSpec?.syncPolicy);
    const syncPolicy: Obj = { ...rec(spec.syncPolicy) };
    copyField(syncPolicy, desiredPolicy, "automated");
    if (Object.keys(syncPolicy).length > 0 || desiredPolicy) spec.syncPolicy = syncPolicy;
    else delete spec.syncPolicy;
  }
  return { ...live, metadata, spec } as KubeObject;
}
