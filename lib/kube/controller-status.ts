// Reads what a GitOps controller says about itself: which revision it applied,
// whether it is suspended, and the conditions that explain why an environment
// is behind ("AuthenticationFailed" on the source, a failed sync, …). Pure.
import type { HelmReleaseSummary } from "@/lib/helm/release-desired";
import { ANNOTATION_PAUSE_ID } from "@/lib/drift/own-pause";

export interface ControllerCondition {
  object: string; // "Kustomization/flux-system/shop" or "GitRepository/…" or "Application/…"
  type: string;
  status: string;
  reason: string | null;
  message: string | null;
  lastTransitionTime: string | null;
}

export interface ControllerStatus {
  type: "flux" | "argocd";
  /** The controller object's kind; absent in statuses recorded before HelmRelease support (then Kustomization or Application by type). */
  kind?: "Kustomization" | "HelmRelease" | "Application";
  namespace: string;
  name: string;
  found: boolean;
  suspended: boolean;
  /** Who last wrote the suspend switch, from managedFields (a lead, not a verdict). */
  suspendedBy: { manager: string; time: string | null } | null;
  appliedRevision: string | null;
  attemptedRevision: string | null;
  /** Newest revision the controller's source fetched (Flux GitRepository artifact). */
  sourceRevision: string | null;
  ready: "True" | "False" | "Unknown";
  /** The first failing condition, the "why" of a stale environment. */
  failure: ControllerCondition | null;
  conditions: ControllerCondition[];
  /** The live object has an automated sync policy that is on (Argo CD); null for Flux. */
  automatedSync: boolean | null;
  /** How an Argo CD Application syncs and, when it does not, why (argoSyncMode); absent for Flux and in statuses recorded before it. */
  argoSync?: ArgoSyncMode;
  history: Array<{ revision: string; deployedAt: string | null }>;
  /**
   * Object ids the controller records as its own, as `ns_name_group_kind`: the Flux
   * inventory, or Argo CD's status.resources (orphans requiring pruning included).
   */
  inventory: string[];
  health: string | null;
  /** A HelmRelease's release as the collector found it (chart, version, Git vs released); absent for other kinds. */
  helm?: HelmReleaseSummary;
}

type Obj = Record<string, unknown>;

function rec(v: unknown): Obj {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {};
}
function str(v: unknown): string | null {
  return typeof v === "string" && v.length > 0 ? v : null;
}
function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Flux writes "main@sha1:<sha>" (v2) or "main/<sha>" (older); Argo CD a bare sha. */
export function shaOfRevision(revision: string | null | undefined): string | null {
  if (!revision) return null;
  const at = revision.match(/(?:sha1|sha256):([0-9a-f]{7,64})$/);
  if (at?.[1]) return at[1];
  const slash = revision.match(/\/([0-9a-f]{40})$/);
  if (slash?.[1]) return slash[1];
  return /^[0-9a-f]{7,64}$/.test(revision) ? revision : null;
}

function conditionsOf(obj: Obj, label: string): ControllerCondition[] {
  return arr(rec(obj.status).conditions).map((c) => {
    const cond = rec(c);
    return {
      object: label,
      type: str(cond.type) ?? "Unknown",
      status: str(cond.status) ?? "Unknown",
      reason: str(cond.reason),
      message: str(cond.message),
      lastTransitionTime: str(cond.lastTransitionTime),
    };
  });
}

/**
 * Who wrote a field, from managedFields (FieldsV1 keys such as ["f:spec", "f:suspend"]).
 * Only an owner of that very field counts: a field someone removed has no
 * owner left, and then the answer is null — never a guess.
 */
export function fieldWriter(obj: Obj, fieldsV1Path: string[]): { manager: string; time: string | null } | null {
  const owners = arr(rec(obj.metadata).managedFields)
    .map(rec)
    .filter((e) => {
      let node: unknown = e.fieldsV1;
      for (const key of fieldsV1Path) node = rec(node)[key];
      return node !== undefined && node !== null;
    })
    .map((e) => ({ manager: String(e.manager ?? "unknown"), time: str(e.time) }))
    .sort((a, b) => (b.time ?? "").localeCompare(a.time ?? ""));
  return owners[0] ?? null;
}

