import { describe, expect, it } from "vitest";
import { defaultWatchBudget, planWatches, WATCH_OBJECTS_PER_HEAP_MIB } from "./watch-budget";

const MiB = 1024 * 1024;
const env = (id: string, objects: number) => ({ id, objects });

describe("planWatches", () => {
  it("watches what fits and polls the rest, largest-first or not: in the order given", () => {
    const plan = planWatches([], [env("a", 30_000), env("b", 30_000), env("c", 10_000)], 50_000);
    expect(plan).toEqual({ keep: [], stop: [], start: ["a", "c"], overBudget: ["b"] });
  });

  it("never drops a watch it holds for one it has not started", () => {
    const plan = planWatches([env("b", 40_000)], [env("a", 20_000), env("b", 40_000)], 50_000);
    expect(plan).toEqual({ keep: ["b"], stop: [], start: [], overBudget: ["a"] });
  });

  it("stops a watched environment that has outgrown the budget", () => {
    const plan = planWatches([env("a", 20_000), env("b", 45_000)], [env("a", 20_000), env("b", 45_000)], 50_000);
    expect(plan).toEqual({ keep: ["a"], stop: ["b"], start: [], overBudget: [] });
  });

  it("does not watch an environment larger than the whole budget, and watches an empty one (nothing stored yet)", () => {
    expect(planWatches([], [env("huge", 100_001), env("new", 0)], 100_000)).toEqual({ keep: [], stop: [], start: ["new"], overBudget: ["huge"] });
  });

  it("a budget of 0 watches nothing that has objects", () => {
    expect(planWatches([env("a", 1)], [env("a", 1), env("b", 5)], 0)).toEqual({ keep: [], stop: ["a"], start: [], overBudget: ["b"] });
  });
});

describe("defaultWatchBudget", () => {
  it("follows the heap limit: about 52,000 objects under npm run collector's 768 MiB (V8 reports ~816 MiB), twice that with twice the heap", () => {
    expect(defaultWatchBudget(816 * MiB)).toBe(816 * WATCH_OBJECTS_PER_HEAP_MIB);
    expect(defaultWatchBudget(816 * MiB)).toBeGreaterThan(50_000);
    expect(defaultWatchBudget(816 * MiB)).toBeLessThan(100_000);
    expect(defaultWatchBudget(1632 * MiB)).toBe(2 * defaultWatchBudget(816 * MiB));
  });
});
