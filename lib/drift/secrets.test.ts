import { describe, expect, it } from "vitest";
import { hashSecretValues, isHashedValue, secretTokens, secretTokensEqual } from "./secrets";
import { b64, secret } from "./test-fixtures";

describe("Secret hashing", () => {
  it("hashes decoded bytes, merges stringData into data, drops last-applied", () => {
    const s = secret({ a: b64("x"), bin: Buffer.from([0, 255, 1]).toString("base64") }, { b: "x", a: "y" });
    s.metadata.annotations = { "kubectl.kubernetes.io/last-applied-configuration": JSON.stringify({ stringData: { a: "y" } }), keep: "me" };
    const h = hashSecretValues(s, "k1");
    const data = h.data as Record<string, string>;
    expect(Object.keys(data).sort()).toEqual(["a", "b", "bin"]);
    expect(Object.values(data).every(isHashedValue)).toBe(true);
    expect(h.stringData).toBeUndefined();
    expect(h.metadata.annotations).toEqual({ keep: "me" });
    // stringData wins over data, as on the server; "x" via data and via stringData hash equal.
    const hashedData = (s2: ReturnType<typeof secret>) => hashSecretValues(s2, "k1").data as Record<string, string>;
    expect(data.a).toBe(hashedData(secret(undefined, { a: "y" })).a);
    expect(data.a).not.toBe(hashedData(secret({ a: b64("x") })).a);
    expect(data.b).toBe(hashedData(secret({ b: b64("x") })).b);
    expect(JSON.stringify(h)).not.toContain(b64("x"));
    // The input is untouched.
    expect(s.stringData).toEqual({ b: "x", a: "y" });
  });

  it("depends on the key, and is stable for already-hashed values", () => {
    const h1 = hashSecretValues(secret({ a: b64("x") }), "k1");
    const h2 = hashSecretValues(secret({ a: b64("x") }), "k2");
    expect((h1.data as Record<string, string>).a).not.toBe((h2.data as Record<string, string>).a);
    expect(hashSecretValues(h1, "k2")).toEqual(h1);
  });

  it("leaves other kinds alone", () => {
    const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { a: "x" } };
    expect(hashSecretValues(cm, "k")).toBe(cm);
  });

  it("compares tokens: raw bytes, hashes, and mixed only with the key", () => {
    const raw = secretTokens({ data: { a: b64("x") } }).get("a");
    const fromString = secretTokens({ stringData: { a: "x" } }).get("a");
    const hashed = secretTokens(hashSecretValues(secret({ a: b64("x") }), "k")).get("a");
    if (!raw || !fromString || !hashed) throw new Error("tokens missing");
    expect(secretTokensEqual(raw, fromString)).toBe(true);
    expect(secretTokensEqual(raw, hashed, "k")).toBe(true);
    expect(secretTokensEqual(raw, hashed, "other")).toBe(false);
    expect(secretTokensEqual(raw, hashed)).toBe(false);
  });
});