function isFailing(c: ControllerCondition): boolean {
  if (c.type === "Ready" || c.type === "Healthy") return c.status === "False";
  if (c.type === "Stalled" || c.type === "FetchFailed" || c.type.endsWith("Error") || c.type === "ArtifactFailed") return c.status === "True";
  return false;
}

/** A controller object we know nothing about yet: found or not, nothing else claimed. */
function unknownStatus(type: ControllerStatus["type"], ref: { namespace: string; name: string }, found: boolean): ControllerStatus {
  return {
    type,
    namespace: ref.namespace,
    name: ref.name,
    found,
    suspended: false,
    suspendedBy: null,
    appliedRevision: null,
    attemptedRevision: null,
    sourceRevision: null,
    ready: "Unknown",
    failure: null,
    conditions: [],
    automatedSync: null,
    history: [],
    inventory: [],
    health: null,
  };
}

export function fluxStatus(ref: { namespace: string; name: string }, kustomization: Obj | null, source: Obj | null): ControllerStatus {
  const base = unknownStatus("flux", ref, kustomization !== null);
  if (!kustomization) return base;
  const spec = rec(kustomization.spec);
  const status = rec(kustomization.status);
  const kLabel = `Kustomization/${ref.namespace}/${ref.name}`;
  const sourceMeta = source ? rec(source.metadata) : {};
  const sLabel = source ? `${str(source.kind) ?? "GitRepository"}/${str(sourceMeta.namespace) ?? ref.namespace}/${str(sourceMeta.name) ?? "?"}` : "";
  const conditions = [...conditionsOf(kustomization, kLabel), ...(source ? conditionsOf(source, sLabel) : [])];
  const ready = conditions.find((c) => c.object === kLabel && c.type === "Ready")?.status;
  // The source's failure explains a stale environment better than the Kustomization's, which still reports the old revision as applied.
  const failure = (source ? conditions.filter((c) => c.object === sLabel).find(isFailing) : undefined) ?? conditions.find(isFailing) ?? null;
  const sourceSuspended = source ? rec(source.spec).suspend === true : false;
  const suspended = spec.suspend === true || sourceSuspended;
  return {
    ...base,
    suspended,
    suspendedBy: suspended ? (spec.suspend === true ? fieldWriter(kustomization, ["f:spec", "f:suspend"]) : source ? fieldWriter(source, ["f:spec", "f:suspend"]) : null) : null,
    appliedRevision: shaOfRevision(str(status.lastAppliedRevision)),
    attemptedRevision: shaOfRevision(str(status.lastAttemptedRevision)),
    sourceRevision: source ? shaOfRevision(str(rec(rec(source.status).artifact).revision)) : null,
    ready: ready === "True" || ready === "False" ? ready : "Unknown",
    failure,
    conditions,
    inventory: arr(rec(status.inventory).entries)
      .map((e) => str(rec(e).id))
      .filter((id): id is string => id !== null),
    // Applying the last artifact is not healthy while its source cannot fetch a newer one.
    health: failure ? "Degraded" : ready === "True" ? "Healthy" : ready === "False" ? "Failing" : null,
  };
}

/**
 * A Flux HelmRelease: suspended, Ready/Released conditions and its release
 * history. It reports no Git revision (a chart version and a config digest
 * instead), so appliedRevision stays null: the collector decides it by
 * comparing Git's HelmRelease with the release (lib/helm).
 */
export function helmReleaseStatus(ref: { namespace: string; name: string }, helmRelease: Obj | null): ControllerStatus {
  const base = { ...unknownStatus("flux", ref, helmRelease !== null), kind: "HelmRelease" as const };
  if (!helmRelease) return base;
  const label = `HelmRelease/${ref.namespace}/${ref.name}`;
  const conditions = conditionsOf(helmRelease, label);
  const ready = conditions.find((c) => c.type === "Ready")?.status;
  const failure = conditions.find(isFailing) ?? null;
  const suspended = rec(helmRelease.spec).suspend === true;
  return {
    ...base,
    suspended,
    suspendedBy: suspended ? fieldWriter(helmRelease, ["f:spec", "f:suspend"]) : null,
    ready: ready === "True" || ready === "False" ? ready : "Unknown",
    failure,
    conditions,
    history: arr(rec(helmRelease.status).history).map((h) => {
      const s = rec(h);
      return { revision: `${str(s.chartName) ?? "?"}@${str(s.chartVersion) ?? "?"} (release v${typeof s.version === "number" ? s.version : "?"})`, deployedAt: str(s.lastDeployed) };
    }),
    health: failure ? "Degraded" : ready === "True" ? "Healthy" : ready === "False" ? "Failing" : null,
  };
}

