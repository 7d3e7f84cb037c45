import { describe, expect, it } from "vitest";
import { CommitGraph, behindSince, liveness, normaliseHistory, promotionHops, revertCommand, staleTime, touchesPath, unionOfIntervals } from "./index";

// a ← b ← c ← m (merge of c and f) ← n
//       ↖ e ← f
const sha = (c: string) => c.repeat(40);
const graph = new CommitGraph([
  { sha: sha("a"), parents: [] },
  { sha: sha("b"), parents: [sha("a")] },
  { sha: sha("c"), parents: [sha("b")] },
  { sha: sha("e"), parents: [sha("b")] },
  { sha: sha("f"), parents: [sha("e")] },
  { sha: sha("d"), parents: [sha("c"), sha("f")] }, // the merge
  { sha: sha("9"), parents: [sha("d")] },
]);

describe("CommitGraph", () => {
  it("counts a later commit that contains X, through merges", () => {
    expect(graph.contains(sha("9"), sha("e"))).toBe(true);
    expect(graph.contains(sha("d"), sha("f"))).toBe(true);
    expect(graph.contains(sha("d"), sha("a"))).toBe(true);
  });
  it("does not count siblings or older commits", () => {
    expect(graph.contains(sha("c"), sha("e"))).toBe(false);
    expect(graph.contains(sha("b"), sha("c"))).toBe(false);
  });
  it("a commit contains itself, even one not in the store", () => {
    expect(graph.contains(sha("7"), sha("7"))).toBe(true);
    expect(graph.contains(sha("7"), sha("a"))).toBe(false);
  });
  it("lists a range like git log from..to", () => {
    expect(new Set(graph.range(sha("c"), sha("9")))).toEqual(new Set([sha("9"), sha("d"), sha("f"), sha("e")]));
    expect(graph.range(sha("9"), sha("c"))).toEqual([]);
  });
  it("resolves short shas, ambiguous ones to several", () => {
    const g = new CommitGraph([
      { sha: "abc1230000000000000000000000000000000000", parents: [] },
      { sha: "abc1240000000000000000000000000000000000", parents: [] },
    ]);
    expect(g.resolve("abc123")).toEqual(["abc1230000000000000000000000000000000000"]);
    expect(g.resolve("ABC12")).toHaveLength(2);
    expect(g.resolve("fff")).toEqual([]);
  });
});

describe("liveness", () => {
  const history = [
    { sha: sha("b"), firstSeenAt: "2025-01-01T10:00:00.000Z", endedAt: "2025-01-01T11:00:00.000Z" },
    { sha: sha("c"), firstSeenAt: "2025-01-01T11:00:00.000Z", endedAt: "2025-01-01T12:00:00.000Z" },
    { sha: sha("9"), firstSeenAt: "2025-01-01T12:00:00.000Z", endedAt: null },
  ];

  it("is live through a later applied commit, since the first revision that contained it", () => {
    const l = liveness(graph, history, sha("c"));
    expect(l).toMatchObject({ live: true, since: "2025-01-01T11:00:00.000Z", through: sha("9"), exact: false });
  });
  it("is exact when the applied revision is the commit itself", () => {
    expect(liveness(graph, history, sha("9"))).toMatchObject({ live: true, exact: true, since: "2025-01-01T12:00:00.000Z" });
  });
  it("a commit on a merged branch becomes live when the merge is applied", () => {
    expect(liveness(graph, history, sha("e"))).toMatchObject({ live: true, since: "2025-01-01T12:00:00.000Z", firstLiveAt: "2025-01-01T12:00:00.000Z" });
  });
  it("a rollback breaks the stretch: since is the return, firstLiveAt the first time", () => {
    const rolled = [
      { sha: sha("c"), firstSeenAt: "2025-01-01T10:00:00.000Z", endedAt: "2025-01-01T11:00:00.000Z" },
      { sha: sha("b"), firstSeenAt: "2025-01-01T11:00:00.000Z", endedAt: "2025-01-01T12:00:00.000Z" },
      { sha: sha("9"), firstSeenAt: "2025-01-01T12:00:00.000Z", endedAt: null },
    ];
    expect(liveness(graph, rolled, sha("c"))).toMatchObject({ live: true, since: "2025-01-01T12:00:00.000Z", firstLiveAt: "2025-01-01T10:00:00.000Z" });
  });
  it("is not live when the applied revision predates the commit", () => {
    const l = liveness(graph, history.slice(0, 2).map((h, i) => (i === 1 ? { ...h, endedAt: null } : h)), sha("f"));
    expect(l).toEqual({ live: false, since: null, through: sha("c"), exact: false, firstLiveAt: null });
  });
  it("falls back to the environment row when there is no history yet", () => {
    const h = normaliseHistory([], { sha: sha("c"), since: "2025-02-01T00:00:00.000Z" });
    expect(liveness(graph, h, sha("b"))).toMatchObject({ live: true, since: "2025-02-01T00:00:00.000Z" });
  });
});

