// A real environment for collector tests: a Kubernetes API server (the
// imitation, or a real one: see clusters.ts), a real Git repository, a
// driftwatch config naming both, and the database synced.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { afterEach, beforeEach } from "vitest";
import { startClusterServer, type ClusterServer, type TestCluster } from "./clusters";
import { TestRepo } from "@/lib/git/test-support/repo-fixture";
import { parseConfig, type DriftwatchConfig } from "@/lib/config";
import { getPrisma } from "@/lib/db";
import type { PrismaClient } from "@/lib/db/generated/client";
import { resetDatabase } from "@/lib/db/testing";
import { syncConfigToDatabase, collectorContext, enqueueRun, leaseRunById, executeRun, type RunOutcome } from "@/lib/collector";
import { afterRunHooks } from "@/lib/collector/hooks";
import { listAlerts } from "@/lib/alerts";
import { createClusterClient, type ClusterClient } from "@/lib/kube/client";
import { discover } from "@/lib/kube/discovery";
import { serverSideApply, type DemoKube } from "@/demo/kube-writer";
import { logger } from "@/lib/log";

export const KUBECTL_UA = "kubectl/v1.32.4 (linux/amd64) kubernetes/59526cd";

export interface CollectorFixture {
  cluster: TestCluster;
  repo: TestRepo;
  db: PrismaClient;
  config: DriftwatchConfig;
  admin: DemoKube;
  dir: string;
  /** Applies objects as a GitOps controller would (server-side apply, manager kustomize-controller). */
  applyAsController(objs: Array<Record<string, unknown>>): Promise<void>;
  /** Applies CRDs and waits until the server serves their kinds (a real one takes a moment); `admin.discovery` knows them after. */
  installCrds(crds: Array<Record<string, unknown>>): Promise<void>;
  /** Writes objects through the API (server-side apply, a few at a time) under `manager`. */
  seed(objs: Array<Record<string, unknown>>, manager: string): Promise<void>;
  /** One run of the environment as a worker does it, queued with `trigger` (default "test"). */
  run(envName?: string, trigger?: string): Promise<RunOutcome & { runId: number }>;
  cleanup(): Promise<void>;
}

/** One run of an environment, start to finish as a worker does it, against `config`; with the run's stored stats. */
export async function runCollection(db: PrismaClient, config: DriftwatchConfig, mirrorsDir: string, environment: string) {
  await syncConfigToDatabase(db, config);
  const env = await db.environment.findUniqueOrThrow({ where: { name: environment } });
  const runId = await enqueueRun(db, env.id, "test");
  const leased = await leaseRunById(db, runId, "test-worker", 60_000);
  if (!leased) throw new Error("could not lease the run");
  const ctx = collectorContext(db, config, { mirrorsDir, secretKey: Buffer.from("test-instance-key-0123456789abcdef"), log: logger.child({ test: true }) });
  const outcome = await executeRun(ctx, leased, "test-worker", 60_000);
  const stats = (await db.collectionRun.findUniqueOrThrow({ where: { id: runId } })).stats as Record<string, unknown> | null;
  return { ...outcome, stats };
}

/** One run of `environment`, then the worker's after-run hooks (detected pauses, alerts), as a worker does it. */
export async function runAsWorker(db: PrismaClient, config: DriftwatchConfig, mirrorsDir: string, environment: string): Promise<void> {
  await runCollection(db, config, mirrorsDir, environment);
  const env = await db.environment.findUniqueOrThrow({ where: { name: environment } });
  await afterRunHooks(collectorContext(db, config, { mirrorsDir, secretKey: Buffer.from("test-instance-key-0123456789abcdef"), log: logger.child({ test: true }) }), env.id);
}

/** The open alerts as a reader scans them: type, title and the application named. */
export async function openAlertsNamed(db: PrismaClient): Promise<Array<{ type: string; title: string; application: unknown }>> {
  return (await listAlerts(db, { open: true })).map((a) => ({ type: a.type, title: a.title, application: a.details.application ?? null }));
}

/** Every Application row, by name. */
export async function applicationsByName(db: PrismaClient) {
  const rows = await db.application.findMany({ orderBy: { name: "asc" } });
  return new Map(rows.map((r) => [r.name, r]));
}

