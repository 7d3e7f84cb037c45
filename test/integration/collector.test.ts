// The collector against a Kubernetes API server (the imitation and a real
// kube-apiserver, the same cases on each) and a real Git repository.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createCollectorFixture, deploymentYaml, KUBECTL_UA, type CollectorFixture } from "../support/collector-env";
import { forEachCluster } from "../support/clusters";
import { resourcePath } from "@/lib/kube/discovery";
import { startWorker, collectorContext } from "@/lib/collector";
import type { RunError } from "@/lib/domain/types";
import { lookupCommit } from "@/lib/dashboard/commits";

const api = deploymentYaml("api", "shop/api:1.4.0", 3, { LOG_FORMAT: "json" });
const config = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "api-config", namespace: "shop" }, data: { CART_TTL: "30m" } };
const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "api-credentials", namespace: "shop" }, type: "Opaque", stringData: { PAYMENT_API_KEY: "canary-value-8d1f0c" } };

let f: CollectorFixture;

async function patchAsKubectl(path: string, body: unknown, contentType: string, fieldManager?: string) {
  await f.admin.client.requestJson("PATCH", path, { body, contentType, userAgent: KUBECTL_UA, query: fieldManager ? { fieldManager } : {} });
}
function deploymentPath(name: string, sub = "") {
  const r = f.admin.discovery.lookup("apps/v1", "Deployment");
  if (!r) throw new Error("no deployments");
  return resourcePath(r, "shop", name) + sub;
}

