// What the benchmarks collect: realistic objects (ConfigMaps, Deployments with
// status, Services, Secrets, ServiceAccounts) over a few namespaces, the same
// manifests in a real Git repository (a few large multi-document files), a
// driftwatch config naming both, and helpers to run one collection and to
// change 1% of the live objects the way people and controllers do.
import path from "node:path";
import { dump } from "js-yaml";
import { stringify } from "yaml";
import { TestRepo } from "../../lib/git/test-support/repo-fixture";
import { parseConfig, type DriftwatchConfig } from "../../lib/config";
import { collectorContext, enqueueRun, executeRun, leaseRunById, syncConfigToDatabase, type CollectorContext, type RunOutcome } from "../../lib/collector/index";
import type { PrismaClient } from "../../lib/db/generated/client";
import { logger } from "../../lib/log";
import type { BenchCluster } from "./cluster";
import { createLocalUser, createSession, SESSION_COOKIE } from "../../lib/auth/index";

type Obj = Record<string, unknown>;

export const SECRET_KEY = Buffer.from("bench-instance-key-0123456789abcdef");

/** Small deterministic PRNG (mulberry32): the same churn every run of the benchmark. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

export function refOf(o: Obj): ObjectRef {
  const m = o.metadata as { name: string; namespace: string };
  return { apiVersion: String(o.apiVersion), kind: String(o.kind), namespace: m.namespace, name: m.name };
}

/** One object of a realistic mix: 40% ConfigMaps, 20% Deployments, 20% Services, 10% Secrets, 10% ServiceAccounts. */
function object(i: number, namespace: string, prefix: string): { desired: Obj; status?: Obj } {
  const team = `team-${i % 13}`;
  const app = `${prefix}app-${Math.floor(i / 10)}`;
  const labels = { "app.kubernetes.io/name": app, "app.kubernetes.io/part-of": "bench", team };
  const n = String(i).padStart(6, "0");
  switch (i % 10) {
    case 0:
    case 1:
    case 2:
    case 3:
      return {
        desired: {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: `${prefix}cm-${n}`, namespace, labels },
          data: {
            "application.yaml": `server:\n  port: 8080\n  threads: ${8 + (i % 8)}\nfeatures:\n  checkout: ${i % 2 === 0}\n  owner: ${team}\n`,
            LOG_LEVEL: i % 5 === 0 ? "debug" : "info",
            CACHE_TTL: `${(i % 12) * 5 + 5}m`,
          },
        },
      };
    case 4:
    case 5: {
      const replicas = 1 + (i % 4);
      return {
        desired: {
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name: `${prefix}deploy-${n}`, namespace, labels },
          spec: {
            replicas,
            selector: { matchLabels: { "app.kubernetes.io/name": app, instance: n } },
            template: {
              metadata: { labels: { "app.kubernetes.io/name": app, instance: n, team } },
              spec: {
                serviceAccountName: `${prefix}sa-${n.slice(0, 5)}9`,
                containers: [
                  {
                    name: "app",
                    image: `registry.example.com/${team}/${app}:1.${i % 30}.${i % 7}`,
                    ports: [{ name: "http", containerPort: 8080 }],
                    env: [
                      { name: "LOG_FORMAT", value: "json" },
                      { name: "REGION", value: "eu-west-1" },
                      { name: "POOL_SIZE", value: String(4 + (i % 6)) },
                    ],
                    resources: { requests: { cpu: "250m", memory: "256Mi" }, limits: { cpu: "1", memory: "512Mi" } },
                    readinessProbe: { httpGet: { path: "/healthz", port: "http" }, periodSeconds: 10 },
                  },
                ],
              },
            },
          },
        },
        status: {
          observedGeneration: 1,
          replicas,
          updatedReplicas: replicas,
          readyReplicas: replicas,
          availableReplicas: replicas,
          conditions: [
            { type: "Available", status: "True", reason: "MinimumReplicasAvailable", message: "Deployment has minimum availability." },
            { type: "Progressing", status: "True", reason: "NewReplicaSetAvailable", message: `ReplicaSet "${prefix}deploy-${n}-5d8f7c9b" has successfully progressed.` },
          ],
        },
      };
    }
    case 6:
    case 7:
      return {
        desired: {
          apiVersion: "v1",
          kind: "Service",
          metadata: { name: `${prefix}svc-${n}`, namespace, labels },
          spec: { selector: { "app.kubernetes.io/name": app }, ports: [{ name: "http", port: 80, targetPort: "http" }] },
        },
      };
    case 8:
      return {
        desired: {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: `${prefix}secret-${n}`, namespace, labels },
          type: "Opaque",
          data: { username: Buffer.from(`svc-${n}`).toString("base64"), password: Buffer.from(`pw-${n}-${(i * 7919) % 100_003}`).toString("base64") },
        },
      };
    default:
      return { desired: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: `${prefix}sa-${n}`, namespace, labels } } };
  }
}

