// The audit log holds: append-only in the database (the application role can
// neither change rows nor turn the trigger off), a keyed hash chain that names
// the first event someone tampered with, a checkpoint outside the database
// that shows the newest events removed or rewritten, and concurrent writers
// that never fork it. Attacks that need the table's owner are run as the owner.
import crypto from "node:crypto";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeEach, describe, expect, inject, it } from "vitest";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import {
  appendAudit,
  auditKey,
  checkpointAuditChain,
  ensureAuditChainKeyed,
  hashEvent,
  legacyHashEvent,
  listAuditEvents,
  readCheckpoint,
  scheduleAuditCheckpoints,
  verifyAuditChain,
  verifyAuditLog,
  GENESIS_HASH,
  SYSTEM,
  type AuditContent,
} from "@/lib/audit";

const db = getPrisma();
let checkpointFile: string;
afterAll(disconnectPrisma);
beforeEach(async () => {
  await resetDatabase(db);
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), "driftwatch-audit-"));
  checkpointFile = path.join(dir, "audit-checkpoint.json");
  return () => fsp.rm(dir, { recursive: true, force: true });
});

async function sql<T extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** Runs `statements` as the tables' owner with the append-only trigger off: what someone holding the owner's credentials can do. */
async function asOwnerWithoutTrigger(statements: Array<[string, unknown[]]>): Promise<void> {
  const client = new pg.Client({ connectionString: inject("ownerDatabaseUrl") });
  await client.connect();
  try {
    await client.query("BEGIN");
    await client.query(`ALTER TABLE "AuditEvent" DISABLE TRIGGER USER`);
    for (const [text, params] of statements) await client.query(text, params);
    await client.query(`ALTER TABLE "AuditEvent" ENABLE TRIGGER USER`);
    await client.query("COMMIT");
  } finally {
    await client.end();
  }
}

type Hasher = (prevHash: string, content: AuditContent) => string;

/**
 * Rewrites the reason of every event from `fromId` on and hashes the chain
 * again from there with `hasher`, keeping every link consistent — the
 * rewrite someone with write access would make to cover their tracks.
 */
