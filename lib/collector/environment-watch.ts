// The informers of one environment in watch mode: started for the kinds its
// last run stored, widened to the kinds each run reads, and read by
// watch-triggered runs only while every one of them is synced and healthy.
import type { EnvironmentConfig } from "@/lib/config";
import { createClusterClient, type ClusterClient } from "@/lib/kube/client";
import { discover, type ApiResource, type Discovery } from "@/lib/kube/discovery";
import type { Logger } from "@/lib/log";
import { SupervisedInformer, informerKey, type InformerStatus, type Scope } from "./watch-informer";

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
