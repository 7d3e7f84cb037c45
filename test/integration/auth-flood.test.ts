// An unauthenticated flood — 10,000 bad sign-ins and 10,000 OIDC callback
// errors from many addresses — through the real route handlers: the audit
// table grows by a bounded number of rows, every failure is still counted in
// it, throttled attempts write nothing, the chain still verifies, and the
// account under attack is not locked out for its owner.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessEnv } from "@/test/support/process-env";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { verifyAuditChain } from "@/lib/audit";
import { createLocalUser } from "@/lib/auth/users";
import { failedAttemptAudit, FAILURE_WINDOW_MS, MAX_SOURCES_PER_WINDOW } from "@/lib/auth/failed-attempts";
import { POST as signin } from "@/app/api/auth/signin/route";
import { flood, signInAddress, signInRequest } from "@/test/support/auth-flood";

const db = getPrisma();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-flood-"));
let restoreEnv: () => void = () => {};

beforeAll(async () => {
  const file = path.join(tmp, "driftwatch.yaml");
  // The provider is never reached: every callback in the flood fails before that.
  fs.writeFileSync(file, ["auth:", "  local: true", "  oidc:", "    issuer: http://127.0.0.1:9/", "    clientId: driftwatch", "    clientSecretEnv: DW_TEST_FLOOD_OIDC", ""].join("\n"));
  restoreEnv = setProcessEnv({ DRIFTWATCH_CONFIG: file, DW_TEST_FLOOD_OIDC: "flood-test-client-secret" });
  await resetDatabase(db);
  await createLocalUser(db, { username: "admin", role: "admin", password: "the admin's own passphrase" }, { type: "system" });
});

afterAll(async () => {
  restoreEnv();
  fs.rmSync(tmp, { recursive: true, force: true });
  await disconnectPrisma();
});

describe("an unauthenticated flood", () => {
  it("10,000 bad sign-ins and 10,000 callback errors add a bounded number of audit rows that still count every failure", async () => {
    const before = await db.auditEvent.count();
    const startedAt = Date.now();
    const outcome = await flood({
      signIns: 10_000,
      callbackErrors: 10_000,
      // Few sign-in addresses (each failure that is not throttled costs a real scrypt check), many callback addresses.
      signInAddresses: 12,
      callbackAddresses: 500,
      concurrency: 32,
      usernames: ["admin", "root", "alice", "ops"],
      octet: 66,
    });
    // Nothing got in; most were refused by the throttle before any work.
    expect(Object.keys(outcome.signIn).sort()).toEqual(["401", "429"]);
    expect(outcome.callback).toEqual({ 302: 10_000 });
    const wrong = outcome.signIn[401] ?? 0;
    // 12 addresses × at most 20 failures each (the per-address ceiling) before they are throttled.
    expect(wrong).toBeLessThanOrEqual(12 * 20);
    expect(outcome.signIn[429]).toBe(10_000 - wrong);
    // 500 callback addresses × 10 failures each before the callback's limit; the other 10 from each are throttled.
    expect(outcome.callbackThrottled).toBe(5_000);

    // While a window is open: one row per address at most (the overflow past 100 addresses is only counted).
    // Windows are aligned to the clock, so a flood may cross into a second one: the first window's summaries
    // (one per address and the overflow's) are then written, and each address's first failure again.
    const windows = Math.floor(Date.now() / FAILURE_WINDOW_MS) - Math.floor(startedAt / FAILURE_WINDOW_MS) + 1;
    const during = (await db.auditEvent.count()) - before;
    expect(during).toBeLessThanOrEqual(windows * (12 + MAX_SOURCES_PER_WINDOW) + (windows - 1) * (12 + MAX_SOURCES_PER_WINDOW + 1));

    await failedAttemptAudit().flush({ everything: true });
    const rows = await db.auditEvent.findMany({ where: { id: { gt: 0 } }, orderBy: { id: "asc" } });
    const added = rows.length - before;
    // The bound: per kind and window, one first event and one summary per address, for at most 100 addresses plus "other addresses".
    // A flood that straddles a window boundary can use two windows.
    const bound = 2 * 2 * 2 * (MAX_SOURCES_PER_WINDOW + 1);
    expect(added).toBeLessThanOrEqual(bound);
    expect(added).toBeLessThan(300);

    // Every failure that was not throttled is in the log: one per first event, `count` per summary.
    const counted = (method: string) =>
      rows
        .filter((r) => r.action === "auth.signin_failed" && (r.after as { method?: string }).method === method)
        .reduce((n, r) => n + ((r.after as { count?: number }).count ?? 1), 0);
    expect(counted("password")).toBe(wrong);
    expect(counted("oidc")).toBe(5_000);
    const overflow = rows.find((r) => r.targetId === "(other addresses)");
    expect(overflow?.reason).toMatch(/more failed sign-ins \(oidc\) from other addresses/);

    expect(await verifyAuditChain(db)).toMatchObject({ ok: true });
  });

  it("does not lock the attacked account out for its owner, who signs in from an address that did not fail", async () => {
    const res = await signin(signInRequest({ username: "admin", password: "the admin's own passphrase" }, "192.168.7.7"));
    expect(res.status).toBe(200);
    // An address that took part in the flood is still held back.
    const attacker = await signin(signInRequest({ username: "admin", password: "the admin's own passphrase" }, signInAddress(66, 0)));
    expect(attacker.status).toBe(429);
  });
});
