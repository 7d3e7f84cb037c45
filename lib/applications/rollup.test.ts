import { describe, expect, it } from "vitest";
import { applicationStatus, rollupApplications, type ApplicationStatus, type RollupApplication } from "./rollup";

const now = new Date("2026-12-03T12:00:00Z");
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
const base: RollupApplication = { removedAt: null, driftCount: 0, approvedSha: "a", approvedAt: minutesAgo(60), appliedSha: "a", suspended: false, paused: false, failing: false };
const app = (over: Partial<RollupApplication>): RollupApplication => ({ ...base, ...over });

describe("rollupApplications", () => {
  it.each<[string, Partial<RollupApplication>, Partial<Record<"inSync" | "drifted" | "stale" | "paused" | "failing", number>>]>([
    ["in sync", {}, { inSync: 1 }],
    ["drifted", { driftCount: 3 }, { drifted: 1 }],
    ["behind for longer than staleAfter", { appliedSha: "old", approvedAt: minutesAgo(11) }, { stale: 1 }],
    ["a rollout in progress is not stale yet", { appliedSha: "old", approvedAt: minutesAgo(9) }, { inSync: 1 }],
    ["nothing applied known yet is not stale", { appliedSha: null }, { inSync: 1 }],
    ["paused from the dashboard", { paused: true }, { paused: 1 }],
    ["suspended in the cluster", { suspended: true }, { paused: 1 }],
    ["failing", { failing: true }, { failing: 1 }],
    ["stale and drifted counts in both", { driftCount: 1, appliedSha: "old", approvedAt: minutesAgo(30) }, { drifted: 1, stale: 1 }],
  ])("%s", (_what, over, expected) => {
    expect(rollupApplications([app(over)], now, 10 * 60_000)).toEqual({ total: 1, inSync: 0, drifted: 0, stale: 0, paused: 0, failing: 0, ...expected });
  });

  it("leaves removed applications out", () => {
    expect(rollupApplications([app({}), app({ removedAt: minutesAgo(5), driftCount: 2 })], now, 600_000)).toEqual({ total: 1, inSync: 1, drifted: 0, stale: 0, paused: 0, failing: 0 });
  });
});

describe("applicationStatus", () => {
  it.each<[Partial<RollupApplication>, ApplicationStatus]>([
    [{}, "In sync"],
    [{ driftCount: 2 }, "Drifted"],
    [{ driftCount: 2, appliedSha: "old", approvedAt: minutesAgo(30) }, "Stale"],
    [{ driftCount: 2, paused: true }, "Paused"],
    [{ driftCount: 2, paused: true, failing: true }, "Collection failing"],
    [{ failing: true, removedAt: minutesAgo(1) }, "Removed"],
  ])("%j → %s", (over, expected) => {
    expect(applicationStatus(app(over), now, 10 * 60_000)).toBe(expected);
  });
});
