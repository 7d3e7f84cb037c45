// The resource-quota controller's part that users see: a ResourceQuota's
// status.hard mirrors spec.hard and status.used counts what the namespace
// holds — object counts and the pods' summed cpu/memory requests and limits.
import type { ApiCore } from "./apiserver";
import { asObj, asStr, clone, deepEqual, isObj, type Obj } from "./json";
import { canonicalQuantity, isValidQuantity, parseQuantity } from "./quantity";
import type { Registry } from "./registry";

const COUNTED: Record<string, string> = {
  pods: "/pods",
  services: "/services",
  configmaps: "/configmaps",
  secrets: "/secrets",
  persistentvolumeclaims: "/persistentvolumeclaims",
  resourcequotas: "/resourcequotas",
};

/** The store keys ("group/resource") a quota key counts, when it counts objects. */
function countedResource(key: string): string | undefined {
  if (COUNTED[key]) return COUNTED[key];
  const m = /^count\/([^.]+)(?:\.(.+))?$/.exec(key);
  return m ? `${m[2] ?? ""}/${m[1]}` : undefined;
}

function formatSum(nanos: bigint, binary: boolean): string {
  const NANO = 1_000_000_000n;
  if (nanos === 0n) return "0";
  if (binary && nanos % (NANO * 1024n) === 0n) return canonicalQuantity(`${nanos / NANO / 1024n}Ki`);
  if (nanos % 1_000_000n === 0n) return canonicalQuantity(`${nanos / 1_000_000n}m`);
  return canonicalQuantity(`${nanos}n`);
}

function podsOf(core: ApiCore, ns: string): Obj[] {
  return core.store
    .keys("/pods", ns)
    .map((k) => core.store.get("/pods", k)?.obj)
    .filter((p): p is Obj => !!p && !["Succeeded", "Failed"].includes(String(asObj(p.status)?.phase)));
}

function sumResources(pods: Obj[], kind: "requests" | "limits", resource: string): string {
  let total = 0n;
  let binary = false;
  for (const p of pods) {
    for (const c of Array.isArray(asObj(p.spec)?.containers) ? (asObj(p.spec)?.containers as unknown[]) : []) {
      const v = asObj(asObj(asObj(c)?.resources)?.[kind])?.[resource];
      if (!isValidQuantity(v)) continue;
      const q = parseQuantity(v as string);
      total += q.negative ? -q.nanos : q.nanos;
      if (q.format === "BinarySI") binary = true;
    }
  }
  return formatSum(total, binary || resource === "memory");
}

function used(core: ApiCore, ns: string, key: string): string {
  const counted = countedResource(key);
  if (counted) return String(counted === "/pods" ? podsOf(core, ns).length : core.store.keys(counted, ns).length);
  const m = /^(requests\.|limits\.)?(cpu|memory|ephemeral-storage)$/.exec(key);
  if (!m) return "0";
  return sumResources(podsOf(core, ns), m[1] === "limits." ? "limits" : "requests", m[2] as string);
}

/** Brings every ResourceQuota of a namespace up to date, as kube-controller-manager. */
export function reconcileQuotas(core: ApiCore, registry: Registry, ns: string): void {
  const rt = registry.storageType("", "resourcequotas");
  if (!rt) return;
  for (const key of core.store.keys("/resourcequotas", ns)) {
    const q = core.store.get("/resourcequotas", key)?.obj;
    if (!q || asObj(q.metadata)?.deletionTimestamp) continue;
    const hard = asObj(asObj(q.spec)?.hard) ?? {};
    const status: Obj = { hard: clone(hard), used: Object.fromEntries(Object.keys(hard).map((k) => [k, used(core, ns, k)])) };
    if (Object.keys(hard).length === 0) continue;
    if (isObj(q.status) && deepEqual(q.status, status)) continue;
    const next = clone(q);
    next.status = status;
    core.updateAs(rt, next, "kube-controller-manager", "status");
  }
}

/** The namespace an object event concerns, when quotas there may need a recount. */
export function quotaNamespace(obj: Obj): string | undefined {
  return asStr(asObj(obj.metadata)?.namespace);
}
