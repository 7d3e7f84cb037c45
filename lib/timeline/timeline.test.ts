import { describe, expect, it } from "vitest";
import { mergeTimeline, toCsv, toJson, toMarkdown, type AuditEventInput, type CommitInput } from "./index";

const audit = (id: number, at: string, action: string, extra: Partial<AuditEventInput> = {}): AuditEventInput => ({
  id: String(id),
  at,
  actorType: "system",
  actorName: "system",
  action,
  targetType: "drift",
  targetId: "apps/Deployment/shop/api",
  environment: "production",
  reason: null,
  before: null,
  after: null,
  ...extra,
});

const commits: CommitInput[] = [
  { sha: "c".repeat(40), committedAt: "2025-03-10T14:00:00.000Z", authorName: "Ada", message: "Bump api to 1.4\n\nbody", environments: ["staging", "production"] },
  { sha: "d".repeat(40), committedAt: "2025-03-10T13:00:00.000Z", authorName: "Bob", message: "Test only", environments: ["test"] },
];

const events: AuditEventInput[] = [
  audit(3, "2025-03-10T14:20:00.000Z", "drift.opened", { after: { key: "apps/Deployment/shop/api", type: "Modified", changes: [{ display: "spec.replicas" }], attributionManager: "kubectl" } }),
  audit(2, "2025-03-10T14:00:00.000Z", "revision.applied", { targetType: "environment", targetId: "production", after: { sha: "c".repeat(40) }, before: { sha: "b".repeat(40) } }),
  audit(4, "2025-03-10T14:30:00.000Z", "pause.created", {
    actorType: "user",
    actorName: "carol",
    targetType: "pause",
    targetId: "p1",
    reason: "Investigating, see INC-42",
    after: { expiresAt: "2025-03-10T16:30:00.000Z" },
  }),
  audit(5, "2025-03-10T14:40:00.000Z", "alert.opened", { environment: "staging", targetType: "alert", targetId: "a1", after: { title: "=HYPERLINK(\"x\")" } }),
];

describe("mergeTimeline", () => {
  it("merges commits and audit events oldest first, a commit before the apply at the same instant", () => {
    const out = mergeTimeline(events, commits);
    expect(out.map((e) => e.id)).toEqual([`commit:${"d".repeat(40)}`, `commit:${"c".repeat(40)}`, "audit:2", "audit:3", "audit:4", "audit:5"]);
  });

  it("filters by environment: a commit counts for every environment whose path it touches", () => {
    const prod = mergeTimeline(events, commits, { environment: "production" });
    expect(prod.map((e) => e.id)).toEqual([`commit:${"c".repeat(40)}`, "audit:2", "audit:3", "audit:4"]);
  });

  it("filters by type and time range", () => {
    const out = mergeTimeline(events, commits, { types: ["drift", "pause"], from: "2025-03-10T14:25:00.000Z", to: "2025-03-10T15:00:00.000Z" });
    expect(out.map((e) => e.action)).toEqual(["pause.created"]);
  });

  it("reads the object from the reason the way the collector records drift", () => {
    const [e] = mergeTimeline(
      [audit(7, "2025-03-10T14:00:00.000Z", "drift.resolved", { targetId: "5f0c", reason: "/ConfigMap/shop/settings", before: { type: "Modified" }, after: { resolution: "reverted", sha: null } })],
      [],
    );
    expect(e?.title).toBe("Drift resolved (reverted): ConfigMap shop/settings");
    expect(e?.reason).toBeNull();
    expect(e?.link).toBe("/environments/production/objects/_/ConfigMap/shop/settings");
  });

  it("describes events the way people talk about them, linking to the object", () => {
    const [opened] = mergeTimeline(events, [], { types: ["drift"] });
    expect(opened?.title).toBe("Drift opened: Deployment shop/api (Modified)");
    expect(opened?.detail).toBe("changed spec.replicas · by manager kubectl");
    expect(opened?.link).toBe("/environments/production/objects/apps/Deployment/shop/api");
    const [applied] = mergeTimeline(events, [], { types: ["applied"] });
    expect(applied?.title).toBe("production now runs ccccccc");
    expect(applied?.detail).toContain("was bbbbbbb");
  });

  it("names the application an applied revision is about when the environment holds several", () => {
    const [e] = mergeTimeline([audit(9, "2025-03-10T14:00:00.000Z", "revision.applied", { targetId: "c".repeat(40), before: { sha: "b".repeat(40) }, after: { sha: "c".repeat(40), application: "flux-system/shop-api" } })], []);
    expect(e?.title).toBe("flux-system/shop-api in production now runs ccccccc");
  });
});

describe("exports", () => {
  const merged = mergeTimeline(events, commits);
  const ctx = { generatedAt: "2025-03-10T15:00:00.000Z", from: "2025-03-10T13:00:00.000Z", to: "2025-03-10T15:00:00.000Z", environment: null, types: null };

  it("CSV quotes commas and newlines and defuses spreadsheet formulas", () => {
    const csv = toCsv(merged);
    const lines = csv.trimEnd().split("\r\n");
    expect(lines[0]).toBe("time_utc,type,action,environment,actor,title,detail,reason,sha,link");
    expect(lines).toHaveLength(merged.length + 1);
    expect(csv).toContain(',"Investigating, see INC-42",');
    expect(csv).toContain(`"Alert: =HYPERLINK(""x"")"`);
    const hostile = mergeTimeline([audit(9, "2025-03-10T14:00:00.000Z", "auth.signin", { actorName: "=SUM(A1)" })], []);
    expect(toCsv(hostile)).toContain(",'=SUM(A1),");
  });

  it("JSON round-trips the events with the filter and absolute links when a base is given", () => {
    const doc = JSON.parse(toJson(merged, { ...ctx, baseUrl: "https://dw.example" })) as { events: Array<{ link: string | null }>; filter: unknown };
    expect(doc.events).toHaveLength(merged.length);
    expect(doc.events[0]?.link).toBe(`https://dw.example/commits/${"d".repeat(40)}`);
  });

  it("Markdown reads as an incident write-up: window, summary, timeline in UTC, what is still open", () => {
    const text = toMarkdown(merged, { ...ctx, environment: "production" });
    expect(text).toContain("# Incident timeline: production");
    expect(text).toContain("Window: 2025-03-10 13:00:00 UTC – 2025-03-10 15:00:00 UTC (2 h)");
    expect(text).toContain("- 2 commits");
    expect(text).toContain("- 1 drift item opened");
    expect(text).toContain("### 2025-03-10");
    expect(text).toContain("- **14:30:00** `production` Reconciliation paused: production — carol. until 2025-03-10 16:30 UTC. Reason: “Investigating, see INC-42”");
    expect(text).toMatch(/## Still open at the end of the window\n\n- Drift opened: Deployment shop/);
  });

  it("Markdown of an empty window says so", () => {
    expect(toMarkdown([], ctx)).toContain("Nothing was recorded in this window.");
  });
});
