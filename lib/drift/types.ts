// Shared vocabulary of the drift engine. Everything here is plain data that
// survives JSON (results are stored as Json columns and sent to the browser).

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string | null;
  fieldsType?: string;
  fieldsV1?: unknown;
  subresource?: string;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
  managedFields?: ManagedFieldsEntry[] | null;
  [field: string]: unknown;
}

/** One Kubernetes object, as rendered from Git or as read from the API. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** `${group}/${kind}/${namespace}/${name}`; group "" for core, namespace "" for cluster-scoped. */
export type ObjectKey = string;

export interface ObjectKeyParts {
  group: string;
  kind: string;
  namespace: string;
  name: string;
}

export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

export function objectKey(obj: Pick<KubeObject, "apiVersion" | "kind" | "metadata">): ObjectKey {
  return `${groupOf(obj.apiVersion)}/${obj.kind}/${obj.metadata.namespace ?? ""}/${obj.metadata.name}`;
}

/** Names and namespaces cannot contain "/", so the four parts split unambiguously. */
export function parseObjectKey(key: ObjectKey): ObjectKeyParts {
  const parts = key.split("/");
  if (parts.length !== 4 || !parts[1] || !parts[3]) throw new Error(`not an object key: ${JSON.stringify(key)}`);
  return { group: parts[0] ?? "", kind: parts[1], namespace: parts[2] ?? "", name: parts[3] };
}

export type ManagerClass = "human" | "controller" | "system" | "unknown";

/**
 * Who wrote a field, as far as the cluster recorded it. Every field is null
 * when nobody owns the path (or the owner is `ancient-changes`): the engine
 * never guesses a manager.
 */
export interface Attribution {
  manager: string | null;
  operation: "Apply" | "Update" | null;
  subresource: string | null;
  /** ISO time of the managedFields entry; null when the entry has none. */
  time: string | null;
  class: ManagerClass;
}

/**
 * - `changed`: Git and live both have the field, with different values.
 * - `removed`: Git has the field, live lost it.
 * - `added`: only live has it, and a human-facing or unknown manager wrote it.
 * - `unpruned`: only live has it, Git dropped it, but the last apply still
 *   owns it (the controller's Apply entry or last-applied-configuration):
 *   it "should be removed" and was not.
 */
export type ChangeKind = "changed" | "added" | "removed" | "unpruned";

export interface Change {
  /** Field names and list indices (index in live, or in Git when live lacks the item). */
  path: (string | number)[];
  /** Readable path with merge-key selectors: `spec.template.spec.containers[name=api].image`. */
  display: string;
  kind: ChangeKind;
  desired?: unknown;
  live?: unknown;
  attribution: Attribution;
  /** True for Secret data: `desired`/`live` then hold "(changed)", "(added)" or "(removed)", never a value. */
  masked?: true;
}

/** Differences hidden by ignore rules, counted per rule name. */
export type IgnoredCounts = Record<string, number>;

export type ObjectDrift =
  | { type: "InSync"; ignored: IgnoredCounts }
  | { type: "Modified"; changes: Change[]; ignored: IgnoredCounts }
  | { type: "Missing"; ignored: IgnoredCounts }
  | { type: "Extra"; ignored: IgnoredCounts };

export type DriftType = Exclude<ObjectDrift["type"], "InSync">;

export interface IgnoreRule {
  name: string;
  /** `Deployment` or `apps/Deployment`; any kind when absent. */
  kinds?: string[];
  /** metadata.name globs (`*`, `?`); any name when absent. */
  names?: string[];
  /** metadata.namespace globs; any namespace when absent. */
  namespaces?: string[];
  /** RFC 6901 pointers over the object (`/spec/replicas`, `/spec/template/spec/containers/0/image`). */
  jsonPointers?: string[];
  /** Path syntax: `spec.replicas`, `spec.template.spec.containers[name=api].image`, `metadata.labels["a.b/c"]`. */
  paths?: string[];
  /** Hide differences whose owning manager is one of these (globs). */
  managers?: string[];
}

export interface ExtraTracking {
  /** Flux Kustomization `status.inventory.entries[].id`: `namespace_name_group_kind`. */
  fluxInventory?: Iterable<string>;
  /** Argo CD Application name; tracking ids of other applications do not count. Any app when absent. */
  argoApp?: string;
  /**
   * The Application's namespace. Outside Argo CD's control-plane namespace (apps in any namespace),
   * Argo CD names the app `<namespace>_<name>` in tracking ids; both forms count.
   */
  argoAppNamespace?: string;
  /** Honour `argocd.argoproj.io/tracking-id` annotations (default true). */
  argoTrackingId?: boolean;
  /** A label that marks the environment's objects: `key=value` or `{ key, value }`. */
  label?: string | { key: string; value: string };
}

export interface ManagerLists {
  human?: string[];
  system?: string[];
  controller?: string[];
}

export interface CompareOptions {
  /** The environment's own controller managers (e.g. `kustomize-controller`). */
  controllerManagers?: string[];
  /** Whether a GitOps controller reconciles this environment; defaults to controllerManagers being non-empty. */
  controllerManaged?: boolean;
  /** Replace the default manager lists (globs allowed, e.g. `Mozilla*`). */
  managers?: ManagerLists;
  /** Added to the default lists instead of replacing them. */
  extraManagers?: ManagerLists;
  ignoreRules?: IgnoreRule[];
  extraTracking?: ExtraTracking;
  /** HMAC key for Secret values handed in unhashed while the other side is hashed. */
  secretKey?: string | Uint8Array;
  /** Label/annotation key prefixes that controllers inject at apply time (added to the defaults). */
  controllerInjectedPrefixes?: string[];
  /** Ids of the pauses Driftwatch holds (sorted, so the options hash is stable): see own-pause.ts. */
  ownPauseIds?: string[];
}
