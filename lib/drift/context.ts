// A compare context is compiled once per environment and reused for every
// object: manager classification is cached, ignore rules and tracking parsed.

import { createManagerClassifier, type ManagerClassifier } from "./classify";
import { compileIgnoreRules, type CompiledIgnoreRule } from "./ignore";
import { compileTracking, type CompiledTracking } from "./tracking";
import type { CompareOptions } from "./types";

/** Label/annotation prefixes GitOps controllers add to what they apply; never drift when only live has them. */
export const DEFAULT_INJECTED_PREFIXES: readonly string[] = [
  "kustomize.toolkit.fluxcd.io/",
  "helm.toolkit.fluxcd.io/",
  "argocd.argoproj.io/",
  "meta.helm.sh/",
];

/** Argo CD's label tracking adds this label to everything it applies (and to its last-applied copy). */
const ARGO_INSTANCE_LABEL = "app.kubernetes.io/instance";

const BRAND: unique symbol = Symbol("driftwatch.compareContext");

export interface CompareContext {
  readonly [BRAND]: true;
  readonly controllerManagers: readonly string[];
  readonly controllerManaged: boolean;
  readonly classifier: ManagerClassifier;
  readonly ignoreRules: readonly CompiledIgnoreRule[];
  readonly tracking: CompiledTracking;
  readonly secretKey: string | Uint8Array | undefined;
  readonly injectedPrefixes: readonly string[];
  /** Pauses Driftwatch holds: what they wrote on a controller object Git declares is not drift (own-pause.ts). */
  readonly ownPauseIds: ReadonlySet<string>;
}

export function createCompareContext(options: CompareOptions = {}): CompareContext {
  const classifier = createManagerClassifier(options);
  const tracking = compileTracking(options.extraTracking);
  const injected = [...DEFAULT_INJECTED_PREFIXES, ...(options.controllerInjectedPrefixes ?? [])];
  if (tracking.label) injected.push(tracking.label.key);
  if ((options.controllerManagers ?? []).some((m) => m.startsWith("argocd"))) injected.push(ARGO_INSTANCE_LABEL);
  return {
    [BRAND]: true,
    controllerManagers: [...(options.controllerManagers ?? [])],
    controllerManaged: classifier.controllerManaged,
    classifier,
    ignoreRules: compileIgnoreRules(options.ignoreRules),
    tracking,
    secretKey: options.secretKey,
    injectedPrefixes: injected,
    ownPauseIds: new Set(options.ownPauseIds ?? []),
  };
}

export function isCompareContext(v: unknown): v is CompareContext {
  return typeof v === "object" && v !== null && (v as { [BRAND]?: unknown })[BRAND] === true;
}
