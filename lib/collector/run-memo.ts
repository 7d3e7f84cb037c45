// What a run may reuse from the runs before it in this process. Everything
// here is a cache of something that cannot have changed (answers about an
// immutable commit, hashes of an immutable rendered object, the rows this
// process itself wrote as the last good run) or may be a little old without
// harm (API discovery, for 30 s, and re-asked when a kind is missing).
// Losing any of it — a restart, another worker taking the environment — only
// costs time.
//
// Bounded: one process may serve many environments (run affinity spreads the
// fleet over the workers, jobs.ts), so every cache here is an LRU. Renders and
// git answers are counted in objects (a render by its objects, a list by its
// length, any other answer as 1), current rows by rows (desired + live); the
// least recently used go first. The budget is DRIFTWATCH_COLLECTOR_CACHE_OBJECTS
// (default 200,000 objects: renders and git answers 200,000 each, current rows
// 400,000 — at the fleet bench's object mix that is the whole of a 180,000-object
// fleet); API clients and listed kinds are kept for 1,000 environments.
import type { IntakeMemory } from "./live-delta";
import { LRUCache } from "lru-cache";
import { createClusterClient, type ClusterClient } from "@/lib/kube/client";
import { discover, type ApiResource, type Discovery } from "@/lib/kube/discovery";
import type { ClusterConfig } from "@/lib/config";
import { hashSecretValues, type KubeObject } from "@/lib/drift";
import { env } from "@/lib/env";
import type { StoredRow } from "./store";

const ENVIRONMENT_ENTRIES = 1_000;

const budgetFromEnvironment = (): number => env().DRIFTWATCH_COLLECTOR_CACHE_OBJECTS;

/** What a cached answer holds, in objects: a render's objects, a list's entries, else 1. */
function objectsIn(value: unknown): number {
  if (Array.isArray(value)) return Math.max(1, value.length);
  const objects = value && typeof value === "object" ? (value as { objects?: unknown }).objects : undefined;
  return Array.isArray(objects) ? Math.max(1, objects.length) : 1;
}

function newCaches(objects: number) {
  return {
    gitAnswers: new LRUCache<string, Promise<unknown>>({ maxSize: objects, sizeCalculation: () => 1 }),
    renders: new LRUCache<string, RenderEntry>({ maxSize: objects, sizeCalculation: () => 1 }),
    currentRows: new LRUCache<string, CurrentRows>({ maxSize: 2 * objects, sizeCalculation: (v) => Math.max(1, v.live.size + v.desired.size + (v.intake?.live.size ?? 0)) }),
    clusters: new LRUCache<string, ClusterHandle>({ max: ENVIRONMENT_ENTRIES }),
    kinds: new LRUCache<string, readonly ApiResource[]>({ max: ENVIRONMENT_ENTRIES }),
    renderInputs: new LRUCache<string, RenderInputs>({ maxSize: objects, sizeCalculation: (v) => Math.max(1, v.inputs.length) }),
    revisionSlots: new LRUCache<string, string[]>({ max: ENVIRONMENT_ENTRIES }),
  };
}

let caches: ReturnType<typeof newCaches> | null = null;
const memo = () => (caches ??= newCaches(budgetFromEnvironment()));

/** Replaces every cache with empty ones of the given budget (tests; an operator's setting is the environment variable). */
export function resetRunMemo(opts: { objects?: number } = {}): void {
  caches = newCaches(opts.objects ?? budgetFromEnvironment());
}

/** Counts a pending entry as 1 until it resolves, then as the objects it holds (if it is still the entry under its key). */
function sizeWhenResolved<V extends object, T>(cache: LRUCache<string, V>, key: string, entry: V, value: Promise<T>, sizeOf: (v: T) => number = objectsIn): void {
  value.then(
    (v) => {
      if (cache.peek(key) !== entry) return;
      // lru-cache keeps the old size when the same value is set again: take it out first.
      cache.delete(key);
      cache.set(key, entry, { size: Math.max(1, sizeOf(v)) });
    },
    () => undefined,
  );
}

