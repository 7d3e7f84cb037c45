// Alerts open and resolve by themselves, one per problem, and reach a
// webhook signed, once per change, again after a failed delivery.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { environmentSchema } from "@/lib/config/schema";
import { refreshAlerts, listAlerts, type SyncOptions } from "@/lib/alerts";
import { verifyAuditChain } from "@/lib/audit";

const db = getPrisma();
const received: Array<{ body: string; signature: string | undefined; event: string | undefined }> = [];
let failing = false;
let server: http.Server;
let opts: SyncOptions;
let envId = "";

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      if (failing) {
        res.statusCode = 503;
        return res.end();
      }
      received.push({ body, signature: req.headers["x-driftwatch-signature"] as string | undefined, event: req.headers["x-driftwatch-event"] as string | undefined });
      res.end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  opts = {
    webhooks: [{ name: "oncall", url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, secretEnv: "ALERT_HOOK_SECRET" }],
    runbooks: { environment_stale: "https://wiki.example/runbooks/stale" },
    env: { ALERT_HOOK_SECRET: "hook-secret" },
  };
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await disconnectPrisma();
});

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);

beforeEach(async () => {
  await resetDatabase(db);
  received.length = 0;
  failing = false;
  const spec = environmentSchema.parse({ name: "production", cluster: { kubeconfig: "/x" }, source: { repository: "shop" }, staleAfter: "10m", confirmPause: true });
  envId = (
    await db.environment.create({
      data: {
        name: "production",
        position: 0,
        branch: "main",
        path: ".",
        spec: JSON.parse(JSON.stringify(spec)) as object,
        approvedSha: "b".repeat(40),
        approvedAt: minutesAgo(45),
        appliedSha: "a".repeat(40),
        controller: {
          type: "flux",
          namespace: "flux-system",
          name: "shop",
          found: true,
          suspended: false,
          suspendedBy: null,
          ready: "False",
          failure: {
            object: "GitRepository/flux-system/shop",
            type: "Ready",
            status: "False",
            reason: "AuthenticationFailed",
            message: "authentication required",
            lastTransitionTime: minutesAgo(40).toISOString(),
          },
          conditions: [],
        },
      },
    })
  ).id;
});

describe("stale environment alert", () => {
  it("opens once with the controller's error and runbook, is delivered signed, and resolves when applied catches up", async () => {
    const first = await refreshAlerts(db, envId, new Date(), opts);
    expect(first.opened).toHaveLength(2); // stale, and the failing source behind it
    const alerts = await listAlerts(db, { open: true }, opts.runbooks);
    const staleAlert = alerts.find((a) => a.type === "environment_stale")!;
    expect(staleAlert.title).toMatch(/production is stale/);
    expect(staleAlert.details.controllerError).toMatchObject({ reason: "AuthenticationFailed" });
    expect(staleAlert.runbook.act[0]).toMatch(/Git credential/);
    expect(staleAlert.runbook.url).toBe("https://wiki.example/runbooks/stale");

    expect(received).toHaveLength(2);
    for (const r of received) {
      expect(r.signature).toBe("sha256=" + createHmac("sha256", "hook-secret").update(r.body).digest("hex"));
      expect(r.event).toBe("alert.opened");
    }
    const staleMessage = JSON.parse(received.find((r) => r.body.includes("is stale"))!.body) as { text: string; blocks: unknown[] };
    expect(staleMessage.text).toContain("production is stale");

    // Nothing changed: nothing re-sent, still one open alert per problem.
    const again = await refreshAlerts(db, envId, new Date(), opts);
    expect(again).toMatchObject({ opened: [], resolved: [], deliveries: [] });
    expect(received).toHaveLength(2);
    expect(await db.alert.count({ where: { resolvedAt: null } })).toBe(2);

    // The controller catches up: both resolve, and the receiver hears it once.
    await db.environment.update({ where: { id: envId }, data: { appliedSha: "b".repeat(40), controller: { type: "flux", found: true, suspended: false, failure: null } } });
    const fixed = await refreshAlerts(db, envId, new Date(), opts);
    expect(fixed.resolved).toHaveLength(2);
    expect(received.slice(2).map((r) => r.event)).toEqual(["alert.resolved", "alert.resolved"]);
    await refreshAlerts(db, envId, new Date(), opts);
    expect(received).toHaveLength(4);

    const audited = await db.auditEvent.findMany({ where: { action: { startsWith: "alert." } }, orderBy: { id: "asc" } });
    expect(audited.map((a) => a.action)).toEqual(["alert.opened", "alert.opened", "alert.resolved", "alert.resolved"]);
    expect((await verifyAuditChain(db)).ok).toBe(true);
  });

  it("re-sends after a failed delivery, and re-sends when the content changes", async () => {
    failing = true;
    const r1 = await refreshAlerts(db, envId, new Date(), opts);
    expect(r1.deliveries.every((d) => !d.ok)).toBe(true);
    expect(await db.alert.count({ where: { notifiedHash: { not: null } } })).toBe(0);

    failing = false;
    await refreshAlerts(db, envId, new Date(), opts);
    expect(received).toHaveLength(2);

    // A newer approved commit changes what the stale alert says: an update goes out, for that alert only.
    await db.environment.update({ where: { id: envId }, data: { approvedSha: "c".repeat(40) } });
    const r3 = await refreshAlerts(db, envId, new Date(), opts);
    expect(r3.updated).toHaveLength(1);
    expect(received.slice(2).map((r) => r.event)).toEqual(["alert.updated"]);
    expect(received[2]!.body).toContain("cccccccccccc");
  });
});
