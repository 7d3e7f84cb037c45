// Object storage with a global resourceVersion, a bounded per-resource event
// history (the watch cache), consistent snapshots for paginated lists, and
// watch fan-out. Keys sort like etcd keys: "<namespace>/<name>" or "<name>".
import { isObj, type Obj } from "./json";

export type EventType = "ADDED" | "MODIFIED" | "DELETED";

export interface StoredObject {
  obj: Obj;
  rv: number;
  /** Cached JSON of the object without kind/apiVersion (list items of built-in kinds). */
  itemJson?: string;
}

export interface StoreEvent {
  rv: number;
  type: EventType;
  gr: string;
  key: string;
  obj: Obj;
  prev?: Obj;
}

export interface WatchSink {
  gr: string;
  onEvent(e: StoreEvent): void;
}

interface ResourceData {
  items: Map<string, StoredObject>;
  sorted: string[] | null;
  history: StoreEvent[];
  /** Events at or below this resourceVersion are no longer known. */
  compactedRV: number;
  lastRV: number;
}

export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export class Store {
  rv: number;
  /** Called after every write (persistence). */
  onChange: (() => void) | undefined;
  private data = new Map<string, ResourceData>();
  private sinks = new Set<WatchSink>();
  /** ownerReferences[].uid → "gr\nkey" of the dependents, for garbage collection. */
  private dependents = new Map<string, Set<string>>();

  constructor(
    private readonly historyLimit: number,
    startRV = 1,
  ) {
    this.rv = startRV;
  }

  private res(gr: string): ResourceData {
    let d = this.data.get(gr);
    if (!d) {
      d = { items: new Map(), sorted: null, history: [], compactedRV: this.rv, lastRV: 0 };
      this.data.set(gr, d);
    }
    return d;
  }

  resources(): string[] {
    return [...this.data.keys()];
  }

  get(gr: string, key: string): StoredObject | undefined {
    return this.data.get(gr)?.items.get(key);
  }

  /** Sorted keys of a resource (optionally only one namespace). */
  keys(gr: string, namespace?: string): string[] {
    const d = this.res(gr);
    if (!d.sorted) d.sorted = [...d.items.keys()].sort(byteCompare);
    if (!namespace) return d.sorted;
    const prefix = `${namespace}/`;
    const start = lowerBound(d.sorted, prefix);
    let end = start;
    while (end < d.sorted.length && (d.sorted[end] as string).startsWith(prefix)) end++;
    return d.sorted.slice(start, end);
  }

  count(gr: string): number {
    return this.data.get(gr)?.items.size ?? 0;
  }

  lastChange(gr: string): number {
    return this.data.get(gr)?.lastRV ?? 0;
  }

  compactedRV(gr: string): number {
    return this.res(gr).compactedRV;
  }

  nextRV(): number {
    this.rv += 1;
    return this.rv;
  }

  /** Stores `obj` (whose metadata.resourceVersion is set here) and emits ADDED or MODIFIED. */
  put(gr: string, key: string, obj: Obj): StoredObject {
    const d = this.res(gr);
    const rv = this.nextRV();
    const md = isObj(obj.metadata) ? obj.metadata : {};
    md.resourceVersion = String(rv);
    obj.metadata = md;
    const prev = d.items.get(key);
    const stored: StoredObject = { obj, rv };
    if (!prev) d.sorted = null;
    d.items.set(key, stored);
    if (prev) this.index(gr, key, prev.obj, false);
    this.index(gr, key, obj, true);
    this.record(d, { rv, type: prev ? "MODIFIED" : "ADDED", gr, key, obj, prev: prev?.obj });
    return stored;
  }

  /** Removes the object and emits DELETED carrying the deletion's resourceVersion. */
  remove(gr: string, key: string): Obj | undefined {
    const d = this.res(gr);
    const prev = d.items.get(key);
    if (!prev) return undefined;
    const rv = this.nextRV();
    d.items.delete(key);
    d.sorted = null;
    this.index(gr, key, prev.obj, false);
    const md = isObj(prev.obj.metadata) ? { ...prev.obj.metadata } : {};
    md.resourceVersion = String(rv);
    const deleted: Obj = { ...prev.obj, metadata: md };
    this.record(d, { rv, type: "DELETED", gr, key, obj: deleted, prev: prev.obj });
    return deleted;
  }

  /** Loads objects without events (state restore). */
  load(gr: string, key: string, obj: Obj, rv: number): void {
    const d = this.res(gr);
    d.items.set(key, { obj, rv });
    d.sorted = null;
    d.lastRV = Math.max(d.lastRV, rv);
    this.index(gr, key, obj, true);
  }

  private index(gr: string, key: string, obj: Obj, add: boolean): void {
    const refs = isObj(obj.metadata) ? obj.metadata.ownerReferences : undefined;
    if (!Array.isArray(refs)) return;
    const id = `${gr}\n${key}`;
    for (const r of refs) {
      const uid = isObj(r) && typeof r.uid === "string" ? r.uid : undefined;
      if (!uid) continue;
      let set = this.dependents.get(uid);
      if (add) {
        if (!set) this.dependents.set(uid, (set = new Set()));
        set.add(id);
      } else if (set) {
        set.delete(id);
        if (set.size === 0) this.dependents.delete(uid);
      }
    }
  }

  /** Objects whose ownerReferences name `uid`. */
  dependentsOf(uid: string): Array<{ gr: string; key: string; stored: StoredObject }> {
    const out: Array<{ gr: string; key: string; stored: StoredObject }> = [];
    for (const id of this.dependents.get(uid) ?? []) {
      const i = id.indexOf("\n");
      const gr = id.slice(0, i);
      const key = id.slice(i + 1);
      const stored = this.get(gr, key);
      if (stored) out.push({ gr, key, stored });
    }
    return out;
  }

  private record(d: ResourceData, e: StoreEvent): void {
    d.lastRV = e.rv;
    d.history.push(e);
    if (d.history.length > this.historyLimit) {
      const drop = d.history.length - this.historyLimit;
      const last = d.history[drop - 1];
      if (last) d.compactedRV = last.rv;
      d.history.splice(0, drop);
    }
    for (const s of [...this.sinks]) if (s.gr === e.gr) s.onEvent(e);
    this.onChange?.();
  }

  /** After a restore: nothing before the current resourceVersion can be replayed. */
  resetHistory(): void {
    for (const d of this.data.values()) {
      d.history = [];
      d.compactedRV = this.rv;
    }
  }

  /** Events after `rv` for a resource, or undefined when the history no longer reaches back that far. */
  eventsSince(gr: string, rv: number): StoreEvent[] | undefined {
    const d = this.res(gr);
    if (rv < d.compactedRV) return undefined;
    const h = d.history;
    let i = h.length;
    while (i > 0 && (h[i - 1] as StoreEvent).rv > rv) i--;
    return h.slice(i);
  }

  /**
   * The resource's objects as they were at `rv`, in key order, or undefined when
   * the history cannot reconstruct it (the equivalent of etcd compaction).
   */
  snapshot(gr: string, rv: number): Map<string, Obj> | undefined {
    const d = this.res(gr);
    const cur = new Map<string, Obj>();
    for (const [k, v] of d.items) cur.set(k, v.obj);
    if (rv >= d.lastRV) return cur;
    const events = this.eventsSince(gr, rv);
    if (!events) return undefined;
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i] as StoreEvent;
      if (e.type === "ADDED") cur.delete(e.key);
      else if (e.prev) cur.set(e.key, e.prev);
    }
    return cur;
  }

  subscribe(s: WatchSink): () => void {
    this.sinks.add(s);
    return () => this.sinks.delete(s);
  }

  all(): Array<{ gr: string; key: string; stored: StoredObject }> {
    const out: Array<{ gr: string; key: string; stored: StoredObject }> = [];
    for (const [gr, d] of this.data) for (const [key, stored] of d.items) out.push({ gr, key, stored });
    return out;
  }
}

export function byteCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as string) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