export interface BenchObjects {
  namespaces: string[];
  /** As in Git. */
  desired: Obj[];
  /** As first applied to the cluster: desired plus status where the kind has one. */
  live: Obj[];
}

export function benchObjects(count: number, opts: { namespaces?: number; prefix?: string } = {}): BenchObjects {
  const prefix = opts.prefix ?? "";
  const namespaces = Array.from({ length: opts.namespaces ?? 5 }, (_, i) => `${prefix}bench-${i}`);
  const desired: Obj[] = [];
  const live: Obj[] = [];
  for (let i = 0; i < count; i++) {
    const ns = namespaces[i % namespaces.length] as string;
    const o = object(i, ns, prefix);
    desired.push(o.desired);
    live.push(o.status ? { ...o.desired, status: o.status } : o.desired);
  }
  return { namespaces, desired, live };
}

/** Writes the desired objects as `files` large multi-document YAML files under `dir` and commits. */
export function writeManifests(repo: TestRepo, dir: string, desired: Obj[], files = 4): string {
  const per = Math.ceil(desired.length / files);
  for (let f = 0; f < files; f++) {
    const part = desired.slice(f * per, (f + 1) * per);
    if (part.length === 0) continue;
    repo.write(path.posix.join(dir, `part-${f}.yaml`), part.map((o) => dump(o, { lineWidth: -1, noRefs: true })).join("---\n"));
  }
  return repo.commit(`manifests for ${dir}`);
}

/** The name and Git path of application `i` of `n` under `dir` (zero-padded, so they sort). */
export function benchApplication(dir: string, i: number): { name: string; path: string } {
  const name = `app-${String(i).padStart(3, "0")}`;
  return { name, path: path.posix.join(dir, name) };
}

/** Splits the desired objects over `applications` folders under `dir` (one file each, in order) and commits. */
export function writeApplicationManifests(repo: TestRepo, dir: string, desired: Obj[], applications: number): string {
  const per = Math.ceil(desired.length / applications);
  for (let a = 0; a < applications; a++) {
    const part = desired.slice(a * per, (a + 1) * per);
    repo.write(path.posix.join(benchApplication(dir, a).path, "manifests.yaml"), part.map((o) => dump(o, { lineWidth: -1, noRefs: true })).join("---\n"));
  }
  return repo.commit(`manifests of ${applications} applications under ${dir}`);
}

export interface BenchEnvSpec {
  name: string;
  namespaces: string[];
  path: string;
  mode?: "poll" | "watch";
  interval?: string;
  /** Track live objects by this label (key=value): each run then also looks through every other namespaced kind for orphans. */
  trackingLabel?: string;
  /** Declared applications, one per folder under `path` (writeApplicationManifests), instead of one source. */
  applications?: number;
  /** A cluster of its own (kubeconfig and context) instead of the one benchConfig is given. */
  cluster?: { kubeconfig: string; context: string };
}

export function benchConfig(
  repoDir: string,
  kubeconfigPath: string,
  envs: BenchEnvSpec[],
  opts: { clusterName?: string; webhookSecretEnv?: string } = {},
): { config: DriftwatchConfig; yaml: string } {
  const clusterName = opts.clusterName ?? "bench";
  const yaml = stringify({
    repositories: [{ name: "bench", url: repoDir, ...(opts.webhookSecretEnv ? { webhookSecretEnv: opts.webhookSecretEnv } : {}) }],
    environments: envs.map((e) => ({
      name: e.name,
      cluster: e.cluster ?? { kubeconfig: kubeconfigPath, context: `${clusterName}-readonly` },
      namespaces: e.namespaces,
      defaultNamespace: e.namespaces[0],
      ...(e.applications
        ? {
            applications: Array.from({ length: e.applications }, (_, i) => {
              const app = benchApplication(e.path, i);
              return { name: app.name, source: { repository: "bench", branch: "main", path: app.path } };
            }),
          }
        : { source: { repository: "bench", branch: "main", path: e.path } }),
      mode: e.mode ?? "poll",
      interval: e.interval ?? "1h",
      ...(e.trackingLabel ? { trackingLabel: e.trackingLabel } : {}),
    })),
  });
  return { config: parseConfig(yaml), yaml };
}

