// The audit log holds: append-only in the database, a hash chain that names
// the first event someone tampered with, and concurrent writers that never fork it.
import pg from "pg";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { appendAudit, verifyAuditChain, listAuditEvents, SYSTEM } from "@/lib/audit";

const db = getPrisma();
afterAll(disconnectPrisma);
beforeEach(() => resetDatabase(db));

async function sql<T extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}

async function seed(n: number) {
  for (let i = 0; i < n; i++) {
    await appendAudit(db, {
      actor: { type: "user", id: "00000000-0000-0000-0000-000000000001", name: "alice" },
      action: "pause.created",
      targetType: "pause",
      targetId: `p${i}`,
      environment: "production",
      reason: `reason ${i}`,
      after: { expiresAt: "2030-01-01T00:00:00.000Z", nested: { b: 2, a: [1, "x"] } },
    });
  }
}

describe("audit log", () => {
  it("verifies an intact chain and counts every event", async () => {
    await seed(5);
    expect(await verifyAuditChain(db)).toEqual({ ok: true, checked: 5 });
    const { events } = await listAuditEvents(db, { environment: "production" });
    expect(events).toHaveLength(5);
    expect(events[0]?.prevHash).toBe(events[1]?.hash);
  });

  it("refuses UPDATE and DELETE of an audit row in SQL", async () => {
    await seed(2);
    await expect(sql(`UPDATE "AuditEvent" SET reason = 'nothing happened' WHERE id = 1`)).rejects.toThrow(/append-only/);
    await expect(sql(`DELETE FROM "AuditEvent" WHERE id = 2`)).rejects.toThrow(/append-only/);
    expect((await sql<{ reason: string }>(`SELECT reason FROM "AuditEvent" WHERE id = 1`))[0]?.reason).toBe("reason 0");
    expect((await verifyAuditChain(db)).ok).toBe(true);
  });

  it("names the tampered row when someone edits it with the trigger disabled", async () => {
    await seed(4);
    await sql(`ALTER TABLE "AuditEvent" DISABLE TRIGGER ALL`);
    try {
      await sql(`UPDATE "AuditEvent" SET reason = 'routine maintenance' WHERE id = 3`);
    } finally {
      await sql(`ALTER TABLE "AuditEvent" ENABLE TRIGGER ALL`);
    }
    const result = await verifyAuditChain(db);
    expect(result.ok).toBe(false);
    expect(result.checked).toBe(2);
    expect(result.firstBroken).toEqual({ id: "3", reason: expect.stringContaining("edited") });
  });

  it("names the event after a deleted one", async () => {
    await seed(4);
    await sql(`ALTER TABLE "AuditEvent" DISABLE TRIGGER ALL`);
    try {
      await sql(`DELETE FROM "AuditEvent" WHERE id = 2`);
    } finally {
      await sql(`ALTER TABLE "AuditEvent" ENABLE TRIGGER ALL`);
    }
    const result = await verifyAuditChain(db);
    expect(result.firstBroken?.id).toBe("3");
  });

  it("keeps one chain when many writers append at once", async () => {
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        appendAudit(db, { actor: SYSTEM, action: "drift.opened", targetType: "drift", targetId: `d${i}`, environment: "staging" }),
      ),
    );
    expect(await verifyAuditChain(db)).toEqual({ ok: true, checked: 30 });
    const prevs = await sql<{ n: string }>(`SELECT count(DISTINCT "prevHash")::text AS n FROM "AuditEvent"`);
    expect(prevs[0]?.n).toBe("30");
  });

  it("stores hostile text without failing and still verifies", async () => {
    await appendAudit(db, {
      actor: { type: "anonymous", name: "x\u0000'; DROP TABLE \"User\"; --" },
      action: "auth.signin_failed",
      targetType: "user",
      targetId: "\uD800" + "é".repeat(600),
      reason: "💥",
      after: { ip: "127.0.0.1", n: 1.5, big: 12345678901234 },
    });
    expect(await verifyAuditChain(db)).toEqual({ ok: true, checked: 1 });
  });
});
