// Names, labels and owner references the workload controllers share.
import { createHash, randomBytes } from "node:crypto";
import { asObj, clone, sortKeysDeep, type Obj } from "./json";

export const KCM = "kube-controller-manager";
export const KUBELET = "kubelet";
export const NODE = "kubesim-node";
const HASH_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
export const REVISION = "deployment.kubernetes.io/revision";
export const TEMPLATE_HASH = "pod-template-hash";
export const EVENT_TTL_MS = 60 * 60 * 1000;
/** Deployment annotations the controller does not copy onto its ReplicaSets (annotationsToSkip). */
export const NOT_COPIED = new Set([
  "kubectl.kubernetes.io/last-applied-configuration",
  REVISION,
  "deployment.kubernetes.io/revision-history",
  "deployment.kubernetes.io/desired-replicas",
  "deployment.kubernetes.io/max-replicas",
  "deprecated.deployment.rollback.to",
]);

function safeEncode(bytes: Buffer, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += HASH_ALPHABET[(bytes[i] ?? 0) % HASH_ALPHABET.length];
  return s;
}

/** A stable pod-template-hash: same template (key order aside), same hash. */
export function podTemplateHash(template: unknown, collisionCount = 0): string {
  return safeEncode(createHash("sha256").update(JSON.stringify(sortKeysDeep(template ?? {}))).update(String(collisionCount)).digest(), 10);
}

export function randomSuffix(): string {
  return safeEncode(randomBytes(5), 5);
}

export function meta(o: Obj): Obj {
  return asObj(o.metadata) ?? {};
}

export function withoutHashLabel(template: unknown): Obj {
  const t = clone(asObj(template) ?? {});
  const labels = asObj(asObj(t.metadata)?.labels);
  if (labels) {
    delete labels[TEMPLATE_HASH];
    if (Object.keys(labels).length === 0) delete (t.metadata as Obj).labels;
  }
  return t;
}

export function ownerRef(kind: string, apiVersion: string, owner: Obj): Obj {
  const m = meta(owner);
  return { apiVersion, kind, name: m.name, uid: m.uid, controller: true, blockOwnerDeletion: true };
}

export function controlledBy(o: Obj, uid: unknown): boolean {
  const refs = meta(o).ownerReferences;
  return Array.isArray(refs) && refs.some((r) => asObj(r)?.uid === uid && asObj(r)?.controller === true);
}

export function intOrPercent(v: unknown, total: number, roundUp: boolean): number {
  if (typeof v === "number") return v;
  const m = /^(\d+)%$/.exec(String(v ?? ""));
  if (!m) return 0;
  const x = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

export function podIP(): string {
  const b = randomBytes(2);
  return `10.244.0.${1 + ((b[0] ?? 0) % 253)}`;
}
