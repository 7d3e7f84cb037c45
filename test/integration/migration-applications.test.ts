// The applications migration on a database the previous release wrote: every
// environment becomes one declared application named "default", everything
// that belonged to the environment now belongs to it, and nothing is lost.
import crypto from "node:crypto";
import fsp from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { applyMigrations, pendingMigrations, readMigrations } from "@/lib/db/migrate";

const migrationsDir = path.resolve(import.meta.dirname, "../../prisma/migrations");
const APPLICATIONS_MIGRATION = "20261203192159_applications";

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const TABLES = ["Environment", "Repository", "DesiredObject", "LiveObject", "DriftItem", "AppliedRevision", "Pause", "ClaimItem", "DivergenceClaim", "CollectionRun", "AuditEvent"];

describe("migration 20261203192159_applications on a database of the previous release", () => {
  const superuser = () => inject("superuserDatabaseUrl");
  const name = `dw_apps_${crypto.randomBytes(4).toString("hex")}`;
  let url: string;
  let previousDir: string;
  const ids = { repo: crypto.randomUUID(), prod: crypto.randomUUID(), old: crypto.randomUUID(), user: crypto.randomUUID(), claim: crypto.randomUUID(), openDrift: crypto.randomUUID(), resolvedDrift: crypto.randomUUID() };
  let countsBefore: Record<string, number>;

  beforeAll(async () => {
    await withClient(superuser(), (c) => c.query(`CREATE DATABASE "${name}"`));
    url = withDatabase(superuser(), name);
    // The previous release's migrations: every committed one before this.
    previousDir = await fsp.mkdtemp(path.join(os.tmpdir(), "driftwatch-prev-migrations-"));
    const all = await readMigrations(migrationsDir);
    const previous = all.filter((m) => m.name < APPLICATIONS_MIGRATION);
    expect(previous.map((m) => m.name)).toEqual(["20261202140315_init", "20261202140400_constraints", "20261202173000_change_feed"]);
    for (const m of previous) await fsp.cp(path.dirname(m.file), path.join(previousDir, m.name), { recursive: true });
    await applyMigrations(url, { migrationsDir: previousDir });

    // Rows as the previous release wrote them (its column set, its JSON shapes).
    await withClient(url, async (c) => {
      await c.query(`INSERT INTO "Repository" (id, name, url) VALUES ($1, 'shop', 'https://git.example/shop.git')`, [ids.repo]);
      const prodSpec = { name: "production", cluster: { kubeconfig: "/k", context: "prod" }, source: { repository: "shop", branch: "main", path: "deploy/prod", render: "kustomize" }, controller: { type: "flux", namespace: "flux-system", name: "shop" }, namespaces: [], ignore: [] };
      const oldSpec = { name: "legacy", cluster: { kubeconfig: "/k", context: "legacy" }, source: { repository: "shop", branch: "release", path: "." }, namespaces: [], ignore: [] };
      await c.query(
        `INSERT INTO "Environment" (id, name, position, "repositoryId", branch, path, spec, "approvedSha", "approvedAt", "appliedSha", "appliedSource", "appliedSince", controller, rollout, "objectCount", "lastGoodCollectedAt", "lastCollectedAt", "createdAt")
         VALUES ($1, 'production', 0, $2, 'main', 'deploy/prod', $3, 'bbbb', '2026-12-01T10:00:00Z', 'aaaa', 'controller', '2026-12-01T09:00:00Z', '{"type":"flux","found":true}', '[{"key":"apps/Deployment/shop/web","ready":2}]', 7, '2026-12-02T12:00:00Z', '2026-12-02T12:00:00Z', '2026-11-01T00:00:00Z')`,
        [ids.prod, ids.repo, JSON.stringify(prodSpec)],
      );
      await c.query(
        `INSERT INTO "Environment" (id, name, position, "repositoryId", branch, path, spec, "removedAt", "createdAt", "lastError")
         VALUES ($1, 'legacy', 1, $2, 'release', '.', $3, '2026-11-20T00:00:00Z', '2026-10-01T00:00:00Z', '{"message":"unreachable","at":"2026-11-19T00:00:00Z"}')`,
        [ids.old, ids.repo, JSON.stringify(oldSpec)],
      );
      for (const env of [ids.prod, ids.old]) {
        await c.query(`INSERT INTO "DesiredObject" ("environmentId", key, "apiVersion", kind, namespace, name, "blobHash", "revisionSha", "sourcePath") VALUES ($1, 'apps/Deployment/shop/web', 'apps/v1', 'Deployment', 'shop', 'web', 'h1', 'aaaa', 'web.yaml')`, [env]);
        await c.query(`INSERT INTO "LiveObject" ("environmentId", key, "apiVersion", kind, namespace, name, "blobHash") VALUES ($1, 'apps/Deployment/shop/web', 'apps/v1', 'Deployment', 'shop', 'web', 'h2')`, [env]);
        await c.query(`INSERT INTO "AppliedRevision" ("environmentId", sha, source, "firstSeenAt", "lastSeenAt", "endedAt") VALUES ($1, 'a0a0', 'inferred', '2026-11-01T00:00:00Z', '2026-11-30T00:00:00Z', '2026-11-30T00:00:00Z')`, [env]);
        await c.query(`INSERT INTO "AppliedRevision" ("environmentId", sha, source, "firstSeenAt", "lastSeenAt") VALUES ($1, 'aaaa', 'controller', '2026-11-30T00:00:00Z', '2026-12-02T12:00:00Z')`, [env]);
      }
      await c.query(`INSERT INTO "DriftItem" (id, "environmentId", key, "apiVersion", kind, namespace, name, type, changes, "openedAt", "lastSeenAt", "attributionManager") VALUES ($1, $2, 'apps/Deployment/shop/web', 'apps/v1', 'Deployment', 'shop', 'web', 'Modified', '[{"display":"spec.replicas"}]', '2026-12-02T11:00:00Z', '2026-12-02T12:00:00Z', 'kubectl-scale')`, [ids.openDrift, ids.prod]);
      await c.query(`INSERT INTO "DriftItem" (id, "environmentId", key, "apiVersion", kind, namespace, name, type, "openedAt", "lastSeenAt", "resolvedAt", resolution) VALUES ($1, $2, '/ConfigMap/shop/cfg', 'v1', 'ConfigMap', 'shop', 'cfg', 'Missing', '2026-12-01T11:00:00Z', '2026-12-01T12:00:00Z', '2026-12-01T12:00:00Z', 'reverted')`, [ids.resolvedDrift, ids.prod]);
      await c.query(`INSERT INTO "User" (id, username, role) VALUES ($1, 'alice', 'operator')`, [ids.user]);
      await c.query(`INSERT INTO "DivergenceClaim" (id, "ownerId", "createdById", reason, "expiresAt", "returnPath") VALUES ($1, $2, $2, 'load test', '2026-12-09T00:00:00Z', 'revert')`, [ids.claim, ids.user]);
      await c.query(`INSERT INTO "ClaimItem" ("claimId", "driftItemId") VALUES ($1, $2)`, [ids.claim, ids.openDrift]);
      // A pause of the whole environment (still running) and one of its controller object (ended).
      await c.query(`INSERT INTO "Pause" ("environmentId", origin, "createdById", reason, "startedAt") VALUES ($1, 'dashboard', $2, 'freeze', '2026-12-02T08:00:00Z')`, [ids.prod, ids.user]);
      await c.query(`INSERT INTO "Pause" ("environmentId", "controllerRef", origin, "startedAt", "endedAt", "detectedManager") VALUES ($1, 'Kustomization/flux-system/shop', 'detected', '2026-11-20T08:00:00Z', '2026-11-21T08:00:00Z', 'kubectl-patch')`, [ids.prod]);
      await c.query(`INSERT INTO "CollectionRun" ("environmentId", status, trigger) VALUES ($1, 'succeeded', 'schedule')`, [ids.prod]);
      countsBefore = await counts(c);
    });
  });

  afterAll(async () => {
    await withClient(superuser(), (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    if (previousDir) await fsp.rm(previousDir, { recursive: true, force: true });
  });

  async function counts(c: pg.Client): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const t of TABLES) out[t] = Number((await c.query<{ n: string }>(`SELECT count(*) AS n FROM "${t}"`)).rows[0]!.n);
    return out;
  }

  it("applies on top of the previous release's schema and loses no row", async () => {
    expect(await pendingMigrations(url)).toEqual((await readMigrations(migrationsDir)).filter((m) => m.name >= APPLICATIONS_MIGRATION).map((m) => m.name));
    const { applied } = await applyMigrations(url);
    expect(applied).toContain(APPLICATIONS_MIGRATION);
    await withClient(url, async (c) => {
      expect(await counts(c)).toEqual(countsBefore);
      // The claim still points at its drift item, and the item still has its content.
      const item = (await c.query(`SELECT d.changes, d."attributionManager" FROM "ClaimItem" ci JOIN "DriftItem" d ON d.id = ci."driftItemId" WHERE ci."claimId" = $1`, [ids.claim])).rows;
      expect(item).toEqual([{ changes: [{ display: "spec.replicas" }], attributionManager: "kubectl-scale" }]);
    });
  });

  it("turns every environment into one declared application carrying its observed state", async () => {
    await withClient(url, async (c) => {
      const apps = (await c.query(`SELECT a.*, e.name AS env FROM "Application" a JOIN "Environment" e ON e.id = a."environmentId" ORDER BY e.position`)).rows;
      expect(apps).toHaveLength(2);
      const [prod, legacy] = apps;
      expect(prod).toMatchObject({
        env: "production",
        name: "default",
        promotionKey: "default",
        kind: "flux-kustomization",
        controllerRef: { type: "flux", kind: "Kustomization", namespace: "flux-system", name: "shop" },
        sources: [{ url: "https://git.example/shop.git", repository: "shop", ref: { branch: "main" }, path: "deploy/prod", render: "kustomize" }],
        approvedSha: "bbbb",
        appliedSha: "aaaa",
        appliedSource: "controller",
        controller: { type: "flux", found: true },
        rollout: [{ key: "apps/Deployment/shop/web", ready: 2 }],
        objectCount: 7,
        driftCount: 1,
        removedAt: null,
      });
      expect(prod.appliedSince.toISOString()).toBe("2026-12-01T09:00:00.000Z");
      expect(prod.firstSeenAt.toISOString()).toBe("2026-11-01T00:00:00.000Z");
      // A removed environment's application is removed too; its history is kept.
      expect(legacy).toMatchObject({ env: "legacy", name: "default", kind: "declared", controllerRef: null, sources: [{ ref: { branch: "release" }, path: ".", render: "plain" }], lastError: { message: "unreachable" } });
      expect(legacy.removedAt.toISOString()).toBe("2026-11-20T00:00:00.000Z");
    });
  });

  it("gives every row of an environment its application, and the environment its rollups", async () => {
    await withClient(url, async (c) => {
      for (const t of ["DesiredObject", "LiveObject", "DriftItem", "AppliedRevision"]) {
        const unattributed = (await c.query(`SELECT count(*)::int AS n FROM "${t}" o LEFT JOIN "Application" a ON a.id = o."applicationId" WHERE a."environmentId" IS DISTINCT FROM o."environmentId"`)).rows[0].n;
        expect(unattributed, t).toBe(0);
      }
      const pauses = (await c.query(`SELECT "controllerRef", "applicationId" IS NOT NULL AS "targetsApplication" FROM "Pause" ORDER BY "startedAt"`)).rows;
      expect(pauses).toEqual([
        { controllerRef: "Kustomization/flux-system/shop", targetsApplication: true },
        { controllerRef: null, targetsApplication: false },
      ]);
      const rollups = (await c.query(`SELECT name, "applicationsTotal", "applicationsInSync", "applicationsDrifted", "applicationsStale", "applicationsPaused", "applicationsFailing" FROM "Environment" ORDER BY position`)).rows;
      expect(rollups).toEqual([
        { name: "production", applicationsTotal: 1, applicationsInSync: 0, applicationsDrifted: 1, applicationsStale: 1, applicationsPaused: 1, applicationsFailing: 0 },
        { name: "legacy", applicationsTotal: 0, applicationsInSync: 0, applicationsDrifted: 0, applicationsStale: 0, applicationsPaused: 0, applicationsFailing: 0 },
      ]);
      // The lineage of production is still in order, now per application.
      const lineage = (await c.query(`SELECT r.sha, r."endedAt" IS NULL AS current FROM "AppliedRevision" r JOIN "Application" a ON a.id = r."applicationId" JOIN "Environment" e ON e.id = a."environmentId" WHERE e.name = 'production' ORDER BY r."firstSeenAt"`)).rows;
      expect(lineage).toEqual([{ sha: "a0a0", current: false }, { sha: "aaaa", current: true }]);
    });
  });
});