forEachCluster((server) => {
  beforeEach(async () => {
    f = await createCollectorFixture({ "envs/test/api.yaml": [api, config], "envs/test/secret.yaml": [secret] }, { cluster: server() });
    await f.applyAsController([api, config, secret]);
  });
  afterEach(async () => {
    await f.cleanup();
  });

  describe("collector", () => {
    it("records a first run: revisions, approved revision, desired and live objects, in sync", async () => {
      const out = await f.run();
      expect(out.status).toBe("succeeded");
      expect(out.stats).toMatchObject({ desired: 3, live: 3, drift: { Modified: 0, Missing: 0, Extra: 0 } });
      const env = await f.db.environment.findUniqueOrThrow({ where: { name: "test" } });
      expect(env.approvedSha).toBe(f.repo.head());
      // No controller: the applied revision is inferred from live state, and says so.
      expect(env.appliedSha).toBe(f.repo.head());
      expect(env.appliedSource).toBe("inferred");
      expect(await f.db.revision.count()).toBe(1);
      expect(await f.db.driftItem.count()).toBe(0);
    });

    it("attributes a kubectl scale to manager kubectl, subresource scale, and resolves it as reverted", async () => {
      await f.run();
      await patchAsKubectl(deploymentPath("api", "/scale"), { spec: { replicas: 7 } }, "application/merge-patch+json");
      const drifted = await f.run();
      expect(drifted.stats?.drift.Modified).toBe(1);
      const item = await f.db.driftItem.findFirstOrThrow({ where: { resolvedAt: null } });
      expect(item.key).toBe("apps/Deployment/shop/api");
      const changes = item.changes as Array<{ display: string; kind: string; desired: unknown; live: unknown; attribution: { manager: string; subresource: string; class: string } }>;
      expect(changes).toEqual([expect.objectContaining({ display: "spec.replicas", kind: "changed", desired: 3, live: 7, attribution: expect.objectContaining({ manager: "kubectl", subresource: "scale", class: "human" }) })]);
      expect(item.attributionManager).toBe("kubectl");
      const opened = await f.db.auditEvent.findFirst({ where: { action: "drift.opened" } });
      expect(opened?.actorName).toBe("collector");

      await f.applyAsController([api]);
      await f.run();
      const resolved = await f.db.driftItem.findUniqueOrThrow({ where: { id: item.id } });
      expect(resolved.resolution).toBe("reverted");
      expect(resolved.resolvedAt).not.toBeNull();
    });

    it("sees an env var added with kubectl edit as an added, human change", async () => {
      await f.run();
      await patchAsKubectl(
        deploymentPath("api"),
        { spec: { template: { spec: { containers: [{ name: "api", env: [{ name: "DEBUG", value: "1" }] }] } } } },
        "application/strategic-merge-patch+json",
        "kubectl-edit",
      );
      await f.run();
      const item = await f.db.driftItem.findFirstOrThrow({ where: { resolvedAt: null } });
      const changes = item.changes as Array<{ display: string; kind: string; attribution: { manager: string; class: string } }>;
      expect(changes[0]).toMatchObject({ kind: "added", attribution: { manager: "kubectl-edit", class: "human" } });
      expect(changes[0]?.display).toContain("containers[name=api].env[name=DEBUG]");
    });

    it("never stores a Secret value: a changed value is a masked change and the database holds no trace of it", async () => {
      await f.run();
      const r = f.admin.discovery.lookup("v1", "Secret");
      if (!r) throw new Error("no secrets");
      await patchAsKubectl(resourcePath(r, "shop", "api-credentials"), { stringData: { PAYMENT_API_KEY: "rotated-by-hand-77aa" } }, "application/merge-patch+json", "kubectl-patch");
      await f.run();
      const item = await f.db.driftItem.findFirstOrThrow({ where: { resolvedAt: null, kind: "Secret" } });
      const text = JSON.stringify(item.changes);
      expect(text).toContain("(changed)");
      for (const needle of ["canary-value-8d1f0c", "rotated-by-hand-77aa", Buffer.from("canary-value-8d1f0c").toString("base64"), Buffer.from("rotated-by-hand-77aa").toString("base64")]) {
        const hits = await f.db.$queryRawUnsafe<Array<{ n: number }>>(
          `SELECT (SELECT count(*) FROM "ObjectBlob" WHERE body::text LIKE $1) + (SELECT count(*) FROM "DriftItem" WHERE changes::text LIKE $1) + (SELECT count(*) FROM "AuditEvent" WHERE coalesce(after::text,'') LIKE $1)::int AS n`,
          `%${needle}%`,
        );
        expect(Number(hits[0]?.n)).toBe(0);
      }
    });

    it("writes nothing new when nothing changed (content-addressed, only changes written)", async () => {
      await f.run();
      const blobs = await f.db.objectBlob.count();
      const versions = await f.db.objectVersion.count();
      const second = await f.run();
      expect(second.stats).toMatchObject({ blobsWritten: 0, objectsChanged: 0 });
      expect(await f.db.objectBlob.count()).toBe(blobs);
      expect(await f.db.objectVersion.count()).toBe(versions);
    });

    it("keeps the last good state when the cluster stops answering, shows it stale, and recovers", async () => {
      await f.run();
      const before = await f.db.liveObject.count();
      await f.cluster.faults.unavailable("refuse");
      const failed = await f.run();
      expect(failed.status).toBe("failed");
      expect(failed.errors[0]?.category).toMatch(/unreachable|timeout/);
      const env = await f.db.environment.findUniqueOrThrow({ where: { name: "test" } });
      expect((env.lastError as { category: string }).category).toMatch(/unreachable|timeout/);
      expect(env.lastGoodRunId).not.toBe(failed.runId);
      expect(await f.db.liveObject.count()).toBe(before);
      expect(await f.db.auditEvent.count({ where: { action: "run.failed" } })).toBe(1);

      await f.cluster.faults.unavailable(false);
      const ok = await f.run();
      expect(ok.status).toBe("succeeded");
      const recovered = await f.db.environment.findUniqueOrThrow({ where: { name: "test" } });
      expect(recovered.lastError).toBeNull();
      expect(await f.db.auditEvent.count({ where: { action: "run.recovered" } })).toBe(1);
    }, 90_000);

    it("reports an expired token as unauthorised", async () => {
      await f.cluster.faults.revokeCollectorToken();
      const out = await f.run();
      expect(out.status).toBe("failed");
      expect(out.errors[0]?.category).toBe("unauthorised");
    });

    it("keeps a kind it may no longer read (403) as it was, and says which", async () => {
      await f.run();
      await f.cluster.faults.forbid("configmaps");
      const out = await f.run();
      expect(out.status).toBe("partial");
      expect(out.errors.find((e: RunError) => e.category === "forbidden")?.resource).toContain("configmaps");
      expect(await f.db.liveObject.count({ where: { kind: "ConfigMap" } })).toBe(1);
      expect(await f.db.driftItem.count({ where: { kind: "ConfigMap" } })).toBe(0);
    });

    it("reports a malformed file with its path and line and still compares the rest", async () => {
      await f.run();
      f.repo.write("envs/test/broken.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\n  labels: [unclosed\n");
      f.repo.commit("add a broken file");
      await patchAsKubectl(deploymentPath("api", "/scale"), { spec: { replicas: 5 } }, "application/merge-patch+json");
      const out = await f.run();
      expect(out.status).toBe("partial");
      const problem = out.errors.find((e) => e.path === "envs/test/broken.yaml");
      expect(problem?.line).toBeGreaterThan(0);
      expect(await f.db.driftItem.count({ where: { resolvedAt: null, key: "apps/Deployment/shop/api" } })).toBe(1);
    });

    it("keeps the objects of a renamed file when that file later stops parsing (rows follow their file)", async () => {
      await f.run();
      const secretYaml = stringify(secret);
      f.repo.remove("envs/test/secret.yaml");
      f.repo.write("envs/test/credentials.yaml", secretYaml);
      f.repo.commit("rename secret.yaml to credentials.yaml, content unchanged");
      expect((await f.run()).status).toBe("succeeded");
      const row = await f.db.desiredObject.findFirstOrThrow({ where: { kind: "Secret" } });
      expect(row.sourcePath).toBe("envs/test/credentials.yaml");
      expect(row.revisionSha).toBe(f.repo.head());

      f.repo.write("envs/test/credentials.yaml", `${secretYaml}  extra: [unclosed\n`);
      f.repo.commit("break credentials.yaml");
      const out = await f.run();
      expect(out.status).toBe("partial");
      expect(out.errors.some((e) => e.path === "envs/test/credentials.yaml")).toBe(true);
      // Its Secret keeps its last good desired state: not dropped from Git, not reported as drift.
      expect(await f.db.desiredObject.count({ where: { kind: "Secret" } })).toBe(1);
      expect(await f.db.driftItem.count({ where: { resolvedAt: null } })).toBe(0);
    });

    it("follows a branch force-pushed back to an older commit: the discarded commit is no longer on the branch", async () => {
      const first = f.repo.head();
      await f.run();
      f.repo.write("envs/test/api.yaml", stringify(deploymentYaml("api", "shop/api:1.4.0", 4, { LOG_FORMAT: "json" })) + "---\n" + stringify(config));
      const discarded = f.repo.commit("api: four replicas (to be force-pushed away)");
      await f.run();
      expect((await f.db.branchHead.findFirstOrThrow()).sha).toBe(discarded);

      f.repo.git("reset", "--hard", first);
      expect((await f.run()).status).toBe("succeeded");
      expect((await f.db.branchHead.findFirstOrThrow()).sha).toBe(first);
      expect((await f.db.environment.findUniqueOrThrow({ where: { name: "test" } })).approvedSha).toBe(first);
      // The commit page tells a reviewer the discarded commit is not on the branch.
      const lookup = await lookupCommit(f.db, discarded);
      if (lookup.match !== "exact") throw new Error(`commit ${discarded} not found: ${lookup.match}`);
      expect(lookup.commit.environments.find((e) => e.environment === "test")).toMatchObject({ state: "not-approved", reason: expect.stringContaining("not on ") });
    });

    it("lists a kind Git starts declaring and forgets one Git stops declaring, from one run to the next", async () => {
      // Tracked by label, so a live ConfigMap Git no longer declares would be Extra if its kind were still read
      // (extraKinds: [] — no looking through other kinds — so only the kinds of this run are).
      await f.cleanup();
      const tracked = { ...config, metadata: { ...config.metadata, labels: { team: "shop" } } };
      f = await createCollectorFixture({ "envs/test/api.yaml": [api, tracked], "envs/test/secret.yaml": [secret] }, { envYaml: { trackingLabel: "team=shop", extraKinds: [] }, cluster: server() });
      await f.applyAsController([api, tracked, secret]);
      const account = { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "api", namespace: "shop", labels: { team: "shop" } } };
      await f.applyAsController([account]);
      await f.run();
      expect(await f.db.liveObject.count({ where: { kind: "ConfigMap" } })).toBe(1);
      // The next run starts listing this run's kinds (ConfigMap among them, ServiceAccount not) before it has read Git.
      f.repo.write("envs/test/api.yaml", stringify(api));
      f.repo.write("envs/test/account.yaml", stringify(account));
      f.repo.commit("config map out, service account in");
      const out = await f.run();
      expect(out.status).toBe("succeeded");
      expect(out.stats).toMatchObject({ desired: 3, live: 3, drift: { Modified: 0, Missing: 0, Extra: 0 } });
      const kinds = (await f.db.liveObject.findMany({ select: { kind: true } })).map((r) => r.kind).sort();
      expect(kinds).toEqual(["Deployment", "Secret", "ServiceAccount"]);
      expect(await f.db.driftItem.count()).toBe(0);
    });

    it("resolves drift as adopted when Git changes to match live, naming the commit", async () => {
      await f.run();
      await patchAsKubectl(deploymentPath("api", "/scale"), { spec: { replicas: 4 } }, "application/merge-patch+json");
      await f.run();
      f.repo.write("envs/test/api.yaml", [deploymentYaml("api", "shop/api:1.4.0", 4, { LOG_FORMAT: "json" }), config].map((o) => stringify(o)).join("---\n"));
      const sha = f.repo.commit("api: keep 4 replicas");
      await f.run();
      const item = await f.db.driftItem.findFirstOrThrow({ where: { key: "apps/Deployment/shop/api" } });
      expect(item.resolution).toBe("adopted");
      expect(item.resolutionSha).toBe(sha);
    });

    it("fails a run whose repository cannot be fetched, with category git-fetch, keeping the last good state", async () => {
      await f.run();
      f.repo.cleanup();
      const out = await f.run();
      expect(out.status).toBe("failed");
      expect(out.errors[0]?.category).toBe("git-fetch");
      expect(await f.db.desiredObject.count()).toBe(3);
    });

    it("two workers never run one environment at once", async () => {
      const env = await f.db.environment.findUniqueOrThrow({ where: { name: "test" } });
      await f.db.environment.update({ where: { id: env.id }, data: { spec: { ...(env.spec as object), interval: 200 } } });
      const ctx = collectorContext(f.db, f.config, { mirrorsDir: `${f.dir}/mirrors` });
      const a = startWorker(ctx, { workerId: "a", pollMs: 50 });
      const b = startWorker(ctx, { workerId: "b", pollMs: 50 });
      await new Promise((r) => setTimeout(r, 4_000));
      await Promise.all([a.stop(), b.stop()]);
      const runs = await f.db.collectionRun.findMany({ where: { environmentId: env.id, startedAt: { not: null } }, orderBy: { startedAt: "asc" } });
      expect(runs.length).toBeGreaterThanOrEqual(2);
      for (let i = 1; i < runs.length; i++) {
        const prev = runs[i - 1];
        const cur = runs[i];
        if (!prev?.finishedAt || !cur?.startedAt) continue;
        expect(cur.startedAt.getTime()).toBeGreaterThanOrEqual(prev.finishedAt.getTime());
      }
      expect(new Set(runs.map((r) => r.leaseOwner)).size).toBeGreaterThanOrEqual(1);
    }, 30_000);
  });
});
