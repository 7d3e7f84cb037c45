// Shared checks of the fault suite. Every fault case asserts the same four
// things a user relies on during an incident:
//   1. the error is recorded with its cause (run errors, Environment.lastError,
//      and the environment list says "Collection failing" with the message);
//   2. the last good state is kept (desired/live rows, drift items unchanged);
//   3. nothing is duplicated (versions, drift items, audit events, revisions);
//   4. the next run after the fault ends succeeds by itself, and says so.
import path from "node:path";
import { expect } from "vitest";
import type { CollectorFixture } from "../support/collector-env";
import { collectorContext, enqueueRun, executeRun, leaseRunById, type RunOutcome } from "@/lib/collector";
import type { CollectorContext } from "@/lib/collector";
import type { PrismaClient } from "@/lib/db/generated/client";
import { listEnvironments } from "@/lib/dashboard";
import { verifyAuditChain } from "@/lib/audit";
import { logger } from "@/lib/log";

export const TEST_SECRET_KEY = Buffer.from("test-instance-key-0123456789abcdef");

export type Outcome = RunOutcome & { runId: number };

/** One run like the fixture's, with the collector context's knobs (timeouts, clock) set by the test. */
export async function runWith(f: Pick<CollectorFixture, "db" | "config" | "dir">, overrides: Partial<CollectorContext> = {}, envName = "test"): Promise<Outcome> {
  const env = await f.db.environment.findUniqueOrThrow({ where: { name: envName } });
  const runId = await enqueueRun(f.db, env.id, "test");
  const run = await leaseRunById(f.db, runId, "fault-worker", 60_000);
  if (!run) throw new Error("could not lease the run");
  const ctx = collectorContext(f.db, f.config, {
    mirrorsDir: path.join(f.dir, "mirrors"),
    secretKey: TEST_SECRET_KEY,
    log: logger.child({ test: "faults" }),
    ...overrides,
  });
  const outcome = await executeRun(ctx, run, "fault-worker", 60_000);
  return { ...outcome, runId };
}

export interface StoredState {
  live: Array<{ key: string; blobHash: string }>;
  desired: Array<{ key: string; blobHash: string; revisionSha: string }>;
  drift: Array<{ id: string; key: string; type: string; resolvedAt: string | null; changes: unknown }>;
  environment: { approvedSha: string | null; appliedSha: string | null; objectCount: number; lastGoodRunId: number | null; lastGoodCollectedAt: string | null };
  revisions: number;
  appliedRevisions: number;
}

export async function storedState(db: PrismaClient, envName = "test"): Promise<StoredState> {
  const env = await db.environment.findUniqueOrThrow({ where: { name: envName } });
  const [live, desired, drift, revisions, appliedRevisions] = await Promise.all([
    db.liveObject.findMany({ where: { environmentId: env.id }, select: { key: true, blobHash: true }, orderBy: { key: "asc" } }),
    db.desiredObject.findMany({ where: { environmentId: env.id }, select: { key: true, blobHash: true, revisionSha: true }, orderBy: { key: "asc" } }),
    db.driftItem.findMany({ where: { environmentId: env.id }, select: { id: true, key: true, type: true, resolvedAt: true, changes: true }, orderBy: { id: "asc" } }),
    db.revision.count(),
    db.appliedRevision.count({ where: { environmentId: env.id } }),
  ]);
  return {
    live,
    desired,
    drift: drift.map((d) => ({ ...d, resolvedAt: d.resolvedAt?.toISOString() ?? null })),
    environment: {
      approvedSha: env.approvedSha,
      appliedSha: env.appliedSha,
      objectCount: env.objectCount,
      lastGoodRunId: env.lastGoodRunId,
      lastGoodCollectedAt: env.lastGoodCollectedAt?.toISOString() ?? null,
    },
    revisions,
    appliedRevisions,
  };
}

