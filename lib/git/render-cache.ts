// Render results by content: the same tree rendered the same way gives the
// same objects, so a steady-state collection (Git unchanged) renders nothing.
// Bounded by entries and by total objects, least recently used evicted first
// (lru-cache).
import { LRUCache } from "lru-cache";
import type { RenderedObject, RenderProblem } from "./manifests";

export interface CachedRender {
  objects: readonly RenderedObject[];
  problems: readonly RenderProblem[];
  /** Repository-relative files the render read, sorted. */
  inputs: readonly string[];
}

export class RenderCache {
  private readonly entries: LRUCache<string, CachedRender>;

  constructor(maxEntries = 32, maxObjects = 200_000) {
    // Sized by objects; a render bigger than the whole budget is not kept at all (and evicts nothing).
    this.entries = new LRUCache({ max: maxEntries, maxSize: maxObjects, sizeCalculation: (v) => Math.max(1, v.objects.length) });
  }

  get(key: string): CachedRender | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: CachedRender): void {
    this.entries.set(key, value);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