/**
 * Answers that are a function of commits only (the approved revision at a
 * branch tip, the revisions behind a tip, whether one commit is an ancestor
 * of another): asked once per distinct input. Failures are not kept. An
 * answer holding many documents (parsed files) says how many with `sizeOf`,
 * so the budget counts them.
 */
export function memoGit<T>(parts: readonly string[], fn: () => Promise<T>, sizeOf?: (value: T) => number): Promise<T> {
  const key = parts.join("\0");
  const { gitAnswers } = memo();
  const hit = gitAnswers.get(key) as Promise<T> | undefined;
  if (hit) return hit;
  const p = fn();
  gitAnswers.set(key, p);
  sizeWhenResolved(gitAnswers, key, p, p, sizeOf);
  p.catch(() => {
    if (gitAnswers.peek(key) === p) gitAnswers.delete(key);
  });
  return p;
}

interface RenderEntry {
  key: string;
  result: Promise<unknown>;
  /** The render settings and revision (memoRenderAt): a later revision may carry the result over. */
  at?: { settings: string; sha: string };
}

/**
 * The environment's render of one commit, kept for its next run: a commit's
 * manifests never change, and asking git again costs processes. One entry
 * per environment (application), counted by its objects in the render budget.
 * A render that read something outside the commit (`reusable` says no) is
 * used by the run that made it only.
 */
export function memoRender<T>(environment: string, parts: readonly string[], fn: () => Promise<T>, reusable: (value: T) => boolean = () => true, at?: RenderEntry["at"]): Promise<T> {
  const key = parts.join("\0");
  const { renders } = memo();
  const hit = renders.get(environment);
  if (hit && hit.key === key) return hit.result as Promise<T>;
  const result = fn();
  const entry: RenderEntry = { key, result: result as Promise<unknown>, ...(at ? { at } : {}) };
  renders.set(environment, entry);
  sizeWhenResolved(renders, environment, entry, result);
  const forget = () => {
    if (renders.peek(environment)?.result === result) renders.delete(environment);
  };
  result.then((value) => {
    if (!reusable(value)) forget();
  }, forget);
  return result;
}

/** How many revisions of one application memoRenderRevisions keeps. */
export const RENDERED_REVISIONS = 8;

/**
 * memoRender of an application at several revisions at once (a parent
 * rendered at each revision its lagging children applied): one slot per
 * revision, counted in the render budget like any render, and at most
 * RENDERED_REVISIONS of them per name, the least recently asked dropped
 * first. With memoRender's one slot, children behind at two revisions would
 * take turns re-rendering the parent on every run.
 */
export function memoRenderRevisions<T>(name: string, sha: string, parts: readonly string[], fn: () => Promise<T>): Promise<T> {
  const { renders, revisionSlots } = memo();
  const slot = `${name}\0${sha}`;
  const slots = [slot, ...(revisionSlots.get(name) ?? []).filter((s) => s !== slot)];
  for (const dropped of slots.splice(RENDERED_REVISIONS)) renders.delete(dropped);
  revisionSlots.set(name, slots);
  return memoRender(slot, [sha, ...parts], fn);
}

/**
 * memoRender of the render at `sha` under render settings `settings`, where
 * the environment's last render under the same settings (at another
 * revision) may stand for it: `holds` says whether it does (nothing it read
 * changed in between). A carried render is remembered at `sha`, so the next
 * revision is measured from here. Returns the render and whether it was carried.
 */
