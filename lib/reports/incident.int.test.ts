// The incident report read from Postgres after real collections on the
// imitation: a hand scale becomes a drift row with its claim's owner and
// return path, a pause shows who and why, and a window before it all is empty.
import { describe, expect, it } from "vitest";
import { deploymentYaml, eachCollectorFixture, KUBECTL_UA } from "@/test/support/collector-env";
import { resourcePath } from "@/lib/kube/discovery";
import { createClaim } from "@/lib/claims";
import { createPause } from "@/lib/pauses";
import { loadIncidentReport } from "./load-incident";

const api = deploymentYaml("api", "shop/api:1.4.0", 3);
const fixture = eachCollectorFixture({ "envs/test/app.yaml": [api] });

describe("loadIncidentReport", () => {
  it("reports the window's drift with owner and return path, the pause with who and why, and nothing outside the window", async () => {
    const f = fixture();
    const start = new Date(Date.now() - 120_000);
    await f.run();
    const r = f.admin.discovery.lookup("apps/v1", "Deployment");
    if (!r) throw new Error("no deployments");
    await f.admin.client.requestJson("PATCH", resourcePath(r, "shop", "api") + "/scale", { body: { spec: { replicas: 7 } }, contentType: "application/merge-patch+json", userAgent: KUBECTL_UA });
    await f.run();
    const [item] = await f.db.driftItem.findMany({ where: { resolvedAt: null } });
    expect(item).toBeDefined();
    const olga = await f.db.user.create({ data: { username: "olga", displayName: "Olga Oncall", role: "operator" } });
    const actor = { type: "user" as const, id: olga.id, name: "olga" };
    await createClaim(f.db, { driftItemIds: [item!.id], reason: "holding replicas during the sale", returnPath: "adopt", duration: "2h" }, actor);
    await createPause(f.db, "test", { reason: "freeze while we look", duration: "1h" }, actor);

    // The controller reports the repository's commit as applied a minute ago (this fixture runs none).
    const env = await f.db.environment.findUniqueOrThrow({ where: { name: "test" } });
    const commit = await f.db.revision.findFirstOrThrow({ where: { repositoryId: env.repositoryId! }, orderBy: { committedAt: "desc" } });
    const appliedAt = new Date(Date.now() - 60_000);
    await f.db.appliedRevision.create({ data: { environmentId: env.id, sha: commit.sha, source: "controller", firstSeenAt: appliedAt, lastSeenAt: appliedAt } });
    await f.db.environment.update({ where: { id: env.id }, data: { appliedSha: commit.sha, appliedSince: appliedAt, appliedSource: "controller" } });
    const now = new Date(Date.now() + 1000);
    const report = await loadIncidentReport(f.db, { environment: "test", window: { from: start.toISOString(), to: now.toISOString() }, now, generatedBy: "Tess Tester" });

    expect(report.summary).toMatch(/^1 drift item opened, 0 resolved, 1 pause \(\S+( \S+)?\), \d+ alerts?; /);
    expect(report.drift).toHaveLength(1);
    expect(report.drift[0]).toMatchObject({ object: "Deployment shop/api", type: "Modified", owner: "Olga Oncall", returnPath: "adopt", outcome: "still open", openedInWindow: true });
    expect(report.drift[0]!.changedBy).toMatch(/^kubectl/);
    expect(report.pauses).toHaveLength(1);
    expect(report.pauses[0]).toMatchObject({ who: "Olga Oncall", reason: "freeze while we look", scope: "whole environment", ongoing: true });
    const titles = report.timeline.map((e) => e.title);
    expect(titles).toContain("Drift opened: Deployment shop/api (Modified)");
    expect(titles.some((t) => t.startsWith("Reconciliation paused"))).toBe(true);
    expect(titles.some((t) => t.startsWith("Divergence claimed"))).toBe(true);
    expect(report.leadTimes.map((l) => [l.sha, l.changes, l.leadTimeMs])).toEqual([[commit.sha, ["test"], appliedAt.getTime() - commit.committedAt.getTime()]]);
    expect(report.counts.medianLeadTimeMs).toBe(appliedAt.getTime() - commit.committedAt.getTime());

    const before = await loadIncidentReport(f.db, {
      environment: "test",
      window: { from: new Date(start.getTime() - 3_600_000).toISOString(), to: new Date(start.getTime() - 1).toISOString() },
      now,
      generatedBy: "Tess Tester",
    });
    expect(before.summary).toBe("0 drift items opened, 0 resolved, 0 pauses, 0 alerts; no commit went live.");
    expect(before.timeline).toEqual([]);
  });

  it("refuses an unknown environment as not found", async () => {
    const f = fixture();
    const now = new Date();
    await expect(loadIncidentReport(f.db, { environment: "nowhere", window: { from: new Date(0).toISOString(), to: now.toISOString() }, now, generatedBy: "x" })).rejects.toMatchObject({ code: "not_found" });
  });
});
