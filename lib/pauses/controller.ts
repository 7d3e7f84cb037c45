// Pause and resume on the GitOps controller itself, through the environment's
// separately configured write credential. Flux: spec.suspend; Argo CD: the
// automated sync policy is removed and kept so resume can put it back. Both
// carry annotations saying who paused, why and until when, so anyone reading
// the object with kubectl sees the same answer as the dashboard.
import { controllerKindOf, type ClusterConfig, type ControllerConfig, type EnvironmentConfig } from "@/lib/config";
import { createClusterClient, type ClusterClient } from "@/lib/kube/client";
import { KubeError } from "@/lib/kube/errors";
import { ANNOTATION_PAUSED_BY, ANNOTATION_PAUSE_ID, ANNOTATION_REASON, ANNOTATION_UNTIL } from "@/lib/drift/own-pause";

// Defined beside the comparison that sets a held pause aside (a parent application must not see it as drift).
export { ANNOTATION_PAUSED_BY, ANNOTATION_PAUSE_ID, ANNOTATION_REASON, ANNOTATION_UNTIL };
export const FIELD_MANAGER = "driftwatch";

export type KubeWriter = Pick<ClusterClient, "requestJson">;
export type ClientFactory = (cluster: ClusterConfig) => KubeWriter;

export const defaultClientFactory: ClientFactory = (cluster) => createClusterClient(cluster, { timeoutMs: 10_000 });

/** "Kind/namespace/name" of the environment's controller object, or null without one. */
export function controllerRefOf(env: Pick<EnvironmentConfig, "controller">): string | null {
  const c = env.controller;
  if (!c) return null;
  return `${controllerKindOf(c)}/${c.namespace}/${c.name}`;
}

/** The controller object a "Kind/namespace/name" names (what a pause records), or null for anything else. */
export function controllerFromRef(ref: string): ControllerConfig | null {
  const [kind, namespace, name, ...rest] = ref.split("/");
  if (!kind || !namespace || !name || rest.length > 0) return null;
  if (kind === "Kustomization" || kind === "HelmRelease") return { type: "flux", kind, namespace, name };
  if (kind === "Application") return { type: "argocd", namespace, name };
  return null;
}

export function controllerPath(c: ControllerConfig): string {
  const ns = encodeURIComponent(c.namespace);
  const name = encodeURIComponent(c.name);
  const kind = controllerKindOf(c);
  // A HelmRelease is suspended like a Kustomization: spec.suspend on its own object.
  return kind === "Kustomization"
    ? `/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/${ns}/kustomizations/${name}`
    : kind === "HelmRelease"
      ? `/apis/helm.toolkit.fluxcd.io/v2/namespaces/${ns}/helmreleases/${name}`
      : `/apis/argoproj.io/v1alpha1/namespaces/${ns}/applications/${name}`;
}

export interface PauseMeta {
  pauseId: string;
  by: string;
  reason: string;
  until: Date;
}

function annotations(meta: PauseMeta): Record<string, string> {
  return {
    [ANNOTATION_PAUSED_BY]: meta.by,
    [ANNOTATION_REASON]: meta.reason.slice(0, 1000),
    [ANNOTATION_UNTIL]: meta.until.toISOString(),
    [ANNOTATION_PAUSE_ID]: meta.pauseId,
  };
}

const CLEAR_ANNOTATIONS = {
  [ANNOTATION_PAUSED_BY]: null,
  [ANNOTATION_REASON]: null,
  [ANNOTATION_UNTIL]: null,
  [ANNOTATION_PAUSE_ID]: null,
};

/** JSON merge patches (RFC 7386): null removes a field. */
export function pausePatch(type: ControllerConfig["type"], meta: PauseMeta): Record<string, unknown> {
  return type === "flux"
    ? { metadata: { annotations: annotations(meta) }, spec: { suspend: true } }
    : { metadata: { annotations: annotations(meta) }, spec: { syncPolicy: { automated: null } } };
}

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});

/**
 * What puts a controller object back as the pause found it: Argo CD's
 * automated policy as it was; Flux resumed (its suspend field as the pause
 * found it: false, or absent), unless it was suspended already when the
 * pause began (then only Driftwatch's annotations go, and the next
 * run shows that suspension as the pause it is).
 */
export function resumePatch(type: ControllerConfig["type"], previousPolicy: unknown): Record<string, unknown> {
  if (type === "flux") {
    const before = rec(previousPolicy).suspend;
    if (before === true) return { metadata: { annotations: CLEAR_ANNOTATIONS } };
    // The field goes when the pause found none; false when it found false, or when nothing was recorded.
    return { metadata: { annotations: CLEAR_ANNOTATIONS }, spec: { suspend: before === null ? null : false } };
  }
  const automated = previousPolicy && typeof previousPolicy === "object" ? (previousPolicy as { automated?: unknown }).automated : undefined;
  return automated === undefined || automated === null
    ? { metadata: { annotations: CLEAR_ANNOTATIONS } }
    : { metadata: { annotations: CLEAR_ANNOTATIONS }, spec: { syncPolicy: { automated } } };
}


