import { describe, expect, it } from "vitest";
import { mergeTimeline } from "@/lib/timeline";
import { appliedOnlyForOthers, assembleIncidentReport, median, mergeApplicationCommits, type DriftRow, type IncidentReportInput, type LiveCommitRow, type PauseRow } from "./incident";
import { parseIncidentReportQuery } from "./query";

const window = { from: "2026-03-10T14:00:00.000Z", to: "2026-03-10T15:00:00.000Z" };
const now = "2026-03-10T15:30:00.000Z";

function drift(over: Partial<DriftRow> & Pick<DriftRow, "name" | "openedAt">): DriftRow {
  return {
    key: `apps/Deployment/shop/${over.name}`,
    kind: "Deployment",
    namespace: "shop",
    type: "Modified",
    attributionManager: "kubectl-edit",
    attributionClass: "human",
    resolvedAt: null,
    resolution: null,
    resolutionSha: null,
    claims: [],
    ...over,
  };
}

function pause(over: Partial<PauseRow> & Pick<PauseRow, "startedAt">): PauseRow {
  return {
    controllerRef: null,
    origin: "dashboard",
    createdBy: "Dan Developer",
    owner: "Dan Developer",
    detectedManager: null,
    reason: "Freeze during the incident",
    incidentUrl: null,
    expiresAt: null,
    endedAt: null,
    endedBy: null,
    endReason: null,
    ...over,
  };
}

function input(over: Partial<IncidentReportInput> = {}): IncidentReportInput {
  return { environment: "production", window, now, generatedBy: "Ada Admin", timeline: [], timelineTruncated: false, drift: [], pauses: [], alerts: [], commits: [], ...over };
}

