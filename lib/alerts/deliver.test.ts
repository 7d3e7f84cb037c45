import http from "node:http";
import type { AddressInfo } from "node:net";
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alertPayload, contentHash, postWebhook, type DeliverableAlert } from "./deliver";

const alert: DeliverableAlert = {
  id: "a1",
  type: "pause_unattributed",
  severity: "critical",
  title: "production: reconciliation paused outside Driftwatch (by kubectl-patch)",
  environment: "production",
  details: { manager: "kubectl-patch" },
  openedAt: new Date("2024-05-01T12:00:00Z"),
  resolvedAt: null,
};

const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
let server: http.Server;
let url = "";
beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.statusCode = req.url === "/fail" ? 500 : 200;
      res.end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("webhook delivery", () => {
  it("posts Slack-compatible JSON signed with the webhook's secret", async () => {
    const payload = alertPayload(alert, "alert.opened", { publicUrl: "https://dw.example" });
    const r = await postWebhook({ name: "ops", url, secretEnv: "HOOK_SECRET" }, payload, "alert.opened", { env: { HOOK_SECRET: "s3cret" } });
    expect(r).toMatchObject({ ok: true, status: 200 });
    const got = received.at(-1)!;
    const body = JSON.parse(got.body) as { text: string; blocks: unknown[] };
    expect(body.text).toContain("paused outside Driftwatch");
    expect(body.blocks.length).toBeGreaterThan(0);
    expect(got.headers["x-driftwatch-signature"]).toBe("sha256=" + createHmac("sha256", "s3cret").update(got.body).digest("hex"));
  });

  it("reports a failing receiver without throwing, and a missing secret without sending", async () => {
    expect(await postWebhook({ name: "bad", url: url + "/fail" }, {}, "alert.opened")).toMatchObject({ ok: false, status: 500 });
    const before = received.length;
    expect(await postWebhook({ name: "x", url, secretEnv: "NOPE" }, {}, "alert.opened", { env: {} })).toMatchObject({ ok: false, error: expect.stringContaining("NOPE") });
    expect(received.length).toBe(before);
  });

  it("changes the content hash when what a receiver sees changes, and only then", () => {
    expect(contentHash(alert)).toBe(contentHash({ ...alert, details: { manager: "kubectl-patch" } }));
    expect(contentHash(alert)).not.toBe(contentHash({ ...alert, title: alert.title + "!" }));
    expect(contentHash(alert)).not.toBe(contentHash({ ...alert, resolvedAt: new Date() }));
  });
});
