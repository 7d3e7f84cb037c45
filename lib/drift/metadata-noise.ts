// The one list of metadata the API server and client tools write by
// themselves: never drift, never shown in a diff, never committed when a
// live object is adopted into Git. No imports, so any layer may use it.

/** metadata fields the API server owns (bookkeeping, not intent). */
export const SERVER_METADATA_FIELDS: readonly string[] = [
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "managedFields",
  "selfLink",
];

export const LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";

/**
 * Annotations written by controllers and kubectl rather than by whoever wrote
 * the manifest. last-applied-configuration is a copy of the previous apply
 * (on a Secret, with its raw values), so it must never appear in a change.
 */
export const NOISY_ANNOTATIONS: ReadonlySet<string> = new Set([
  LAST_APPLIED_ANNOTATION,
  "deployment.kubernetes.io/revision",
  "deployment.kubernetes.io/desired-replicas",
  "deployment.kubernetes.io/max-replicas",
  "deprecated.daemonset.template.generation",
]);