async function rewriteFrom(fromId: number, hasher: Hasher): Promise<void> {
  const rows = await db.auditEvent.findMany({ orderBy: { id: "asc" } });
  let prev = rows.find((r) => Number(r.id) === fromId - 1)?.hash ?? GENESIS_HASH;
  const statements: Array<[string, unknown[]]> = [];
  for (const row of rows.filter((r) => Number(r.id) >= fromId)) {
    const content: AuditContent = { ...row, reason: "routine maintenance" };
    const hash = hasher(prev, content);
    statements.push([`UPDATE "AuditEvent" SET reason = $1, "prevHash" = $2, hash = $3 WHERE id = $4`, [content.reason, prev, hash, row.id.toString()]]);
    prev = hash;
  }
  await asOwnerWithoutTrigger(statements);
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

  it("refuses the application role any UPDATE, DELETE or TRUNCATE, and any way of turning the append-only trigger off", async () => {
    await seed(2);
    const attacks = [
      `UPDATE "AuditEvent" SET reason = 'nothing happened' WHERE id = 1`,
      `DELETE FROM "AuditEvent" WHERE id = 2`,
      `TRUNCATE "AuditEvent"`,
      `ALTER TABLE "AuditEvent" DISABLE TRIGGER ALL`,
      `ALTER TABLE "AuditEvent" DISABLE TRIGGER "AuditEvent_append_only"`,
      `DROP TRIGGER "AuditEvent_append_only" ON "AuditEvent"`,
      `DROP FUNCTION "audit_event_append_only"() CASCADE`,
      `SET session_replication_role = replica`,
      `ALTER TABLE "AuditEvent" OWNER TO CURRENT_USER`,
      `DROP TABLE "AuditEvent"`,
    ];
    for (const attack of attacks) {
      await expect(sql(attack), attack).rejects.toThrow(/permission denied|must be owner/);
    }
    expect((await sql<{ reason: string }>(`SELECT reason FROM "AuditEvent" WHERE id = 1`))[0]?.reason).toBe("reason 0");
    expect((await verifyAuditChain(db)).ok).toBe(true);
  });

  it("names the tampered row when the owner edits it with the trigger disabled", async () => {
    await seed(4);
    await asOwnerWithoutTrigger([[`UPDATE "AuditEvent" SET reason = 'routine maintenance' WHERE id = 3`, []]]);
    const result = await verifyAuditChain(db);
    expect(result.ok).toBe(false);
    expect(result.checked).toBe(2);
    expect(result.firstBroken).toEqual({ id: "3", reason: expect.stringContaining("edited") });
  });

  it("names the event after a deleted one", async () => {
    await seed(4);
    await asOwnerWithoutTrigger([[`DELETE FROM "AuditEvent" WHERE id = 2`, []]]);
    const result = await verifyAuditChain(db);
    expect(result.firstBroken?.id).toBe("3");
  });

  it("shows the newest events deleted: the chain alone still holds, the checkpoint does not, and is kept", async () => {
    await seed(5);
    expect(await checkpointAuditChain(db, { file: checkpointFile, now: new Date() })).toMatchObject({ status: "written", head: { id: "5" } });
    await asOwnerWithoutTrigger([[`DELETE FROM "AuditEvent" WHERE id >= 4`, []]]);

    // A shorter chain is a valid chain: only the checkpoint remembers there was more.
    expect(await verifyAuditChain(db)).toEqual({ ok: true, checked: 3 });
    const result = await verifyAuditLog(db, { file: checkpointFile });
    expect(result).toMatchObject({ ok: false, checkpoint: { id: "5", matches: false }, firstBroken: { id: "5", reason: expect.stringContaining("removed") } });

    // The next checkpoint refuses to move back, and appends meanwhile change nothing about that.
    await seed(3);
    expect(await checkpointAuditChain(db, { file: checkpointFile, now: new Date() })).toMatchObject({ status: "mismatch" });
    expect(await readCheckpoint(checkpointFile)).toMatchObject({ status: "valid", head: { id: "5" } });
    expect((await verifyAuditLog(db, { file: checkpointFile })).ok).toBe(false);
  });

  it("shows the newest events rewritten and hashed again with the old unkeyed algorithm", async () => {
    await seed(5);
    await rewriteFrom(4, legacyHashEvent);
    const result = await verifyAuditChain(db);
    expect(result).toMatchObject({ ok: false, checked: 3, firstBroken: { id: "4", reason: expect.stringContaining("without the key") } });
  });

  it("shows the whole chain rewritten with the old unkeyed algorithm", async () => {
    await seed(3);
    await rewriteFrom(1, legacyHashEvent);
    expect(await verifyAuditChain(db)).toMatchObject({ ok: false, firstBroken: { reason: expect.stringContaining("no event is keyed") } });
  });

  it("shows the newest events rewritten and hashed again with a wrong key", async () => {
    await seed(5);
    const wrong = auditKey(crypto.randomBytes(32));
    await rewriteFrom(4, (prev, content) => hashEvent(wrong, prev, content));
    expect(await verifyAuditChain(db)).toMatchObject({ ok: false, checked: 3, firstBroken: { id: "4", reason: expect.stringContaining("another key") } });
  });

  it("shows, through the checkpoint, even a rewrite made with the right key", async () => {
    await seed(5);
    await checkpointAuditChain(db, { file: checkpointFile, now: new Date("2026-12-03T10:00:00Z") });
    const key = auditKey();
    await rewriteFrom(4, (prev, content) => hashEvent(key, prev, content));
    expect(await verifyAuditChain(db)).toEqual({ ok: true, checked: 5 });
    expect(await verifyAuditLog(db, { file: checkpointFile })).toMatchObject({
      ok: false,
      checkpoint: { id: "5", matches: false },
      firstBroken: { id: "5", reason: expect.stringContaining("differs from the checkpoint written at 2026-12-03T10:00:00.000Z") },
    });
  });

  it("checkpoints at its cadence: at once, then each time the chain has grown", async () => {
    await seed(2);
    const outcomes: string[] = [];
    const schedule = scheduleAuditCheckpoints({ db, file: checkpointFile, intervalMs: 50, onOutcome: (o) => void outcomes.push(o.status), onError: (e) => { throw e; } });
    try {
      const newest = async () => {
        const read = await readCheckpoint(checkpointFile);
        return read.status === "valid" ? read.head.id : null;
      };
      await expect.poll(newest, { timeout: 5000 }).toBe("2");
      await seed(3);
      await expect.poll(newest, { timeout: 5000 }).toBe("5");
      await expect.poll(() => outcomes.includes("unchanged"), { timeout: 5000 }).toBe(true);
    } finally {
      await schedule.stop();
    }
    // Written at once, again as the chain grew (seed appends one by one, so maybe more than once), never a mismatch.
    expect(outcomes[0]).toBe("written");
    expect(outcomes.filter((o) => o === "written").length).toBeGreaterThanOrEqual(2);
    expect(outcomes.filter((o) => o !== "written" && o !== "unchanged")).toEqual([]);
  });

  it("refuses a checkpoint file that was edited", async () => {
    await seed(5);
    await checkpointAuditChain(db, { file: checkpointFile, now: new Date() });
    expect(await verifyAuditLog(db, { file: checkpointFile })).toMatchObject({ ok: true, checked: 5, checkpoint: { id: "5", matches: true } });
    const signed = JSON.parse(await fsp.readFile(checkpointFile, "utf8")) as { id: string };
    await fsp.writeFile(checkpointFile, JSON.stringify({ ...signed, id: "3" }));
    expect(await verifyAuditLog(db, { file: checkpointFile })).toMatchObject({ ok: false, firstBroken: { id: "checkpoint", reason: expect.stringContaining("signature") } });
  });

  it("continues a chain begun by the previous release (unkeyed) after one audit.keyed event, and verifies both parts", async () => {
    // Three events as the previous release wrote them: plain SHA-256, written by the application role.
    let prev = GENESIS_HASH;
    for (let i = 0; i < 3; i++) {
      const content: AuditContent = { at: new Date(Date.UTC(2026, 11, 1, 10, i)), actorType: "user", actorId: null, actorName: "alice", action: "pause.created", targetType: "pause", targetId: `old${i}`, environment: "production", reason: null, before: null, after: { n: i } };
      const hash = legacyHashEvent(prev, content);
      await db.auditEvent.create({ data: { ...content, after: { n: i }, before: undefined, prevHash: prev, hash } });
      prev = hash;
    }
    expect(await verifyAuditChain(db)).toMatchObject({ ok: false, firstBroken: { reason: expect.stringContaining("no event is keyed") } });

    await ensureAuditChainKeyed(db);
    await ensureAuditChainKeyed(db); // once only
    await seed(2);
    expect(await verifyAuditChain(db)).toEqual({ ok: true, checked: 6, unkeyed: 3 });
    const actions = (await db.auditEvent.findMany({ orderBy: { id: "asc" }, select: { action: true } })).map((r) => r.action);
    expect(actions).toEqual(["pause.created", "pause.created", "pause.created", "audit.keyed", "pause.created", "pause.created"]);

    // Rewriting the keyed part back to the old algorithm does not pass for "not upgraded yet".
    await rewriteFrom(4, legacyHashEvent);
    expect(await verifyAuditChain(db)).toMatchObject({ ok: false, firstBroken: { reason: expect.stringContaining("no event is keyed") } });
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
