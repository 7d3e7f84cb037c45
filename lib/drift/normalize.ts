// The normalised form of one object, for content hashes and for showing an
// object without noise. The differ applies the same rules during its walk
// without copying; this module produces them as a value.

import { childSchema, isDefaultTree, kindSchema, type SchemaNode } from "./kube-schema";
import { canonicalQuantity } from "./quantity";
import { hashSecretValues, isHashedValue, isSecret } from "./secrets";
import { groupOf, type KubeObject } from "./types";

export interface NormalizeOptions {
  /** Also drop values equal to what the server fills in by itself (for live objects shown alone). */
  dropDefaults?: boolean;
  /** Hash unhashed Secret values with this key; without it they are replaced by "(hidden)". */
  secretKey?: string | Uint8Array;
}

type Obj = Record<string, unknown>;

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (typeof v !== "object") return false;
  if (Array.isArray(v)) return v.length === 0;
  for (const _ in v) return false;
  return true;
}

function normValue(v: unknown, node: SchemaNode, parent: Obj | null, opts: NormalizeOptions): unknown {
  if (node.quantity) return canonicalQuantity(v);
  if (Array.isArray(v)) {
    const itemNode = node.items ?? {};
    return v.map((item) => (typeof item === "object" && item !== null ? normValue(item, itemNode, null, opts) : itemNode.quantity ? canonicalQuantity(item) : item));
  }
  if (typeof v !== "object" || v === null) return v;
  const src = v as Obj;
  const out: Obj = {};
  for (const k of Object.keys(src).sort()) {
    if (node.skipKeys?.has(k)) continue;
    const c = childSchema(node, k);
    if (c.skip) continue;
    const raw = src[k];
    if (isEmpty(raw)) continue;
    if (opts.dropDefaults && (node.defaultKeys?.has(k) || isDefaultTree(c, raw, src))) continue;
    const n = normValue(raw, c, src, opts);
    if (isEmpty(n)) continue;
    out[k] = n;
  }
  return out;
}

/**
 * Drops status and server metadata (uid, resourceVersion, generation,
 * creationTimestamp, managedFields, selfLink, revision and last-applied
 * annotations), null/empty values, and spells quantities one way. Keys come
 * out sorted so equal objects serialise equally. Secrets come out with
 * `data` only, every value hashed (or hidden).
 */
export function normalizeObject(obj: KubeObject, opts: NormalizeOptions = {}): KubeObject {
  let src: KubeObject = obj;
  if (isSecret(obj)) {
    if (opts.secretKey) src = hashSecretValues(obj, opts.secretKey);
    else {
      const data: Record<string, string> = {};
      for (const part of [obj.data, obj.stringData]) {
        if (part && typeof part === "object") for (const [k, v] of Object.entries(part as Obj)) data[k] = isHashedValue(v) ? v : "(hidden)";
      }
      const { stringData: _s, ...rest } = obj;
      src = { ...rest, data } as KubeObject;
    }
  }
  const schema = kindSchema(groupOf(src.apiVersion), src.kind);
  const out = normValue(src, schema, null, opts) as Obj;
  // Identity stays, even though the differ does not compare it.
  const meta = (out.metadata ?? {}) as Obj;
  const identity: Obj = { name: src.metadata.name };
  if (src.metadata.namespace) identity.namespace = src.metadata.namespace;
  const secretData = isSecret(src) ? (src.data as Obj | undefined) : undefined;
  return {
    apiVersion: src.apiVersion,
    kind: src.kind,
    ...out,
    metadata: { ...identity, ...meta },
    ...(secretData && !isEmpty(secretData) ? { data: Object.fromEntries(Object.keys(secretData).sort().map((k) => [k, secretData[k]])) } : {}),
  } as KubeObject;
}
