import { describe, expect, it } from "vitest";
import { defaultWatchBudget, fits, keepWatches, WATCH_BUDGET_SLACK } from "./watch-budget";

const MiB = 1024 * 1024;
const env = (id: string, objects: number) => ({ id, objects });

describe("keepWatches", () => {
  it("keeps the watches it holds, in order, while they fit", () => {
    expect(keepWatches([env("a", 20_000), env("b", 25_000)], 50_000)).toEqual({ keep: ["a", "b"], stop: [], held: 45_000 });
  });

  it("drops a watched environment that has outgrown the budget, and keeps the next one that still fits", () => {
    expect(keepWatches([env("a", 20_000), env("b", 45_000), env("c", 10_000)], 50_000)).toEqual({ keep: ["a", "c"], stop: ["b"], held: 30_000 });
  });

  it("gives a watch some slack before dropping it, so an environment at the edge does not flap", () => {
    const edge = 50_000 * (1 + WATCH_BUDGET_SLACK);
    expect(keepWatches([env("a", 52_000)], 50_000).keep).toEqual(["a"]);
    expect(keepWatches([env("a", edge + 1)], 50_000).stop).toEqual(["a"]);
  });
});

describe("fits", () => {
  it("starts a watch only within the budget itself (no slack): started at 50,000 of 50,000, not at 50,001", () => {
    expect(fits(30_000, 20_000, 50_000)).toBe(true);
    expect(fits(30_000, 20_001, 50_000)).toBe(false);
    expect(fits(0, 1, 0)).toBe(false);
  });
});

describe("defaultWatchBudget", () => {
  it("covers what was measured: 50,000 watched under npm run collector's 768 MiB heap (V8 reports ~816 MiB), 100,000 under 2 GiB", () => {
    expect(defaultWatchBudget(816 * MiB)).toBeGreaterThanOrEqual(50_000);
    expect(defaultWatchBudget(816 * MiB)).toBeLessThan(55_000);
    expect(defaultWatchBudget(2096 * MiB)).toBeGreaterThanOrEqual(100_000);
    expect(defaultWatchBudget(2096 * MiB)).toBeLessThan(105_000);
  });
});