/**
 * How an Argo CD Application syncs. Two of these are not pauses:
 * - "automated": an automated sync policy is on;
 * - "manual": it syncs by hand by design — no automated policy live and none
 *   in what Git declares for it (or it is declared in no repository Driftwatch
 *   collects). Many teams sync production by hand on purpose; an approved
 *   commit nobody synced is then stale, never a pause.
 * The rest are pauses, reconciliation turned off against what Git declares:
 * - "skip-reconcile": the `argocd.argoproj.io/skip-reconcile: "true"` annotation;
 * - "automated-disabled": Argo CD 3's `syncPolicy.automated.enabled: false`,
 *   unless Git declares it so too (then it is manual by design);
 * - "automated-removed": no automated policy live, though Git declares one (an
 *   app-of-apps parent Driftwatch collects renders this Application with it);
 * - "driftwatch-pause": Driftwatch's own pause (lib/pauses/controller.ts),
 *   which removes the policy and annotates the pause it records.
 */
export type ArgoSyncMode = "automated" | "manual" | "skip-reconcile" | "automated-disabled" | "automated-removed" | "driftwatch-pause";

type AutomatedPolicy = "on" | "disabled" | "none";

/** An Application's (live, or as Git declares it) automated sync policy: on, kept but switched off (Argo CD 3), or absent. */
function automatedPolicyOf(app: Obj): AutomatedPolicy {
  const automated = rec(rec(app.spec).syncPolicy).automated;
  if (automated === undefined || automated === null) return "none";
  // `automated: {}` is on: `enabled` defaults to true.
  return rec(automated).enabled === false ? "disabled" : "on";
}

/** The sync mode the live Application shows on its own, before Git is consulted. */
function liveSyncMode(live: Obj): ArgoSyncMode {
  const annotations = rec(rec(live.metadata).annotations);
  if (annotations["argocd.argoproj.io/skip-reconcile"] === "true") return "skip-reconcile";
  const policy = automatedPolicyOf(live);
  if (policy === "on") return "automated";
  if (policy === "disabled") return "automated-disabled";
  // Driftwatch's pause removes the policy; its annotations say the pause is its own, whatever Git declares.
  return typeof annotations[ANNOTATION_PAUSE_ID] === "string" ? "driftwatch-pause" : "manual";
}

/**
 * What Git's declaration of the Application (undefined: declared in no
 * collected repository) makes of the mode its live object shows: no policy
 * live is a pause only when Git declares one; a policy switched off is manual
 * by design when Git switches it off too.
 */
function againstGit(liveMode: ArgoSyncMode, declared: Obj | undefined): ArgoSyncMode {
  const declaredPolicy = declared ? automatedPolicyOf(declared) : "none";
  if (liveMode === "manual" && declaredPolicy === "on") return "automated-removed";
  if (liveMode === "automated-disabled" && declaredPolicy === "disabled") return "manual";
  return liveMode;
}

/** The sync mode of a live Application, given the Application as Git declares it (undefined: declared in no collected repository). Pure. */
export function argoSyncMode(live: Obj, declared: Obj | undefined): ArgoSyncMode {
  return againstGit(liveSyncMode(live), declared);
}

/**
 * Who turned reconciliation off, as a lead. A removed policy has no owner
 * left in managedFields, so "automated-removed" names nobody rather than guess
 * (the newest writer of the object is usually Argo CD writing its status).
 */