describe("assembleIncidentReport", () => {
  it("counts what opened and what was resolved in the window, and how, in one sentence", () => {
    const report = assembleIncidentReport(
      input({
        drift: [
          drift({ name: "api", openedAt: "2026-03-10T14:05:00Z", attributionManager: "kubectl", claims: [{ owner: "Olivia Ops", returnPath: "revert", status: "active", reason: "retry storm", createdAt: "2026-03-10T14:10:00Z", expiresAt: "2026-03-10T18:10:00Z", incidentUrl: null }] }),
          drift({ name: "worker", openedAt: "2026-03-10T14:06:00Z", resolvedAt: "2026-03-10T14:40:00Z", resolution: "reverted" }),
          drift({ name: "web", openedAt: "2026-03-10T13:00:00Z", resolvedAt: "2026-03-10T14:50:00Z", resolution: "adopted", resolutionSha: "abcdef1234567890" }),
          // Opened and resolved before the window: not this incident.
          drift({ name: "old", openedAt: "2026-03-10T10:00:00Z", resolvedAt: "2026-03-10T11:00:00Z", resolution: "reverted" }),
        ],
        pauses: [pause({ startedAt: "2026-03-10T14:20:00Z", endedAt: "2026-03-10T14:32:00Z" })],
        alerts: [
          { type: "stale", severity: "critical", title: "production is stale", openedAt: "2026-03-10T13:50:00Z", resolvedAt: null },
          { type: "unowned", severity: "warning", title: "unowned drift", openedAt: "2026-03-10T14:07:00Z", resolvedAt: "2026-03-10T14:12:00Z" },
          { type: "unowned", severity: "warning", title: "yesterday's", openedAt: "2026-03-09T14:07:00Z", resolvedAt: "2026-03-09T14:12:00Z" },
        ],
        commits: [
          { sha: "1111111aaaa", message: "api: 1.8.0\n\nbody", authorName: "Bob", committedAt: "2026-03-10T13:30:00Z", changes: ["test"], firstLiveAt: "2026-03-10T14:11:00Z" },
          { sha: "2222222bbbb", message: "web: 2.5.0", authorName: "Carla", committedAt: "2026-03-10T14:00:00Z", changes: ["test"], firstLiveAt: "2026-03-10T14:41:00Z" },
          { sha: "3333333cccc", message: "not live yet", authorName: "Carla", committedAt: "2026-03-10T14:30:00Z", changes: ["test"], firstLiveAt: null },
          { sha: "4444444dddd", message: "live before", authorName: "Carla", committedAt: "2026-03-10T12:00:00Z", changes: ["test"], firstLiveAt: "2026-03-10T13:00:00Z" },
        ],
      }),
    );
    expect(report.summary).toBe("2 drift items opened, 2 resolved (1 reverted, 1 adopted into Git), 1 pause (12 min), 2 alerts; median lead time 41 min over 2 commits that went live.");
    expect(report.drift.map((d) => d.name)).toEqual(["web", "api", "worker"]);
    const [web, api, worker] = report.drift;
    expect(api).toMatchObject({ object: "Deployment shop/api", owner: "Olivia Ops", returnPath: "revert", outcome: "still open", changedBy: "kubectl (human)", openedInWindow: true });
    expect(worker).toMatchObject({ owner: null, returnPath: null, outcome: "reverted to Git", resolvedInWindow: true });
    expect(web).toMatchObject({ openedInWindow: false, resolvedInWindow: true, outcome: "adopted into Git (abcdef1)" });
    expect(report.alerts.map((a) => a.title)).toEqual(["production is stale", "unowned drift"]);
    expect(report.alerts[0]).toMatchObject({ ongoing: true, durationMs: 100 * 60_000, openedInWindow: false });
    expect(report.leadTimes.map((l) => [l.shortSha, l.message, l.leadTimeMs / 60_000])).toEqual([
      ["1111111", "api: 1.8.0", 41],
      ["2222222", "web: 2.5.0", 41],
    ]);
  });

  it("says so honestly when nothing happened", () => {
    const report = assembleIncidentReport(input());
    expect(report.summary).toBe("0 drift items opened, 0 resolved, 0 pauses, 0 alerts; no commit went live.");
    expect(report.counts.medianLeadTimeMs).toBeNull();
  });

  it("counts only the paused time inside the window, and names who is answerable for a pause", () => {
    const report = assembleIncidentReport(
      input({
        pauses: [
          pause({ startedAt: "2026-03-10T13:00:00Z", endedAt: "2026-03-10T14:30:00Z", owner: null, createdBy: "Dan Developer" }),
          pause({ startedAt: "2026-03-10T14:50:00Z", origin: "detected", owner: null, createdBy: null, detectedManager: "kubectl-patch", controllerRef: "Kustomization/flux-system/shop" }),
          pause({ startedAt: "2026-03-10T16:00:00Z" }),
        ],
      }),
    );
    expect(report.pauses.map((p) => [p.who, p.scope, p.durationInWindowMs / 60_000, p.ongoing])).toEqual([
      ["Dan Developer", "whole environment", 30, false],
      ["unattributed (manager kubectl-patch)", "Kustomization/flux-system/shop", 10, true],
    ]);
    expect(report.summary).toContain("2 pauses (40 min)");
  });

  it("keeps only timeline events inside the window", () => {
    const timeline = mergeTimeline(
      [
        { id: "1", at: "2026-03-10T13:59:59Z", actorType: "system", actorName: "collector", action: "run.failed", targetType: "environment", targetId: "production", environment: "production", reason: null, before: null, after: null },
        { id: "2", at: "2026-03-10T14:01:00Z", actorType: "user", actorName: "olivia", action: "pause.created", targetType: "pause", targetId: "p1", environment: "production", reason: "freeze", before: null, after: {} },
      ],
      [],
    );
    expect(assembleIncidentReport(input({ timeline })).timeline.map((e) => e.title)).toEqual(["Reconciliation paused: production"]);
  });

  it("takes the newest claim's owner and return path when a divergence changed hands", () => {
    const claims = [
      { owner: "Olivia Ops", returnPath: "revert" as const, status: "transferred", reason: "r", createdAt: "2026-03-10T14:10:00Z", expiresAt: "2026-03-10T18:00:00Z", incidentUrl: null },
      { owner: "Dan Developer", returnPath: "adopt" as const, status: "active", reason: "r", createdAt: "2026-03-10T14:20:00Z", expiresAt: "2026-03-10T18:00:00Z", incidentUrl: null },
    ];
    const [d] = assembleIncidentReport(input({ drift: [drift({ name: "api", openedAt: "2026-03-10T14:05:00Z", attributionManager: null, claims })] })).drift;
    expect(d).toMatchObject({ owner: "Dan Developer", returnPath: "adopt", changedBy: "not recorded by the cluster" });
  });
});

