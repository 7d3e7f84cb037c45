// Discovery documents: the legacy /api, /apis, group and group-version
// endpoints, and aggregated discovery (apidiscovery.k8s.io/v2) that kubectl asks for first.
import type { Obj } from "./json";
import { gvString, type Registry, type ResourceType } from "./registry";

// What the kube-apiserver tools/realkube builds reports (built from the module, so without
// the release's commit and date): the server test/conformance compares kubesim against.
export const SERVER_VERSION = {
  major: "1",
  minor: "34",
  emulationMajor: "1",
  emulationMinor: "34",
  minCompatibilityMajor: "1",
  minCompatibilityMinor: "33",
  gitVersion: "v1.34.4",
  gitCommit: "$Format:%H$",
  gitTreeState: "clean",
  buildDate: "1970-01-01T00:00:00Z",
  goVersion: "go1.26.8",
  compiler: "gc",
  platform: "linux/amd64",
};

const SUB_VERBS = ["get", "patch", "update"];

function subresources(rt: ResourceType): Array<{ name: string; kind: string; group?: string; version?: string; verbs: string[] }> {
  const out: Array<{ name: string; kind: string; group?: string; version?: string; verbs: string[] }> = [];
  if (rt.builtin && rt.kind === "Namespace") out.push({ name: "finalize", kind: "Namespace", verbs: ["update"] });
  if (rt.scale) out.push({ name: "scale", kind: "Scale", group: "autoscaling", version: "v1", verbs: SUB_VERBS });
  if (rt.status) out.push({ name: "status", kind: rt.kind, verbs: SUB_VERBS });
  return out;
}

export function resourceList(registry: Registry, group: string, version: string): Obj | undefined {
  const types = registry.all().filter((t) => t.group === group && t.version === version);
  if (types.length === 0) return undefined;
  const resources: Obj[] = [];
  for (const t of [...types].sort((a, b) => (a.resource < b.resource ? -1 : 1))) {
    const r: Obj = { name: t.resource, singularName: t.singular, namespaced: t.namespaced, kind: t.kind, verbs: t.verbs };
    if (t.shortNames.length > 0) r.shortNames = t.shortNames;
    if (t.categories.length > 0) r.categories = t.categories;
    r.storageVersionHash = t.storageVersionHash;
    resources.push(r);
    for (const s of subresources(t)) {
      const sr: Obj = { name: `${t.resource}/${s.name}`, singularName: "", namespaced: t.namespaced };
      if (s.group !== undefined) sr.group = s.group;
      if (s.version !== undefined) sr.version = s.version;
      sr.kind = s.kind;
      sr.verbs = s.verbs;
      resources.push(sr);
    }
  }
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion: gvString(group, version), resources };
}

export function apiVersions(serverAddress: string): Obj {
  return { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }] };
}

function groupObj(g: { group: string; versions: string[]; preferred: string }): Obj {
  return {
    name: g.group,
    versions: g.versions.map((v) => ({ groupVersion: `${g.group}/${v}`, version: v })),
    preferredVersion: { groupVersion: `${g.group}/${g.preferred}`, version: g.preferred },
  };
}

export function apiGroupList(registry: Registry): Obj {
  return { kind: "APIGroupList", apiVersion: "v1", groups: orderedGroups(registry).map(groupObj) };
}

export function apiGroup(registry: Registry, group: string): Obj | undefined {
  const g = registry.groups().find((x) => x.group === group);
  if (!g) return undefined;
  return { kind: "APIGroup", apiVersion: "v1", ...groupObj(g) };
}

const BUILTIN_GROUP_ORDER = ["apps", "autoscaling", "networking.k8s.io", "apiextensions.k8s.io"];

function orderedGroups(registry: Registry): Array<{ group: string; versions: string[]; preferred: string }> {
  // Built-in groups first in the server's fixed order, then custom groups by name (as aggregated APIs sort).
  const gs = registry.groups();
  const builtin = BUILTIN_GROUP_ORDER.map((n) => gs.find((g) => g.group === n)).filter((g): g is NonNullable<typeof g> => !!g);
  const rest = gs.filter((g) => !BUILTIN_GROUP_ORDER.includes(g.group)).sort((a, b) => (a.group < b.group ? -1 : 1));
  return [...builtin, ...rest];
}

function aggregatedVersion(registry: Registry, group: string, version: string): Obj {
  const types = registry.all().filter((t) => t.group === group && t.version === version);
  const resources = [...types]
    .sort((a, b) => (a.resource < b.resource ? -1 : 1))
    .map((t) => {
      // The built-in endpoint installer leaves the group and version of a kind in the same
      // group-version empty; the apiextensions server fills them in.
      const own = t.builtin ? { group: "", version: "" } : { group, version };
      const r: Obj = {
        resource: t.resource,
        responseKind: { ...own, kind: t.kind },
        scope: t.namespaced ? "Namespaced" : "Cluster",
        singularResource: t.singular,
        verbs: t.verbs,
      };
      if (t.shortNames.length > 0) r.shortNames = t.shortNames;
      if (t.categories.length > 0) r.categories = t.categories;
      const subs = subresources(t);
      if (subs.length > 0) {
        r.subresources = subs.map((s) => ({
          subresource: s.name,
          responseKind: { group: s.group ?? own.group, version: s.version ?? own.version, kind: s.kind },
          verbs: s.verbs,
        }));
      }
      return r;
    });
  return { version, resources, freshness: "Current" };
}

export const AGGREGATED_CONTENT_TYPE = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

export function aggregatedDiscovery(registry: Registry, legacy: boolean): Obj {
  const items: Obj[] = [];
  if (legacy) {
    items.push({ metadata: {}, versions: [aggregatedVersion(registry, "", "v1")] });
  } else {
    for (const g of orderedGroups(registry)) {
      items.push({ metadata: { name: g.group }, versions: g.versions.map((v) => aggregatedVersion(registry, g.group, v)) });
    }
  }
  return { kind: "APIGroupDiscoveryList", apiVersion: "apidiscovery.k8s.io/v2", metadata: {}, items };
}
