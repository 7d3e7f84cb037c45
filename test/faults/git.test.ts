// Git-side faults with a real Git repository (and a real smart-HTTP server):
// a remote that goes away, credentials it rejects, history rewritten by a
// force push, the repository deleted, and manifests that are broken,
// duplicated, huge, or very many.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createCollectorFixture, deploymentYaml, KUBECTL_UA, type CollectorFixture } from "../support/collector-env";
import { resourcePath } from "@/lib/kube/discovery";
import { startGitHttpServer, type GitHttpServer } from "@/lib/git/test-support/git-http-server";
import type { DriftwatchConfig } from "@/lib/config";
import { getEnvironmentDetail } from "@/lib/dashboard";
import { expectFailureRecorded, expectNoDuplicates, expectRecovered, expectStateKept, runWith, startSwitchableProxy, storedState, type StoredState, type SwitchableProxy } from "./support";

const api = deploymentYaml("api", "shop/api:1.4.0", 3);
const settings = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", namespace: "shop" }, data: { MODE: "live" } };
const worker = deploymentYaml("worker", "shop/worker:2.0.0", 1);

let f: CollectorFixture;

async function scaleByHand(name: string, replicas: number): Promise<void> {
  const r = f.admin.discovery.lookup("apps/v1", "Deployment");
  if (!r) throw new Error("no deployments");
  await f.admin.client.requestJson("PATCH", resourcePath(r, "shop", name) + "/scale", { body: { spec: { replicas } }, contentType: "application/merge-patch+json", userAgent: KUBECTL_UA });
}

function yamlOf(...objs: unknown[]): string {
  return objs.map((o) => stringify(o)).join("---\n");
}

beforeEach(async () => {
  f = await createCollectorFixture({ "envs/test/app.yaml": [api, settings], "envs/test/worker.yaml": [worker] });
  await f.applyAsController([api, settings, worker]);
});
afterEach(async () => {
  await f.cleanup();
});

describe("Git remote over HTTP", () => {
  const TOKEN_ENV = "DW_FAULT_GIT_TOKEN";
  const TOKEN = "ghp_faultSuiteToken0123456789abcdef";
  let server: GitHttpServer;
  let proxy: SwitchableProxy;
  let config: DriftwatchConfig;

  beforeEach(async () => {
    server = await startGitHttpServer({ projectRoot: path.dirname(f.repo.dir), username: "x-access-token", token: TOKEN });
    const origin = new URL(server.origin);
    proxy = await startSwitchableProxy({ host: origin.hostname, port: Number(origin.port) });
    const url = `${proxy.url}/${path.basename(f.repo.dir)}`;
    config = { ...f.config, repositories: f.config.repositories.map((r) => ({ ...r, url, auth: { type: "token" as const, tokenEnv: TOKEN_ENV, username: "x-access-token" } })) };
    process.env[TOKEN_ENV] = TOKEN;
  });
  afterEach(async () => {
    delete process.env[TOKEN_ENV];
    await proxy.close();
    await server.close();
  });

  const run = (overrides = {}) => runWith({ db: f.db, dir: f.dir, config }, { gitTimeoutMs: 3_000, ...overrides });

  it("remote unreachable (refused, then silent): git-fetch, last good state kept, recovers", async () => {
    await run();
    await scaleByHand("api", 5);
    expect((await run()).stats?.drift.Modified).toBe(1);
    const before = await storedState(f.db);

    proxy.mode = "refuse";
    await expectFailureRecorded(f.db, await run(), /^git-fetch$/);
    expectStateKept(before, await storedState(f.db));
    proxy.mode = "hang";
    const started = Date.now();
    await expectFailureRecorded(f.db, await run(), /^git-fetch$/);
    expect(Date.now() - started).toBeLessThan(15_000);
    expectStateKept(before, await storedState(f.db));
    const repo = await f.db.repository.findUniqueOrThrow({ where: { name: "shop" } });
    expect(repo.lastError).toBeTruthy();

    proxy.mode = "up";
    await expectRecovered(f.db, await run());
    expect((await f.db.repository.findUniqueOrThrow({ where: { name: "shop" } })).lastError).toBeNull();
    await expectNoDuplicates(f.db);
  });

  it("credentials rejected: git-auth, no trace of the token anywhere, recovers with the right token", async () => {
    await run();
    const before = await storedState(f.db);
    process.env[TOKEN_ENV] = "ghp_revokedToken_fedcba9876543210";
    const failed = await run();
    await expectFailureRecorded(f.db, failed, /^git-auth$/);
    expect(server.rejected).toBeGreaterThan(0);
    expectStateKept(before, await storedState(f.db));
    for (const needle of [TOKEN, "ghp_revokedToken_fedcba9876543210"]) {
      const hits = await f.db.$queryRawUnsafe<Array<{ n: number }>>(
        `SELECT ((SELECT count(*) FROM "CollectionRun" WHERE errors::text LIKE $1) + (SELECT count(*) FROM "Environment" WHERE coalesce("lastError"::text, '') LIKE $1)
               + (SELECT count(*) FROM "Repository" WHERE coalesce("lastError", '') || url LIKE $1) + (SELECT count(*) FROM "AuditEvent" WHERE coalesce(after::text, '') || coalesce(before::text, '') LIKE $1))::int AS n`,
        `%${needle}%`,
      );
      expect(hits[0]?.n).toBe(0);
    }
    process.env[TOKEN_ENV] = TOKEN;
    await expectRecovered(f.db, await run());
    await expectNoDuplicates(f.db);
  });
});

