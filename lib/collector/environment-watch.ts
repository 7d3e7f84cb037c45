// The informers of one environment in watch mode: started for the kinds its
// last run stored, widened to the kinds each run reads, and read by
// watch-triggered runs only while every one of them is synced and healthy.
import type { KubernetesObject } from "@kubernetes/client-node";
import type { EnvironmentConfig } from "@/lib/config";
import type { KubeObject } from "@/lib/drift";
import { createClusterClient, type ClusterClient } from "@/lib/kube/client";
import { discover, type ApiResource, type Discovery } from "@/lib/kube/discovery";
import type { Logger } from "@/lib/log";
import { SupervisedInformer, informerKey, type InformerStatus, type Scope } from "./watch-informer";
import { keyOnce } from "./watch-ingest";
import type { CacheChange, CacheRead } from "./run-context";

/** Epochs are unique across watches: a read of one never vouches for another's log. */
let epochs = 0;

export interface WatchStatus {
  environment: string;
  environmentId: string;
  /** True when every informer has listed and is watching: watch-triggered runs read the cache. */
  ready: boolean;
  events: number;
  runsQueued: number;
  informers: InformerStatus[];
}

/** The informers of one environment. */
export class EnvironmentWatch {
  private client: ClusterClient | null = null;
  private discovery: Discovery | null = null;
  private readonly informers = new Map<string, SupervisedInformer>();
  private stopped = false;
  /** Changes since the informers last changed: the key of every object added, updated or deleted, with its position. */
  private readonly changeLog = new Map<string, { seq: number; informer: SupervisedInformer; namespace: string; name: string }>();
  private seq = 0;
  /** Positions up to here are dropped from the log: asking from before them is unknown. */
  private released = 0;
  /** Moves whenever an informer starts or stops (its objects come or go without a change to log for them). */
  private epoch = ++epochs;
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
          const informer: SupervisedInformer = new SupervisedInformer(r, ns, this.client, this.secretKey, this.log, (obj, synced) => this.changed(informer, obj, synced));
          inf = informer;
          this.newEpoch();
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
      this.newEpoch();
    }
    return ready;
  }

  /** The cache of these kinds, or null unless every requested informer is synced and watching. */
  read(resources: readonly ApiResource[], scopes: readonly Scope[]): CacheRead | null {
    if (!this.ensure(resources, scopes)) return null;
    const informers = resources.map((r) => (r.namespaced ? scopes : [undefined]).map((ns) => this.informers.get(informerKey(r, ns))));
    if (informers.some((of) => of.some((inf) => !inf))) return null;
    const epoch = this.epoch;
    return {
      epoch,
      cursor: this.seq,
      objects: () => {
        const out = new Map<string, Array<Record<string, unknown>>>();
        for (const [i, r] of resources.entries()) {
          const all: Array<Record<string, unknown>> = [];
          for (const inf of informers[i]!) for (const o of inf!.objects()) all.push(o as unknown as Record<string, unknown>);
          out.set(`${r.group}/${r.kind}`, all);
        }
        return out;
      },
      changesSince: (cursor) => (epoch === this.epoch ? this.changesSince(cursor) : null),
      release: (cursor) => {
        if (epoch === this.epoch) this.release(cursor);
      },
    };
  }

  /** The objects changed after `cursor`, as the cache holds them now (null: deleted); null when the log no longer reaches back that far. */
  private changesSince(cursor: number): CacheChange[] | null {
    if (cursor < this.released) return null;
    const out: CacheChange[] = [];
    for (const [key, c] of this.changeLog) {
      if (c.seq <= cursor) continue;
      if (c.informer.stopped) return null;
      const object = c.informer.get(c.namespace, c.name);
      out.push({ key, resource: c.informer.resource, object: (object as unknown as Record<string, unknown> | undefined) ?? null });
    }
    return out;
  }

  /** A run kept what the cache held up to `cursor`: the log before it is not asked for again. */
  private release(cursor: number): void {
    if (cursor <= this.released) return;
    for (const [key, c] of this.changeLog) {
      if (c.seq > cursor) break; // in position order
      this.changeLog.delete(key);
    }
    this.released = cursor;
  }

  private newEpoch(): void {
    this.epoch = ++epochs;
    this.changeLog.clear();
    this.released = this.seq;
  }

  private changed(informer: SupervisedInformer, obj: KubernetesObject, synced: boolean): void {
    // A stopped informer's list still in flight lands after ensure() dropped it (client-node does not check): not
    // this cache's change, and logged it would send the next run to the stopped informer's objects.
    if (informer.stopped || this.informers.get(informerKey(informer.resource, informer.namespace)) !== informer) return;
    let key: string;
    try {
      key = keyOnce(obj as unknown as KubeObject);
    } catch (e) {
      // A change the log cannot name: the next run takes in every object instead of trusting the log.
      this.newEpoch();
      throw e;
    }
    // Re-inserted, so the log stays in position order.
    this.changeLog.delete(key);
    this.changeLog.set(key, { seq: ++this.seq, informer, namespace: obj.metadata?.namespace ?? "", name: obj.metadata?.name ?? "" });
    if (!synced) return;
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
    this.newEpoch();
    for (const inf of this.informers.values()) inf.stop();
    this.informers.clear();
  }
}
