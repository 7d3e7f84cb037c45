import { describe, expect, it } from "vitest";
import type { RenderedObject } from "./manifests";
import { ParseCache, RenderCache, type FileParse } from "./render-cache";

const render = (n: number) => ({
  objects: Array.from({ length: n }, (_, i): RenderedObject => ({ object: { i }, sourcePath: "a.yaml" })),
  problems: [],
  inputs: [],
});

describe("RenderCache", () => {
  it("evicts the least recently used entry when full", () => {
    const cache = new RenderCache(2, 1_000);
    cache.set("a", render(1));
    cache.set("b", render(1));
    cache.get("a");
    cache.set("c", render(1));
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBeDefined();
    expect(cache.get("c")).toBeDefined();
  });

  it("bounds the total number of objects held", () => {
    const cache = new RenderCache(10, 100);
    cache.set("a", render(60));
    cache.set("b", render(60));
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("b")?.objects).toHaveLength(60);
    // A render larger than the whole budget is not kept, and evicts nothing.
    cache.set("huge", render(101));
    expect(cache.get("huge")).toBeUndefined();
    expect(cache.get("b")).toBeDefined();
  });

  it("replaces an entry stored again under the same key", () => {
    const cache = new RenderCache(10, 100);
    cache.set("a", render(60));
    cache.set("a", render(30));
    cache.set("b", render(60));
    expect(cache.size).toBe(2);
  });
});

const parsedFiles = (files: number, docsEach: number): Map<string, FileParse> =>
  new Map(
    Array.from({ length: files }, (_, f): [string, FileParse] => [
      `blob-${f}`,
      { kind: "parsed", result: { ok: true, docs: Array.from({ length: docsEach }, (_, i) => ({ value: { i }, index: i, line: 1, range: [0, 1] as [number, number] })) } },
    ]),
  );

describe("ParseCache", () => {
  it("keeps only the last render of a key", () => {
    const cache = new ParseCache(4, 1_000);
    cache.remember("app", parsedFiles(3, 1));
    const next = parsedFiles(1, 1);
    cache.remember("app", next);
    expect(cache.last("app")).toBe(next);
  });

  it("evicts the least recently used key, by count and by the documents held", () => {
    const byCount = new ParseCache(2, 1_000);
    byCount.remember("a", parsedFiles(1, 1));
    byCount.remember("b", parsedFiles(1, 1));
    byCount.last("a");
    byCount.remember("c", parsedFiles(1, 1));
    expect(byCount.last("b")).toBeUndefined();
    expect(byCount.last("a")).toBeDefined();

    const byDocuments = new ParseCache(10, 100);
    byDocuments.remember("a", parsedFiles(2, 30));
    byDocuments.remember("b", parsedFiles(2, 30));
    expect(byDocuments.last("a")).toBeUndefined();
    expect(byDocuments.last("b")).toBeDefined();
    byDocuments.remember("huge", parsedFiles(101, 1));
    expect(byDocuments.last("huge")).toBeUndefined();
    expect(byDocuments.last("b")).toBeDefined();
  });
});
