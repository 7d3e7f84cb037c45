// Claims as an on-call engineer meets them: claim drift, the claim closes by
// itself when the drift is reverted (or adopted), an expired claim alerts,
// transfer and release, and the adopt patch applies to the real Git file.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { resetEnvCache } from "@/lib/env";
import { environmentSchema } from "@/lib/config/schema";
import { createTestSession, type TestSession } from "@/lib/auth/testing";
import { refreshAlerts } from "@/lib/alerts";
import { closeClaimsForResolvedDrift, createClaim, releaseClaim, transferClaim } from "@/lib/claims";
import type { Change } from "@/lib/drift/types";
import { POST as postClaim } from "@/app/api/claims/route";
import { GET as getAdoptPatch } from "@/app/api/claims/[id]/adopt.patch/route";

const git = promisify(execFile);
const db = getPrisma();
let operator: TestSession;
let viewer: TestSession;
let envId = "";
let tmp = "";
const savedDataDir = process.env.DRIFTWATCH_DATA_DIR;

const attribution = { manager: "kubectl-edit", operation: "Update" as const, subresource: null, time: "2024-05-01T11:58:00Z", class: "human" as const };
const CHANGES: Change[] = [
  { path: ["spec", "replicas"], display: "spec.replicas", kind: "changed", desired: 2, live: 6, attribution },
  {
    path: ["spec", "template", "spec", "containers", 0, "image"],
    display: "spec.template.spec.containers[name=api].image",
    kind: "changed",
    desired: "shop/api:1.4.0",
    live: "shop/api:1.4.1-hotfix",
    attribution,
  },
];

const GIT_FILE = `# Shop API, production
apiVersion: v1
kind: Service
metadata:
  name: api
  namespace: shop
spec:
  ports:
    - port: 80
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  namespace: shop
spec:
  replicas: 2 # two for HA
  template:
    spec:
      containers:
        - name: api
          image: shop/api:1.4.0
`;

async function gitIn(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await git("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", ...args], { cwd });
  return stdout.trim();
}

let sha = "";

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-claims-"));
  const work = path.join(tmp, "work");
  fs.mkdirSync(path.join(work, "production"), { recursive: true });
  fs.writeFileSync(path.join(work, "production", "api.yaml"), GIT_FILE);
  await gitIn(work, "init", "-q");
  await gitIn(work, "add", ".");
  await gitIn(work, "commit", "-q", "-m", "shop api");
  sha = await gitIn(work, "rev-parse", "HEAD");
  fs.mkdirSync(path.join(tmp, "data", "mirrors"), { recursive: true });
  await gitIn(tmp, "clone", "-q", "--mirror", work, path.join(tmp, "data", "mirrors", "shop.git"));
  process.env.DRIFTWATCH_DATA_DIR = path.join(tmp, "data");
  resetEnvCache();
});

afterAll(async () => {
  if (savedDataDir === undefined) delete process.env.DRIFTWATCH_DATA_DIR;
  else process.env.DRIFTWATCH_DATA_DIR = savedDataDir;
  resetEnvCache();
  fs.rmSync(tmp, { recursive: true, force: true });
  await disconnectPrisma();
});

beforeEach(async () => {
  await resetDatabase(db);
  operator = await createTestSession(db, "operator", "olivia");
  viewer = await createTestSession(db, "viewer", "victor");
  await createTestSession(db, "operator", "bob");
  const repo = await db.repository.create({ data: { name: "shop", url: "https://git.example/shop.git" } });
  const spec = environmentSchema.parse({ name: "production", cluster: { kubeconfig: "/nonexistent" }, source: { repository: "shop", path: "production" }, interval: "1m" });
  envId = (await db.environment.create({ data: { name: "production", position: 0, branch: "main", path: "production", repositoryId: repo.id, spec: JSON.parse(JSON.stringify(spec)) as object } })).id;
});

async function drift(name: string, over: Record<string, unknown> = {}) {
  const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
  return db.driftItem.create({
    data: {
      environmentId: envId,
      key: `apps/Deployment/shop/${name}`,
      apiVersion: "apps/v1",
      kind: "Deployment",
      namespace: "shop",
      name,
      type: "Modified",
      changes: CHANGES as unknown as object,
      attributionManager: "kubectl-edit",
      openedAt: minutesAgo(10),
      lastSeenAt: minutesAgo(0),
      ...over,
    },
  });
}

const olivia = () => ({ type: "user" as const, id: operator.user.id, name: "olivia" });

