// Drift items over time: one item per (environment, object key) that opens
// when a difference first appears, follows it while present, and resolves
// with a reason. Pure: the caller loads open items, passes this run's
// results and `now`, and writes back what this returns.

import type { CompareContext } from "./context";
import { matchIgnoreRule, rulesFor, type CompiledIgnoreRule } from "./ignore";
import { parsePathPattern, patternMatches, type PatternSegment, type Segment } from "./path";
import { parseObjectKey, type Attribution, type Change, type DriftType, type IgnoredCounts, type ObjectDrift, type ObjectKey } from "./types";

export type Resolution = "reverted" | "adopted" | "deleted" | "ignored";

export interface OpenDriftItem {
  id: string;
  key: ObjectKey;
  type: DriftType;
  changes: readonly Change[];
  openedAt: string;
}

/** What this run saw for one key. Keys the run did not observe (a kind it could not list) must be left out. */
export interface Observation {
  drift: ObjectDrift;
  inDesired: boolean;
  inLive: boolean;
}

export interface LifecycleInput {
  now: Date | string;
  open: readonly OpenDriftItem[];
  /**
   * This run's results. A bare ObjectDrift is read as present on both sides
   * (Missing: Git only, Extra: live only); pass an Observation to report an
   * object gone from both sides (`deleted`).
   */
  results: ReadonlyMap<ObjectKey, Observation | ObjectDrift>;
  /** Keys whose desired object changed in this run, with the commit that changed it (names the adoption). */
  desiredChanges?: ReadonlyMap<ObjectKey, string>;
  /** The environment's approved revision: named for an adoption when desiredChanges lacks the key's commit. */
  approvedSha?: string | null;
  /** Current ignore rules (compiled context): an item they now fully cover resolves as `ignored`. */
  context?: CompareContext;
  /** Times each key's drift was already resolved recently (new items start counting reopenings from here). */
  previousResolutions?: ReadonlyMap<ObjectKey, number>;
}

export interface NewDriftItem {
  key: ObjectKey;
  type: DriftType;
  changes: Change[];
  ignored: IgnoredCounts;
  attribution: Attribution | null;
  openedAt: string;
  lastSeenAt: string;
  reopenCount: number;
}

export interface DriftItemUpdate {
  id: string;
  key: ObjectKey;
  type: DriftType;
  changes: Change[];
  ignored: IgnoredCounts;
  attribution: Attribution | null;
  lastSeenAt: string;
  /** False when only lastSeenAt moved. */
  contentChanged: boolean;
}

export interface DriftItemResolution {
  id: string;
  key: ObjectKey;
  reason: Resolution;
  /** The commit that adopted the live state into Git. */
  sha: string | null;
  resolvedAt: string;
  /** How long the drift lived. */
  durationMs: number;
}

export interface LifecyclePlan {
  open: NewDriftItem[];
  update: DriftItemUpdate[];
  resolve: DriftItemResolution[];
}

function toObservation(v: Observation | ObjectDrift): Observation {
  if ("drift" in v) return v;
  return { drift: v, inDesired: v.type !== "Extra", inLive: v.type !== "Missing" };
}

function iso(t: Date | string): string {
  return typeof t === "string" ? new Date(t).toISOString() : t.toISOString();
}

/** The attribution that explains an item best: the latest human change, else the latest of any. */
export function primaryAttribution(changes: readonly Change[]): Attribution | null {
  let best: Attribution | null = null;
  const rank = (a: Attribution) => (a.class === "human" ? 0 : a.class === "unknown" ? 1 : 2);
  for (const c of changes) {
    const a = c.attribution;
    if (!best || rank(a) < rank(best) || (rank(a) === rank(best) && (a.time ?? "") > (best.time ?? ""))) best = a;
  }
  return best;
}

function sameChanges(a: readonly Change[], b: readonly Change[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Change;
    const y = b[i] as Change;
    if (x.display !== y.display || x.kind !== y.kind || x.attribution.manager !== y.attribution.manager) return false;
    if (JSON.stringify(x.desired) !== JSON.stringify(y.desired) || JSON.stringify(x.live) !== JSON.stringify(y.live)) return false;
  }
  return true;
}

function segmentsOfDisplay(display: string): Segment[] | null {
  let pattern: PatternSegment[];
  try {
    pattern = parsePathPattern(display);
  } catch {
    return null;
  }
  const segs: Segment[] = [];
  for (const p of pattern) {
    if (p.t === "field") segs.push({ t: "field", name: p.name });
    else if (p.t === "select") segs.push({ t: "item", index: -1, keys: p.pairs });
    else if (p.t === "index") segs.push({ t: "item", index: p.index, keys: null });
    else if (p.t === "value") segs.push({ t: "value", value: p.value });
    else return null;
  }
  return segs;
}

