import { describe, expect, it } from "vitest";
import { VersionedCache } from "./versioned-cache";

function counter() {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    compute: (value: string) => async () => {
      calls++;
      return `${value}#${calls}`;
    },
  };
}

describe("VersionedCache", () => {
  it("serves the same answer while the generation holds and the entry is young", async () => {
    let t = 1_000;
    const cache = new VersionedCache<string>({ maxEntries: 10, ttlMs: 3_000, now: () => t });
    const c = counter();
    expect(await cache.get("drift", 1, c.compute("a"))).toBe("a#1");
    t += 2_999;
    expect(await cache.get("drift", 1, c.compute("a"))).toBe("a#1");
    expect(c.calls).toBe(1);
  });

  it("computes again once the data generation moved", async () => {
    const cache = new VersionedCache<string>({ maxEntries: 10, ttlMs: 60_000 });
    const c = counter();
    await cache.get("drift", 1, c.compute("a"));
    expect(await cache.get("drift", 2, c.compute("a"))).toBe("a#2");
    // An answer computed at an older generation is never served again.
    expect(await cache.get("drift", 1, c.compute("a"))).toBe("a#3");
  });

  it("computes again after ttl, because answers also depend on the clock", async () => {
    let t = 0;
    const cache = new VersionedCache<string>({ maxEntries: 10, ttlMs: 3_000, now: () => t });
    const c = counter();
    await cache.get("k", 7, c.compute("a"));
    t = 3_000;
    expect(await cache.get("k", 7, c.compute("a"))).toBe("a#2");
  });

  it("never caches while changes cannot be observed (null generation)", async () => {
    const cache = new VersionedCache<string>({ maxEntries: 10, ttlMs: 60_000 });
    const c = counter();
    await cache.get("k", null, c.compute("a"));
    await cache.get("k", null, c.compute("a"));
    expect(c.calls).toBe(2);
    expect(cache.size).toBe(0);
  });

  it("shares one computation between concurrent readers of a key", async () => {
    const cache = new VersionedCache<number>({ maxEntries: 10, ttlMs: 60_000 });
    let calls = 0;
    let release: (v: number) => void = () => {};
    const slow = () => {
      calls++;
      return new Promise<number>((r) => (release = r));
    };
    const readers = Array.from({ length: 50 }, () => cache.get("page", 3, slow));
    release(42);
    expect(await Promise.all(readers)).toEqual(Array(50).fill(42));
    expect(calls).toBe(1);
  });

  it("does not keep a failed computation", async () => {
    const cache = new VersionedCache<string>({ maxEntries: 10, ttlMs: 60_000 });
    await expect(cache.get("k", 1, () => Promise.reject(new Error("database down")))).rejects.toThrow("database down");
    expect(await cache.get("k", 1, async () => "ok")).toBe("ok");
  });

  it("evicts the least recently used entry beyond maxEntries", async () => {
    const cache = new VersionedCache<string>({ maxEntries: 2, ttlMs: 60_000 });
    const c = counter();
    await cache.get("a", 1, c.compute("a"));
    await cache.get("b", 1, c.compute("b"));
    await cache.get("a", 1, c.compute("a")); // a is now the most recent
    await cache.get("c", 1, c.compute("c")); // evicts b
    expect(cache.size).toBe(2);
    expect(await cache.get("a", 1, c.compute("a"))).toBe("a#1");
    expect(await cache.get("b", 1, c.compute("b"))).toBe("b#4");
  });

  it("forgets a key only while it still holds the answer named, when one is named", async () => {
    const cache = new VersionedCache<string>({ maxEntries: 10, ttlMs: 60_000 });
    const c = counter();
    const old = cache.get("k", 1, c.compute("k"));
    await old;
    const newer = cache.get("k", 2, c.compute("k")); // the data moved on: a newer answer
    cache.delete("k", old);
    expect(await cache.get("k", 2, c.compute("k"))).toBe(await newer);
    cache.delete("k", newer);
    expect(await cache.get("k", 2, c.compute("k"))).toBe("k#3");
  });
});
