// POST /api/webhooks/git as each Git host sends it, signed with real HMACs:
// a genuine push queues an immediate run of exactly the environments that
// follow the pushed repository and branch; a forged, replayed or unsigned
// one gets 401/409, an audit record, and changes nothing else.
import { createHmac, randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { setProcessEnv } from "@/test/support/process-env";
import { stringify } from "yaml";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { getConfig } from "@/lib/config";
import { syncConfigToDatabase } from "@/lib/collector";
import { failedAttemptAudit } from "@/lib/auth/failed-attempts";
import { POST } from "@/app/api/webhooks/git/route";

const db = getPrisma();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-webhooks-"));
const SHOP_SECRET = `shop-${randomUUID()}`;
const INFRA_SECRET = `infra-${randomUUID()}`;
let restoreEnv: () => void = () => {};

const cluster = { kubeconfig: "/nonexistent/kubeconfig" };
const config = {
  repositories: [
    { name: "shop", url: "https://github.com/acme/shop.git", webhookSecretEnv: "DW_TEST_HOOK_SHOP" },
    { name: "infra", url: "git@gitlab.example.com:platform/infra.git", webhookSecretEnv: "DW_TEST_HOOK_INFRA" },
    { name: "unsigned", url: "https://git.example.com/team/unsigned" },
  ],
  environments: [
    { name: "test", cluster, source: { repository: "shop", branch: "main", path: "envs/test" } },
    { name: "staging", cluster, source: { repository: "shop", branch: "main", path: "envs/staging" } },
    { name: "production", cluster, source: { repository: "shop", branch: "release", path: "envs/production" } },
    { name: "platform", cluster, source: { repository: "infra", branch: "main", path: "." } },
    { name: "other", cluster, source: { repository: "unsigned", branch: "main", path: "." } },
    // Its applications' sources are read from the cluster at run time: any push may be one of theirs.
    { name: "fleet", cluster, discover: { flux: {} } },
  ],
};

beforeAll(() => {
  const file = path.join(tmp, "driftwatch.yaml");
  fs.writeFileSync(file, stringify(config));
  restoreEnv = setProcessEnv({ DRIFTWATCH_CONFIG: file, DW_TEST_HOOK_SHOP: SHOP_SECRET, DW_TEST_HOOK_INFRA: INFRA_SECRET });
});
afterAll(async () => {
  restoreEnv();
  fs.rmSync(tmp, { recursive: true, force: true });
  await disconnectPrisma();
});
beforeEach(async () => {
  await resetDatabase(db);
  await syncConfigToDatabase(db, getConfig().config);
});

let ipCounter = 0;
const freshIp = () => `10.77.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

function hmac(secret: string, body: string): string {
  return createHmac("sha256", secret).update(body).digest("hex");
}

function send(body: string, headers: Record<string, string>, ip = freshIp()): Promise<Response> {
  const req = new NextRequest("http://localhost/api/webhooks/git", {
    method: "POST",
    headers: { host: "localhost", "content-type": "application/json", "x-forwarded-for": ip, ...headers },
    body,
  });
  return POST(req);
}

const githubPush = (branch = "main") =>
  JSON.stringify({
    ref: `refs/heads/${branch}`,
    before: "0".repeat(40),
    after: "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
    repository: { name: "shop", full_name: "acme/shop", clone_url: "https://github.com/acme/shop.git", ssh_url: "git@github.com:acme/shop.git", html_url: "https://github.com/acme/shop" },
    pusher: { name: "alice" },
  });

const gitlabPush = () =>
  JSON.stringify({
    object_kind: "push",
    ref: "refs/heads/main",
    checkout_sha: "b".repeat(40),
    project: { path_with_namespace: "platform/infra", git_http_url: "https://gitlab.example.com/platform/infra.git", git_ssh_url: "git@gitlab.example.com:platform/infra.git" },
  });

async function runsByEnv(): Promise<Record<string, string>> {
  const runs = await db.collectionRun.findMany({ include: { environment: { select: { name: true } } } });
  return Object.fromEntries(runs.map((r) => [r.environment.name, r.trigger]));
}

describe("POST /api/webhooks/git", () => {
  it("GitHub: a signed push queues a run of every environment following the repository and branch, and is audited", async () => {
    const body = githubPush("main");
    const delivery = randomUUID();
    const res = await send(body, { "x-github-event": "push", "x-github-delivery": delivery, "x-hub-signature-256": `sha256=${hmac(SHOP_SECRET, body)}` });
    expect(res.status).toBe(202);
    const json = (await res.json()) as { runs: Array<{ environment: string; runId: number }> };
    expect(json.runs.map((r) => r.environment).sort()).toEqual(["fleet", "staging", "test"]);
    // production follows the release branch, platform another repository: untouched. fleet discovers: it runs on any push.
    expect(await runsByEnv()).toEqual({ test: "webhook", staging: "webhook", fleet: "webhook" });
    const queued = await db.collectionRun.findMany();
    for (const r of queued) expect(r.notBefore.getTime()).toBeLessThanOrEqual(Date.now());
    const audit = await db.auditEvent.findMany({ where: { action: "webhook.accepted" }, orderBy: { id: "asc" } });
    expect(audit.map((a) => a.environment).sort()).toEqual(["fleet", "staging", "test"]);
    expect(audit[0]?.after).toMatchObject({ provider: "github", deliveryId: delivery, repository: "shop", branch: "main" });
    // Its delivery id and the digest of its body, each refusing a replay.
    expect((await db.webhookDelivery.findMany()).map((d) => d.deliveryId.replace(/[0-9a-f]{64}$/, "<digest>")).sort()).toEqual([`github:${delivery}`, "sha256:<digest>"]);
  });

  it("GitHub: a push to another branch runs only its environment", async () => {
    const body = githubPush("release");
    const res = await send(body, { "x-github-event": "push", "x-github-delivery": randomUUID(), "x-hub-signature-256": `sha256=${hmac(SHOP_SECRET, body)}` });
    expect(res.status).toBe(202);
    expect(await runsByEnv()).toEqual({ production: "webhook", fleet: "webhook" });
  });

  it("GitHub: a tag push runs the environments that discover (their applications may follow tags), not those declaring branches", async () => {
    const body = JSON.stringify({ ...JSON.parse(githubPush("main")), ref: "refs/tags/v1.4.0" });
    const res = await send(body, { "x-github-event": "push", "x-github-delivery": randomUUID(), "x-hub-signature-256": `sha256=${hmac(SHOP_SECRET, body)}` });
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ ok: true, repository: "shop", tag: "v1.4.0", runs: [{ environment: "fleet" }] });
    expect(await runsByEnv()).toEqual({ fleet: "webhook" });
    const audit = await db.auditEvent.findMany({ where: { action: "webhook.accepted" } });
    expect(audit.map((a) => [a.environment, a.reason])).toEqual([["fleet", "push of tag v1.4.0 of shop"]]);
    expect(audit[0]?.after).toMatchObject({ repository: "shop", tag: "v1.4.0" });
  });

  it("refuses a replayed delivery id with 409, audited, and queues nothing more", async () => {
    const body = githubPush("main");
    const headers = { "x-github-event": "push", "x-github-delivery": randomUUID(), "x-hub-signature-256": `sha256=${hmac(SHOP_SECRET, body)}` };
    expect((await send(body, headers)).status).toBe(202);
    // The run started meanwhile: a replay must not queue another.
    await db.collectionRun.updateMany({ data: { status: "running" } });
    const replay = await send(body, headers);
    expect(replay.status).toBe(409);
    expect(((await replay.json()) as { error: { message: string } }).error.message).toMatch(/already received/);
    expect(await db.collectionRun.count()).toBe(3); // test, staging and fleet (which discovers)
    expect(await db.auditEvent.count({ where: { action: "webhook.rejected", reason: "replayed delivery id" } })).toBe(1);
  });

  it("refuses a signed delivery replayed under a new delivery id (409) by the digest of its signed body, and queues nothing more", async () => {
    const body = githubPush("main");
    const signature = `sha256=${hmac(SHOP_SECRET, body)}`;
    expect((await send(body, { "x-github-event": "push", "x-github-delivery": randomUUID(), "x-hub-signature-256": signature })).status).toBe(202);
    await db.collectionRun.updateMany({ data: { status: "running" } });
    const replay = await send(body, { "x-github-event": "push", "x-github-delivery": randomUUID(), "x-hub-signature-256": signature });
    expect(replay.status).toBe(409);
    expect(((await replay.json()) as { error: { message: string } }).error.message).toMatch(/already received under another delivery id/);
    expect(await db.collectionRun.count()).toBe(3); // test, staging and fleet (which discovers)
    expect(await db.auditEvent.count({ where: { action: "webhook.accepted" } })).toBe(3);
    expect(await db.auditEvent.count({ where: { action: "webhook.rejected", reason: "replayed body under a new delivery id" } })).toBe(1);
    // The refused replay spent nothing: its new delivery id is not recorded, only the first delivery's id and body.
    expect(await db.webhookDelivery.count()).toBe(2);
    // The same branch pushed again (another commit, so another body) is a new push.
    const next = githubPush("main").replace("a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", "f".repeat(40));
    await db.collectionRun.updateMany({ data: { status: "succeeded" } });
    expect((await send(next, { "x-github-event": "push", "x-github-delivery": randomUUID(), "x-hub-signature-256": `sha256=${hmac(SHOP_SECRET, next)}` })).status).toBe(202);
  });

  it("answers 401 to a wrong signature, a signature made with another repository's secret, or none; audits each; changes nothing", async () => {
    const body = githubPush("main");
    const attempts: Array<Record<string, string>> = [
      { "x-github-event": "push", "x-github-delivery": randomUUID(), "x-hub-signature-256": `sha256=${hmac("not-the-secret", body)}` },
      { "x-github-event": "push", "x-github-delivery": randomUUID(), "x-hub-signature-256": `sha256=${hmac(INFRA_SECRET, body)}` },
      { "x-github-event": "push", "x-github-delivery": randomUUID(), "x-hub-signature-256": hmac(SHOP_SECRET, body) }, // no sha256= prefix
      { "x-github-event": "push", "x-github-delivery": randomUUID() },
      {},
    ];
    for (const headers of attempts) {
      const res = await send(body, headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(((await res.json()) as { error: { message: string } }).error.message).toBe("webhook signature does not verify");
    }
    // A body changed after signing does not verify either.
    const tampered = await send(githubPush("release"), { "x-github-event": "push", "x-github-delivery": randomUUID(), "x-hub-signature-256": `sha256=${hmac(SHOP_SECRET, body)}` });
    expect(tampered.status).toBe(401);
    expect(await db.collectionRun.count()).toBe(0);
    expect(await db.webhookDelivery.count()).toBe(0);
    const rejected = await db.auditEvent.findMany({ where: { action: "webhook.rejected" } });
    expect(rejected).toHaveLength(attempts.length + 1);
    for (const r of rejected) expect(JSON.stringify({ ...r, id: String(r.id) })).not.toContain(SHOP_SECRET);
  });

  it("GitLab: the secret token in X-Gitlab-Token, matched by an SSH URL in the config against the payload's HTTPS URL", async () => {
    const body = gitlabPush();
    const ok = await send(body, { "x-gitlab-event": "Push Hook", "x-gitlab-token": INFRA_SECRET, "x-gitlab-event-uuid": randomUUID() });
    expect(ok.status).toBe(202);
    expect(await runsByEnv()).toEqual({ platform: "webhook", fleet: "webhook" });
    const wrong = await send(body, { "x-gitlab-event": "Push Hook", "x-gitlab-token": SHOP_SECRET, "x-gitlab-event-uuid": randomUUID() });
    expect(wrong.status).toBe(401);
  });

  it("Gitea/Forgejo: bare hex HMAC in X-Gitea-Signature", async () => {
    const body = JSON.stringify({
      ref: "refs/heads/main",
      after: "c".repeat(40),
      repository: { full_name: "acme/shop", clone_url: "https://github.com/acme/shop.git" },
    });
    const res = await send(body, { "x-gitea-event": "push", "x-gitea-delivery": randomUUID(), "x-gitea-signature": hmac(SHOP_SECRET, body), "x-github-event": "push" });
    expect(res.status).toBe(202);
    expect(Object.keys(await runsByEnv()).sort()).toEqual(["fleet", "staging", "test"]);
    const bad = await send(body, { "x-gitea-event": "push", "x-gitea-delivery": randomUUID(), "x-gitea-signature": hmac(INFRA_SECRET, body) });
    expect(bad.status).toBe(401);
  });

  it("generic: X-Driftwatch-Signature sha256=… with a minimal body naming the repository URL and branch", async () => {
    const body = JSON.stringify({ repository: "git@github.com:acme/shop.git", branch: "release" });
    const res = await send(body, { "x-driftwatch-signature": `sha256=${hmac(SHOP_SECRET, body)}`, "x-driftwatch-delivery": randomUUID() });
    expect(res.status).toBe(202);
    expect(await runsByEnv()).toEqual({ production: "webhook", fleet: "webhook" });
  });

  it("a repository without a webhook secret accepts no webhook at all", async () => {
    const body = JSON.stringify({ ref: "refs/heads/main", repository: { clone_url: "https://git.example.com/team/unsigned.git" } });
    const res = await send(body, { "x-driftwatch-signature": `sha256=${hmac("", body)}`, "x-driftwatch-delivery": randomUUID() });
    expect(res.status).toBe(401);
    const audit = await db.auditEvent.findFirstOrThrow({ where: { action: "webhook.rejected" } });
    expect(audit.reason).toMatch(/unsigned has no webhook secret/);
    expect(await db.collectionRun.count()).toBe(0);
  });

  it("acknowledges a ping and a push of an unknown repository without running anything, once the signature holds", async () => {
    const ping = JSON.stringify({ zen: "Keep it logically awesome.", repository: { clone_url: "https://github.com/acme/shop.git" } });
    const pong = await send(ping, { "x-github-event": "ping", "x-github-delivery": randomUUID(), "x-hub-signature-256": `sha256=${hmac(SHOP_SECRET, ping)}` });
    expect(pong.status).toBe(200);
    expect(((await pong.json()) as { ignored: string }).ignored).toMatch(/not a push; signature verified for repository shop/);
    const elsewhere = JSON.stringify({ ref: "refs/heads/main", repository: { clone_url: "https://github.com/acme/elsewhere.git" } });
    const res = await send(elsewhere, { "x-github-event": "push", "x-github-delivery": randomUUID(), "x-hub-signature-256": `sha256=${hmac(SHOP_SECRET, elsewhere)}` });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { ignored: string }).ignored).toMatch(/no repository in driftwatch.yaml matches https:\/\/github.com\/acme\/elsewhere.git/);
    expect(await db.collectionRun.count()).toBe(0);
  });

  it("needs a delivery id to refuse replays (400), and refuses an oversized body (413)", async () => {
    const body = githubPush();
    const noId = await send(body, { "x-github-event": "push", "x-hub-signature-256": `sha256=${hmac(SHOP_SECRET, body)}` });
    expect(noId.status).toBe(400);
    expect(((await noId.json()) as { error: { message: string } }).error.message).toMatch(/X-GitHub-Delivery/);
    const huge = "x".repeat(6 * 1024 * 1024);
    const big = await send(huge, { "x-github-event": "push", "x-github-delivery": randomUUID(), "x-hub-signature-256": `sha256=${hmac(SHOP_SECRET, huge)}` });
    expect(big.status).toBe(413);
    expect(await db.collectionRun.count()).toBe(0);
  });

  it("rate-limits an address that keeps failing: 429 with Retry-After, and the audit log stops growing", async () => {
    const ip = freshIp();
    const body = githubPush();
    const statuses: number[] = [];
    for (let i = 0; i < 14; i++) {
      const res = await send(body, { "x-github-event": "push", "x-github-delivery": randomUUID(), "x-hub-signature-256": "sha256=" + "0".repeat(64) }, ip);
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(10).every((s) => s === 429)).toBe(true);
    // The first rejection is written at once; the other nine become one summary when the window ends; the 429s write nothing.
    expect(await db.auditEvent.count({ where: { action: "webhook.rejected" } })).toBe(1);
    await failedAttemptAudit().flush({ everything: true });
    const rows = await db.auditEvent.findMany({ where: { action: "webhook.rejected" }, orderBy: { id: "asc" } });
    expect(rows).toHaveLength(2);
    expect(rows[1]!.after).toMatchObject({ summary: true, ip, count: 9, reasons: { "signature does not verify": 9 } });
    // Another sender is not affected, and a genuine delivery from it goes through.
    const good = await send(body, { "x-github-event": "push", "x-github-delivery": randomUUID(), "x-hub-signature-256": `sha256=${hmac(SHOP_SECRET, body)}` });
    expect(good.status).toBe(202);
  });
});
