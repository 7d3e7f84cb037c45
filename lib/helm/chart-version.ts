// Which chart version a `targetRevision` names, as Helm resolves it
// (Masterminds/semver constraints): an exact version, or a range — `^1.2`,
// `~1.2.3`, `1.2.x`, `>=1.0.0 <2.0.0`, `1.0 - 1.4`, alternatives joined by
// `||`, empty or `*` for the newest. Pre-releases count only when the range
// names one. Pure.

type Version = [number, number, number, string];

const VERSION = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

export function parseVersion(text: string): Version | null {
  const m = VERSION.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0), m[4] ?? ""] : null;
}

function comparePre(a: string, b: string): number {
  if (a === b) return 0;
  if (!a) return 1;
  if (!b) return -1;
  const pa = a.split(".");
  const pb = b.split(".");
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i];
    const y = pb[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny && Number(x) !== Number(y)) return Number(x) - Number(y);
    if (nx !== ny) return nx ? -1 : 1;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

export function compareVersions(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || comparePre(a[3], b[3]);
}

type Check = (v: Version) => boolean;

/** One comparison (`>=1.2`, `^1.2.3`, `~1.2`, `1.2.x`, `=1.0.0`); null when it is not one. */
function comparison(text: string): Check | null {
  const m = /^(\^|~>?|>=|<=|>|<|!=|=)?\s*v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(text.trim());
  if (!m) return null;
  const op = m[1] ?? "=";
  const wild = (s: string | undefined) => s === undefined || /^[xX*]$/.test(s);
  const parts = [m[2], m[3], m[4]];
  const fixed = parts.findIndex(wild); // how many leading parts are given
  const given = fixed < 0 ? 3 : fixed;
  const n = (i: number) => (wild(parts[i]) ? 0 : Number(parts[i]));
  const base: Version = [n(0), n(1), n(2), m[5] ?? ""];
  const bump = (level: number): Version => (level === 0 ? [base[0] + 1, 0, 0, ""] : level === 1 ? [base[0], base[1] + 1, 0, ""] : [base[0], base[1], base[2] + 1, ""]);
  const between = (lo: Version, hi: Version): Check => (v) => compareVersions(v, lo) >= 0 && compareVersions(v, hi) < 0;
  if (given === 0) return op === "!=" ? () => false : () => true;
  switch (op) {
    case "^":
      // ^0.2.3 stays within 0.2; ^0.0.3 within 0.0.3.
      return between(base, bump(base[0] > 0 || given === 1 ? 0 : base[1] > 0 || given === 2 ? 1 : 2));
    case "~":
    case "~>":
      return between(base, bump(given === 1 ? 0 : 1));
    case "=":
      return given === 3 ? (v) => compareVersions(v, base) === 0 : between(base, bump(given - 1));
    case "!=":
      return given === 3 ? (v) => compareVersions(v, base) !== 0 : (v) => !between(base, bump(given - 1))(v);
    case ">":
      return given === 3 ? (v) => compareVersions(v, base) > 0 : (v) => compareVersions(v, bump(given - 1)) >= 0;
    case ">=":
      return (v) => compareVersions(v, base) >= 0;
    case "<":
      return (v) => compareVersions(v, base) < 0;
    case "<=":
      return given === 3 ? (v) => compareVersions(v, base) <= 0 : (v) => compareVersions(v, bump(given - 1)) < 0;
  }
  return null;
}

/** The checks of a constraint, OR of ANDs; null when it does not parse. */
function constraint(text: string): { checks: Check[][]; namesPrerelease: boolean } | null {
  const alternatives: Check[][] = [];
  for (const alt of text.split("||")) {
    const hyphen = /^\s*(\S+)\s+-\s+(\S+)\s*$/.exec(alt);
    const terms = hyphen ? [`>=${hyphen[1]}`, `<=${hyphen[2]}`] : alt.trim().split(/[\s,]+/).filter(Boolean);
    const joined: string[] = [];
    // ">= 1.2" is one term with a space in it.
    for (const t of terms) {
      if (/^(\^|~>?|>=|<=|>|<|!=|=)$/.test(t)) joined.push(t);
      else if (joined.length > 0 && /^(\^|~>?|>=|<=|>|<|!=|=)$/.test(joined[joined.length - 1]!)) joined[joined.length - 1] += t;
      else joined.push(t);
    }
    const checks = (joined.length > 0 ? joined : ["*"]).map(comparison);
    if (checks.some((c) => c === null)) return null;
    alternatives.push(checks as Check[]);
  }
  return { checks: alternatives, namesPrerelease: /\d-[0-9A-Za-z]/.test(text) };
}

/**
 * The version of `available` that `wanted` names: itself when listed, else
 * the newest one its range admits; null when none does or it does not parse.
 */
export function resolveChartVersion(available: readonly string[], wanted: string): string | null {
  const w = wanted.trim();
  if (w && available.includes(w)) return w;
  const c = constraint(w || "*");
  if (!c) return null;
  let best: { text: string; v: Version } | null = null;
  for (const text of available) {
    const v = parseVersion(text);
    if (!v || (v[3] && !c.namesPrerelease)) continue;
    if (!c.checks.some((all) => all.every((check) => check(v)))) continue;
    if (!best || compareVersions(v, best.v) > 0) best = { text, v };
  }
  return best?.text ?? null;
}
