import { describe, expect, it } from "vitest";
import { deriveStatus, formatAge, type StatusInput } from "./status";

const now = new Date("2025-03-10T12:00:00.000Z");
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000).toISOString();

const healthy: StatusInput = {
  now,
  intervalMs: 60_000,
  staleAfterMs: 10 * 60_000,
  lastCollectedAt: minutesAgo(1),
  lastGoodCollectedAt: minutesAgo(1),
  lastError: null,
  behindSince: null,
  openDrift: 0,
  pauses: [],
  controllerSuspended: false,
};

describe("deriveStatus", () => {
  it.each<[string, Partial<StatusInput>, string, string[]]>([
    ["healthy", {}, "In sync", ["In sync"]],
    ["never collected", { lastCollectedAt: null, lastGoodCollectedAt: null }, "Not collected yet", []],
    ["open drift", { openDrift: 2 }, "Drifted", ["Drifted"]],
    ["behind less than the threshold", { behindSince: minutesAgo(5) }, "In sync", ["In sync"]],
    ["behind longer than the threshold", { behindSince: minutesAgo(120) }, "Stale", ["Stale"]],
    ["stale and drifted", { behindSince: minutesAgo(120), openDrift: 1 }, "Stale", ["Stale", "Drifted"]],
    [
      "error after the last good collection",
      { lastError: { message: "connect ECONNREFUSED", at: minutesAgo(0) }, lastGoodCollectedAt: minutesAgo(30), openDrift: 1 },
      "Collection failing",
      ["Collection failing", "Drifted"],
    ],
    ["an old error already recovered from", { lastError: { message: "old", at: minutesAgo(60) } }, "In sync", ["In sync"]],
    ["collector silent for an hour", { lastCollectedAt: minutesAgo(60), lastGoodCollectedAt: minutesAgo(60) }, "Collection failing", ["Collection failing"]],
    [
      "active pause outranks drift and staleness",
      { pauses: [{ startedAt: minutesAgo(30), expiresAt: minutesAgo(-60), endedAt: null, origin: "dashboard" }], openDrift: 3, behindSince: minutesAgo(100) },
      "Paused",
      ["Paused", "Stale", "Drifted"],
    ],
    ["ended pause", { pauses: [{ startedAt: minutesAgo(30), expiresAt: null, endedAt: minutesAgo(10), origin: "dashboard" }] }, "In sync", ["In sync"]],
    ["controller suspended without a record", { controllerSuspended: true }, "Paused", ["Paused"]],
  ])("%s", (_name, patch, status, flags) => {
    const result = deriveStatus({ ...healthy, ...patch });
    expect(result.status).toBe(status);
    expect(result.flags.map((f) => f.status)).toEqual(flags);
  });

  it("says why a collection is failing, with the error and the age of the last good state", () => {
    const r = deriveStatus({ ...healthy, lastError: { message: "Unauthorized", at: minutesAgo(1) }, lastGoodCollectedAt: minutesAgo(90) });
    expect(r.reason).toBe("Unauthorized; last good collection 1h 30m ago");
  });

  it("says when a dashboard pause expires, relative to now", () => {
    const r = deriveStatus({ ...healthy, pauses: [{ startedAt: minutesAgo(90), expiresAt: minutesAgo(-101), endedAt: null, origin: "dashboard" }] });
    expect(r.reason).toBe("Reconciliation paused 1h 30m ago (from the dashboard; expires in 1h 41m)");
  });

  it("says how many applications are behind when an environment holds many", () => {
    expect(deriveStatus({ ...healthy, behindSince: minutesAgo(120), behindApplications: 3 }).reason).toBe("3 applications have not applied the approved revision, the oldest for 2h (threshold 10m)");
    expect(deriveStatus({ ...healthy, behindSince: minutesAgo(120), behindApplications: 1 }).reason).toBe("1 application has not applied the approved revision, the oldest for 2h (threshold 10m)");
    expect(deriveStatus({ ...healthy, behindSince: minutesAgo(120) }).reason).toBe("The approved revision has not been applied for 2h (threshold 10m)");
  });

  it("names a pause detected in the cluster and its expiry", () => {
    const r = deriveStatus({ ...healthy, pauses: [{ startedAt: minutesAgo(10), expiresAt: minutesAgo(5), endedAt: null, origin: "detected" }] });
    expect(r.reason).toContain("detected in the cluster");
    expect(r.reason).toContain("expired 5m ago");
  });
});

describe("formatAge", () => {
  it.each([
    [-5_000, "0s"],
    [42_000, "42s"],
    [3 * 60_000, "3m"],
    [2 * 3_600_000, "2h"],
    [2 * 3_600_000 + 5 * 60_000, "2h 5m"],
    [4 * 86_400_000 + 3_600_000, "4d 1h"],
  ])("%i ms → %s", (input, out) => expect(formatAge(input)).toBe(out));
});
