import { describe, expect, it } from "vitest";
import { canonicalJson, storable } from "./canonical";

describe("canonicalJson", () => {
  it("gives the same text whatever the key order", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: "x" } })).toBe(canonicalJson({ a: { c: "x", d: [1, { y: 2, z: 1 }] }, b: 1 }));
    expect(canonicalJson({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
  });
  it("drops undefined fields and writes dates as ISO strings", () => {
    expect(canonicalJson({ a: undefined, at: new Date("2024-01-02T03:04:05.678Z") })).toBe('{"at":"2024-01-02T03:04:05.678Z"}');
  });
  it("tells different values apart", () => {
    expect(canonicalJson({ a: "1" })).not.toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });
});

describe("storable", () => {
  it("replaces characters Postgres refuses, keeps the rest", () => {
    expect(storable({ "k\u0000": ["a\u0000b", "\uD800x", "ok 😀"] })).toEqual({ "k\uFFFD": ["a\uFFFDb", "\uFFFDx", "ok 😀"] });
  });
});
