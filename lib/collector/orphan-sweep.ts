// Tracked orphans of kinds Git does not declare. When the controller keeps a
// record of what it manages (the Flux inventory, Argo CD's status.resources)
// its kinds are listed like Git's. Tracking by label — or by Argo CD tracking
// id without the Application's record — has no such record: then the kinds
// to look through come from `extraKinds`, by default every namespaced kind,
// listed once per run with metadata only (a label narrows it server-side).
// Only the few tracked objects found are read whole.
import type { EnvironmentConfig } from "@/lib/config";
import type { ControllerStatus } from "@/lib/domain/types";
import type { ClusterClient } from "@/lib/kube/client";
import { resourcePath, type ApiResource, type Discovery } from "@/lib/kube/discovery";
import { KubeError } from "@/lib/kube/errors";
import { listPaged } from "@/lib/kube/list";

/** Reports about other objects, never applied from Git, and the longest lists in a cluster. */
const NEVER_ORPHANS = new Set(["/Event", "events.k8s.io/Event"]);
const CONCURRENCY = 2;
const PAGE_SIZE = 500;

type Item = Record<string, unknown>;

export function sweepNeeded(env: EnvironmentConfig, controller: ControllerStatus | null): boolean {
  if (env.extraKinds?.length === 0) return false;
  if (env.trackingLabel) return true;
  return env.controller?.type === "argocd" && (controller?.inventory.length ?? 0) === 0;
}

/** The kinds to look through, less those listed whole anyway (keyed `${group}/${kind}`); names in `extraKinds` the cluster does not serve. */
export function sweepKinds(env: EnvironmentConfig, discovery: Discovery, listed: ReadonlySet<string>): { kinds: ApiResource[]; unserved: string[] } {
  const kinds: ApiResource[] = [];
  const unserved: string[] = [];
  if (env.extraKinds) {
    for (const name of env.extraKinds) {
      const slash = name.lastIndexOf("/");
      const key = slash < 0 ? `/${name}` : name;
      const r = discovery.byGroupKind.get(key);
      if (!r || !r.verbs.includes("list")) unserved.push(name);
      else if (!listed.has(key)) kinds.push(r);
    }
    return { kinds, unserved };
  }
  for (const [key, r] of discovery.byGroupKind) {
    if (r.namespaced && r.verbs.includes("list") && !NEVER_ORPHANS.has(key) && !listed.has(key)) kinds.push(r);
  }
  return { kinds, unserved };
}

export interface SweepOutcome {
  /** Whole objects of the tracked candidates, with apiVersion and kind set. */
  found: Array<{ resource: ApiResource; object: Item }>;
  /** Kinds that could not be looked through, and why. */
  unread: Array<{ resource: ApiResource; error: unknown }>;
}

/**
 * Lists each kind's metadata in each scope and reads whole the objects
 * `candidate` picks (it sees apiVersion, kind and metadata only).
 */
export async function sweepOrphans(
  client: ClusterClient,
  kinds: readonly ApiResource[],
  scopes: ReadonlyArray<string | undefined>,
  opts: { labelSelector?: string; timeoutMs?: number; candidate: (item: Item) => boolean },
): Promise<SweepOutcome> {
  const out: SweepOutcome = { found: [], unread: [] };
  const queue = [...kinds];
  const named = scopes.filter((s): s is string => s !== undefined);
  // Several namespaces: one list across all of them per kind costs one round trip instead of one per
  // namespace, when the credential may list across namespaces (else it falls back, once per run).
  const inScope = named.length === scopes.length && named.length > 1 ? new Set(named) : null;
  let acrossNamespaces = inScope !== null;
  const listInto = async (resource: ApiResource, namespace: string | undefined, picked: Item[], keep: (item: Item) => boolean) => {
    const start = picked.length;
    await listPaged(
      client,
      resource,
      { namespace, pageSize: PAGE_SIZE, labelSelector: opts.labelSelector, timeoutMs: opts.timeoutMs, metadataOnly: true, onRestart: () => (picked.length = start) },
      (items) => {
        for (const item of items) if (keep(item) && opts.candidate(item)) picked.push(item);
      },
    );
  };
  const worker = async () => {
    for (let r = queue.shift(); r; r = queue.shift()) {
      const resource = r;
      try {
        const picked: Item[] = [];
        let listed = false;
        if (resource.namespaced && inScope && acrossNamespaces) {
          try {
            await listInto(resource, undefined, picked, (item) => inScope.has((item.metadata as { namespace?: string }).namespace ?? ""));
            listed = true;
          } catch (e) {
            if (!(e instanceof KubeError && e.category === "forbidden")) throw e;
            acrossNamespaces = false;
            picked.length = 0;
          }
        }
        if (!listed) for (const namespace of resource.namespaced ? scopes : [undefined]) await listInto(resource, namespace, picked, () => true);
        for (const item of picked) {
          const meta = item.metadata as { name: string; namespace?: string };
          try {
            const whole = await client.requestJson<Item>("GET", resourcePath(resource, meta.namespace, meta.name), { timeoutMs: opts.timeoutMs });
            whole.apiVersion = item.apiVersion;
            whole.kind = item.kind;
            out.found.push({ resource, object: whole });
          } catch (e) {
            // Deleted between the list and the read: it is simply gone.
            if (!(e instanceof KubeError && e.category === "not-found")) throw e;
          }
        }
      } catch (e) {
        out.unread.push({ resource, error: e });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, kinds.length) }, worker));
  return out;
}
