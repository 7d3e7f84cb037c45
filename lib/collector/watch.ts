// Watch mode. For each environment configured with `mode: watch`, exactly one
// worker (the holder of a Postgres advisory lock for it) keeps informers on
// the kinds the environment's runs read. An event queues a run (debounced);
// that run takes its live objects from the informer caches instead of
// listing, and the run's "unchanged since the last good run" check keeps the
// comparison to the objects that moved. Scheduled runs still list, so polling
// remains a safety net under the watches.
//
// Informers stop on errors other than 410 (client-node relists on 410 by
// itself); every informer here is supervised and restarted with backoff, and
// while one is down its environment's runs list instead of trusting a cache
// that may have missed events.
import pg from "pg";
import { ListWatch, Watch, type KubeConfig, type KubernetesListObject, type KubernetesObject } from "@kubernetes/client-node";
import type { EnvironmentConfig } from "@/lib/config";
import { hashSecretValues, type KubeObject } from "@/lib/drift";
import { createClusterClient, type ClusterClient } from "@/lib/kube/client";
import { discover, resourcePath, type ApiResource, type Discovery } from "@/lib/kube/discovery";
import { listPaged } from "@/lib/kube/list";
import type { Logger } from "@/lib/log";
import type { CollectorContext, LiveSource } from "./collect-environment";

export interface WatchManagerOptions {
  /** Postgres for the advisory locks: a session of its own, so the locks live and die with this worker. */
  databaseUrl: string;
  /** Queues a watch-triggered run of the environment and wakes the worker. */
  trigger: (environmentId: string, environmentName: string) => Promise<void>;
  /** Quiet time after an event before the run is queued; default 200 ms. */
  debounceMs?: number;
  /** Longest an event waits while events keep coming; default 1 s. */
  maxDelayMs?: number;
  /** How often locks are tried, held ones confirmed and the configuration followed; default 2 s. */
  lockCheckMs?: number;
}

export interface InformerStatus {
  resource: string;
  namespace: string | null;
  synced: boolean;
  healthy: boolean;
  objects: number;
  lists: number;
  restarts: number;
}

export interface WatchStatus {
  environment: string;
  environmentId: string;
  /** True when every informer has listed and is watching: watch-triggered runs read the cache. */
  ready: boolean;
  events: number;
  runsQueued: number;
  informers: InformerStatus[];
}

/** A namespace scope as the collector passes it: undefined = every namespace. */
type Scope = string | undefined;

/**
 * Runs that read the cache: those the watch queued, and pushes (a Git-side
 * event; the cluster side is what the watch keeps current). Scheduled runs,
 * retries and "refresh now" list, so polling stays a check on the cache.
 */
const CACHE_TRIGGERS = new Set(["watch", "webhook"]);

const RESTART_BASE_MS = 500;
const RESTART_MAX_MS = 30_000;

function informerKey(r: ApiResource, namespace: Scope): string {
  return `${r.group}/${r.kind}|${namespace ?? "*"}`;
}

function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (e && typeof e === "object" && "message" in e) return String((e as { message: unknown }).message);
  return String(e);
}

/**
 * client-node's Watch, with bookmarks asked for (so a quiet resource's
 * resourceVersion keeps up and a reconnect rarely needs a relist), no new
 * request once stopped, and every failure reported through `done`: the
 * informer calls watch() from callbacks where a rejection would go unhandled.
 */
class SupervisedWatch extends Watch {
  constructor(
    config: KubeConfig,
    private readonly informer: { stopped: boolean; connected(): void },
  ) {
    super(config);
  }

  override async watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    if (this.informer.stopped) return new AbortController();
    let failed = false;
    try {
      const controller = await super.watch(path, { ...queryParams, allowWatchBookmarks: true }, callback, (err: unknown) => {
        if (err) failed = true;
        done(err);
      });
      if (!failed) this.informer.connected();
      return controller;
    } catch (e) {
      done(e);
      return new AbortController();
    }
  }
}

/** One resource in one namespace scope: a ListWatch and its supervisor. */
class SupervisedInformer {
  stopped = false;
  synced = false;
  healthy = false;
  lists = 0;
  restarts = 0;
  private failures = 0;
  private lastStart = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly informer: ListWatch<KubernetesObject>;