describe("promotionHops", () => {
  it("measures commit → first environment, then each hop; an unreached hop has no duration", () => {
    const hops = promotionHops("2025-01-01T09:00:00.000Z", [
      { environment: "test", firstLiveAt: "2025-01-01T09:05:00.000Z" },
      { environment: "staging", firstLiveAt: "2025-01-01T10:05:00.000Z" },
      { environment: "production", firstLiveAt: null },
    ]);
    expect(hops.map((h) => [h.from, h.to, h.durationMs])).toEqual([
      [null, "test", 5 * 60_000],
      ["test", "staging", 3_600_000],
      ["staging", "production", null],
    ]);
  });
});

describe("behindSince", () => {
  const at: Record<string, string> = { [sha("e")]: "2025-01-01T08:00:00.000Z", [sha("f")]: "2025-01-01T09:00:00.000Z", [sha("d")]: "2025-01-01T10:00:00.000Z" };
  it("dates the oldest approved commit the applied revision lacks", () => {
    const r = behindSince(graph, sha("d"), sha("c"), (s) => at[s] ?? null, () => true);
    expect(r).toEqual({ since: "2025-01-01T08:00:00.000Z", commits: 3 });
  });
  it("ignores commits that do not touch the environment's path", () => {
    const r = behindSince(graph, sha("d"), sha("c"), (s) => at[s] ?? null, (s) => s === sha("f"));
    expect(r).toEqual({ since: "2025-01-01T09:00:00.000Z", commits: 2 });
  });
  it("is not behind when applied is a later commit containing approved", () => {
    expect(behindSince(graph, sha("c"), sha("9"), () => null, () => true)).toBeNull();
  });
});

describe("staleTime", () => {
  it("unions overlapping waits and clips to the window", () => {
    const r = staleTime(
      [
        { committedAt: "2025-01-01T10:00:00.000Z", firstLiveAt: "2025-01-01T11:00:00.000Z" },
        { committedAt: "2025-01-01T10:30:00.000Z", firstLiveAt: "2025-01-01T11:30:00.000Z" },
        { committedAt: "2025-01-01T13:00:00.000Z", firstLiveAt: null },
      ],
      { from: "2025-01-01T00:00:00.000Z", to: "2025-01-01T14:00:00.000Z" },
    );
    expect(r.totalMs).toBe(2.5 * 3_600_000);
    expect(r.intervals).toHaveLength(2);
  });
});

describe("unionOfIntervals", () => {
  it("counts time two applications were behind together once, and keeps separate periods apart", () => {
    const h = (n: number) => Date.parse("2025-01-01T00:00:00.000Z") + n * 3_600_000;
    const r = unionOfIntervals([
      [h(3), h(8)],
      [h(6), h(9)],
      [h(12), h(13)],
      [h(14), h(14)],
    ]);
    expect(r.totalMs).toBe(7 * 3_600_000);
    expect(r.intervals).toEqual([
      { start: "2025-01-01T03:00:00.000Z", end: "2025-01-01T09:00:00.000Z" },
      { start: "2025-01-01T12:00:00.000Z", end: "2025-01-01T13:00:00.000Z" },
    ]);
  });
});

describe("revertCommand and touchesPath", () => {
  it("prints the exact range", () => {
    expect(revertCommand("aaa", "bbb")).toBe("git revert --no-edit aaa..bbb");
  });
  it.each([
    [["deploy/prod/api.yaml"], "deploy/prod", true],
    [["deploy/production/api.yaml"], "deploy/prod", false],
    [["deploy/prod"], "./deploy/prod/", true],
    [["anything"], ".", true],
  ])("%j under %s → %s", (paths, base, expected) => expect(touchesPath(paths, base)).toBe(expected));
});
