// Every documented operation called on a seeded database, through the route
// handler on disk, and every answer checked against its operation's zod
// schema for the status it came with (strict objects: a field the contract
// does not name fails). The run fails when an operation is documented but
// never answered with its success status here, or when a route file serves
// something the contract does not document.
import { responseText } from "@/test/support/response-text";
import { createHmac, randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessEnv } from "@/test/support/process-env";
import { stringify } from "yaml";
import type { z } from "zod";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { createTestSession, type TestSession } from "@/lib/auth/testing";
import { answersOf, operations, type Operation, type OperationId } from "@/lib/api/contract/operations";
import { seedShop, type ShopScenario } from "@/test/fixtures/dashboard";
import { apiRouteFiles } from "@/test/support/api-routes";

type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

const db = getPrisma();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-api-contract-"));
const HOOK_SECRET = `hook-${randomUUID()}`;
let restoreEnv: () => void = () => {};

/** The seeded environments, as driftwatch.yaml names them, so a webhook push has someone to queue. */
const config = {
  repositories: [{ name: "shop", url: "https://github.com/acme/shop.git", webhookSecretEnv: "DW_CONTRACT_HOOK" }],
  environments: ["test", "staging", "production"].map((name) => ({ name, cluster: { kubeconfig: "/nonexistent/kubeconfig" }, source: { repository: "shop", branch: "main", path: `deploy/${name}` } })),
};

const handlers = new Map<string, Handler>();
let shop: ShopScenario;
let viewer: TestSession;
let operator: TestSession;
let admin: TestSession;

interface Call {
  /** Values for the path's {placeholders}. */
  params?: Record<string, string>;
  query?: string;
  as?: TestSession | null;
  body?: unknown;
  headers?: Record<string, string>;
}

interface Answered {
  status: number;
  contentType: string;
  text: string;
  json: unknown;
}

/** Every answer seen, per operation: what the final checks look at. */
const answered = new Map<OperationId, number[]>();
const problems: string[] = [];

let ipCounter = 0;

async function call(id: OperationId, c: Call = {}): Promise<Answered> {
  const o: Operation = operations[id];
  const handler = handlers.get(`${o.method} ${o.path}`);
  if (!handler) throw new Error(`${id}: no route handler for ${o.method.toUpperCase()} ${o.path}`);
  const params = c.params ?? {};
  const url = o.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`${id}: give {${name}}`);
    return encodeURIComponent(v);
  });
  const session = c.as === undefined ? viewer : c.as;
  const headers: Record<string, string> = { host: "localhost", "x-forwarded-for": `10.99.0.${++ipCounter % 250}`, ...(session ? session.headers : {}), ...(c.headers ?? {}) };
  const body = c.body === undefined ? undefined : typeof c.body === "string" ? c.body : JSON.stringify(c.body);
  if (body !== undefined) headers["content-type"] ??= "application/json";
  const req = new NextRequest(`http://localhost${url}${c.query ? `?${c.query}` : ""}`, { method: o.method.toUpperCase(), headers, body });
  const res = await handler(req, { params: Promise.resolve(params) });
  const contentType = res.headers.get("content-type") ?? "";
  // A stream (GET /api/live) never ends by itself: its first message is the answer here.
  const text = await responseText(res);
  let json: unknown = undefined;
  if (contentType.split(";")[0]!.trim() === "application/json") json = JSON.parse(text) as unknown;
  check(id, o, res.status, contentType, json);
  answered.set(id, [...(answered.get(id) ?? []), res.status]);
  return { status: res.status, contentType, text, json };
}