/** (1) The failure and its cause, where the user and the API see them. */
export async function expectFailureRecorded(db: PrismaClient, out: Outcome, category: RegExp, message?: RegExp, envName = "test"): Promise<void> {
  expect(out.status, JSON.stringify(out.errors)).toBe("failed");
  const first = out.errors.find((e) => e.severity !== "warning") ?? out.errors[0];
  expect(first?.category).toMatch(category);
  if (message) expect(first?.message).toMatch(message);
  const run = await db.collectionRun.findUniqueOrThrow({ where: { id: out.runId } });
  expect(run.status).toBe("failed");
  expect((run.errors as Array<{ category: string }>)[0]?.category).toMatch(category);
  const env = await db.environment.findUniqueOrThrow({ where: { name: envName } });
  const lastError = env.lastError as { category: string; message: string; runId: number } | null;
  expect(lastError?.category).toMatch(category);
  if (message) expect(lastError?.message).toMatch(message);
  expect(lastError?.runId).toBe(out.runId);
  expect(env.lastGoodRunId).not.toBe(out.runId);
  const seen = (await listEnvironments(db, { path: "driftwatch.yaml", exists: true, declared: 1 })).environments.find((e) => e.name === envName);
  expect(seen?.status).toBe("Collection failing");
  expect(seen?.statusReason).toContain(lastError?.message ?? "?");
}

/** (2) Nothing the last good run stored has changed. */
export function expectStateKept(before: StoredState, after: StoredState): void {
  expect(after.live).toEqual(before.live);
  expect(after.desired).toEqual(before.desired);
  expect(after.drift).toEqual(before.drift);
  expect(after.environment).toEqual(before.environment);
  expect(after.appliedRevisions).toBe(before.appliedRevisions);
}

/** (3) No duplicates anywhere a retry or a race could create them; the audit chain holds. */
export async function expectNoDuplicates(db: PrismaClient): Promise<void> {
  const dupVersions = await db.$queryRaw<Array<{ n: number }>>`
    SELECT count(*)::int AS n FROM (SELECT 1 FROM "ObjectVersion" GROUP BY "environmentId", side, key, "runId" HAVING count(*) > 1) d`;
  expect(dupVersions[0]?.n).toBe(0);
  const dupOpen = await db.$queryRaw<Array<{ n: number }>>`
    SELECT count(*)::int AS n FROM (SELECT 1 FROM "DriftItem" WHERE "resolvedAt" IS NULL GROUP BY "environmentId", key HAVING count(*) > 1) d`;
  expect(dupOpen[0]?.n).toBe(0);
  const dupOpened = await db.$queryRaw<Array<{ n: number }>>`
    SELECT count(*)::int AS n FROM (SELECT 1 FROM "AuditEvent" WHERE action IN ('drift.opened', 'drift.resolved') GROUP BY action, "targetId" HAVING count(*) > 1) d`;
  expect(dupOpened[0]?.n).toBe(0);
  const runningTwice = await db.$queryRaw<Array<{ n: number }>>`
    SELECT count(*)::int AS n FROM (SELECT 1 FROM "CollectionRun" WHERE status = 'running' GROUP BY "environmentId" HAVING count(*) > 1) d`;
  expect(runningTwice[0]?.n).toBe(0);
  const chain = await verifyAuditChain(db);
  expect(chain.ok, JSON.stringify(chain.firstBroken)).toBe(true);
}

/** (4) The fault is over: one run brings the environment back, audited once. */
export async function expectRecovered(db: PrismaClient, out: Outcome, envName = "test"): Promise<void> {
  expect(["succeeded", "partial"], JSON.stringify(out.errors)).toContain(out.status);
  const env = await db.environment.findUniqueOrThrow({ where: { name: envName } });
  expect(env.lastError).toBeNull();
  expect(env.lastGoodRunId).toBe(out.runId);
  expect(await db.auditEvent.count({ where: { action: "run.recovered", environment: envName } })).toBeGreaterThanOrEqual(1);
  const seen = (await listEnvironments(db, { path: "driftwatch.yaml", exists: true, declared: 1 })).environments.find((e) => e.name === envName);
  expect(seen?.status).not.toBe("Collection failing");
}

export { startSwitchableProxy, type SwitchableProxy } from "../support/switchable-proxy";

/** Polls until `check` holds (or throws after `timeoutMs`). */
export async function waitFor<T>(what: string, check: () => Promise<T | null | undefined | false>, timeoutMs = 20_000, everyMs = 50): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
