// The environments page's application rollup, read from a real Postgres: the
// counts per state and the worst applications of each environment card.
import { beforeEach, describe, expect, it } from "vitest";
import { getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { listEnvironments } from "./environments";

const db = getPrisma();
const now = new Date("2026-12-03T12:00:00Z");
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
const config = { path: "driftwatch.yaml", exists: true, declared: 2 };

async function environment(name: string, position: number) {
  return (await db.environment.create({ data: { name, position, branch: "main", path: ".", spec: { staleAfter: 600_000 } } })).id;
}

async function application(environmentId: string, name: string, over: { driftCount?: number; removedAt?: Date; appliedSha?: string; appliedBehind?: boolean } = {}) {
  const { id } = await db.application.create({
    data: { environmentId, name, kind: "declared", promotionKey: name, spec: {}, firstSeenAt: minutesAgo(600), approvedSha: "a", approvedAt: minutesAgo(60), appliedSha: "a", ...over },
  });
  return id;
}

describe("listEnvironments: each card's applications", () => {
  beforeEach(async () => {
    await resetDatabase(db);
    const production = await environment("production", 1);
    await application(production, "api");
    await application(production, "web", { driftCount: 3 });
    // Its applied revision lacks the approved one (the collector found by git ancestry).
    await application(production, "shop/worker", { appliedSha: "old", appliedBehind: true });
    // A newer applied revision that contains the approved one: in sync, not stale.
    await application(production, "ingress", { appliedSha: "newer-head" });
    const cron = await application(production, "cron", { driftCount: 1 });
    await application(production, "legacy", { driftCount: 7, removedAt: minutesAgo(30) });
    await db.pause.create({ data: { environmentId: production, applicationId: cron, controllerRef: "Kustomization/flux-system/cron", origin: "dashboard", reason: "load test", startedAt: minutesAgo(5) } });
    const test = await environment("test", 0);
    await application(test, "default", { driftCount: 2 });
  });

  it("counts an environment's applications by state and lists the worst first, removed ones left out", async () => {
    const { environments } = await listEnvironments(db, config, now);
    const production = environments.find((e) => e.name === "production")!;
    expect(production.applications).toEqual({ total: 5, inSync: 2, drifted: 2, stale: 1, paused: 1, failing: 0 });
    expect(production.worstApplications).toEqual([
      { name: "cron", status: "Paused", driftCount: 1, href: "/environments/production/applications/cron" },
      { name: "shop/worker", status: "Stale", driftCount: 0, href: "/environments/production/applications/shop%2Fworker" },
      { name: "web", status: "Drifted", driftCount: 3, href: "/environments/production/applications/web" },
    ]);
  });

  it("gives an environment with one application no rollup, so its card reads as before", async () => {
    const { environments } = await listEnvironments(db, config, now);
    expect(environments.map((e) => e.name)).toEqual(["test", "production"]);
    const test = environments.find((e) => e.name === "test")!;
    expect(test.applications).toBeNull();
    expect(test.worstApplications).toEqual([]);
  });
});