describe("mergeApplicationCommits", () => {
  const row = (over: Partial<LiveCommitRow> & Pick<LiveCommitRow, "sha" | "changes" | "firstLiveAt">): LiveCommitRow => ({
    message: "worker, web: 2.6.0",
    authorName: "Carla",
    committedAt: "2026-03-10T13:40:00Z",
    ...over,
  });

  it("lists a commit that went live in several applications once, at the first of them, naming them all", () => {
    const merged = mergeApplicationCommits([
      row({ sha: "aaaa", changes: ["shop-worker"], firstLiveAt: "2026-03-10T14:30:00Z" }),
      row({ sha: "bbbb", message: "api: 1.9.0", changes: ["shop-api"], firstLiveAt: "2026-03-10T14:20:00Z" }),
      row({ sha: "aaaa", changes: ["shop-web"], firstLiveAt: "2026-03-10T14:10:00Z" }),
      row({ sha: "aaaa", changes: ["apps"], firstLiveAt: null }),
    ]);
    expect(merged.map((c) => [c.sha, c.changes, c.firstLiveAt])).toEqual([
      ["aaaa", ["apps", "shop-web", "shop-worker"], "2026-03-10T14:10:00Z"],
      ["bbbb", ["shop-api"], "2026-03-10T14:20:00Z"],
    ]);
  });

  it("counts the merged commit once in the report's lead times, from its first application", () => {
    const commits = mergeApplicationCommits([
      row({ sha: "aaaa", changes: ["shop-worker"], firstLiveAt: "2026-03-10T14:50:00Z" }),
      row({ sha: "aaaa", changes: ["shop-web"], firstLiveAt: "2026-03-10T14:10:00Z" }),
    ]);
    const report = assembleIncidentReport(input({ commits }));
    expect(report.leadTimes.map((l) => [l.shortSha, l.changes, l.leadTimeMs / 60_000])).toEqual([["aaaa", ["shop-web", "shop-worker"], 30]]);
    expect(report.summary).toContain("median lead time 30 min over 1 commit that went live");
  });

  it("names the app-of-apps parent that applied a child's changed manifest, and has the commit go live when the child ran it", () => {
    const commits = mergeApplicationCommits([
      row({ sha: "cccc", message: "api: 1.9.0", changes: ["root"], firstLiveAt: "2026-03-10T14:05:00Z", appliedForAnother: true }),
      row({ sha: "cccc", message: "api: 1.9.0", changes: ["shop-api"], firstLiveAt: "2026-03-10T14:40:00Z" }),
    ]);
    expect(commits).toEqual([{ sha: "cccc", message: "api: 1.9.0", authorName: "Carla", committedAt: "2026-03-10T13:40:00Z", changes: ["root", "shop-api"], firstLiveAt: "2026-03-10T14:40:00Z" }]);
    const report = assembleIncidentReport(input({ commits }));
    expect(report.leadTimes.map((l) => [l.shortSha, l.changes, l.leadTimeMs / 60_000])).toEqual([["cccc", ["root", "shop-api"], 60]]);
  });

  it("keeps the parent's time while the child has not run the commit (the manifest it applied is all that changed yet)", () => {
    const merged = mergeApplicationCommits([row({ sha: "cccc", changes: ["root"], firstLiveAt: "2026-03-10T14:05:00Z", appliedForAnother: true })]);
    expect(merged.map((c) => [c.changes, c.firstLiveAt])).toEqual([[["root"], "2026-03-10T14:05:00Z"]]);
  });
});

