// Semver ranges over tags, as Flux's source-controller reads a GitRepository's
// `ref.semver`: tags that are strict semver versions (a leading "v" allowed)
// are matched against a Masterminds/semver constraint, and the highest match
// wins; equal versions (differing only in build metadata) go to the tag whose
// commit is the newest. Pure; no dependency, since none is installed.

export interface Version {
  major: number;
  minor: number;
  patch: number;
  prerelease: string[];
  /** The tag as written. */
  original: string;
}

const NUM = "0|[1-9]\\d*";
const PRE_ID = `(?:${NUM}|\\d*[a-zA-Z-][0-9a-zA-Z-]*)`;
const STRICT = new RegExp(`^v?(${NUM})\\.(${NUM})\\.(${NUM})(?:-(${PRE_ID}(?:\\.${PRE_ID})*))?(?:\\+[0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*)?$`);

/** A tag as a version when it is strict semver (`1.2.3`, `v1.2.3-rc.1+build`), else null (`v1.2`, `release-1`). */
export function parseVersion(tag: string): Version | null {
  const m = STRICT.exec(tag);
  if (!m) return null;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), prerelease: m[4] ? m[4].split(".") : [], original: tag };
}

function compareIdentifiers(a: string, b: string): number {
  const an = /^\d+$/.test(a);
  const bn = /^\d+$/.test(b);
  if (an && bn) return Math.sign(Number(a) - Number(b));
  if (an) return -1;
  if (bn) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Semver precedence (build metadata ignored): negative, zero or positive. */
export function compareVersions(a: Pick<Version, "major" | "minor" | "patch" | "prerelease">, b: Pick<Version, "major" | "minor" | "patch" | "prerelease">): number {
  const core = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (core !== 0) return Math.sign(core);
  if (a.prerelease.length === 0 || b.prerelease.length === 0) return Math.sign(b.prerelease.length - a.prerelease.length);
  for (let i = 0; i < Math.min(a.prerelease.length, b.prerelease.length); i++) {
    const c = compareIdentifiers(a.prerelease[i]!, b.prerelease[i]!);
    if (c !== 0) return c;
  }
  return Math.sign(a.prerelease.length - b.prerelease.length);
}

/** A version in a constraint: parts may be missing or wildcards (`1`, `1.2.x`, `*`). */
interface Partial {
  major: number | null;
  minor: number | null;
  patch: number | null;
  prerelease: string[];
}

const WILD = /^[xX*]$/;
const PARTIAL = /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

function parsePartial(text: string, range: string): Partial {
  const m = PARTIAL.exec(text);
  if (!m) throw new SemverRangeError(range, `"${text}" is not a version`);
  const part = (s: string | undefined) => (s === undefined || WILD.test(s) ? null : Number(s));
  const major = part(m[1]);
  const minor = major === null ? null : part(m[2]);
  const patch = minor === null ? null : part(m[3]);
  return { major, minor, patch, prerelease: m[4] ? m[4].split(".") : [] };
}

const floor = (p: Partial) => ({ major: p.major ?? 0, minor: p.minor ?? 0, patch: p.patch ?? 0, prerelease: p.prerelease });
const v3 = (major: number, minor: number, patch: number) => ({ major, minor, patch, prerelease: [] as string[] });

/** The first version above every version the partial covers: `1` → 2.0.0, `1.2` → 1.3.0, `1.2.3` → 1.2.4. */
function above(p: Partial): ReturnType<typeof floor> | null {
  if (p.major === null) return null;
  if (p.minor === null) return v3(p.major + 1, 0, 0);
  if (p.patch === null) return v3(p.major, p.minor + 1, 0);
  return v3(p.major, p.minor, p.patch + 1);
}

type Test = (v: Version) => boolean;

const atLeast = (low: ReturnType<typeof floor>): Test => (v) => compareVersions(v, low) >= 0;
const below = (high: ReturnType<typeof floor> | null): Test => (v) => high === null || compareVersions(v, high) < 0;
const both = (a: Test, b: Test): Test => (v) => a(v) && b(v);

/** What one comparator (`>=1.2`, `^0.3`, `~1`, `1.x`, `!=1.2.3`) admits, before the pre-release rule. */
function comparatorTest(op: string, p: Partial): Test {
  const exact = p.patch !== null;
  switch (op) {
    case "":
    case "=":
      return exact ? (v) => compareVersions(v, floor(p)) === 0 : both(atLeast(floor(p)), below(above(p)));
    case "!=":
      return exact ? (v) => compareVersions(v, floor(p)) !== 0 : (v) => !(atLeast(floor(p))(v) && below(above(p))(v));
    case ">":
      if (exact) return (v) => compareVersions(v, floor(p)) > 0;
      return p.major === null ? () => false : atLeast(above(p)!);
    case ">=":
    case "=>":
      return atLeast(floor(p));
    case "<":
      return (v) => compareVersions(v, floor(p)) < 0;
    case "<=":
    case "=<":
      return exact ? (v) => compareVersions(v, floor(p)) <= 0 : below(above(p));
    case "~":
    case "~>":
      if (p.major === null) return () => true;
      return both(atLeast(floor(p)), below(p.minor === null ? v3(p.major + 1, 0, 0) : v3(p.major, p.minor + 1, 0)));
    case "^": {
      if (p.major === null) return () => true;
      const low = floor(p);
      let high;
      if (p.major > 0 || p.minor === null) high = v3(p.major + 1, 0, 0);
      else if (p.minor > 0 || p.patch === null) high = v3(0, p.minor + 1, 0);
      else high = v3(0, 0, p.patch + 1);
      return both(atLeast(low), below(high));
    }
    default:
      throw new Error(`unknown operator ${op}`);
  }
}

export class SemverRangeError extends Error {
  constructor(
    readonly range: string,
    reason: string,
  ) {
    super(`semver range "${range}" is not valid: ${reason}`);
    this.name = "SemverRangeError";
  }
}

export interface SemverRange {
  text: string;
  /** Alternatives (`||`), each a conjunction of comparators. */
  test: (v: Version) => boolean;
}

const COMPARATOR = /^(!=|>=|=>|<=|=<|~>|>|<|=|~|\^)?(.+)$/;

/**
 * A Masterminds/semver constraint: comparators joined by spaces or commas
 * (and), alternatives by `||`, hyphen ranges (`1.2 - 1.4.5`), wildcards
 * (`1.x`, `*`), `~` and `^`. A pre-release version satisfies a comparator only
 * when that comparator names a pre-release itself, as in Masterminds.
 */
export function parseRange(text: string): SemverRange {
  const range = text.trim();
  if (range === "") throw new SemverRangeError(text, "it is empty");
  const alternatives = range.split("||").map((alt) => {
    const normal = alt
      .trim()
      .replace(/\s*,\s*/g, " ")
      .replace(/(\S+)\s+-\s+(\S+)/g, ">=$1 <=$2")
      .replace(/(!=|>=|=>|<=|=<|~>|>|<|=|~|\^)\s+/g, "$1");
    if (normal === "") throw new SemverRangeError(text, "an alternative of || is empty");
    return normal.split(/\s+/).map((token): Test => {
      const m = COMPARATOR.exec(token);
      if (!m?.[2]) throw new SemverRangeError(text, `"${token}" is not a comparator`);
      const p = parsePartial(m[2], text);
      const admits = comparatorTest(m[1] ?? "", p);
      const allowsPre = p.prerelease.length > 0;
      return (v) => (v.prerelease.length === 0 || allowsPre) && admits(v);
    });
  });
  return { text: range, test: (v) => alternatives.some((all) => all.every((t) => t(v))) };
}

export interface TagCandidate {
  name: string;
  /** When the tag's commit was committed: orders versions equal but for build metadata. */
  committedAt: number;
}

/** The tag a semver range follows: the highest strict-semver tag in range (ties: the newest commit), else null. */
export function highestMatchingTag(range: string | SemverRange, tags: readonly TagCandidate[]): string | null {
  const r = typeof range === "string" ? parseRange(range) : range;
  let best: { version: Version; committedAt: number } | null = null;
  for (const tag of tags) {
    const version = parseVersion(tag.name);
    if (!version || !r.test(version)) continue;
    const c = best ? compareVersions(version, best.version) : 1;
    if (c > 0 || (c === 0 && best && tag.committedAt > best.committedAt)) best = { version, committedAt: tag.committedAt };
  }
  return best?.version.original ?? null;
}