/** The answer is one the document promises, in a shape its schema accepts. */
function check(id: OperationId, o: Operation, status: number, contentType: string, json: unknown): void {
  const answer = answersOf(o)[status];
  const where = `${id} (${o.method.toUpperCase()} ${o.path}) answered ${status}`;
  if (!answer) return void problems.push(`${where}: status not documented`);
  const mediaType = contentType.split(";")[0]!.trim();
  if (mediaType === "application/json") {
    if (!answer.json) return void problems.push(`${where}: JSON, but the document names no JSON body`);
    const parsed = (answer.json as z.ZodType).safeParse(json);
    if (!parsed.success) problems.push(`${where}: body does not match its schema: ${parsed.error.issues.slice(0, 5).map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  } else if (status !== 302 && !(mediaType in (answer.other ?? {}))) {
    problems.push(`${where}: content-type ${contentType || "(none)"} not documented`);
  }
}

function sign(body: string): Record<string, string> {
  return { "x-github-event": "push", "x-github-delivery": randomUUID(), "x-hub-signature-256": `sha256=${createHmac("sha256", HOOK_SECRET).update(body).digest("hex")}` };
}

beforeAll(async () => {
  fs.writeFileSync(path.join(tmp, "driftwatch.yaml"), stringify(config));
  restoreEnv = setProcessEnv({ DRIFTWATCH_CONFIG: path.join(tmp, "driftwatch.yaml"), DRIFTWATCH_DATA_DIR: path.join(tmp, "data"), DW_CONTRACT_HOOK: HOOK_SECRET });
  await resetDatabase(db);
  shop = await seedShop(db);
  viewer = await createTestSession(db, "viewer");
  operator = await createTestSession(db, "operator");
  admin = await createTestSession(db, "admin");
  for (const route of apiRouteFiles()) {
    const mod = (await import(route.file)) as Record<string, unknown>;
    for (const m of route.methods) handlers.set(`${m} ${route.path}`, mod[m.toUpperCase()] as Handler);
  }
}, 120_000);

afterAll(async () => {
  restoreEnv();
  fs.rmSync(tmp, { recursive: true, force: true });
  await disconnectPrisma();
});

describe("every documented operation on a seeded database", () => {
  it("reads: environments, drift, objects, lineage, timeline, compare, metrics, runs", async () => {
    const prod = { env: "production" };
    expect((await call("listEnvironments")).status).toBe(200);
    expect((await call("getEnvironment", { params: prod })).status).toBe(200);
    expect((await call("getEnvironment", { params: { env: "qa" } })).status).toBe(404);
    expect((await call("getEnvironment", { params: { env: "Prod!" } })).status).toBe(400);
    expect((await call("listDrift", { params: prod })).status).toBe(200);
    // Production as the applications migration leaves an environment of the previous release: one application, "default", owning its drift.
    const appId = (await db.application.create({ data: { environmentId: shop.env.production, name: "default", kind: "declared", promotionKey: "default", sources: [{ url: "https://github.com/acme/shop.git", repository: "shop", ref: { branch: "main" }, path: "deploy/production", render: "plain" }], spec: {}, firstSeenAt: shop.now, driftCount: 2 } })).id;
    await db.driftItem.updateMany({ where: { environmentId: shop.env.production }, data: { applicationId: appId } });
    const apps = await call("listApplications", { params: prod, query: "q=deploy/prod&status=Drifted,In%20sync" });
    expect(apps.status).toBe(200);
    expect(apps.json).toMatchObject({ environment: "production", rollup: { total: 1, drifted: 1 }, total: 1, applications: [{ name: "default", status: "Drifted", sources: [{ ref: "main" }] }] });
    expect((await call("listApplications", { params: prod, query: "status=Sideways" })).status).toBe(400);
    expect((await call("listApplications", { params: { env: "qa" } })).status).toBe(404);
    const app = await call("getApplication", { params: { env: "production", app: "default" } });
    expect(app.status).toBe(200);
    expect((app.json as { drift: unknown[] }).drift.length).toBeGreaterThan(0);
    expect((await call("getApplication", { params: { env: "production", app: "nope" } })).status).toBe(404);
    const page = await call("listDrift", { params: prod, query: "status=all&sort=openedAt&dir=desc&limit=2" });
    expect(page.status).toBe(200);
    const next = (page.json as { nextCursor: string | null }).nextCursor;
    expect(next).not.toBeNull();
    expect((await call("listDrift", { params: prod, query: `status=all&sort=openedAt&dir=desc&limit=2&cursor=${encodeURIComponent(next!)}` })).status).toBe(200);
    expect((await call("listDrift", { params: prod, query: "limit=0" })).status).toBe(400);
    for (const [group, kind, name] of [["apps", "Deployment", "api"], ["_", "Secret", "db-credentials"]] as const) {
      expect((await call("getObject", { params: { ...prod, group, kind, namespace: "shop", name } })).status).toBe(200);
    }
    expect((await call("getObject", { params: { ...prod, group: "apps", kind: "Deployment", namespace: "shop", name: "nothing" } })).status).toBe(404);
    expect((await call("lookupCommit", { params: { sha: shop.commits.apiProd14 } })).status).toBe(200);
    expect((await call("lookupCommit", { params: { sha: "abcdef12" } })).status).toBe(404);
    expect((await call("getLineage")).status).toBe(200);
    expect((await call("getTimeline", { query: "from=2000-01-01T00:00:00Z" })).status).toBe(200);
    for (const format of ["json", "csv", "md"]) expect((await call("getTimeline", { query: `format=${format}` })).status).toBe(200);
    expect((await call("compareEnvironments", { query: "from=staging&to=production" })).status).toBe(200);
    expect((await call("compareEnvironments", { query: "from=staging&to=production&mode=desired" })).status).toBe(200);
    expect((await call("getDeliveryMetrics", { query: "days=30" })).status).toBe(200);
    const run = await db.collectionRun.findFirstOrThrow({ orderBy: { id: "desc" } });
    expect((await call("getRun", { params: { id: String(run.id) } })).status).toBe(200);
    expect((await call("getRun", { params: { id: "999999" } })).status).toBe(404);
  });

  it("refresh now queues a run whose progress can be read", async () => {
    const refresh = await call("refreshEnvironment", { params: { env: "production" }, as: operator });
    expect(refresh.status).toBe(202);
    const { runId } = refresh.json as { runId: number };
    expect((await call("getRun", { params: { id: String(runId) } })).status).toBe(200);
    expect((await call("refreshEnvironment", { params: { env: "production" }, as: viewer })).status).toBe(403);
  });

  it("pauses: list, policy, create, read, resume, take ownership of a detected one", async () => {
    expect((await call("listPauses")).status).toBe(200);
    expect((await call("listPauses", { query: "active=true&environment=staging" })).status).toBe(200);
    expect((await call("getPausePolicy", { query: "environment=production" })).status).toBe(200);
    expect((await call("getPausePolicy", { query: "environment=qa" })).status).toBe(404);
    const created = await call("createPause", { as: operator, body: { environment: "production", reason: "Contract test pause", duration: "1h" } });
    expect(created.status).toBe(201);
    const id = (created.json as { pause: { id: string } }).pause.id;
    expect((await call("createPause", { as: operator, body: { environment: "production", reason: "Again", duration: "1h" } })).status).toBe(409);
    expect((await call("getPause", { params: { id } })).status).toBe(200);
    expect((await call("getPause", { params: { id: randomUUID() } })).status).toBe(404);
    expect((await call("resumePause", { params: { id }, as: operator, body: { reason: "done" } })).status).toBe(200);
    expect((await call("resumePause", { params: { id }, as: operator })).status).toBe(409);
    const detected = await db.pause.findFirstOrThrow({ where: { origin: "detected", endedAt: null } });
    expect((await call("takePauseOwnership", { params: { id: detected.id }, as: operator, body: { reason: "Argo CD sync off for the migration", duration: "2h" } })).status).toBe(200);
  });

  it("claims: list, create, read, adopt patch, transfer, release", async () => {
    expect((await call("listClaims")).status).toBe(200);
    expect((await call("listClaims", { query: "status=active" })).status).toBe(200);
    const created = await call("createClaim", { as: operator, body: { driftItemIds: [shop.drift.workerEdit], reason: "Debug logging during INC-4712", duration: "2h", returnPath: "adopt" } });
    expect(created.status).toBe(201);
    const id = (created.json as { claim: { id: string } }).claim.id;
    expect((await call("createClaim", { as: operator, body: { driftItemIds: [shop.drift.workerEdit], reason: "Twice", duration: "2h", returnPath: "revert" } })).status).toBe(409);
    expect((await call("getClaim", { params: { id } })).status).toBe(200);
    expect((await call("getAdoptPatch", { params: { id }, query: "format=json" })).status).toBe(200);
    expect((await call("getAdoptPatch", { params: { id } })).status).toBe(200);
    const transferred = await call("transferClaim", { params: { id }, as: operator, body: { owner: "alice", reason: "handing over" } });
    expect(transferred.status).toBe(200);
    // A transfer ends the claim and opens alice's.
    const alices = (transferred.json as { claim: { id: string } }).claim.id;
    expect((await call("releaseClaim", { params: { id: alices }, as: operator, body: { reason: "fixed in Git" } })).status).toBe(200);
    expect((await call("releaseClaim", { params: { id: alices }, as: operator })).status).toBe(409);
    expect((await call("getClaim", { params: { id: randomUUID() } })).status).toBe(404);
  });

  it("alerts and the audit log", async () => {
    expect((await call("refreshAlerts", { as: operator })).status).toBe(200);
    expect((await call("listAlerts")).status).toBe(200);
    expect((await call("listAlerts", { query: "open=true&environment=production&limit=5" })).status).toBe(200);
    const page = await call("listAuditEvents", { query: "limit=3" });
    expect(page.status).toBe(200);
    expect((page.json as { events: unknown[] }).events).toHaveLength(3);
    for (const format of ["csv", "jsonl"]) expect((await call("listAuditEvents", { query: `format=${format}&action=pause.` })).status).toBe(200);
    expect((await call("listAuditEvents", { query: "from=yesterday" })).status).toBe(400);
    expect((await call("verifyAudit")).status).toBe(200);
  });

  it("users, sign-in, session and sign-out", async () => {
    const password = `contract-${randomUUID()}`;
    expect((await call("createUser", { as: admin, body: { username: "carol", role: "operator", password, displayName: "Carol" } })).status).toBe(201);
    expect((await call("createUser", { as: admin, body: { username: "carol", role: "operator", password } })).status).toBe(409);
    expect((await call("updateUser", { params: { username: "carol" }, as: admin, body: { displayName: "Carol C." } })).status).toBe(200);
    expect((await call("updateUser", { params: { username: "nobody" }, as: admin, body: { disabled: true } })).status).toBe(404);
    expect((await call("listUsers", { as: admin })).status).toBe(200);
    expect((await call("listUsers", { as: viewer })).status).toBe(200);
    expect((await call("signIn", { as: null, body: { username: "carol", password: "wrong-password" } })).status).toBe(401);
    const signedIn = await call("signIn", { as: null, body: { username: "carol", password, next: "/timeline" } });
    expect(signedIn.status).toBe(200);
    expect((await call("getSession", { as: null })).status).toBe(200);
    expect((await call("getSession", { as: operator })).status).toBe(200);
    const leaving = await createTestSession(db, "viewer");
    expect((await call("signOut", { as: leaving })).status).toBe(200);
    expect((await call("startOidc", { as: null, query: "next=/lineage" })).status).toBe(302);
    expect((await call("finishOidc", { as: null, query: "code=x&state=y" })).status).toBe(302);
  });

  it("system: the document, metrics, probes, search, the change stream and the Git webhook", async () => {
    expect((await call("getOpenApi", { as: null })).status).toBe(200);
    expect((await call("getMetrics", { as: null })).status).toBe(401);
    expect((await call("getMetrics")).status).toBe(200);
    expect((await call("getHealth", { as: null })).status).toBe(200);
    expect((await call("getLiveness", { as: null })).status).toBe(200);
    expect((await call("getReadiness", { as: null })).status).toBe(200);
    expect((await call("search", { query: "q=production" })).status).toBe(200);
    expect((await call("search", { query: "q=" })).status).toBe(400);
    expect((await call("watchChanges", { as: null })).status).toBe(401);
    const live = await call("watchChanges");
    expect(live.status).toBe(200);
    expect(live.text).toContain("event: ready");
    const push = JSON.stringify({ ref: "refs/heads/main", after: "a".repeat(40), repository: { name: "shop", full_name: "acme/shop", clone_url: "https://github.com/acme/shop.git" } });
    expect((await call("receiveGitWebhook", { as: null, body: push })).status).toBe(401);
    expect((await call("receiveGitWebhook", { as: null, body: push, headers: sign(push) })).status).toBe(202);
    const tag = JSON.stringify({ ref: "refs/tags/v1", after: "b".repeat(40), repository: { name: "shop", full_name: "acme/shop", clone_url: "https://github.com/acme/shop.git" } });
    // A tag push is accepted (tag-following discovered applications run on it), named as a tag, not a branch.
    const tagged = await call("receiveGitWebhook", { as: null, body: tag, headers: sign(tag) });
    expect(tagged.status).toBe(202);
    expect(tagged.json).toMatchObject({ ok: true, repository: "shop", tag: "v1" });
  });

  it("every answer above is one the document promises, in the shape its schema says", () => {
    expect(problems).toEqual([]);
  });

  it("called every documented operation and saw its success answer; no route serves anything undocumented", () => {
    const unanswered = (Object.keys(operations) as OperationId[]).filter((id) => !(answered.get(id) ?? []).includes(operations[id].ok.status));
    expect(unanswered, "documented, but never answered with its success status here").toEqual([]);
    const documented = new Set(Object.values(operations).map((o) => `${o.method} ${o.path}`));
    const undocumented = [...handlers.keys()].filter((k) => !documented.has(k));
    expect(undocumented, "route handlers the contract does not document").toEqual([]);
    expect(handlers.size).toBe(documented.size);
  });
});
