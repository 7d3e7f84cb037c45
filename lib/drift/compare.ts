// Object-level comparison: one desired and one live object (either may be
// absent) → InSync | Modified | Missing | Extra.

import { createCompareContext, isCompareContext, type CompareContext } from "./context";
import { diffObjects } from "./diff";
import { rulesFor, type CompiledIgnoreRule } from "./ignore";
import { isTrackedByEnvironment } from "./tracking";
import { withoutOwnPause } from "./own-pause";
import { groupOf, objectKey, type CompareOptions, type KubeObject, type ObjectDrift, type ObjectKey } from "./types";

// Callers may hand the same options object for every object of a run: compile it once.
const compiled = new WeakMap<CompareOptions, CompareContext>();

export function toCompareContext(ctx: CompareContext | CompareOptions): CompareContext {
  if (isCompareContext(ctx)) return ctx;
  let c = compiled.get(ctx);
  if (!c) compiled.set(ctx, (c = createCompareContext(ctx)));
  return c;
}

function wholeObject(rules: readonly CompiledIgnoreRule[], type: "Missing" | "Extra"): ObjectDrift {
  const rule = rules.find((r) => r.wholeObject);
  return rule ? { type: "InSync", ignored: { [rule.name]: 1 } } : { type, ignored: {} };
}

/**
 * Compares one object. A live object that Git lacks is `Extra` only when the
 * environment's controller tracks it (Flux inventory, an Argo CD tracking id
 * naming that very object, or the configured label); any other live-only
 * object is none of the environment's business and comes back `InSync`.
 */
export function compareObject(desired: KubeObject | null, live: KubeObject | null, context: CompareContext | CompareOptions): ObjectDrift {
  const ctx = toCompareContext(context);
  const ref = desired ?? live;
  if (!ref) return { type: "InSync", ignored: {} };
  const rules = rulesFor(ctx.ignoreRules, {
    group: groupOf(ref.apiVersion),
    kind: ref.kind,
    name: ref.metadata.name,
    namespace: ref.metadata.namespace ?? "",
  });
  if (!live) return wholeObject(rules, "Missing");
  if (!desired) return isTrackedByEnvironment(live, ctx.tracking) ? wholeObject(rules, "Extra") : { type: "InSync", ignored: {} };
  const { changes, ignored } = diffObjects(desired, withoutOwnPause(desired, live, ctx.ownPauseIds), ctx, rules);
  return changes.length > 0 ? { type: "Modified", changes, ignored } : { type: "InSync", ignored };
}

/** Compares whole sets, keyed by object key (every key of either side is in the result). */
export function compareAll(
  desired: Iterable<KubeObject>,
  live: Iterable<KubeObject>,
  context: CompareContext | CompareOptions,
): Map<ObjectKey, ObjectDrift> {
  const ctx = toCompareContext(context);
  const d = new Map<ObjectKey, KubeObject>();
  for (const o of desired) d.set(objectKey(o), o);
  const l = new Map<ObjectKey, KubeObject>();
  for (const o of live) l.set(objectKey(o), o);
  const out = new Map<ObjectKey, ObjectDrift>();
  for (const [k, o] of d) out.set(k, compareObject(o, l.get(k) ?? null, ctx));
  for (const [k, o] of l) if (!d.has(k)) out.set(k, compareObject(null, o, ctx));
  return out;
}
