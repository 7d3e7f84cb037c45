// Driftwatch's drift engine: objects in, results out, no I/O, time passed in.

export * from "./types";
export { createCompareContext, isCompareContext, DEFAULT_INJECTED_PREFIXES, type CompareContext } from "./context";
export { compareObject, compareAll, toCompareContext } from "./compare";
export { normalizeObject, type NormalizeOptions } from "./normalize";
export { parseQuantity, quantityEquals, compareQuantity, formatQuantity, canonicalQuantity, type Quantity } from "./quantity";
export { OwnershipIndex, decodeFieldsV1, displayFieldsV1Path, type OwnerEntry } from "./managed-fields";
export {
  classifyManager,
  createManagerClassifier,
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