function post(url: string, body: unknown, headers: Record<string, string>): NextRequest {
  return new NextRequest(url, { method: "POST", headers: { host: "localhost", ...headers }, body: JSON.stringify(body) });
}

describe("claiming drift", () => {
  it("an operator claims a drift item; the claim closes itself as reverted when the drift is reverted", async () => {
    const item = await drift("api");
    const body = { driftItemIds: [item.id], reason: "scaled up for the sale (INC-7)", duration: "4h", returnPath: "revert", incidentUrl: "https://incidents.example/INC-7" };
    expect((await postClaim(post("http://localhost/api/claims", body, viewer.headers), { params: Promise.resolve({}) })).status).toBe(403);

    const res = await postClaim(post("http://localhost/api/claims", body, operator.headers), { params: Promise.resolve({}) });
    expect(res.status).toBe(201);
    const { claim } = (await res.json()) as { claim: { id: string; owner: string; status: string; items: Array<{ key: string }> } };
    expect(claim).toMatchObject({ owner: "olivia", status: "active", items: [{ key: "apps/Deployment/shop/api" }] });
    expect(await db.auditEvent.count({ where: { action: "claim.created", actorName: "olivia", targetId: claim.id } })).toBe(1);

    const again = await postClaim(post("http://localhost/api/claims", body, operator.headers), { params: Promise.resolve({}) });
    expect(again.status).toBe(409);

    // The collector sees the drift gone (reverted) and tells the claims.
    await db.driftItem.update({ where: { id: item.id }, data: { resolvedAt: new Date(), resolution: "reverted" } });
    expect(await closeClaimsForResolvedDrift(db, [item.id])).toEqual([claim.id]);
    const closed = await db.divergenceClaim.findUniqueOrThrow({ where: { id: claim.id } });
    expect(closed).toMatchObject({ status: "resolved", endReason: "reverted" });
    const audit = await db.auditEvent.findFirstOrThrow({ where: { action: "claim.resolved" } });
    expect(audit).toMatchObject({ actorName: "collector", reason: "reverted", environment: "production" });
    expect(await closeClaimsForResolvedDrift(db, [item.id])).toEqual([]); // once
  });

  it("a claim over several items ends only when all resolved, recording how", async () => {
    const a = await drift("api");
    const b = await drift("worker");
    const claim = await createClaim(db, { driftItemIds: [a.id, b.id], reason: "tuning", duration: "1h", returnPath: "adopt" }, olivia());
    await db.driftItem.update({ where: { id: a.id }, data: { resolvedAt: new Date(), resolution: "adopted", resolutionSha: sha } });
    expect(await closeClaimsForResolvedDrift(db, [a.id])).toEqual([]);
    expect(await closeClaimsForResolvedDrift(db, [b.id], { resolution: "adopted", sha })).toEqual([claim.id]);
    const closed = await db.divergenceClaim.findUniqueOrThrow({ where: { id: claim.id } });
    expect(closed.endReason).toBe(`adopted in commit ${sha.slice(0, 12)}`);
    expect(closed.resolutionSha).toBe(sha);
  });

  it("an expired claim raises an alert; released, its drift is unowned again", async () => {
    const item = await drift("api");
    const claim = await createClaim(db, { driftItemIds: [item.id], reason: "debugging", duration: "30m", returnPath: "revert" }, olivia(), new Date(Date.now() - 3_600_000));
    const synced = await refreshAlerts(db, envId);
    const alerts = await db.alert.findMany({ where: { resolvedAt: null } });
    expect(alerts.map((a) => a.type)).toEqual(["claim_expired"]);
    expect(alerts[0]!.title).toContain("olivia");
    expect(synced.opened).toHaveLength(1);
    expect(await db.auditEvent.count({ where: { action: "claim.expired", targetId: claim.id } })).toBe(1);

    await releaseClaim(db, claim.id, { reason: "done debugging" }, olivia());
    const after = await refreshAlerts(db, envId);
    expect(after.resolved).toEqual([alerts[0]!.id]);
    expect((await db.alert.findFirstOrThrow({ where: { resolvedAt: null } })).type).toBe("drift_unowned");
    expect(await db.auditEvent.count({ where: { action: "claim.released" } })).toBe(1);
  });

  it("transfers a claim to a named user", async () => {
    const item = await drift("api");
    const claim = await createClaim(db, { driftItemIds: [item.id], owner: "bob", reason: "bob's experiment", duration: "2h", returnPath: "revert" }, olivia());
    expect(claim.owner).toBe("bob");
    const moved = await transferClaim(db, claim.id, { owner: "olivia", reason: "bob is off shift" }, olivia());
    expect(moved).toMatchObject({ owner: "olivia", status: "active", expiresAt: claim.expiresAt });
    expect((await db.divergenceClaim.findUniqueOrThrow({ where: { id: claim.id } })).status).toBe("transferred");
    await expect(transferClaim(db, claim.id, { owner: "bob" }, olivia())).rejects.toThrow(/already transferred/);
    const audit = await db.auditEvent.findFirstOrThrow({ where: { action: "claim.transferred" } });
    expect(audit).toMatchObject({ before: { owner: "bob" }, after: { owner: "olivia", claimId: moved.id } });
  });
});