describe("Git history and repository faults", () => {
  it("force-pushed branch (history rewritten): the new tip is approved, the rewritten-away commit stays in history, nothing doubles", async () => {
    const a = f.repo.head();
    await runWith(f);
    f.repo.write("envs/test/app.yaml", yamlOf(deploymentYaml("api", "shop/api:1.4.0", 4), settings));
    const b = f.repo.commit("api: 4 replicas");
    await f.applyAsController([deploymentYaml("api", "shop/api:1.4.0", 4)]);
    expect((await runWith(f)).approvedSha).toBe(b);

    f.repo.git("reset", "--hard", "--quiet", a);
    f.repo.write("envs/test/app.yaml", yamlOf(deploymentYaml("api", "shop/api:1.5.0", 5), settings));
    const c = f.repo.commit("api: 1.5.0 with 5 replicas (rewritten)");
    await f.applyAsController([deploymentYaml("api", "shop/api:1.5.0", 5)]);
    const out = await runWith(f);
    expect(out.status, JSON.stringify(out.errors)).toBe("succeeded");
    expect(out.approvedSha).toBe(c);
    expect(out.stats?.drift).toEqual({ Modified: 0, Missing: 0, Extra: 0 });
    const env = await f.db.environment.findUniqueOrThrow({ where: { name: "test" } });
    expect(env.appliedSha).toBe(c);
    const shas = (await f.db.revision.findMany({ select: { sha: true } })).map((r) => r.sha);
    expect(new Set(shas)).toEqual(new Set([a, b, c]));
    expect((await f.db.branchHead.findFirstOrThrow()).sha).toBe(c);
    const applied = await f.db.appliedRevision.findMany({ orderBy: { firstSeenAt: "asc" } });
    expect(applied.map((x) => x.sha)).toEqual([a, b, c]);
    expect(applied.filter((x) => x.endedAt === null).map((x) => x.sha)).toEqual([c]);
    // A second run after the rewrite changes nothing.
    expect((await runWith(f)).stats).toMatchObject({ blobsWritten: 0, objectsChanged: 0 });
    await expectNoDuplicates(f.db);
  });

  it("repository deleted: git-fetch, last good state kept, recovers when it is back", async () => {
    await runWith(f);
    await scaleByHand("api", 2);
    await runWith(f);
    const before = await storedState(f.db);
    const moved = `${f.repo.dir}-moved`;
    fs.renameSync(f.repo.dir, moved);
    try {
      await expectFailureRecorded(f.db, await runWith(f), /^git-fetch$/);
      expectStateKept(before, await storedState(f.db));
    } finally {
      fs.renameSync(moved, f.repo.dir);
    }
    await expectRecovered(f.db, await runWith(f));
    await expectNoDuplicates(f.db);
  });
});

