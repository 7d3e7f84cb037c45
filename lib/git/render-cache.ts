// Render results by content: the same tree rendered the same way gives the
// same objects, so a steady-state collection (Git unchanged) renders nothing.
// Bounded by entries and by total objects, least recently used evicted first
// (lru-cache).
import { LRUCache } from "lru-cache";
import type { YamlResult } from "./k8s-yaml";
import type { RenderedObject, RenderProblem } from "./manifests";

export interface CachedRender {
  objects: readonly RenderedObject[];
  problems: readonly RenderProblem[];
  /** Repository-relative files the render read, sorted. */
  inputs: readonly string[];
  /** Charts fetched from a Helm repository by an exact version (kustomize helmCharts): read from outside the Git tree. */
  fetchedCharts?: readonly string[];
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

/** What a plain render learnt from one manifest file's blob: its documents (frozen), its syntax error, or that Argo CD skips it. */
export type FileParse = { kind: "parsed"; result: YamlResult } | { kind: "skip-marker" };

/**
 * The last plain render's parse of every file, per (mirror, path, render
 * options), by blob: a render at a new commit (a push) reads and parses only
 * the blobs the previous render of the same key did not see. Bounded on both
 * sides: only the last render per key is kept (a new render replaces it, so
 * deleted files go with it), and keys are evicted least recently used, by
 * count and by the documents they hold (a render bigger than the whole budget
 * is not kept). The documents are frozen: every render that reuses them shares
 * them, and so do the objects it hands out.
 */
export class ParseCache {
  private readonly renders: LRUCache<string, ReadonlyMap<string, FileParse>>;

  constructor(maxKeys = 256, maxDocuments = 200_000) {
    this.renders = new LRUCache({ max: maxKeys, maxSize: maxDocuments, sizeCalculation: (files) => Math.max(1, documentsIn(files)) });
  }

  /** The previous render's parses of `key`, by file key (blob and reader). */
  last(key: string): ReadonlyMap<string, FileParse> | undefined {
    return this.renders.get(key);
  }

  remember(key: string, files: ReadonlyMap<string, FileParse>): void {
    this.renders.set(key, files);
  }

  clear(): void {
    this.renders.clear();
  }
}

function documentsIn(files: ReadonlyMap<string, FileParse>): number {
  let n = 0;
  for (const f of files.values()) n += f.kind === "parsed" && f.result.ok ? Math.max(1, f.result.docs.length) : 1;
  return n;
}
