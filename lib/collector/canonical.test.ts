import { describe, expect, it } from "vitest";
import { canonicalJson, contentHash } from "./canonical";

describe("content addressing", () => {
  it("gives the same hash whatever order the API put the fields in", () => {
    const a = { metadata: { name: "api", labels: { b: "2", a: "1" } }, spec: { replicas: 3 } };
    const b = { spec: { replicas: 3 }, metadata: { labels: { a: "1", b: "2" }, name: "api" } };
    expect(contentHash(a).hash).toBe(contentHash(b).hash);
  });
  it("changes the hash when any value changes, including inside lists", () => {
    const a = { spec: { containers: [{ name: "api", image: "shop/api:1.4.0" }] } };
    const b = { spec: { containers: [{ name: "api", image: "shop/api:1.4.1" }] } };
    expect(contentHash(a).hash).not.toBe(contentHash(b).hash);
  });
  it("keeps list order significant and drops undefined fields", () => {
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
    expect(canonicalJson({ a: undefined, b: null })).toBe('{"b":null}');
  });
});