describe("adopting live changes into Git", () => {
  it("produces a patch of the Git file that makes it match live, and it applies", async () => {
    const item = await drift("api");
    const desiredBody = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "api", namespace: "shop" }, spec: { replicas: 2 } };
    await db.objectBlob.create({ data: { hash: "d1", body: desiredBody, size: 1 } });
    await db.desiredObject.create({
      data: { environmentId: envId, key: item.key, apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name: "api", blobHash: "d1", revisionSha: sha, sourcePath: "production/api.yaml" },
    });
    const claim = await createClaim(db, { driftItemIds: [item.id], reason: "keep the hotfix", duration: "1d", returnPath: "adopt" }, olivia());

    const res = await getAdoptPatch(new NextRequest(`http://localhost/api/claims/${claim.id}/adopt.patch`, { headers: { cookie: viewer.cookie } }), {
      params: Promise.resolve({ id: claim.id }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toMatch(/attachment; filename=".*adopt\.patch"/);
    const patch = await res.text();
    expect(patch).toContain("--- a/production/api.yaml");
    expect(patch).toContain("-  replicas: 2 # two for HA");
    expect(patch).toContain("+  replicas: 6 # two for HA");
    expect(patch).toContain("+          image: shop/api:1.4.1-hotfix");

    const checkout = path.join(tmp, "checkout");
    fs.rmSync(checkout, { recursive: true, force: true });
    await gitIn(tmp, "clone", "-q", path.join(tmp, "data", "mirrors", "shop.git"), checkout);
    fs.writeFileSync(path.join(tmp, "adopt.patch"), patch);
    await gitIn(checkout, "apply", "-p1", path.join(tmp, "adopt.patch"));
    const applied = fs.readFileSync(path.join(checkout, "production", "api.yaml"), "utf8");
    expect(applied).toBe(GIT_FILE.replace("replicas: 2", "replicas: 6").replace("image: shop/api:1.4.0", "image: shop/api:1.4.1-hotfix"));
  });

  it("falls back to the whole object, desired against live, when the defining file is not in the repository", async () => {
    const item = await drift("ghost", { key: "apps/Deployment/shop/ghost", name: "ghost" });
    await db.objectBlob.createMany({
      data: [
        { hash: "d2", body: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "ghost", namespace: "shop" }, spec: { replicas: 1 } }, size: 1 },
        { hash: "l2", body: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "ghost", namespace: "shop", uid: "x" }, spec: { replicas: 3 } }, size: 1 },
      ],
    });
    await db.desiredObject.create({
      data: { environmentId: envId, key: item.key, apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name: "ghost", blobHash: "d2", revisionSha: sha, sourcePath: "base/ghost.yaml" },
    });
    await db.liveObject.create({ data: { environmentId: envId, key: item.key, apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name: "ghost", blobHash: "l2" } });
    const claim = await createClaim(db, { driftItemIds: [item.id], reason: "keep", duration: "1h", returnPath: "adopt" }, olivia());
    const res = await getAdoptPatch(new NextRequest(`http://localhost/api/claims/${claim.id}/adopt.patch?format=json`, { headers: { cookie: viewer.cookie } }), {
      params: Promise.resolve({ id: claim.id }),
    });
    const body = (await res.json()) as { files: Array<{ path: string; change: string }>; patch: string; notes: string[] };
    expect(body.files).toEqual([{ path: "base/ghost.yaml", change: "approximate", objects: ["Deployment/shop/ghost"] }]);
    expect(body.patch).toContain("-  replicas: 1");
    expect(body.patch).toContain("+  replicas: 3");
    expect(body.patch).not.toContain("uid");
    expect(body.notes.join(" ")).toMatch(/not found in the repository/);
  });
});
