// Kubernetes resource quantities as exact rationals (BigInt), so `0.5`,
// `500m` and `5e-1` are equal and `1Gi` equals `1024Mi` without float error.

export interface Quantity {
  /** Reduced fraction; den > 0. */
  num: bigint;
  den: bigint;
}

const BINARY: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};

// Decimal SI suffix → power of ten.
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

const QUANTITY_RE = /^([+-]?)(\d+\.?\d*|\.\d+)(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/;

function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function reduce(num: bigint, den: bigint): Quantity {
  if (num === 0n) return { num: 0n, den: 1n };
  const g = gcd(num, den);
  return { num: num / g, den: den / g };
}

function pow10(exp: number): bigint {
  return 10n ** BigInt(exp);
}

/** Parse a quantity string or a JSON number; null when it is not a quantity. */
export function parseQuantity(input: unknown): Quantity | null {
  let text: string;
  if (typeof input === "number") {
    if (!Number.isFinite(input)) return null;
    // String(1e21) is "1e+21" and String(1e-7) is "1e-7": both are valid exponent forms.
    text = String(input);
  } else if (typeof input === "string") {
    text = input.trim();
  } else {
    return null;
  }
  const m = QUANTITY_RE.exec(text);
  if (!m) return null;
  const sign = m[1] === "-" ? -1n : 1n;
  const digits = m[2] ?? "";
  const dot = digits.indexOf(".");
  const intPart = dot < 0 ? digits : digits.slice(0, dot);
  const fracPart = dot < 0 ? "" : digits.slice(dot + 1);
  let num = BigInt((intPart || "0") + fracPart) * sign;
  let den = pow10(fracPart.length);
  const exponent = m[3];
  const suffix = m[4] ?? "";
  if (exponent !== undefined) {
    const e = Number(exponent.slice(1));
    if (!Number.isSafeInteger(e) || Math.abs(e) > 1000) return null;
    if (e >= 0) num *= pow10(e);
    else den *= pow10(-e);
  } else if (suffix in BINARY) {
    num *= BINARY[suffix] as bigint;
  } else {
    const e = DECIMAL[suffix] ?? 0;
    if (e >= 0) num *= pow10(e);
    else den *= pow10(-e);
  }
  return reduce(num, den);
}

export function compareQuantity(a: Quantity, b: Quantity): -1 | 0 | 1 {
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l < r ? -1 : l > r ? 1 : 0;
}

// The same few spellings ("250m", "512Mi", 0.5) recur across thousands of objects.
const parsed = new Map<string | number, Quantity | null>();

function parseCached(v: unknown): Quantity | null {
  if (typeof v !== "string" && typeof v !== "number") return null;
  let q = parsed.get(v);
  if (q === undefined) {
    if (parsed.size >= 4096) parsed.clear();
    q = parseQuantity(v);
    parsed.set(v, q);
  }
  return q;
}

/** True when both parse and denote the same amount. */
export function quantityEquals(a: unknown, b: unknown): boolean {
  const qa = parseCached(a);
  if (!qa) return false;
  const qb = parseCached(b);
  return qb !== null && qa.num === qb.num && qa.den === qb.den;
}

/**
 * One spelling per amount, for content hashes and display: integers as plain
 * digits, otherwise the largest of m/u/n that is exact, else `num/den`.
 */
export function formatQuantity(q: Quantity): string {
  if (q.den === 1n) return q.num.toString();
  for (const [suffix, scale] of [["m", 1000n], ["u", 1_000_000n], ["n", 1_000_000_000n]] as const) {
    if ((q.num * scale) % q.den === 0n) return `${(q.num * scale) / q.den}${suffix}`;
  }
  return `${q.num}/${q.den}`;
}

/** Canonical string of a quantity-valued field, or the input unchanged when it does not parse. */
export function canonicalQuantity(value: unknown): unknown {
  const q = parseQuantity(value);
  return q ? formatQuantity(q) : value;
}