export function benchContext(db: PrismaClient, config: DriftwatchConfig, mirrorsDir: string): CollectorContext {
  return collectorContext(db, config, { mirrorsDir, secretKey: SECRET_KEY, log: logger.child({ bench: true }) });
}

export async function syncConfig(db: PrismaClient, config: DriftwatchConfig): Promise<void> {
  await syncConfigToDatabase(db, config);
}

/** One collection of one environment, start to finish, as a worker runs it (lease, run, record, hooks). */
export async function collectOnce(ctx: CollectorContext, envName: string): Promise<RunOutcome & { ms: number }> {
  const env = await ctx.db.environment.findUniqueOrThrow({ where: { name: envName } });
  const runId = await enqueueRun(ctx.db, env.id, "bench");
  const run = await leaseRunById(ctx.db, runId, "bench", 600_000);
  if (!run) throw new Error("could not lease the run");
  const t = performance.now();
  const outcome = await executeRun(ctx, run, "bench", 600_000);
  const ms = performance.now() - t;
  if (outcome.status === "failed") throw new Error(`run failed: ${JSON.stringify(outcome.errors).slice(0, 500)}`);
  return { ...outcome, ms };
}

/**
 * Changes `fraction` of the live objects: half by hand (kubectl-edit: a value
 * Git sets, so drift), half the way controllers do (status, or an annotation
 * written by kube-controller-manager). Returns the changed objects and their
 * size as the API serves them after the change (JSON bytes).
 */
export async function churn(cluster: Pick<BenchCluster, "patch">, live: Obj[], fraction: number, round: number, concurrency = 8): Promise<{ refs: ObjectRef[]; bytes: number }> {
  const random = prng(1_000 + round);
  const count = Math.max(1, Math.round(live.length * fraction));
  const picked = new Set<number>();
  while (picked.size < count) picked.add(Math.floor(random() * live.length));
  const refs = [...picked].map((i) => ({ i, ref: refOf(live[i] as Obj) }));
  let next = 0;
  let bytes = 0;
  const work = async () => {
    for (let k = next++; k < refs.length; k = next++) {
      const { i, ref } = refs[k] as { i: number; ref: ObjectRef };
      const byHand = (i + round) % 2 === 0;
      let size: number;
      if (byHand) {
        const body =
          ref.kind === "ConfigMap"
            ? { data: { LOG_LEVEL: `trace-${round}` } }
            : ref.kind === "Deployment"
              ? { spec: { replicas: 5 + (round % 5) } }
              : ref.kind === "Secret"
                ? { data: { password: Buffer.from(`rotated-${round}-${i}`).toString("base64") } }
                : { metadata: { labels: { team: `hotfix-${round}` } } };
        size = await cluster.patch(ref, body, "kubectl-edit");
      } else if (ref.kind === "Deployment") {
        // Valid on a real API server too: ready ≤ replicas, available ≤ ready.
        const replicas = Number(((live[i] as Obj).spec as { replicas?: number } | undefined)?.replicas ?? 1);
        const ready = Math.min(replicas, round % 3);
        size = await cluster.patch(ref, { status: { observedGeneration: 1, readyReplicas: ready, availableReplicas: ready } }, "kube-controller-manager", "status");
      } else {
        size = await cluster.patch(ref, { metadata: { annotations: { "bench.driftwatch.io/observed": String(round) } } }, "kube-controller-manager");
      }
      // Not `bytes += await …`: that would read `bytes` before the await and lose the other workers' sums.
      bytes += size;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, work));
  return { refs: refs.map((r) => r.ref), bytes };
}

export function newRepo(prefix: string): TestRepo {
  return TestRepo.create(prefix);
}

/** A signed-in viewer: a local user and a session, as the sign-in page would create them. */
export async function viewerCookie(db: PrismaClient): Promise<string> {
  const username = `bench-${Math.random().toString(36).slice(2, 8)}`;
  const user = await createLocalUser(db, { username, role: "viewer", password: `Bench-${Math.random().toString(36).slice(2)}-pass-0` }, { type: "system", name: "bench" });
  const session = await createSession(db, user.id);
  return `${SESSION_COOKIE}=${session.token}`;
}