/**
 * Suspends reconciliation. Returns what resume needs: Argo CD's automated
 * policy as it was; for Flux, whether it was already suspended.
 */
export async function suspendController(client: KubeWriter, c: ControllerConfig, meta: PauseMeta): Promise<{ previousPolicy: unknown }> {
  const path = controllerPath(c);
  let previousPolicy: unknown;
  if (c.type === "argocd") {
    const app = await client.requestJson<Obj>("GET", path);
    const automated = rec(rec(app.spec).syncPolicy).automated;
    previousPolicy = { automated: automated === undefined ? null : automated };
  } else {
    const k = await client.requestJson<Obj>("GET", path);
    // null: Git's object had no suspend field, and resuming leaves none (a parent that declares it sees no drift).
    previousPolicy = { suspend: typeof rec(k.spec).suspend === "boolean" ? rec(k.spec).suspend : null };
  }
  await client.requestJson("PATCH", path, {
    body: pausePatch(c.type, meta),
    contentType: "application/merge-patch+json",
    query: { fieldManager: FIELD_MANAGER },
  });
  return { previousPolicy };
}

export async function resumeController(client: KubeWriter, c: ControllerConfig, previousPolicy: unknown): Promise<void> {
  await client.requestJson("PATCH", controllerPath(c), {
    body: resumePatch(c.type, previousPolicy),
    contentType: "application/merge-patch+json",
    query: { fieldManager: FIELD_MANAGER },
  });
}

/** One controller object of an environment-wide pause: the application it stands for, and its object. */
export interface EachTarget {
  application: string;
  ref: string;
  controller: ControllerConfig;
}

/** What resume needs of each object an environment-wide pause suspended (Pause.previousPolicy). */
export interface EachPolicy {
  each: Array<{ application: string; ref: string; previousPolicy: unknown }>;
}

export function eachPolicyOf(v: unknown): EachPolicy | null {
  const each = rec(v).each;
  if (!Array.isArray(each)) return null;
  return { each: each.map((e) => ({ application: String(rec(e).application ?? ""), ref: String(rec(e).ref ?? ""), previousPolicy: rec(e).previousPolicy ?? null })) };
}


/** Why an all-or-nothing step over several objects stopped: the object that failed, and what could not be put back. */
export class EachFailure extends Error {
  constructor(
    readonly failed: { application: string; ref: string; message: string },
    readonly undone: number,
    readonly notUndone: Array<{ ref: string; message: string }>,
  ) {
    super(`${failed.ref} (application "${failed.application}"): ${failed.message}`);
  }
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * Suspends each object in turn, all or nothing: when one fails, the ones
 * already suspended are put back as they were (newest first) and EachFailure
 * names the failing object and anything that could not be put back.
 */
export async function suspendEach(client: KubeWriter, targets: readonly EachTarget[], meta: PauseMeta): Promise<EachPolicy> {
  const done: EachPolicy["each"] = [];
  for (const t of targets) {
    try {
      const { previousPolicy } = await suspendController(client, t.controller, meta);
      done.push({ application: t.application, ref: t.ref, previousPolicy });
    } catch (e) {
      const notUndone = await undo(done, (d) => resumeController(client, controllerFromRef(d.ref)!, d.previousPolicy));
      throw new EachFailure({ application: t.application, ref: t.ref, message: messageOf(e) }, done.length - notUndone.length, notUndone);
    }
  }
  return { each: done };
}

/** Resumes each object an environment-wide pause suspended, all or nothing: a failure suspends the ones already resumed again. */
export async function resumeEach(client: KubeWriter, policy: EachPolicy, meta: PauseMeta): Promise<void> {
  const done: EachPolicy["each"] = [];
  for (const d of policy.each) {
    const c = controllerFromRef(d.ref);
    if (!c) continue;
    try {
      await resumeController(client, c, d.previousPolicy);
      done.push(d);
    } catch (e) {
      // Deleted since it was paused: nothing left to resume.
      if (e instanceof KubeError && e.category === "not-found") continue;
      const notUndone = await undo(done, (x) => suspendController(client, controllerFromRef(x.ref)!, meta));
      throw new EachFailure({ application: d.application, ref: d.ref, message: messageOf(e) }, done.length - notUndone.length, notUndone);
    }
  }
}

async function undo<T extends { ref: string }>(done: readonly T[], step: (d: T) => Promise<unknown>): Promise<Array<{ ref: string; message: string }>> {
  const failed: Array<{ ref: string; message: string }> = [];
  for (const d of [...done].reverse()) {
    try {
      await step(d);
    } catch (e) {
      failed.push({ ref: d.ref, message: messageOf(e) });
    }
  }
  return failed;
}
