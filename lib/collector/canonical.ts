// Content addresses for object bodies: SHA-256 over a canonical JSON form
// (object keys sorted), so the same object always gets the same hash no
// matter how the API ordered its fields.
import crypto from "node:crypto";

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
}

export function contentHash(value: unknown): { hash: string; text: string } {
  const text = canonicalJson(value);
  return { hash: crypto.createHash("sha256").update(text).digest("hex"), text };
}
