// How Go prints values the real server quotes in its messages: `%v` of a
// decoded JSON value (map[string]interface{} with sorted keys, slices as
// [a b], float64 numbers, <nil>) and encoding/json's quoting of a byte it
// did not expect.

/** fmt's `%v` of a value encoding/json decoded into interface{}. */
export function goValueString(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (Array.isArray(v)) return `[${v.map(goValueString).join(" ")}]`;
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `map[${Object.keys(o)
      .sort()
      .map((k) => `${k}:${goValueString(o[k])}`)
      .join(" ")}]`;
  }
  if (typeof v === "number") return goFloat(v);
  return String(v);
}

/** `%v` of a float64: integers without a fraction, large and small numbers in exponent form. */
function goFloat(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const exp = Math.floor(Math.log10(Math.abs(n)));
  if (exp < -4 || exp >= 21) return n.toExponential().replace(/e([+-])(\d)$/, "e$10$2");
  return String(n);
}

/** encoding/json's quoteChar: how its syntax errors name an unexpected byte. */
export function goQuoteChar(byte: number): string {
  if (byte === 0x27) return "'\\''";
  if (byte === 0x22) return "'\"'";
  if (byte >= 0x20 && byte < 0x7f) return `'${String.fromCharCode(byte)}'`;
  const escapes: Record<number, string> = { 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r" };
  if (escapes[byte]) return `'${escapes[byte]}'`;
  if (byte < 0x20 || byte === 0x7f) return `'\\x${byte.toString(16).padStart(2, "0")}'`;
  // A byte of 0x80 and above is printed as the rune of the same number.
  if (byte < 0xa0) return `'\\u${byte.toString(16).padStart(4, "0")}'`;
  return `'${String.fromCharCode(byte)}'`;
}
