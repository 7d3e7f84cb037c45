// Secret values never leave the collector: each `data`/`stringData` value is
// replaced by a keyed hash of its decoded bytes, so a change is still
// detected and `stringData: {x: "a"}` equals `data: {x: "YQ=="}`.

import { createHmac, timingSafeEqual } from "node:crypto";
import { groupOf, type KubeObject } from "./types";
import { LAST_APPLIED_ANNOTATION as LAST_APPLIED } from "./metadata-noise";

export const HASH_PREFIX = "sha256-hmac:";

export function isSecret(obj: { apiVersion?: unknown; kind?: unknown } | null | undefined): boolean {
  return !!obj && obj.kind === "Secret" && typeof obj.apiVersion === "string" && groupOf(obj.apiVersion) === "";
}

export function isHashedValue(v: unknown): v is string {
  return typeof v === "string" && v.startsWith(HASH_PREFIX);
}

export function hashBytes(bytes: Uint8Array, key: string | Uint8Array): string {
  return HASH_PREFIX + createHmac("sha256", key).update(bytes).digest("hex");
}

/** The bytes of one value; null is the empty value, as the API server reads it (`""` and `null` both mean "key present, empty"). */
function decodeData(value: unknown): Buffer | null {
  if (value === null) return Buffer.alloc(0);
  if (typeof value !== "string") return null;
  return Buffer.from(value, "base64");
}

function stringBytes(value: unknown): Buffer | null {
  if (value === null) return Buffer.alloc(0);
  return typeof value === "string" ? Buffer.from(value, "utf8") : null;
}

/**
 * A copy of the Secret whose `data` holds `sha256-hmac:<hex>` per key
 * (stringData merged in, winning as the API server does) and no stringData,
 * and whose last-applied-configuration annotation — which carries the raw
 * values — is dropped. Already-hashed values are kept.
 */
export function hashSecretValues(secret: KubeObject, key: string | Uint8Array): KubeObject {
  if (!isSecret(secret)) return secret;
  const data: Record<string, string> = {};
  for (const [k, token] of secretTokens(secret)) data[k] = typeof token === "string" ? token : hashBytes(token, key);
  const { stringData: _dropped, ...rest } = secret;
  const out: KubeObject = { ...rest, data } as KubeObject;
  const annotations = secret.metadata.annotations;
  if (annotations && LAST_APPLIED in annotations) {
    const { [LAST_APPLIED]: _raw, ...keep } = annotations;
    out.metadata = { ...secret.metadata, annotations: keep };
  }
  return out;
}

/** A comparable stand-in for one Secret value: its hash, or its decoded bytes when unhashed. */
export type SecretToken = string | Buffer;

/** Per key, the token the differ compares; stringData wins over data like on the server. */
export function secretTokens(obj: Record<string, unknown>): Map<string, SecretToken> {
  const out = new Map<string, SecretToken>();
  for (const [field, bytesOf] of [["data", decodeData], ["stringData", stringBytes]] as const) {
    const values = obj[field];
    if (!values || typeof values !== "object" || Array.isArray(values)) continue;
    for (const [k, v] of Object.entries(values as Record<string, unknown>)) {
      if (isHashedValue(v)) out.set(k, v);
      else {
        const bytes = bytesOf(v);
        if (bytes) out.set(k, bytes);
      }
    }
  }
  return out;
}

/**
 * Equal when both are hashes and equal, or both raw and byte-equal. A raw
 * value against a hash can only be compared with the key; without it the
 * pair counts as different (callers hash both sides at ingestion).
 */
export function secretTokensEqual(a: SecretToken, b: SecretToken, key?: string | Uint8Array): boolean {
  if (typeof a === "string" && typeof b === "string") return a === b;
  if (typeof a !== "string" && typeof b !== "string") return a.length === b.length && timingSafeEqual(a, b);
  if (!key) return false;
  const ha = typeof a === "string" ? a : hashBytes(a, key);
  const hb = typeof b === "string" ? b : hashBytes(b, key);
  return ha === hb;
}
