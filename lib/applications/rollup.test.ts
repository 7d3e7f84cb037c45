import { describe, expect, it } from "vitest";
import { applicationStatus, rollupApplications, rollupInputs, rollupWords, worstApplications, type ApplicationRollup, type ApplicationStatus, type RollupApplication, type RollupRow } from "./rollup";

const now = new Date("2026-12-03T12:00:00Z");
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
const base: RollupApplication = { removedAt: null, driftCount: 0, approvedSha: "a", approvedAt: minutesAgo(60), appliedSha: "a", appliedBehind: false, suspended: false, paused: false, failing: false };
const app = (over: Partial<RollupApplication>): RollupApplication => ({ ...base, ...over });

describe("rollupApplications", () => {
  it.each<[string, Partial<RollupApplication>, Partial<Record<"inSync" | "drifted" | "stale" | "paused" | "failing", number>>]>([
    ["in sync", {}, { inSync: 1 }],
    ["drifted", { driftCount: 3 }, { drifted: 1 }],
    ["behind for longer than staleAfter", { appliedSha: "old", appliedBehind: true, approvedAt: minutesAgo(11) }, { stale: 1 }],
    ["a rollout in progress is not stale yet", { appliedSha: "old", appliedBehind: true, approvedAt: minutesAgo(9) }, { inSync: 1 }],
    ["nothing applied known yet is not stale", { appliedSha: null }, { inSync: 1 }],
    // The controller applied the branch head, which is newer than the approved commit (a commit to another path).
    ["an applied revision that contains the approved one is not stale", { appliedSha: "head", appliedBehind: false, approvedAt: minutesAgo(60) }, { inSync: 1 }],
    ["paused from the dashboard", { paused: true }, { paused: 1 }],
    ["suspended in the cluster", { suspended: true }, { paused: 1 }],
    ["failing", { failing: true }, { failing: 1 }],
    ["stale and drifted counts in both", { driftCount: 1, appliedSha: "old", appliedBehind: true, approvedAt: minutesAgo(30) }, { drifted: 1, stale: 1 }],
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
    [{ driftCount: 2, appliedSha: "old", appliedBehind: true, approvedAt: minutesAgo(30) }, "Stale"],
    [{ driftCount: 2, paused: true }, "Paused"],
    [{ driftCount: 2, paused: true, failing: true }, "Collection failing"],
    [{ failing: true, removedAt: minutesAgo(1) }, "Removed"],
  ])("%j → %s", (over, expected) => {
    expect(applicationStatus(app(over), now, 10 * 60_000)).toBe(expected);
  });
});

describe("worstApplications", () => {
  const named = (name: string, over: Partial<RollupApplication>) => ({ ...app(over), name });
  const stale = { appliedSha: "old", appliedBehind: true, approvedAt: minutesAgo(30) };

  it("puts failing before paused before stale before drifted, and leaves in-sync and removed ones out", () => {
    const apps = [
      named("web", { driftCount: 4 }),
      named("api", {}),
      named("worker", stale),
      named("cron", { paused: true }),
      named("gone", { removedAt: minutesAgo(5), failing: true }),
      named("infra", { failing: true }),
    ];
    expect(worstApplications(apps, now, 600_000, 10)).toEqual([
      { name: "infra", status: "Collection failing", driftCount: 0 },
      { name: "cron", status: "Paused", driftCount: 0 },
      { name: "worker", status: "Stale", driftCount: 0 },
      { name: "web", status: "Drifted", driftCount: 4 },
    ]);
  });

  it("shows three by default: among equals the most drift first, then by name", () => {
    const apps = [named("b", { driftCount: 1 }), named("a", { driftCount: 1 }), named("c", { driftCount: 9 }), named("d", { driftCount: 1 })];
    expect(worstApplications(apps, now, 600_000).map((a) => a.name)).toEqual(["c", "a", "b"]);
  });

  it("is empty when everything is in sync", () => {
    expect(worstApplications([named("api", {}), named("web", {})], now, 600_000)).toEqual([]);
  });
});

describe("rollupWords", () => {
  const r = (over: Partial<ApplicationRollup>): ApplicationRollup => ({ total: 0, inSync: 0, drifted: 0, stale: 0, paused: 0, failing: 0, ...over });
  it.each<[Partial<ApplicationRollup>, string]>([
    [{ total: 12, inSync: 9, drifted: 2, stale: 1 }, "12 applications: 9 in sync, 2 drifted, 1 stale"],
    [{ total: 1, inSync: 1 }, "1 application: 1 in sync"],
    [{ total: 3, drifted: 3, stale: 1, paused: 1, failing: 1 }, "3 applications: 3 drifted, 1 stale, 1 paused, 1 failing"],
    [{}, "No applications"],
  ])("%j → %s", (over, expected) => {
    expect(rollupWords(r(over))).toBe(expected);
  });
});

describe("rollupInputs", () => {
  const row = (id: string, over: Partial<RollupRow> = {}): RollupRow => ({ id, removedAt: null, driftCount: 0, approvedSha: "a", approvedAt: minutesAgo(60), appliedSha: "a", appliedBehind: false, controller: null, lastError: null, ...over });

  it("marks an application paused by its own pause, suspended by its controller, failing by its last error", () => {
    const inputs = rollupInputs([row("web"), row("api", { controller: { suspended: true } }), row("infra", { lastError: { message: "forbidden" } }), row("db")], [{ applicationId: "web", startedAt: minutesAgo(1) }], now);
    expect(applicationStatus(inputs.get("web")!, now, 600_000)).toBe("Paused");
    expect(applicationStatus(inputs.get("api")!, now, 600_000)).toBe("Paused");
    expect(applicationStatus(inputs.get("infra")!, now, 600_000)).toBe("Collection failing");
    expect(applicationStatus(inputs.get("db")!, now, 600_000)).toBe("In sync");
  });

  it("a whole-environment pause pauses every application; one that starts later pauses none yet", () => {
    expect([...rollupInputs([row("web"), row("api")], [{ applicationId: null, startedAt: minutesAgo(1) }], now).values()].map((a) => a.paused)).toEqual([true, true]);
    expect([...rollupInputs([row("web"), row("api")], [{ applicationId: null, startedAt: new Date(now.getTime() + 60_000) }], now).values()].map((a) => a.paused)).toEqual([false, false]);
  });
});
