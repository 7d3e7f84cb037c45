// Ignore rules, compiled once per context. A rule applies to an object by
// kind/name/namespace; within it, it hides a difference when any of its
// selectors (JSON pointers, paths, managers) matches, or every difference
// when it has no selector at all.

import { globToRegExp } from "./classify";
import { parseJsonPointer, parsePathPattern, patternMatches, pointerMatches, PathSyntaxError, type PatternSegment, type Segment } from "./path";
import type { IgnoreRule } from "./types";

export interface CompiledIgnoreRule {
  readonly name: string;
  readonly kinds: ReadonlySet<string> | null;
  readonly names: readonly RegExp[] | null;
  readonly namespaces: readonly RegExp[] | null;
  readonly pointers: readonly string[][];
  readonly paths: readonly PatternSegment[][];
  readonly managers: readonly RegExp[];
  /** No selector: the rule hides every difference of the objects it applies to. */
  readonly wholeObject: boolean;
}

export class IgnoreRuleError extends Error {
  constructor(
    readonly rule: string,
    message: string,
  ) {
    super(`ignore rule ${JSON.stringify(rule)}: ${message}`);
  }
}

export function compileIgnoreRules(rules: readonly IgnoreRule[] = []): CompiledIgnoreRule[] {
  return rules.map((r) => {
    if (!r.name) throw new IgnoreRuleError("", "a rule needs a name");
    const compileGlobs = (globs?: string[]) => (globs && globs.length > 0 ? globs.map(globToRegExp) : null);
    try {
      const pointers = (r.jsonPointers ?? []).map(parseJsonPointer);
      const paths = (r.paths ?? []).map(parsePathPattern);
      const managers = (r.managers ?? []).map(globToRegExp);
      return {
        name: r.name,
        kinds: r.kinds && r.kinds.length > 0 ? new Set(r.kinds) : null,
        names: compileGlobs(r.names),
        namespaces: compileGlobs(r.namespaces),
        pointers,
        paths,
        managers,
        wholeObject: pointers.length === 0 && paths.length === 0 && managers.length === 0,
      };
    } catch (err) {
      if (err instanceof PathSyntaxError) throw new IgnoreRuleError(r.name, err.message);
      throw err;
    }
  });
}

export interface RuleTarget {
  group: string;
  kind: string;
  name: string;
  namespace: string;
}

export function ruleAppliesTo(rule: CompiledIgnoreRule, t: RuleTarget): boolean {
  if (rule.kinds && !rule.kinds.has(t.kind) && !rule.kinds.has(`${t.group}/${t.kind}`)) return false;
  if (rule.names && !rule.names.some((re) => re.test(t.name))) return false;
  if (rule.namespaces && !rule.namespaces.some((re) => re.test(t.namespace))) return false;
  return true;
}

export function rulesFor(rules: readonly CompiledIgnoreRule[], t: RuleTarget): CompiledIgnoreRule[] {
  return rules.length === 0 ? [] : rules.filter((r) => ruleAppliesTo(r, t));
}

export interface DifferenceLocator {
  segs: readonly Segment[];
  path: readonly (string | number)[];
  manager: string | null;
}

/** The first rule that hides this difference, or null. */
export function matchIgnoreRule(rules: readonly CompiledIgnoreRule[], d: DifferenceLocator): CompiledIgnoreRule | null {
  for (const r of rules) {
    if (r.wholeObject) return r;
    for (const p of r.pointers) if (pointerMatches(p, d.path)) return r;
    for (const p of r.paths) if (patternMatches(p, d.segs)) return r;
    if (d.manager !== null) for (const m of r.managers) if (m.test(d.manager)) return r;
  }
  return null;
}
