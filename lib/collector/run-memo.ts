// What a run may reuse from the runs before it in this process. Everything
// here is a cache of something that cannot have changed (answers about an
// immutable commit, hashes of an immutable rendered object, the rows this
// process itself wrote as the last good run) or may be a little old without
// harm (API discovery, for 30 s, and re-asked when a kind is missing).
// Losing any of it — a restart, another worker taking the environment — only
// costs time.
import { LRUCache } from "lru-cache";
import { createClusterClient, type ClusterClient } from "@/lib/kube/client";
import { discover, type ApiResource, type Discovery } from "@/lib/kube/discovery";
import type { ClusterConfig } from "@/lib/config";
import { hashSecretValues, type KubeObject } from "@/lib/drift";
import type { CurrentRow } from "./store";

const gitAnswers = new LRUCache<string, Promise<unknown>>({ max: 512 });

/**
 * Answers that are a function of commits only (the approved revision at a
 * branch tip, the revisions behind a tip, whether one commit is an ancestor
 * of another): asked once per distinct input. Failures are not kept.
 */
export function memoGit<T>(parts: readonly string[], fn: () => Promise<T>): Promise<T> {
  const key = parts.join("\0");
  const hit = gitAnswers.get(key) as Promise<T> | undefined;
  if (hit) return hit;
  const p = fn();
  gitAnswers.set(key, p);
  p.catch(() => gitAnswers.delete(key));
  return p;
}

const renders = new Map<string, { key: string; result: Promise<unknown> }>();

/**
 * The environment's render of one commit, kept for its next run: a commit's
 * manifests never change, and asking git again costs processes. One entry
 * per environment, so memory follows the environments' own desired sets.
 * A render that read something outside the commit (`reusable` says no) is
 * used by the run that made it only.
 */
export function memoRender<T>(environment: string, parts: readonly string[], fn: () => Promise<T>, reusable: (value: T) => boolean = () => true): Promise<T> {
  const key = parts.join("\0");
  const hit = renders.get(environment);
  if (hit && hit.key === key) return hit.result as Promise<T>;
  const result = fn();
  renders.set(environment, { key, result });
  const forget = () => {
    if (renders.get(environment)?.result === result) renders.delete(environment);
  };
  result.then((value) => {
    if (!reusable(value)) forget();
  }, forget);
  return result;
}

const desiredSets = new WeakMap<object, { key: string; value: ReadonlyMap<string, unknown> }>();

/**
 * A value derived from a render result (the run's desired set keyed by
 * object), kept with the render it came from: runs that reuse a render reuse
 * it. The caller must not change what it gets.
 */
export function memoDesired<T extends ReadonlyMap<string, unknown>>(render: object, parts: readonly string[], build: () => T): T {
  const key = parts.join("\0");
  const hit = desiredSets.get(render);
  if (hit && hit.key === key) return hit.value as T;
  const value = build();
  desiredSets.set(render, { key, value });
  return value;
}

const hashedSecrets = new WeakMap<object, { key: Buffer; hashed: KubeObject }>();

/** Secret values of a rendered object, hashed once per rendered object (rendered objects are frozen and shared). */
export function hashedDesiredSecret(obj: KubeObject, key: Buffer): KubeObject {
  const hit = hashedSecrets.get(obj);
  if (hit && hit.key.equals(key)) return hit.hashed;
  const hashed = hashSecretValues(obj, key);
  hashedSecrets.set(obj, { key, hashed });
  return hashed;
}

const contentHashes = new WeakMap<object, string>();

/** The content hash of a desired object, computed once per (immutable) object. */
export function desiredHash(obj: KubeObject, compute: () => string): string {
  let hit = contentHashes.get(obj);
  if (hit === undefined) {
    hit = compute();
    contentHashes.set(obj, hit);
  }
  return hit;
}

interface ClusterHandle {
  key: string;
  client: ClusterClient;
  discovery: Discovery;
  at: number;
}

const DISCOVERY_TTL_MS = 30_000;
const clusters = new Map<string, ClusterHandle>();

/**
 * The environment's API client (its keep-alive connections reused across
 * runs) and discovery, asked again after 30 s or when `fresh`.
 */
export async function clusterFor(environment: string, cluster: ClusterConfig, timeoutMs: number, opts: { fresh?: boolean; now?: number } = {}): Promise<{ client: ClusterClient; discovery: Discovery; cached: boolean }> {
  const key = JSON.stringify([cluster, timeoutMs]);
  const now = opts.now ?? Date.now();
  const hit = clusters.get(environment);
  if (hit && hit.key === key && !opts.fresh && now - hit.at < DISCOVERY_TTL_MS) return { client: hit.client, discovery: hit.discovery, cached: true };
  const client = hit && hit.key === key ? hit.client : createClusterClient(cluster, { timeoutMs });
  const discovery = await discover(client);
  clusters.set(environment, { key, client, discovery, at: now });
  return { client, discovery, cached: false };
}

const kinds = new Map<string, readonly ApiResource[]>();

/**
 * The kinds the environment's last run listed: the next run starts listing
 * them while Git is fetched (a wrong guess only costs the listing).
 */
export function rememberedKinds(environment: string): readonly ApiResource[] {
  return kinds.get(environment) ?? [];
}

export function rememberKinds(environment: string, resources: readonly ApiResource[]): void {
  kinds.set(environment, resources);
}

/** After a cluster error the next run starts from a fresh client and discovery. */
export function forgetCluster(environment: string): void {
  clusters.delete(environment);
}

interface CurrentRows {
  runId: number;
  live: Map<string, CurrentRow>;
  desired: Map<string, CurrentRow>;
  /** The environment's rollout and controller summaries as written, JSON. */
  rollout: string;
  controller: string;
}

const currentRows = new Map<string, CurrentRows>();

/**
 * The environment's current desired and live rows as this process wrote them
 * in run `runId`; null unless that run is still the environment's last good
 * run (another worker, or a restart, means reading them from Postgres).
 */
export function rememberedRows(environmentId: string, lastGoodRunId: number | null): CurrentRows | null {
  const hit = currentRows.get(environmentId);
  if (!hit || lastGoodRunId === null || hit.runId !== lastGoodRunId) return null;
  return hit;
}

export function rememberRows(environmentId: string, rows: CurrentRows): void {
  currentRows.set(environmentId, rows);
}

export function forgetRows(environmentId: string): void {
  currentRows.delete(environmentId);
}