  constructor(
    readonly resource: ApiResource,
    readonly namespace: Scope,
    client: ClusterClient,
    private readonly secretKey: Buffer,
    private readonly log: Logger,
    private readonly onChange: () => void,
  ) {
    const apiVersion = resource.group ? `${resource.group}/${resource.version}` : resource.version;
    const list = async (): Promise<KubernetesListObject<KubernetesObject>> => {
      if (this.stopped) throw new Error("informer stopped");
      const items: KubernetesObject[] = [];
      const page = await listPaged(client, resource, { namespace, pageSize: 500 }, (batch) => {
        for (const item of batch) items.push(item as KubernetesObject);
      });
      this.lists++;
      // The informer stores and announces the listed items right after this
      // promise settles; from the next turn on the cache is complete.
      setImmediate(() => {
        if (this.stopped) return;
        this.synced = true;
        this.healthy = true;
      });
      return { apiVersion, kind: `${resource.kind}List`, metadata: { resourceVersion: page.resourceVersion }, items };
    };
    const watch = new SupervisedWatch(client.kc, this);
    this.informer = new ListWatch(resourcePath(resource, namespace), watch, list, false);
    const changed = (obj: KubernetesObject) => {
      // Never let a callback throw: the informer calls it from a promise nobody awaits.
      try {
        if (resource.kind === "Secret" && resource.group === "") this.hashInPlace(obj);
        if (this.synced) this.onChange();
      } catch (e) {
        this.log.error({ err: errorText(e) }, "watch event handling failed");
      }
    };
    this.informer.on("add", changed);
    this.informer.on("update", changed);
    this.informer.on("delete", (obj) => {
      try {
        if (this.synced) this.onChange();
      } catch (e) {
        this.log.error({ err: errorText(e), name: obj.metadata?.name }, "watch event handling failed");
      }
    });
    this.informer.on("error", (err: unknown) => this.failed(err));
  }

  start(): void {
    this.lastStart = Date.now();
    this.informer.start().catch((e: unknown) => this.failed(e));
  }

  /** The watch request was accepted: events flow again. */
  connected(): void {
    if (this.synced) this.healthy = true;
  }

  objects(): readonly KubernetesObject[] {
    return this.informer.list();
  }

  stop(): void {
    this.stopped = true;
    this.healthy = false;
    clearTimeout(this.restartTimer);
    void this.informer.stop();
  }

  /** Secret values are hashed before they are kept, the same way a listing run hashes them. */
  private hashInPlace(obj: KubernetesObject): void {
    const target = obj as unknown as Record<string, unknown>;
    const hashed = hashSecretValues(obj as unknown as KubeObject, this.secretKey) as unknown as Record<string, unknown>;
    if (hashed === target) return;
    for (const k of Object.keys(target)) if (!(k in hashed)) delete target[k];
    Object.assign(target, hashed);
  }

  private failed(err: unknown): void {
    if (this.stopped) return;
    this.healthy = false;
    if (Date.now() - this.lastStart > RESTART_MAX_MS) this.failures = 0;
    this.failures++;
    const delay = Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** (this.failures - 1));
    this.log.warn({ resource: this.resource.resource, group: this.resource.group, namespace: this.namespace ?? null, err: errorText(err), retryInMs: delay }, "watch failed; restarting");
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      if (this.stopped) return;
      this.restarts++;
      this.start();
    }, delay);
    this.restartTimer.unref();
  }
}

/** The informers of one environment. */
export class EnvironmentWatch {
  private client: ClusterClient | null = null;
  private discovery: Discovery | null = null;
  private readonly informers = new Map<string, SupervisedInformer>();
  private stopped = false;
  events = 0;
  runsQueued = 0;

  constructor(
    readonly env: EnvironmentConfig,
    readonly environmentId: string,
    private readonly secretKey: Buffer,
    private readonly log: Logger,
    private readonly onChange: () => void,
  ) {}

  /** Connects and starts informers for the kinds the last run stored. */
  async start(initialKinds: ReadonlyArray<{ apiVersion: string; kind: string }>): Promise<void> {
    this.client = createClusterClient(this.env.cluster, { timeoutMs: 30_000 });
    this.discovery = await discover(this.client);
    if (this.stopped) return;
    const wanted = new Map<string, ApiResource>();
    for (const k of initialKinds) {
      const r = this.discovery.lookup(k.apiVersion, k.kind);
      if (r && r.verbs.includes("watch")) wanted.set(`${r.group}/${r.kind}`, r);
    }
    this.ensure([...wanted.values()], this.scopes());
  }

  private scopes(): Scope[] {
    return this.env.namespaces.length > 0 ? this.env.namespaces : [undefined];
  }