describe("appliedOnlyForOthers", () => {
  // The root declares shop-api in apps/shop-api.yaml and shop-web in apps/shop-web.yaml; shop-web's own files are under web/.
  const root = { declaredChanges: [], declaringFiles: [] };
  const api = { declaredChanges: ["cccc", "0000"], declaringFiles: ["apps/shop-api.yaml"] };
  const web = { declaredChanges: ["0000"], declaringFiles: ["apps/shop-web.yaml"] };

  it("has the parent defer to the child for a commit that only bumped the child's declaration", () => {
    expect(appliedOnlyForOthers("cccc", ["apps/shop-api.yaml"], root, [api])).toBe(true);
  });

  it("keeps the time of an application whose own files the same commit changed, though another application's declaration changed too", () => {
    // One commit: the api's image in the root's apps/shop-api.yaml and web/values.yaml. Web ran its own change.
    expect(appliedOnlyForOthers("cccc", ["web/values.yaml"], web, [api])).toBe(false);
    const merged = mergeApplicationCommits(
      [
        { changes: ["root"], firstLiveAt: "2026-03-10T14:05:00Z", appliedForAnother: appliedOnlyForOthers("cccc", ["apps/shop-api.yaml"], root, [api]) },
        { changes: ["shop-web"], firstLiveAt: "2026-03-10T14:10:00Z", appliedForAnother: appliedOnlyForOthers("cccc", ["web/values.yaml"], web, [api]) },
        { changes: ["shop-api"], firstLiveAt: "2026-03-10T14:40:00Z", appliedForAnother: appliedOnlyForOthers("cccc", [], api, [api]) },
      ].map((r) => ({ sha: "cccc", message: "api 1.9.0, web values", authorName: "Carla", committedAt: "2026-03-10T13:40:00Z", ...r })),
    );
    // Live when web ran it (its values), not only when the api ran its image: the lead time is not overstated.
    expect(merged.map((c) => [c.changes, c.firstLiveAt])).toEqual([[["root", "shop-api", "shop-web"], "2026-03-10T14:10:00Z"]]);
  });

  it("keeps the parent's time when the commit changed a file of its own besides the child's declaration", () => {
    expect(appliedOnlyForOthers("cccc", ["apps/shop-api.yaml", "apps/namespace.yaml"], root, [api])).toBe(false);
  });

  it("does not defer for a commit that changed no application's declared spec, nor for a child's own declared change", () => {
    expect(appliedOnlyForOthers("dddd", ["apps/shop-api.yaml"], root, [api, web])).toBe(false);
    expect(appliedOnlyForOthers("cccc", ["apps/shop-api.yaml"], api, [api])).toBe(false);
  });

  it("defers for a commit changing two children's declarations, each in its own file", () => {
    const both = { ...web, declaredChanges: ["cccc", "0000"] };
    expect(appliedOnlyForOthers("cccc", ["apps/shop-api.yaml", "apps/shop-web.yaml"], root, [api, both])).toBe(true);
    // Only one of them credited: the other file's change is the root's own (say, a sync option that changed nothing rendered).
    expect(appliedOnlyForOthers("cccc", ["apps/shop-api.yaml", "apps/shop-web.yaml"], root, [api, web])).toBe(false);
  });

  it("keeps the time of an application that changed only through its instance in another environment", () => {
    expect(appliedOnlyForOthers("cccc", [], root, [api])).toBe(false);
  });
});

describe("median", () => {
  it.each([
    [[], null],
    [[5], 5],
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 2.5],
  ])("%j → %s", (values, expected) => expect(median(values)).toBe(expected));
});

describe("parseIncidentReportQuery", () => {
  const at = new Date("2026-03-10T15:00:00Z");
  it("defaults to the 24 hours before now", () => {
    expect(parseIncidentReportQuery({ env: "production" }, at)).toEqual({ ok: true, environment: "production", window: { from: "2026-03-09T15:00:00.000Z", to: "2026-03-10T15:00:00.000Z" } });
  });
  it("reads times without a zone as UTC, and honours an explicit zone", () => {
    expect(parseIncidentReportQuery({ env: "production", from: "2026-03-10T14:00", to: "2026-03-10T16:00+01:00" }, at)).toMatchObject({
      ok: true,
      window: { from: "2026-03-10T14:00:00.000Z", to: "2026-03-10T15:00:00.000Z" },
    });
  });
  it.each([
    [{ from: "yesterday" }, /from: expected a date/],
    [{ from: "2026-03-10T15:00", to: "2026-03-10T14:00" }, /from must not be after to/],
    [{ from: "2026-01-01T00:00", to: "2026-03-10T00:00" }, /at most 31 days/],
  ])("refuses %j and falls back to the last 24 hours", (params, problem) => {
    const q = parseIncidentReportQuery({ env: "production", ...params }, at);
    expect(q.ok).toBe(false);
    if (!q.ok) expect(q.problem).toMatch(problem);
    expect(q.window.to).toBe(at.toISOString());
  });
});
