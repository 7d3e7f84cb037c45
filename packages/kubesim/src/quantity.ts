// resource.Quantity canonical form, as the API server stores quantities in
// built-in typed fields: "0.5" → "500m", "1024Mi" → "1Gi", "1000" → "1k".

const DECIMAL_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIX: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const EXP_TO_DECIMAL = new Map<number, string>(Object.entries(DECIMAL_SUFFIX).map(([k, v]) => [v, k]));
const BINARY_NAMES = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

const QUANTITY_RE = /^([+-]?)(\d*)(?:\.(\d*))?(?:(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|[eE]([+-]?\d+))?$/;

export class QuantityError extends Error {}

interface Parsed {
  negative: boolean;
  /** Value in nano units, rounded up like the real parser (precision is 1n). */
  nanos: bigint;
  format: "DecimalSI" | "BinarySI" | "DecimalExponent";
}

function pow(base: bigint, e: number): bigint {
  let r = 1n;
  for (let i = 0; i < e; i++) r *= base;
  return r;
}

export function parseQuantity(input: string | number): Parsed {
  const str = typeof input === "number" ? numberToString(input) : input.trim();
  const m = QUANTITY_RE.exec(str);
  if (!m || str === "" || (m[2] === "" && (m[3] === undefined || m[3] === ""))) throw new QuantityError("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  const negative = m[1] === "-";
  const whole = m[2] ?? "";
  const frac = m[3] ?? "";
  const suffix = m[4];
  const expStr = m[5];
  let mantissa = BigInt((whole + frac) || "0");
  let exp10 = -frac.length;
  let bin = 0;
  let format: Parsed["format"] = "DecimalSI";
  if (expStr !== undefined) {
    exp10 += Number(expStr);
    format = "DecimalExponent";
  } else if (suffix !== undefined && suffix in BINARY_SUFFIX) {
    bin = BINARY_SUFFIX[suffix] ?? 0;
    format = "BinarySI";
  } else if (suffix !== undefined) {
    exp10 += DECIMAL_SUFFIX[suffix] ?? 0;
  }
  mantissa *= pow(1024n, bin);
  const shift = exp10 + 9;
  let nanos: bigint;
  if (shift >= 0) nanos = mantissa * pow(10n, shift);
  else {
    const d = pow(10n, -shift);
    nanos = mantissa / d + (mantissa % d === 0n ? 0n : 1n);
  }
  return { negative: negative && nanos !== 0n, nanos, format };
}

function numberToString(n: number): string {
  if (Number.isInteger(n)) return BigInt(n).toString();
  return String(n);
}

export function canonicalQuantity(input: string | number): string {
  const p = parseQuantity(input);
  if (p.nanos === 0n) return "0";
  const sign = p.negative ? "-" : "";
  const NANO = 1_000_000_000n;
  if (p.format === "BinarySI" && p.nanos % NANO === 0n && p.nanos >= 1024n * NANO) {
    let v = p.nanos / NANO;
    let i = 0;
    while (i < 6 && v % 1024n === 0n) {
      v /= 1024n;
      i++;
    }
    return `${sign}${v}${BINARY_NAMES[i]}`;
  }
  let mant = p.nanos;
  let exp = -9;
  while (exp < 18 && mant % 1000n === 0n) {
    mant /= 1000n;
    exp += 3;
  }
  if (p.format === "DecimalExponent") return exp === 0 ? `${sign}${mant}` : `${sign}${mant}e${exp}`;
  return `${sign}${mant}${EXP_TO_DECIMAL.get(exp) ?? ""}`;
}

export function isValidQuantity(v: unknown): boolean {
  if (typeof v !== "string" && typeof v !== "number") return false;
  try {
    parseQuantity(v);
    return true;
  } catch {
    return false;
  }
}
