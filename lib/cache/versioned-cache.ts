// A small in-process cache for answers that many readers ask for at once (50
// on-call engineers with the same drift page open, all polling). An entry is
// served only while the data generation it was computed at is still current
// and for at most `ttlMs` (answers also depend on the clock: ages, "stale",
// expired claims). Concurrent misses for one key share a single computation.
// No I/O here: the generation comes from the caller (see lib/db/change-feed).
// The bound and the least-recently-used order are lru-cache's.
import { LRUCache } from "lru-cache";

export interface VersionedCacheOptions {
  /** Entries kept at most; the least recently used go first. */
  maxEntries: number;
  /** How long an entry may be served at the same generation. */
  ttlMs: number;
  now?: () => number;
}

interface Entry<V> {
  generation: number;
  expiresAt: number;
  value: Promise<V>;
}

export class VersionedCache<V> {
  private readonly entries: LRUCache<string, Entry<V>>;
  private readonly now: () => number;

  constructor(private readonly opts: VersionedCacheOptions) {
    this.now = opts.now ?? Date.now;
    this.entries = new LRUCache({ max: opts.maxEntries });
  }

  /**
   * The cached answer for `key` at `generation`, or `compute()`'s (then kept).
   * A null generation means changes cannot be observed right now: always compute.
   * A failed computation is not kept.
   */
  get(key: string, generation: number | null, compute: () => Promise<V>): Promise<V> {
    if (generation === null) return compute();
    const now = this.now();
    const hit = this.entries.get(key);
    if (hit && hit.generation === generation && hit.expiresAt > now) return hit.value;
    const value = compute();
    const entry: Entry<V> = { generation, expiresAt: now + this.opts.ttlMs, value };
    this.entries.set(key, entry);
    value.catch(() => {
      if (this.entries.peek(key) === entry) this.entries.delete(key);
    });
    return value;
  }

  /**
   * Forgets one key (or everything). With `value`, only while the key still
   * holds that answer (a newer computation started meanwhile is kept).
   */
  delete(key?: string, value?: Promise<V>): void {
    if (key === undefined) this.entries.clear();
    else if (value === undefined || this.entries.peek(key)?.value === value) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
