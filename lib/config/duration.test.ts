import { describe, expect, it } from "vitest";
import { formatDuration, parseDuration } from "./duration";

describe("formatDuration", () => {
  it.each([
    [null, "—"],
    [undefined, "—"],
    [350, "350 ms"],
    [45_000, "45s"],
    [12 * 60_000, "12 min"],
    [3 * 3_600_000, "3 h"],
    [3 * 3_600_000 + 5 * 60_000, "3 h 5 min"],
    [47 * 3_600_000, "47 h"],
    [7 * 86_400_000, "7 d"],
    [2 * 86_400_000 + 4 * 3_600_000, "2 d 4 h"],
    [-90_000, "-2 min"],
  ])("%s ms → %s", (ms, text) => expect(formatDuration(ms)).toBe(text));

  it("prints what parseDuration reads, for the durations people type", () => {
    for (const [typed, shown] of [["90m", "1 h 30 min"], ["4h", "4 h"], ["2d", "2 d"]] as const) expect(formatDuration(parseDuration(typed))).toBe(shown);
  });
});
