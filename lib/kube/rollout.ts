// "Synced, but still running the old version": whether a workload's applied
// spec has actually rolled out, from the live object's own status. Pure.
import type { RolloutStatus, RolloutSummary } from "@/lib/domain/types";

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

export const WORKLOAD_KINDS = new Set(["Deployment", "StatefulSet", "DaemonSet"]);

export function rolloutOf(key: string, obj: Obj): RolloutStatus | null {
  const kind = String(obj.kind ?? "");
  if (!WORKLOAD_KINDS.has(kind)) return null;
  const meta = rec(obj.metadata);
  const spec = rec(obj.spec);
  const status = rec(obj.status);
  const template = rec(rec(spec.template).spec);
  const images = [...(Array.isArray(template.initContainers) ? template.initContainers : []), ...(Array.isArray(template.containers) ? template.containers : [])]
    .map((c) => String(rec(c).image ?? ""))
    .filter(Boolean);
  const generation = num(meta.generation);
  const observedGeneration = num(status.observedGeneration);
  const wanted = kind === "DaemonSet" ? num(status.desiredNumberScheduled) : (num(spec.replicas) ?? 1);
  const updated = kind === "DaemonSet" ? num(status.updatedNumberScheduled) : num(status.updatedReplicas);
  const ready = kind === "DaemonSet" ? num(status.numberReady) : num(status.readyReplicas);
  const available = kind === "DaemonSet" ? num(status.numberAvailable) : num(status.availableReplicas);
  const observed = generation === null || (observedGeneration !== null && observedGeneration >= generation);
  const rolledOut = observed && wanted !== null && (updated ?? 0) >= wanted && (available ?? (kind === "StatefulSet" ? ready : 0) ?? 0) >= wanted;
  const conditions = Array.isArray(status.conditions) ? status.conditions.map(rec) : [];
  const failing = conditions.find((c) => (c.type === "Progressing" && c.status === "False") || (c.type === "Available" && c.status === "False"));
  let message: string | null = null;
  if (!observed) message = `generation ${generation} not yet observed by the controller (observed ${observedGeneration ?? "none"})`;
  else if (failing) message = `${String(failing.type)}: ${String(failing.reason ?? "")} ${String(failing.message ?? "")}`.trim();
  else if (!rolledOut) message = `${updated ?? 0}/${wanted ?? "?"} updated, ${available ?? 0} available`;
  return {
    key,
    kind,
    namespace: String(meta.namespace ?? ""),
    name: String(meta.name ?? ""),
    generation,
    observedGeneration,
    replicas: wanted,
    updatedReplicas: updated,
    readyReplicas: ready,
    availableReplicas: available,
    images,
    rolledOut,
    message,
  };
}

/** How many workloads a rollout summary lists: every one up to this many, else only those not rolled out, this many at most. */
export const ROLLOUT_LISTED = 50;

/**
 * The stored form of a rollout list: counts over all of it, and at most
 * `limit` workloads — every one while there are no more than that, else only
 * those still rolling out, in key order. An environment of 100,000 objects has
 * some 20,000 workloads: written whole, that list was megabytes of JSON
 * rewritten by every run in which any one of them moved, and a table nobody can
 * read. `list` is in key order (the collector sorts it).
 */
export function summariseRollout(list: readonly RolloutStatus[], limit = ROLLOUT_LISTED): RolloutSummary {
  let rollingOut = 0;
  for (const r of list) if (!r.rolledOut) rollingOut++;
  if (list.length <= limit) return { total: list.length, rollingOut, workloads: [...list] };
  const workloads: RolloutStatus[] = [];
  for (const r of list) if (!r.rolledOut && workloads.length < limit) workloads.push(r);
  return { total: list.length, rollingOut, workloads };
}
