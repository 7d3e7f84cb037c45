import { describe, expect, it } from "vitest";
import { canonicalJson, canonicalJsonReference, contentHash } from "./canonical";

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

describe("canonical JSON, fast path and reference", () => {
  const cases: Array<[string, unknown]> = [
    ["a Deployment as the API returns it", { kind: "Deployment", apiVersion: "apps/v1", metadata: { name: "api", labels: { z: "1", a: "2" }, annotations: {} }, spec: { replicas: 3, template: { spec: { containers: [{ name: "api", env: [{ value: "1", name: "B" }] }] } } } }],
    ["keys that look like array indexes (V8 lists them first)", { data: { "10": "x", "9": "y", b: "z", "007": "w" } }],
    ["a __proto__ key from JSON.parse", JSON.parse('{"__proto__": {"polluted": true}, "b": 2}') as unknown],
    ["undefined in objects and lists", { a: undefined, b: [undefined, 1, { c: undefined, d: null }] }],
    ["unicode keys and values, lone surrogates", { "é": "\ud800", "a\u0000b": "\u2028", ["\u{1F600}"]: "ok" }],
    ["numbers and empty containers", { n: -0, f: 1.5e300, e: [], o: {}, s: "" }],
  ];
  it.each(cases)("writes %s exactly as the reference does", (_name, value) => {
    expect(canonicalJson(value)).toBe(canonicalJsonReference(value));
  });
  it("keeps a __proto__ key as data, never as the prototype", () => {
    const text = canonicalJson(JSON.parse('{"__proto__": {"x": 1}}') as unknown);
    expect(text).toBe('{"__proto__":{"x":1}}');
  });
});
