// Informers that survive: client-node's ListWatch restarted with backoff
// after any error other than 410 (which client-node relists on by itself),
// with Secret values hashed as objects arrive. Used by EnvironmentWatch.
import { ListWatch, Watch, type KubeConfig, type KubernetesListObject, type KubernetesObject } from "@kubernetes/client-node";
import { hashSecretValues, type KubeObject } from "@/lib/drift";
import type { ClusterClient } from "@/lib/kube/client";
import { resourcePath, type ApiResource } from "@/lib/kube/discovery";
import { listPaged } from "@/lib/kube/list";
import type { Logger } from "@/lib/log";

export interface InformerStatus {
  resource: string;
  namespace: string | null;
  synced: boolean;
  healthy: boolean;
  objects: number;
  lists: number;
  restarts: number;
}

/** A namespace scope as the collector passes it: undefined = every namespace. */
export type Scope = string | undefined;

export const RESTART_BASE_MS = 500;
export const RESTART_MAX_MS = 30_000;

export function informerKey(r: ApiResource, namespace: Scope): string {
  return `${r.group}/${r.kind}|${namespace ?? "*"}`;
}

export function errorText(e: unknown): string {
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
export class SupervisedWatch extends Watch {
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
export class SupervisedInformer {
  stopped = false;
  synced = false;
  healthy = false;
  lists = 0;
  restarts = 0;
  /** The watch request that follows the last list was accepted: only then is a synced informer watching. */
  private watchOpen = false;
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
    /** Every change to the cache, synced or not (the change log needs them all); `synced` says whether it is news. */
    private readonly onChange: (obj: KubernetesObject, synced: boolean) => void,
  ) {
    const apiVersion = resource.group ? `${resource.group}/${resource.version}` : resource.version;
    const list = async (): Promise<KubernetesListObject<KubernetesObject>> => {
      if (this.stopped) throw new Error("informer stopped");
      this.watchOpen = false;
      const items: KubernetesObject[] = [];
      const page = await listPaged(client, resource, { namespace, pageSize: 500 }, (batch) => {
        for (const item of batch) items.push(item as KubernetesObject);
      });
      this.lists++;
      // The informer stores and announces the listed items right after this
      // promise settles; from the next turn on the cache is complete.
      // Healthy once its watch is open too (connected()): a cache that is complete but not yet watched would miss
      // nothing (the watch starts from the list's version) but shows a change only after the request is accepted.
      setImmediate(() => {
        if (this.stopped) return;
        this.synced = true;
        this.healthy = this.watchOpen;
      });
      return { apiVersion, kind: `${resource.kind}List`, metadata: { resourceVersion: page.resourceVersion }, items };
    };
    const watch = new SupervisedWatch(client.kc, this);
    this.informer = new ListWatch(resourcePath(resource, namespace), watch, list, false);
    const changed = (obj: KubernetesObject) => {
      // Never let a callback throw: the informer calls it from a promise nobody awaits.
      try {
        if (resource.kind === "Secret" && resource.group === "") this.hashInPlace(obj);
        this.onChange(obj, this.synced);
      } catch (e) {
        this.log.error({ err: errorText(e) }, "watch event handling failed");
      }
    };
    this.informer.on("add", changed);
    this.informer.on("update", changed);
    this.informer.on("delete", (obj) => {
      try {
        this.onChange(obj, this.synced);
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
    this.watchOpen = true;
    if (this.synced) this.healthy = true;
  }

  objects(): readonly KubernetesObject[] {
    return this.informer.list();
  }

  /** One cached object, or undefined when the cache has none by that name. */
  get(namespace: string, name: string): KubernetesObject | undefined {
    return this.informer.get(name, namespace);
  }

  stop(): void {
    this.stopped = true;
    this.healthy = false;
    this.watchOpen = false;
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
    this.watchOpen = false;
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