describe("manifest faults", () => {
  async function breakAppYaml(): Promise<StoredState> {
    await runWith(f);
    const before = await storedState(f.db);
    f.repo.write("envs/test/app.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: shop\nspec:\n  replicas: [3\n");
    f.repo.commit("break app.yaml");
    return before;
  }

  it("malformed YAML: file and line reported, that file's objects keep their last good desired state, the other files are compared, recovers", async () => {
    const before = await breakAppYaml();
    await scaleByHand("worker", 4); // in an intact file
    const out = await runWith(f);
    expect(out.status).toBe("partial");
    const problem = out.errors.find((e) => e.path === "envs/test/app.yaml");
    expect(problem?.category).toBe("parse");
    expect(problem?.line).toBeGreaterThanOrEqual(7);
    const detail = await getEnvironmentDetail(f.db, "test");
    expect(detail.lastRun?.errors.some((e) => e.path === "envs/test/app.yaml" && e.line === problem?.line)).toBe(true);
    const after = await storedState(f.db);
    for (const key of ["apps/Deployment/shop/api", "/ConfigMap/shop/settings"]) {
      expect(after.desired.find((d) => d.key === key)?.blobHash).toBe(before.desired.find((d) => d.key === key)?.blobHash);
    }
    expect(after.drift.some((d) => d.resolvedAt === null && d.type === "Modified" && d.key === "apps/Deployment/shop/worker")).toBe(true);

    f.repo.write("envs/test/app.yaml", yamlOf(api, settings));
    f.repo.commit("fix app.yaml");
    const fixed = await runWith(f);
    expect(fixed.status).toBe("succeeded");
    expect(fixed.errors).toEqual([]);
    await expectNoDuplicates(f.db);
  });

  // Objects of a file that stops parsing are carried as desired; their live side must be
  // read too, or their live rows would be deleted and they would show as false "Missing".
  it("malformed YAML: the broken file's objects are still compared with live (no false Missing, their live rows kept)", async () => {
    const before = await breakAppYaml();
    await scaleByHand("api", 7);
    await runWith(f);
    const after = await storedState(f.db);
    for (const key of ["/ConfigMap/shop/settings"]) {
      expect(after.live.find((l) => l.key === key)).toEqual(before.live.find((l) => l.key === key));
    }
    const open = after.drift.filter((d) => d.resolvedAt === null).map((d) => `${d.type} ${d.key}`).sort();
    expect(open).toEqual(["Modified apps/Deployment/shop/api"]);
  });

  it("duplicate objects: both files named, the first definition used, one desired row and one drift item", async () => {
    await runWith(f);
    f.repo.write("envs/test/zz-copy.yaml", yamlOf({ ...settings, data: { MODE: "copy" } }));
    f.repo.commit("copy settings by mistake");
    const out = await runWith(f);
    expect(out.status).not.toBe("failed");
    const dup = out.errors.find((e) => /duplicate object \/ConfigMap\/shop\/settings/.test(e.message));
    expect(dup?.message).toMatch(/envs\/test\/app\.yaml.*envs\/test\/zz-copy\.yaml/);
    expect(await f.db.desiredObject.count({ where: { key: "/ConfigMap/shop/settings" } })).toBe(1);
    expect((await f.db.desiredObject.findFirstOrThrow({ where: { key: "/ConfigMap/shop/settings" } })).sourcePath).toBe("envs/test/app.yaml");
    expect(await f.db.driftItem.count({ where: { key: "/ConfigMap/shop/settings" } })).toBe(0);
    f.repo.remove("envs/test/zz-copy.yaml");
    f.repo.commit("remove the copy");
    expect((await runWith(f)).errors).toEqual([]);
    await expectNoDuplicates(f.db);
  });

  it("a 20 MB manifest: rendered, stored once, shown as missing, without stopping the rest", async () => {
    await runWith(f);
    const line = `${"0123456789abcdef".repeat(6)}\n`;
    const body = `    ${line}`.repeat(Math.ceil((20 * 1024 * 1024) / (line.length + 4)));
    f.repo.write("envs/test/huge.yaml", `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: huge\n  namespace: shop\ndata:\n  blob: |\n${body}`);
    f.repo.commit("a 20 MB ConfigMap");
    await scaleByHand("worker", 3);
    global.gc?.();
    const rss = process.memoryUsage().rss;
    const started = Date.now();
    const out = await runWith(f);
    const ms = Date.now() - started;
    const grown = process.memoryUsage().rss - rss;
    console.log(`[faults] 20 MB manifest: run ${ms} ms, rss +${Math.round(grown / 1024 / 1024)} MB`);
    expect(out.status, JSON.stringify(out.errors)).not.toBe("failed");
    const open = (await storedState(f.db)).drift.filter((d) => d.resolvedAt === null).map((d) => `${d.type} ${d.key}`).sort();
    expect(open).toEqual(["Missing /ConfigMap/shop/huge", "Modified apps/Deployment/shop/worker"]);
    const blob = await f.db.$queryRaw<Array<{ size: number }>>`SELECT size FROM "ObjectBlob" WHERE size > 10000000`;
    expect(blob).toHaveLength(1);
    expect(ms).toBeLessThan(60_000);
    // Unchanged on the next run: nothing rewritten.
    expect((await runWith(f)).stats).toMatchObject({ blobsWritten: 0 });
    f.repo.remove("envs/test/huge.yaml");
    f.repo.commit("drop it");
    await runWith(f);
    expect((await f.db.driftItem.findFirstOrThrow({ where: { key: "/ConfigMap/shop/huge" } })).resolvedAt).not.toBeNull();
    await expectNoDuplicates(f.db);
  }, 120_000);

  it("a manifest with 10,000 documents: every object collected, in sync, and an unchanged second run writes nothing", async () => {
    const many = Array.from({ length: 10_000 }, (_, i) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${i}`, namespace: "shop" }, data: { index: String(i) } }));
    f.repo.write("envs/test/many.yaml", many.map((o) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${o.metadata.name}\n  namespace: shop\ndata:\n  index: "${o.data.index}"\n`).join("---\n"));
    f.repo.commit("10,000 ConfigMaps in one file");
    // Straight into the imitation's store: 10,000 writes through the API would take most of a minute.
    if (f.cluster.kubesim) f.cluster.kubesim.seed(many, { manager: "kustomize-controller" });
    else await f.seed(many, "kustomize-controller");
    const started = Date.now();
    const first = await runWith(f);
    const firstMs = Date.now() - started;
    expect(first.status, JSON.stringify(first.errors.slice(0, 3))).toBe("succeeded");
    expect(first.stats).toMatchObject({ desired: 10_003, live: 10_003, drift: { Modified: 0, Missing: 0, Extra: 0 } });
    const again = Date.now();
    const second = await runWith(f);
    const secondMs = Date.now() - again;
    console.log(`[faults] 10,000-document manifest: first run ${firstMs} ms, unchanged run ${secondMs} ms`);
    expect(second.stats).toMatchObject({ blobsWritten: 0, objectsChanged: 0 });
    expect(await f.db.desiredObject.count()).toBe(10_003);
    await expectNoDuplicates(f.db);
  }, 120_000);
});
