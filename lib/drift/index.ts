// Driftwatch's drift engine: objects in, results out, no I/O, time passed in.
//
// Decisions worth knowing before using it:
// - compareObject(desired, live, ctx) → InSync | Modified | Missing | Extra.
//   A live object Git lacks is Extra only when the environment's controller
//   tracks it (Flux inventory, an Argo CD tracking id naming that very
//   object, the configured label); any other live-only object is InSync.
// - Change kinds: changed / removed (live lost a Git field) / added (only
//   live has it and a human-facing or unknown manager wrote it) / unpruned
//   (Git dropped it but the last apply — the controller's Apply entry or
//   last-applied-configuration — still owns it: "should be removed").
// - Server defaults, status, server metadata, injected controller labels,
//   quantity spelling and null/empty/absent never show up as changes.
// - Secret values never appear in a result: per-key "(changed)" / "(added)"
//   / "(removed)" with `masked: true`.

export * from "./types";
export { createCompareContext, isCompareContext, DEFAULT_INJECTED_PREFIXES, type CompareContext } from "./context";
export { compareObject, compareAll, toCompareContext } from "./compare";
export { normalizeObject, type NormalizeOptions } from "./normalize";
export { parseQuantity, quantityEquals, compareQuantity, formatQuantity, canonicalQuantity, type Quantity } from "./quantity";
export { OwnershipIndex, decodeFieldsV1, displayFieldsV1Path, type OwnerEntry } from "./managed-fields";
export {
  classifyManager,
  createManagerClassifier,
  globToRegExp,
  DEFAULT_HUMAN_MANAGERS,
  DEFAULT_SYSTEM_MANAGERS,
  DEFAULT_CONTROLLER_MANAGERS,
  type ManagerClassifier,
  type ClassifierOptions,
} from "./classify";
export { compileIgnoreRules, IgnoreRuleError, type CompiledIgnoreRule } from "./ignore";
export { hashSecretValues, isSecret, isHashedValue, HASH_PREFIX } from "./secrets";
export { fluxInventoryId, parseArgoTrackingId, isTrackedByEnvironment, ARGO_TRACKING_ANNOTATION, type ArgoTrackingId } from "./tracking";
export {
  fieldOwners,
  detectFieldConflicts,
  detectReopenConflicts,
  type FieldConflict,
  type ReopenConflict,
  type DriftEpisode,
  type OwnershipSnapshot,
  type ConflictOptions,
} from "./conflict";
export {
  planDriftLifecycle,
  primaryAttribution,
  coveredByRules,
  displayMatches,
  driftTimeWithin,
  type Resolution,
  type OpenDriftItem,
  type Observation,
  type LifecycleInput,
  type LifecyclePlan,
  type NewDriftItem,
  type DriftItemUpdate,
  type DriftItemResolution,
  type DriftInterval,
} from "./lifecycle";
export { parsePathPattern, renderPath, PathSyntaxError, type Segment, type PatternSegment } from "./path";
export { withoutOwnPause, keyMayCarryOwnPause, ANNOTATION_PAUSED_BY, ANNOTATION_REASON, ANNOTATION_UNTIL, ANNOTATION_PAUSE_ID } from "./own-pause";
