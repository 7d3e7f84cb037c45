// Batched appends (one lock, one read of the chain head, multi-row inserts)
// keep the chain exactly as single appends would: in order, verifiable, and
// never forked by a writer on another connection that appends meanwhile.
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { PrismaClient } from "@/lib/db/generated/client";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { appendAudit, appendAuditBatch, listAuditEvents, verifyAuditChain, SYSTEM, type AuditInput } from "@/lib/audit";

const db = getPrisma();
// Another pool, as another process would have.
const other = new PrismaClient({ adapter: new PrismaPg({ connectionString: process.env.DATABASE_URL as string }) });
afterAll(async () => {
  await other.$disconnect();
  await disconnectPrisma();
});
beforeEach(() => resetDatabase(db));

async function sql<T extends pg.QueryResultRow>(text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

function drift(i: number, at = new Date("2026-12-02T10:00:00.000Z")): AuditInput {
  return {
    actor: { type: "system", name: "collector" },
    action: "drift.opened",
    targetType: "drift",
    targetId: `d${i}`,
    environment: "production",
    reason: `apps/Deployment/shop/api-${i}`,
    after: { type: "Modified", fields: ["spec.replicas", `data.k${i}`], manager: i % 2 ? "kubectl-edit" : null, n: i + 0.5 },
    at,
  };
}

/** Until `n` sessions wait for the audit chain's advisory lock. */
async function waitForLockWaiters(n: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const [row] = await sql<{ n: string }>(`SELECT count(*)::text AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`);
    if (Number(row?.n) >= n) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("no appender ever waited for the audit lock");
}

describe("appendAuditBatch", () => {
  it("appends a batch larger than one INSERT in order, continuing the chain, and it verifies", async () => {
    await appendAudit(db, { actor: SYSTEM, action: "run.failed", targetType: "environment", targetId: "1", environment: "production" });
    const batch = Array.from({ length: 2345 }, (_, i) => drift(i));
    // Hostile text in the middle of a batch is stored as a single append stores it.
    batch[1200] = { ...drift(1200), reason: "x\u0000'; DROP TABLE \"User\"; --", targetId: "\uD800é", after: { big: 12345678901234, nested: { b: [1, "x"], a: null } } };
    const rows = await appendAuditBatch(db, batch);
    expect(rows).toHaveLength(2345);
    expect(await verifyAuditChain(db, { batchSize: 500 })).toEqual({ ok: true, checked: 2346 });

    const stored = await sql<{ id: string; targetId: string; prevHash: string; hash: string }>(`SELECT id::text, "targetId", "prevHash", hash FROM "AuditEvent" a ORDER BY a.id`);
    expect(stored.slice(1, 4).map((r) => r.targetId)).toEqual(["d0", "d1", "d2"]);
    expect(stored.at(-1)?.targetId).toBe("d2344");
    expect(stored[1]?.prevHash).toBe(stored[0]?.hash);
    expect(rows.map((r) => r.hash)).toEqual(stored.slice(1).map((r) => r.hash));
    expect(rows.map((r) => r.id.toString())).toEqual(stored.slice(1).map((r) => r.id));
    const { events } = await listAuditEvents(db, { environment: "production", action: "drift.opened" }, { limit: 5 });
    expect(events[0]?.targetId).toBe("d2344");
  });

  it("keeps one chain when a single append from another connection waits behind a batch", async () => {
    let single: Promise<unknown> | undefined;
    await db.$transaction(async (tx) => {
      await appendAuditBatch(tx, Array.from({ length: 50 }, (_, i) => drift(i)));
      single = appendAudit(other, { actor: { type: "user", id: "00000000-0000-0000-0000-000000000001", name: "alice" }, action: "pause.created", targetType: "pause", targetId: "p1", environment: "production" });
      await waitForLockWaiters(1);
    });
    await single;
    expect(await verifyAuditChain(db)).toEqual({ ok: true, checked: 51 });
    const last = await db.auditEvent.findFirstOrThrow({ orderBy: { id: "desc" } });
    expect(last.targetId).toBe("p1");
  });

  it("keeps one chain when a batch waits behind a single append from another connection", async () => {
    let batch: Promise<unknown> | undefined;
    await other.$transaction(async (tx) => {
      await appendAudit(tx, { actor: SYSTEM, action: "run.failed", targetType: "environment", targetId: "7", environment: "staging" });
      batch = appendAuditBatch(db, Array.from({ length: 50 }, (_, i) => drift(i)));
      await waitForLockWaiters(1);
    });
    await batch;
    expect(await verifyAuditChain(db)).toEqual({ ok: true, checked: 51 });
    const first = await db.auditEvent.findFirstOrThrow({ orderBy: { id: "asc" } });
    expect(first.targetId).toBe("7");
    const prevs = await sql<{ n: string }>(`SELECT count(DISTINCT "prevHash")::text AS n FROM "AuditEvent"`);
    expect(prevs[0]?.n).toBe("51");
  });

  it("leaves no trace of a batch whose transaction rolls back; the next append still verifies", async () => {
    await appendAudit(db, { actor: SYSTEM, action: "run.failed", targetType: "environment", targetId: "1" });
    await expect(
      db.$transaction(async (tx) => {
        await appendAuditBatch(tx, [drift(1), drift(2)]);
        throw new Error("the audited change failed");
      }),
    ).rejects.toThrow("the audited change failed");
    await appendAuditBatch(db, [drift(3)]);
    expect(await verifyAuditChain(db)).toEqual({ ok: true, checked: 2 });
  });
});
