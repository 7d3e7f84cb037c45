// Raw snapshot retention on real collections: old versions go (each object's
// newest stays), unreferenced bodies go, current state, drift items and the
// audit log stay, and an object returning to an old, pruned content is
// stored again correctly.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCollectorFixture, deploymentYaml, KUBECTL_UA, type CollectorFixture } from "@/test/support/collector-env";
import { resourcePath } from "@/lib/kube/discovery";
import { pruneRawSnapshots } from "./retention";

let f: CollectorFixture;
const api = deploymentYaml("api", "shop/api:1.4.0", 3);
const config = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", namespace: "shop" }, data: { A: "1" } };
const DAY = 86_400_000;

async function scale(replicas: number) {
  const r = f.admin.discovery.lookup("apps/v1", "Deployment");
  if (!r) throw new Error("no deployments");
  await f.admin.client.requestJson("PATCH", resourcePath(r, "shop", "api") + "/scale", { body: { spec: { replicas } }, contentType: "application/merge-patch+json", userAgent: KUBECTL_UA });
}

beforeEach(async () => {
  f = await createCollectorFixture({ "envs/test/app.yaml": [api, config] });
  await f.applyAsController([api, config]);
});
afterEach(async () => {
  await f.cleanup();
});

describe("pruneRawSnapshots", () => {
  it("keeps each object's newest version and everything current; drops older versions and orphaned bodies", async () => {
    const first = await f.run();
    await scale(5);
    const second = await f.run();
    await scale(7);
    await f.run();
    // The first two runs happened 40 days ago.
    const old = new Date(Date.now() - 40 * DAY);
    await f.db.objectVersion.updateMany({ where: { runId: { in: [first.runId, second.runId] } }, data: { observedAt: old } });
    await f.db.objectBlob.updateMany({ data: { createdAt: old } });

    const liveBefore = await f.db.liveObject.findMany({ orderBy: { key: "asc" } });
    const drift = await f.db.driftItem.findMany({ orderBy: { id: "asc" } });
    const audit = await f.db.auditEvent.count();
    const versionsBefore = await f.db.objectVersion.count();

    const result = await pruneRawSnapshots(f.db, { retentionMs: 30 * DAY });
    // Deployment api (live): replicas 3 and 5 are superseded by 7; ConfigMap and desired objects keep their only version.
    expect(result.versionsDeleted).toBe(2);
    expect(await f.db.objectVersion.count()).toBe(versionsBefore - 2);
    const apiVersions = await f.db.objectVersion.findMany({ where: { key: "apps/Deployment/shop/api", side: "live" } });
    expect(apiVersions).toHaveLength(1);
    const cmVersions = await f.db.objectVersion.findMany({ where: { key: "/ConfigMap/shop/settings", side: "live" } });
    expect(cmVersions).toHaveLength(1);
    expect(result.blobsDeleted).toBe(2);

    // Every current and versioned body is still there.
    const referenced = await f.db.$queryRaw<Array<{ n: number }>>`
      SELECT count(*)::int AS n FROM (
        SELECT "blobHash" h FROM "LiveObject" UNION SELECT "blobHash" FROM "DesiredObject" UNION SELECT "blobHash" FROM "ObjectVersion" WHERE "blobHash" IS NOT NULL
      ) r WHERE NOT EXISTS (SELECT 1 FROM "ObjectBlob" b WHERE b.hash = r.h)`;
    expect(referenced[0]?.n).toBe(0);
    expect(await f.db.liveObject.findMany({ orderBy: { key: "asc" } })).toEqual(liveBefore);
    expect(await f.db.driftItem.findMany({ orderBy: { id: "asc" } })).toEqual(drift);
    expect(await f.db.auditEvent.count()).toBe(audit);

    // Back to an old, pruned content: stored again, and the object page can read it.
    await scale(3);
    const back = await f.run();
    expect(back.status).toBe("succeeded");
    const row = await f.db.liveObject.findUniqueOrThrow({ where: { environmentId_key: { environmentId: row0(liveBefore).environmentId, key: "apps/Deployment/shop/api" } } });
    expect(await f.db.objectBlob.findUnique({ where: { hash: row.blobHash } })).not.toBeNull();

    // A second pass finds nothing more to do.
    expect(await pruneRawSnapshots(f.db, { retentionMs: 30 * DAY })).toMatchObject({ versionsDeleted: 0, blobsDeleted: 0 });
  }, 60_000);

  it("prunes nothing within the window", async () => {
    await f.run();
    await scale(5);
    await f.run();
    const result = await pruneRawSnapshots(f.db, { retentionMs: 30 * DAY });
    expect(result).toMatchObject({ versionsDeleted: 0, blobsDeleted: 0 });
  });
});

function row0<T>(rows: T[]): T {
  const r = rows[0];
  if (!r) throw new Error("no rows");
  return r;
}