  /**
   * Informers for exactly these resources: missing ones start, ones no run
   * asks for any more stop (their objects are freed). True when all are
   * synced and watching.
   */
  ensure(resources: readonly ApiResource[], scopes: readonly Scope[]): boolean {
    if (this.stopped || !this.client) return false;
    const keep = new Set<string>();
    let ready = true;
    for (const r of resources) {
      for (const ns of r.namespaced ? scopes : [undefined]) {
        const key = informerKey(r, ns);
        keep.add(key);
        let inf = this.informers.get(key);
        if (inf && inf.resource.version !== r.version) {
          inf.stop();
          inf = undefined;
        }
        if (!inf) {
          inf = new SupervisedInformer(r, ns, this.client, this.secretKey, this.log, () => this.changed());
          this.informers.set(key, inf);
          inf.start();
        }
        if (!inf.synced || !inf.healthy) ready = false;
      }
    }
    for (const [key, inf] of this.informers) {
      if (keep.has(key)) continue;
      inf.stop();
      this.informers.delete(key);
    }
    return ready;
  }

  /** Cached objects by `${group}/${kind}`, or null unless every requested informer is synced and watching. */
  read(resources: readonly ApiResource[], scopes: readonly Scope[]): Map<string, Array<Record<string, unknown>>> | null {
    if (!this.ensure(resources, scopes)) return null;
    const out = new Map<string, Array<Record<string, unknown>>>();
    for (const r of resources) {
      const all: Array<Record<string, unknown>> = [];
      for (const ns of r.namespaced ? scopes : [undefined]) {
        const inf = this.informers.get(informerKey(r, ns));
        if (!inf) return null;
        for (const o of inf.objects()) all.push(o as unknown as Record<string, unknown>);
      }
      out.set(`${r.group}/${r.kind}`, all);
    }
    return out;
  }

  private changed(): void {
    this.events++;
    this.onChange();
  }

  status(): WatchStatus {
    const informers = [...this.informers.values()].map((i) => ({
      resource: `${i.resource.resource}${i.resource.group ? "." + i.resource.group : ""}`,
      namespace: i.namespace ?? null,
      synced: i.synced,
      healthy: i.healthy,
      objects: i.objects().length,
      lists: i.lists,
      restarts: i.restarts,
    }));
    return {
      environment: this.env.name,
      environmentId: this.environmentId,
      ready: informers.length > 0 && informers.every((i) => i.synced && i.healthy),
      events: this.events,
      runsQueued: this.runsQueued,
      informers,
    };
  }

  stop(): void {
    this.stopped = true;
    for (const inf of this.informers.values()) inf.stop();
    this.informers.clear();
  }
}

/**
 * Per worker: takes the advisory lock of every watch-mode environment it can,
 * runs an EnvironmentWatch for each one it holds, and debounces their events
 * into runs. Locks belong to one Postgres session; if this worker dies or its
 * connection drops, Postgres releases them and another worker takes over at
 * its next check.
 */
export class WatchManager {
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private readonly watches = new Map<string, EnvironmentWatch>();
  private readonly starting = new Map<string, Promise<void>>();
  private readonly startFailures = new Map<string, { count: number; retryAt: number }>();
  private readonly debounce = new Map<string, { timer: NodeJS.Timeout; first: number }>();
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly log: Logger;

  constructor(
    private readonly ctx: CollectorContext,
    private readonly opts: WatchManagerOptions,
  ) {
    this.log = ctx.log.child({ component: "watch" });
  }

  /** For the run: cached live objects when it was triggered by a watch and the cache is complete. */
  readonly liveSource: LiveSource = async (request) => {
    const watch = [...this.watches.values()].find((w) => w.env.name === request.environment);
    if (!watch) return null;
    if (!CACHE_TRIGGERS.has(request.trigger ?? "")) {
      // Learn the kinds this run reads, so the next watch-triggered run finds them cached.
      watch.ensure(request.resources, request.namespaces);
      return null;
    }
    return watch.read(request.resources, request.namespaces);
  };

  start(): void {
    const loop = () => {
      if (this.stopped) return;
      this.checking = this.check()
        .catch((e: unknown) => this.log.error({ err: errorText(e) }, "watch lock check failed"))
        .finally(() => {
          if (!this.stopped) {
            this.timer = setTimeout(loop, this.opts.lockCheckMs ?? 2_000);
          }
        });
    };
    loop();
  }

