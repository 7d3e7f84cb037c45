// Render results by content: the same tree rendered the same way gives the
// same objects, so a steady-state collection (Git unchanged) renders nothing.
// Bounded by entries and by total objects, least recently used evicted first.
import type { RenderedObject, RenderProblem } from "./manifests";

export interface CachedRender {
  objects: readonly RenderedObject[];
  problems: readonly RenderProblem[];
  /** Repository-relative files the render read, sorted. */
  inputs: readonly string[];
}

export class RenderCache {
  private readonly entries = new Map<string, CachedRender>();
  private objectCount = 0;

  constructor(
    private readonly maxEntries = 32,
    private readonly maxObjects = 200_000,
  ) {}

  get(key: string): CachedRender | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, value: CachedRender): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.objectCount -= old.objects.length;
    }
    // A render bigger than the whole budget is not kept at all.
    if (value.objects.length > this.maxObjects) return;
    this.entries.set(key, value);
    this.objectCount += value.objects.length;
    for (const [k, v] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.objectCount <= this.maxObjects) break;
      this.entries.delete(k);
      this.objectCount -= v.objects.length;
    }
  }

  clear(): void {
    this.entries.clear();
    this.objectCount = 0;
  }

  get size(): number {
    return this.entries.size;
  }
}
