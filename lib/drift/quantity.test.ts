import { describe, expect, it } from "vitest";
import { canonicalQuantity, compareQuantity, formatQuantity, parseQuantity, quantityEquals } from "./quantity";

describe("quantities", () => {
  it.each([
    ["0.5", "500m"],
    [0.5, "500m"],
    ["1", "1000m"],
    [1, "1"],
    ["1Gi", "1024Mi"],
    ["1Gi", 1073741824],
    ["1Ki", "1024"],
    ["1k", "1000"],
    ["1M", "1e6"],
    ["1E", "1e18"],
    ["1e3", "1k"],
    ["1E3", "1k"],
    ["1.5Gi", "1536Mi"],
    ["100u", "0.0001"],
    ["1n", "0.000000001"],
    [".5", "0.5"],
    ["+2", "2"],
    ["-1", "-1000m"],
    ["12e-3", "12m"],
    ["8Ei", "9223372036854775808"],
    ["123456789012345678901234567890", "123456789012345678901234567890"],
  ] as const)("%s equals %s", (a, b) => {
    expect(quantityEquals(a, b)).toBe(true);
    expect(quantityEquals(b, a)).toBe(true);
  });

  it.each([
    ["1Gi", "1G"],
    ["250m", "0.2"],
    ["1", "1001m"],
    ["9223372036854775807", "9223372036854775808"],
    ["0.1", "0.10000000000000001"],
  ] as const)("%s differs from %s", (a, b) => expect(quantityEquals(a, b)).toBe(false));

  it.each(["", "abc", "1K", "1 Gi", "1e", "Gi", "1.2.3", "--1", "1Gii"])("%j is not a quantity", (s) => {
    expect(parseQuantity(s)).toBeNull();
    expect(quantityEquals(s, s)).toBe(false);
  });

  it("orders quantities exactly", () => {
    const q = (s: string) => {
      const v = parseQuantity(s);
      if (!v) throw new Error(s);
      return v;
    };
    expect(compareQuantity(q("999m"), q("1"))).toBe(-1);
    expect(compareQuantity(q("1Mi"), q("1M"))).toBe(1);
    expect(compareQuantity(q("0.5"), q("500m"))).toBe(0);
  });

  it("spells one amount one way", () => {
    expect(canonicalQuantity("0.5")).toBe("500m");
    expect(canonicalQuantity("1Gi")).toBe("1073741824");
    expect(canonicalQuantity(2)).toBe("2");
    expect(canonicalQuantity("1n")).toBe("1n");
    expect(canonicalQuantity("not-a-quantity")).toBe("not-a-quantity");
    const third = parseQuantity("1");
    if (third) expect(formatQuantity({ num: third.num, den: 3n })).toBe("1/3");
  });
});