  status(): WatchStatus[] {
    return [...this.watches.values()].map((w) => w.status());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.checking;
    await Promise.allSettled(this.starting.values());
    for (const d of this.debounce.values()) clearTimeout(d.timer);
    this.debounce.clear();
    for (const w of this.watches.values()) w.stop();
    this.watches.clear();
    const client = this.client;
    this.client = null;
    // Ending the session releases every advisory lock it holds.
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<pg.Client> {
    if (this.client) return this.client;
    if (!this.connecting) {
      const client = new pg.Client({ connectionString: this.opts.databaseUrl, application_name: "driftwatch-watch-locks" });
      client.on("error", (e) => this.lost(client, e));
      client.on("end", () => this.lost(client, new Error("connection closed")));
      this.connecting = client
        .connect()
        .then(() => {
          this.client = client;
        })
        .finally(() => {
          this.connecting = null;
        });
    }
    await this.connecting;
    if (!this.client) throw new Error("no lock connection");
    return this.client;
  }

  /** The lock session is gone, and with it every lock: stop watching now, before another worker starts. */
  private lost(client: pg.Client, e: Error): void {
    if (this.client !== client) return;
    this.client = null;
    if (this.stopped) return;
    this.log.warn({ err: e.message, watching: this.watches.size }, "lost the watch lock connection; stopping watches");
    for (const w of this.watches.values()) w.stop();
    this.watches.clear();
  }

  private async check(): Promise<void> {
    const client = await this.connect();
    const rows = (await client.query<{ id: string; name: string }>(`SELECT id::text AS id, name FROM "Environment" WHERE "removedAt" IS NULL`)).rows;
    const byName = new Map(rows.map((r) => [r.name, r.id]));
    const wanted = new Map<string, EnvironmentConfig>();
    for (const e of this.ctx.config.environments) {
      const id = byName.get(e.name);
      if (e.mode === "watch" && id) wanted.set(id, e);
    }
    for (const [id, w] of this.watches) {
      if (wanted.has(id)) continue;
      w.stop();
      this.watches.delete(id);
      await client.query(`SELECT pg_advisory_unlock(hashtextextended($1, 0))`, [lockName(id)]);
    }
    for (const [id, env] of wanted) {
      if (this.stopped || this.client !== client) return;
      if (this.watches.has(id) || this.starting.has(id)) continue;
      const failure = this.startFailures.get(id);
      if (failure && failure.retryAt > Date.now()) continue;
      // Re-entrant: a lock this session already holds is granted again, so hold it once.
      const held = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked`, [lockName(id)]);
      if (!held.rows[0]?.locked) continue;
      const start = this.startWatch(client, id, env).finally(() => this.starting.delete(id));
      this.starting.set(id, start);
      await start;
    }
  }

  private async startWatch(client: pg.Client, id: string, env: EnvironmentConfig): Promise<void> {
    const log = this.log.child({ env: env.name });
    const watch = new EnvironmentWatch(env, id, this.ctx.secretKey, log, () => this.schedule(id, env.name));
    try {
      const kinds = (
        await client.query<{ apiVersion: string; kind: string }>(
          `SELECT DISTINCT "apiVersion", kind FROM "DesiredObject" WHERE "environmentId" = $1::uuid
           UNION SELECT DISTINCT "apiVersion", kind FROM "LiveObject" WHERE "environmentId" = $1::uuid`,
          [id],
        )
      ).rows;
      await watch.start(kinds);
      if (this.stopped || this.client !== client) {
        watch.stop();
        return;
      }
      this.watches.set(id, watch);
      this.startFailures.delete(id);
      log.info({ kinds: kinds.length }, "watching");
    } catch (e) {
      watch.stop();
      const count = (this.startFailures.get(id)?.count ?? 0) + 1;
      const delay = Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** count);
      this.startFailures.set(id, { count, retryAt: Date.now() + delay });
      log.warn({ err: errorText(e), retryInMs: delay }, "cannot start watching; polling continues");
      // Let another worker try: this one could not reach the cluster.
      if (this.client === client) await client.query(`SELECT pg_advisory_unlock(hashtextextended($1, 0))`, [lockName(id)]).catch(() => undefined);
    }
  }

  /** Trailing debounce with a ceiling: a burst becomes one run, a steady stream still runs every `maxDelayMs`. */
  private schedule(id: string, name: string): void {
    if (this.stopped) return;
    const now = Date.now();
    const debounceMs = this.opts.debounceMs ?? 200;
    const maxDelayMs = this.opts.maxDelayMs ?? 1_000;
    const pending = this.debounce.get(id);
    const first = pending?.first ?? now;
    if (pending) clearTimeout(pending.timer);
    const delay = Math.max(0, Math.min(debounceMs, first + maxDelayMs - now));
    const timer = setTimeout(() => {
      this.debounce.delete(id);
      const w = this.watches.get(id);
      if (!w || this.stopped) return;
      w.runsQueued++;
      this.opts.trigger(id, name).catch((e: unknown) => this.log.error({ env: name, err: errorText(e) }, "cannot queue a watch-triggered run"));
    }, delay);
    this.debounce.set(id, { timer, first });
  }
}

function lockName(environmentId: string): string {
  return `driftwatch:watch:${environmentId}`;
}
