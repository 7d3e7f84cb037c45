import { describe, expect, it } from "vitest";
import type { RenderedObject } from "./manifests";
import { RenderCache } from "./render-cache";

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
