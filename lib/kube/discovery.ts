// API discovery: which kinds the cluster serves, under which resource name and
// version, and whether they are namespaced. Asked once per run (cheap: one
// request per group version) so CRDs installed since the last run are seen.
import type { ClusterClient } from "./client";
import { KubeError } from "./errors";

export interface ApiResource {
  group: string;
  version: string;
  kind: string;
  resource: string;
  namespaced: boolean;
  verbs: string[];
}

export interface Discovery {
  /** Keyed by `${group}/${kind}` (group "" for core). */
  byGroupKind: Map<string, ApiResource>;
  lookup(apiVersion: string, kind: string): ApiResource | undefined;
}

interface ResourceList {
  groupVersion: string;
  resources: Array<{ name: string; kind: string; namespaced: boolean; verbs: string[] }>;
}

export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

export async function discover(client: ClusterClient): Promise<Discovery> {
  const groupVersions: string[] = ["v1"];
  const groups = await client.requestJson<{ groups: Array<{ name: string; preferredVersion?: { groupVersion: string }; versions: Array<{ groupVersion: string }> }> }>("GET", "/apis");
  for (const g of groups.groups ?? []) {
    const gv = g.preferredVersion?.groupVersion ?? g.versions[0]?.groupVersion;
    if (gv) groupVersions.push(gv);
  }
  const byGroupKind = new Map<string, ApiResource>();
  const lists = await Promise.allSettled(
    groupVersions.map((gv) => client.requestJson<ResourceList>("GET", gv === "v1" ? "/api/v1" : `/apis/${gv}`)),
  );
  lists.forEach((result, i) => {
    if (result.status === "rejected") {
      // The core group is essential; a broken aggregated API group must not stop a collection.
      if (groupVersions[i] === "v1") throw result.reason instanceof KubeError ? result.reason : new KubeError("protocol", String(result.reason));
      return;
    }
    const [group, version] = result.value.groupVersion.includes("/") ? result.value.groupVersion.split("/") : ["", result.value.groupVersion];
    for (const r of result.value.resources ?? []) {
      if (r.name.includes("/")) continue; // subresources
      const key = `${group}/${r.kind}`;
      if (!byGroupKind.has(key)) {
        byGroupKind.set(key, { group: group ?? "", version: version ?? "v1", kind: r.kind, resource: r.name, namespaced: r.namespaced, verbs: r.verbs });
      }
    }
  });
  return {
    byGroupKind,
    lookup: (apiVersion, kind) => byGroupKind.get(`${groupOf(apiVersion)}/${kind}`),
  };
}

export function resourcePath(r: ApiResource, namespace?: string, name?: string): string {
  const prefix = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  const ns = r.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  return `${prefix}${ns}/${r.resource}${name ? `/${encodeURIComponent(name)}` : ""}`;
}