export async function memoRenderAt<T>(
  environment: string,
  settings: readonly string[],
  sha: string,
  fn: () => Promise<T>,
  reusable: (value: T) => boolean,
  holds: (last: { sha: string; value: T }) => boolean | Promise<boolean>,
): Promise<{ value: T; carried: boolean }> {
  const settingsKey = settings.join("\0");
  const key = [settingsKey, sha].join("\0");
  const { renders } = memo();
  const hit = renders.get(environment);
  if (hit && hit.key !== key && hit.at?.settings === settingsKey && hit.at.sha !== sha) {
    const last = await hit.result.then(
      (v) => v as T,
      () => undefined,
    );
    if (last !== undefined && renders.peek(environment) === hit && (await holds({ sha: hit.at.sha, value: last }))) {
      const entry: RenderEntry = { key, result: hit.result, at: { settings: settingsKey, sha } };
      // A concurrent run may have replaced the entry meanwhile: then it stands, and this run still uses what held.
      if (renders.peek(environment) === hit) {
        renders.delete(environment);
        renders.set(environment, entry, { size: objectsIn(last) });
      }
      return { value: last, carried: true };
    }
  }
  const value = await memoRender(environment, [settingsKey, sha], fn, reusable, { settings: settingsKey, sha });
  return { value, carried: false };
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

export interface RenderInputs {
  tip: string;
  inputs: readonly string[];
}

/** The files an application's render read at the last tip it was rendered at (key: repository, ref, path, render settings). */
export function rememberedInputs(key: readonly string[]): RenderInputs | undefined {
  return memo().renderInputs.get(key.join("\0"));
}

export function rememberInputs(key: readonly string[], value: RenderInputs): void {
  memo().renderInputs.set(key.join("\0"), value);
}

interface ClusterHandle {
  key: string;
  client: ClusterClient;
  discovery: Discovery;
  at: number;
}

const DISCOVERY_TTL_MS = 30_000;

/**
 * The environment's API client (its keep-alive connections reused across
 * runs) and discovery, asked again after 30 s or when `fresh`.
 */
export async function clusterFor(environment: string, cluster: ClusterConfig, timeoutMs: number, opts: { fresh?: boolean; now?: number } = {}): Promise<{ client: ClusterClient; discovery: Discovery; cached: boolean }> {
  const key = JSON.stringify([cluster, timeoutMs]);
  const now = opts.now ?? Date.now();
  const { clusters } = memo();
  const hit = clusters.get(environment);
  if (hit && hit.key === key && !opts.fresh && now - hit.at < DISCOVERY_TTL_MS) return { client: hit.client, discovery: hit.discovery, cached: true };
  const client = hit && hit.key === key ? hit.client : createClusterClient(cluster, { timeoutMs });
  const discovery = await discover(client);
  clusters.set(environment, { key, client, discovery, at: now });
  return { client, discovery, cached: false };
}

/**
 * The kinds the environment's last run listed: the next run starts listing
 * them while Git is fetched (a wrong guess only costs the listing).
 */
export function rememberedKinds(environment: string): readonly ApiResource[] {
  return memo().kinds.get(environment) ?? [];
}

export function rememberKinds(environment: string, resources: readonly ApiResource[]): void {
  memo().kinds.set(environment, resources);
}

/** After a cluster error the next run starts from a fresh client and discovery. */
export function forgetCluster(environment: string): void {
  memo().clusters.delete(environment);
}

export interface CurrentRows {
  runId: number;
  live: Map<string, StoredRow>;
  desired: Map<string, StoredRow>;
  /** The environment's rollout and controller summaries as written, JSON. */
  rollout: string;
  controller: string;
  /** Each application's row as written, by id: its registration (spec) and its summary, as text (persist.ts). */
  applications: { registered: Map<string, string>; summaries: Map<string, string> };
  /** Live objects per application id, as counted when written. */
  objects?: Map<string, number>;
  /** The live entries of a run from a watch cache, for the next one to continue from (live-delta.ts). */
  intake?: IntakeMemory;
}

/**
 * The environment's current desired and live rows as this process wrote them
 * in run `runId`; null unless that run is still the environment's last good
 * run (another worker, or a restart, means reading them from Postgres).
 */
export function rememberedRows(environmentId: string, lastGoodRunId: number | null): CurrentRows | null {
  const hit = memo().currentRows.get(environmentId);
  if (!hit || lastGoodRunId === null || hit.runId !== lastGoodRunId) return null;
  return hit;
}

export function rememberRows(environmentId: string, rows: CurrentRows): void {
  memo().currentRows.set(environmentId, rows);
}

export function forgetRows(environmentId: string): void {
  memo().currentRows.delete(environmentId);
}