export function deploymentYaml(name: string, image: string, replicas: number, env: Record<string, string> = {}): Record<string, unknown> {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: "shop", labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name, image, env: Object.entries(env).map(([k, v]) => ({ name: k, value: v })), resources: { requests: { cpu: "0.5", memory: "1024Mi" } } }] },
      },
    },
  };
}

export async function createCollectorFixture(files: Record<string, unknown[]>, opts: { envYaml?: Record<string, unknown>; repoUrl?: string; /** More environments over the same cluster and repository, each merged onto the same defaults. */ moreEnvironments?: Array<Record<string, unknown> & { name: string }>; /** The file's server (forEachCluster); default a kubesim of the fixture's own. */ cluster?: ClusterServer } = {}): Promise<CollectorFixture> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-collector-"));
  const cluster = await (opts.cluster ?? (await startClusterServer("kubesim"))).forCase(dir);
  const repo = TestRepo.create("collector-repo");
  for (const [file, objs] of Object.entries(files)) repo.write(file, objs.map((o) => stringify(o)).join("---\n"));
  repo.commit("initial manifests");
  const config = parseConfig(
    stringify({
      repositories: [{ name: "shop", url: opts.repoUrl ?? repo.dir }],
      environments: [{ name: "test", ...(opts.envYaml ?? {}) }, ...(opts.moreEnvironments ?? [])].map((e) => ({
        cluster: { kubeconfig: cluster.kubeconfigPath, context: "t-readonly" },
        namespaces: ["shop"],
        defaultNamespace: "shop",
        source: { repository: "shop", branch: "main", path: "envs/test" },
        ...e,
      })),
    }),
  );
  const db = getPrisma();
  await resetDatabase(db);
  await syncConfigToDatabase(db, config);
  const client: ClusterClient = createClusterClient({ kubeconfig: cluster.kubeconfigPath, context: "t" });
  const admin: DemoKube = { client, discovery: await discover(client) };
  await serverSideApply(admin, { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } }, "kubectl");
  const mirrorsDir = path.join(dir, "mirrors");
  const ctx = () => collectorContext(db, config, { mirrorsDir, secretKey: Buffer.from("test-instance-key-0123456789abcdef"), log: logger.child({ test: true }) });
  return {
    cluster,
    repo,
    db,
    config,
    admin,
    dir,
    async applyAsController(objs) {
      for (const o of objs) await serverSideApply(admin, o, "kustomize-controller");
    },
    async installCrds(crds) {
      for (const crd of crds) await serverSideApply(admin, crd, "kubectl");
      const wanted = crds.map((crd) => {
        const spec = crd.spec as { group: string; names: { kind: string } };
        return `${spec.group}/${spec.names.kind}`;
      });
      const deadline = Date.now() + 15_000;
      for (;;) {
        admin.discovery = await discover(client);
        if (wanted.every((k) => admin.discovery.byGroupKind.has(k))) return;
        if (Date.now() > deadline) throw new Error(`the cluster does not serve ${wanted.join(", ")} 15 s after their CRDs were applied`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async seed(objs, manager) {
      const queue = [...objs];
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          for (let o = queue.shift(); o; o = queue.shift()) await serverSideApply(admin, o, manager);
        }),
      );
    },
    async run(envName = "test", trigger = "test") {
      const env = await db.environment.findUniqueOrThrow({ where: { name: envName } });
      const runId = await enqueueRun(db, env.id, trigger);
      const run = await leaseRunById(db, runId, "test-worker", 60_000);
      if (!run) throw new Error("could not lease the run");
      const outcome = await executeRun(ctx(), run, "test-worker", 60_000);
      return { ...outcome, runId };
    },
    async cleanup() {
      await cluster.release();
      repo.cleanup();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A collector fixture of `files`, its objects applied as their controller did, made afresh around each test of the
 * calling file; the returned function hands out the current one (and fails outside a test).
 */
export function eachCollectorFixture(files: Record<string, Array<Record<string, unknown>>>): () => CollectorFixture {
  let current: CollectorFixture | undefined;
  beforeEach(async () => {
    current = await createCollectorFixture(files);
    await current.applyAsController(Object.values(files).flat());
  });
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });
  return () => {
    if (!current) throw new Error("the collector fixture is read outside a test");
    return current;
  };
}
