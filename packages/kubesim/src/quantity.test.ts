import { describe, expect, it } from "vitest";
import { canonicalQuantity } from "./quantity";

describe("canonicalQuantity", () => {
  it.each([
    ["0.5", "500m"],
    [0.5, "500m"],
    ["1024Mi", "1Gi"],
    ["1000Mi", "1000Mi"],
    ["1.5Gi", "1536Mi"],
    ["1000m", "1"],
    ["1500m", "1500m"],
    ["2000k", "2M"],
    ["1000", "1k"],
    ["1200", "1200"],
    [2, "2"],
    ["128974848", "128974848"],
    ["129e6", "129e6"],
    ["123Mi", "123Mi"],
    ["0", "0"],
    ["0.1n", "1n"],
  ])("%j is stored as %s", (input, out) => {
    expect(canonicalQuantity(input)).toBe(out);
  });

  it("rejects text that is not a quantity", () => {
    expect(() => canonicalQuantity("lots")).toThrow(/quantities must match/);
  });
});