/** Whether today's rules hide every recorded difference of the item (then it resolves as `ignored`). */
export function coveredByRules(item: OpenDriftItem, rules: readonly CompiledIgnoreRule[]): boolean {
  const p = parseObjectKey(item.key);
  const applicable = rulesFor(rules, { group: p.group, kind: p.kind, name: p.name, namespace: p.namespace });
  if (applicable.length === 0) return false;
  if (item.type !== "Modified" || item.changes.length === 0) return applicable.some((r) => r.wholeObject);
  return item.changes.every((c) => {
    const segs = segmentsOfDisplay(c.display);
    if (!segs) return false;
    return matchIgnoreRule(applicable, { segs, path: c.path, manager: c.attribution.manager }) !== null;
  });
}

/** Pattern-matches a display path (used by the UI to explain which rule hides what). */
export function displayMatches(pattern: string, display: string): boolean {
  const segs = segmentsOfDisplay(display);
  return segs !== null && patternMatches(parsePathPattern(pattern), segs);
}

export function planDriftLifecycle(input: LifecycleInput): LifecyclePlan {
  const now = iso(input.now);
  const nowMs = Date.parse(now);
  const plan: LifecyclePlan = { open: [], update: [], resolve: [] };
  const openKeys = new Set<ObjectKey>();

  for (const item of input.open) {
    openKeys.add(item.key);
    const raw = input.results.get(item.key);
    if (!raw) continue; // not observed this run: leave it as it is
    const obs = toObservation(raw);
    const resolve = (reason: Resolution, sha: string | null = null) =>
      plan.resolve.push({ id: item.id, key: item.key, reason, sha, resolvedAt: now, durationMs: Math.max(0, nowMs - Date.parse(item.openedAt)) });
    const drift = obs.drift;
    if (drift.type !== "InSync") {
      const changes = drift.type === "Modified" ? drift.changes : [];
      plan.update.push({
        id: item.id,
        key: item.key,
        type: drift.type,
        changes,
        ignored: drift.ignored,
        attribution: primaryAttribution(changes),
        lastSeenAt: now,
        contentChanged: drift.type !== item.type || !sameChanges(item.changes, changes),
      });
      continue;
    }
    const adoptedSha = input.desiredChanges?.get(item.key) || null;
    if (!obs.inDesired && !obs.inLive) {
      // Git dropped an object that was missing live: Git now matches live.
      if (item.type === "Missing" && input.desiredChanges?.has(item.key)) resolve("adopted", adoptedSha ?? input.approvedSha ?? null);
      else resolve("deleted");
      continue;
    }
    if (item.type === "Extra" && !obs.inDesired) {
      // Still live but no longer tracked by the controller: gone from the environment.
      resolve("deleted");
      continue;
    }
    if (input.context && coveredByRules(item, input.context.ignoreRules)) {
      resolve("ignored");
      continue;
    }
    if (input.desiredChanges?.has(item.key)) resolve("adopted", adoptedSha ?? input.approvedSha ?? null);
    else resolve("reverted");
  }

  for (const [key, raw] of input.results) {
    const obs = toObservation(raw);
    if (openKeys.has(key) || obs.drift.type === "InSync") continue;
    const changes = obs.drift.type === "Modified" ? obs.drift.changes : [];
    plan.open.push({
      key,
      type: obs.drift.type,
      changes,
      ignored: obs.drift.ignored,
      attribution: primaryAttribution(changes),
      openedAt: now,
      lastSeenAt: now,
      reopenCount: input.previousResolutions?.get(key) ?? 0,
    });
  }
  return plan;
}

export interface DriftInterval {
  openedAt: string;
  resolvedAt: string | null;
}

/**
 * Total time drift was open within [from, to) — "how long did drift live in
 * production this week". Overlapping items count once per item (it is a sum
 * of item lifetimes, not wall-clock coverage).
 */
export function driftTimeWithin(items: readonly DriftInterval[], from: Date | string, to: Date | string, now: Date | string = to): number {
  const f = Date.parse(iso(from));
  const t = Date.parse(iso(to));
  const n = Date.parse(iso(now));
  let total = 0;
  for (const it of items) {
    const start = Math.max(f, Date.parse(it.openedAt));
    const end = Math.min(t, it.resolvedAt ? Date.parse(it.resolvedAt) : n);
    if (end > start) total += end - start;
  }
  return total;
}