function argoSuspendedBy(app: Obj, mode: ArgoSyncMode): ControllerStatus["suspendedBy"] {
  if (mode === "skip-reconcile") return fieldWriter(app, ["f:metadata", "f:annotations", "f:argocd.argoproj.io/skip-reconcile"]);
  if (mode === "automated-disabled") return fieldWriter(app, ["f:spec", "f:syncPolicy", "f:automated", "f:enabled"]);
  if (mode === "driftwatch-pause") return fieldWriter(app, ["f:metadata", "f:annotations", `f:${ANNOTATION_PAUSE_ID}`]);
  return null;
}

const isPause = (mode: ArgoSyncMode) => mode !== "automated" && mode !== "manual";

/**
 * The Application's status once what Git declares for it is known (undefined:
 * declared in no collected repository). The collector reads the live
 * Application before it has rendered the parent that declares it, so
 * argoStatus decides without Git and this decides again.
 */
export function withDeclaredApplication(status: ControllerStatus, declared: Obj | undefined): ControllerStatus {
  if (status.type !== "argocd" || !status.found || !status.argoSync) return status;
  const mode = againstGit(status.argoSync, declared);
  if (mode === status.argoSync) return status;
  // Both changes leave nobody to name: a removed field has no owner, and manual by design was switched off by Git.
  return { ...status, argoSync: mode, suspended: isPause(mode), suspendedBy: null };
}

/** The object key (lib/drift objectKey) under which Git would declare the Application a status describes. */
export function declaredApplicationKey(status: Pick<ControllerStatus, "namespace" | "name">): string {
  return `argoproj.io/Application/${status.namespace}/${status.name}`;
}

/** An Argo CD Application's status as its live object shows it; withDeclaredApplication adds what Git declares. */
export function argoStatus(ref: { namespace: string; name: string }, app: Obj | null): ControllerStatus {
  const base = unknownStatus("argocd", ref, app !== null);
  if (!app) return base;
  const label = `Application/${ref.namespace}/${ref.name}`;
  const status = rec(app.status);
  const sync = rec(status.sync);
  const op = rec(status.operationState);
  const mode = liveSyncMode(app);
  const conditions = conditionsOf(app, label).map((c) => ({ ...c, status: c.status === "Unknown" ? "True" : c.status }));
  const phase = str(op.phase);
  if (phase === "Failed" || phase === "Error") {
    conditions.push({ object: label, type: "SyncFailed", status: "True", reason: phase, message: str(op.message), lastTransitionTime: str(op.finishedAt) });
  }
  const syncStatus = str(sync.status);
  const healthStatus = str(rec(status.health).status);
  const history = arr(status.history).map((h) => ({ revision: str(rec(h).revision) ?? "", deployedAt: str(rec(h).deployedAt) }));
  return {
    ...base,
    suspended: isPause(mode),
    suspendedBy: argoSuspendedBy(app, mode),
    // sync.revision is the revision Argo CD compared against; while OutOfSync the one actually applied is the last sync's.
    appliedRevision:
      syncStatus === "Synced"
        ? (shaOfRevision(str(sync.revision)) ?? shaOfRevision(str(rec(op.syncResult).revision)))
        : (shaOfRevision(history[history.length - 1]?.revision) ?? shaOfRevision(str(rec(op.syncResult).revision))),
    attemptedRevision: shaOfRevision(str(rec(op.syncResult).revision)) ?? shaOfRevision(str(rec(op.operation && rec(op.operation).sync).revision)),
    sourceRevision: shaOfRevision(str(sync.revision)),
    ready: syncStatus === "Synced" && (healthStatus === "Healthy" || healthStatus === null) ? "True" : syncStatus ? "False" : "Unknown",
    failure: conditions.find((c) => c.type.endsWith("Error") || c.type === "SyncFailed") ?? null,
    conditions,
    automatedSync: automatedPolicyOf(app) === "on",
    argoSync: mode,
    history: history.filter((h) => h.revision !== ""),
    inventory: arr(status.resources).flatMap((r) => {
      const res = rec(r);
      const kind = str(res.kind);
      const name = str(res.name);
      return kind && name ? [`${str(res.namespace) ?? ""}_${name}_${str(res.group) ?? ""}_${kind}`] : [];
    }),
    health: healthStatus,
  };
}
