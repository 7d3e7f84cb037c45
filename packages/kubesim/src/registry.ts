// The resource types the imitation serves: built-in kinds and kinds that
// applied CustomResourceDefinitions make servable.
import { createHash } from "node:crypto";
import {
  CONFIG_MAP,
  CRD,
  DEPLOYMENT,
  HORIZONTAL_POD_AUTOSCALER,
  INGRESS,
  NAMESPACE,
  OBJECT_META,
  SECRET,
  SERVICE,
  SERVICE_ACCOUNT,
  STATEFUL_SET,
} from "./builtin-schemas";
import type { Path } from "./fieldpath";
import { extraBuiltinTypes } from "./kinds";
import { asObj, asStr, isObj, type Obj } from "./json";
import { atomicList, DEDUCED, SCALAR, type Schema } from "./schema";

export interface ScaleSpec {
  specReplicasPath: string[];
  statusReplicasPath: string[];
  labelSelectorPath?: string[];
}

export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

export interface ResourceType {
  group: string;
  version: string;
  resource: string;
  kind: string;
  listKind: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  status: boolean;
  scale?: ScaleSpec;
  schema: Schema;
  builtin: boolean;
  /** For custom resources: the version's openAPIV3Schema, for pruning, defaulting and validation. */
  openAPISchema?: Obj;
  preserveUnknownFields?: boolean;
  printerColumns?: PrinterColumn[];
  crdName?: string;
  storageVersion: string;
  /** What bumps metadata.generation: nothing, spec, spec+annotations, or anything but metadata/status (custom resources). */
  generation: "none" | "spec" | "specAnnotations" | "nonMeta";
  smp: boolean;
  returnDeletedObject: boolean;
  extraFieldSelectors: string[];
  resetMain: Path[];
  resetStatus: Path[];
  storageVersionHash: string;
}

export function gvString(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

export function apiVersionOf(rt: ResourceType): string {
  return gvString(rt.group, rt.version);
}

export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash("sha256").update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString("base64");
}

const ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

function builtin(p: {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  schema: Schema;
  shortNames?: string[];
  categories?: string[];
  verbs?: string[];
  status?: boolean;
  scale?: boolean;
  generation?: ResourceType["generation"];
  returnDeletedObject?: boolean;
  extraFieldSelectors?: string[];
  resetStatus?: Path[];
}): ResourceType {
  return {
    group: p.group,
    version: p.version,
    resource: p.resource,
    kind: p.kind,
    listKind: `${p.kind}List`,
    singular: p.kind.toLowerCase(),
    namespaced: p.namespaced,
    shortNames: p.shortNames ?? [],
    categories: p.categories ?? [],
    verbs: p.verbs ?? ALL_VERBS,
    status: p.status ?? false,
    scale: p.scale ? { specReplicasPath: ["spec", "replicas"], statusReplicasPath: ["status", "replicas"] } : undefined,
    schema: p.schema,
    builtin: true,
    storageVersion: p.version,
    generation: p.generation ?? "none",
    smp: true,
    returnDeletedObject: p.returnDeletedObject ?? false,
    extraFieldSelectors: p.extraFieldSelectors ?? [],
    resetMain: p.status ? [["f:status"]] : [],
    resetStatus: p.resetStatus ?? [["f:spec"]],
    storageVersionHash: storageVersionHash(p.group, p.version, p.kind),
  };
}

export function builtinTypes(): ResourceType[] {
  return [
    builtin({
      group: "",
      version: "v1",
      resource: "namespaces",
      kind: "Namespace",
      namespaced: false,
      schema: NAMESPACE,
      shortNames: ["ns"],
      verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
      status: true,
      returnDeletedObject: true,
      extraFieldSelectors: ["status.phase"],
    }),
    builtin({ group: "", version: "v1", resource: "configmaps", kind: "ConfigMap", namespaced: true, schema: CONFIG_MAP, shortNames: ["cm"] }),
    builtin({ group: "", version: "v1", resource: "secrets", kind: "Secret", namespaced: true, schema: SECRET, extraFieldSelectors: ["type"] }),
    builtin({
      group: "",
      version: "v1",
      resource: "services",
      kind: "Service",
      namespaced: true,
      schema: SERVICE,
      shortNames: ["svc"],
      categories: ["all"],
      status: true,
      returnDeletedObject: true,
    }),
    builtin({ group: "", version: "v1", resource: "serviceaccounts", kind: "ServiceAccount", namespaced: true, schema: SERVICE_ACCOUNT, shortNames: ["sa"] }),
    builtin({
      group: "apps",
      version: "v1",
      resource: "deployments",
      kind: "Deployment",
      namespaced: true,
      schema: DEPLOYMENT,
      shortNames: ["deploy"],
      categories: ["all"],
      status: true,
      scale: true,
      generation: "specAnnotations",
      resetStatus: [["f:spec"], ["f:metadata", "f:labels"]],
    }),
    builtin({
      group: "apps",
      version: "v1",
      resource: "statefulsets",
      kind: "StatefulSet",
      namespaced: true,
      schema: STATEFUL_SET,
      shortNames: ["sts"],
      categories: ["all"],
      status: true,
      scale: true,
      generation: "spec",
    }),
    builtin({
      group: "autoscaling",
      version: "v2",
      resource: "horizontalpodautoscalers",
      kind: "HorizontalPodAutoscaler",
      namespaced: true,
      schema: HORIZONTAL_POD_AUTOSCALER,
      shortNames: ["hpa"],
      categories: ["all"],
      status: true,
    }),
    builtin({
      group: "networking.k8s.io",
      version: "v1",
      resource: "ingresses",
      kind: "Ingress",
      namespaced: true,
      schema: INGRESS,
      shortNames: ["ing"],
      status: true,
      generation: "spec",
    }),
    builtin({
      group: "apiextensions.k8s.io",
      version: "v1",
      resource: "customresourcedefinitions",
      kind: "CustomResourceDefinition",
      namespaced: false,
      schema: CRD,
      shortNames: ["crd", "crds"],
      categories: ["api-extensions"],
      status: true,
      generation: "spec",
    }),
    ...extraBuiltinTypes().map((p) => builtin(p)),
  ];
}

// ---- CustomResourceDefinition → resource types ----

/** Converts a structural openAPIV3Schema into the merge schema. */
export function schemaFromOpenAPI(s: unknown, root = false): Schema {
  const o = asObj(s);
  if (!o) return DEDUCED;
  const preserve = o["x-kubernetes-preserve-unknown-fields"] === true;
  const type = asStr(o.type);
  if (o["x-kubernetes-int-or-string"] === true) return SCALAR;
  if (type === "array") {
    const lt = asStr(o["x-kubernetes-list-type"]) ?? "atomic";
    const items = schemaFromOpenAPI(o.items);
    if (lt === "set") return { k: "list", items, type: "set" };
    if (lt === "map") {
      const keys = Array.isArray(o["x-kubernetes-list-map-keys"]) ? o["x-kubernetes-list-map-keys"].filter((k): k is string => typeof k === "string") : [];
      const keyDefaults: Obj = {};
      const props = asObj(asObj(o.items)?.properties) ?? {};
      for (const k of keys) {
        const d = asObj(props[k])?.default;
        if (d !== undefined) keyDefaults[k] = d;
      }
      return { k: "list", items, type: "map", keys, keyDefaults };
    }
    return atomicList(items);
  }
  if (type === "object" || o.properties || o.additionalProperties || root || o["x-kubernetes-embedded-resource"] === true) {
    const fields: Record<string, Schema> = {};
    const props = asObj(o.properties) ?? {};
    for (const [k, v] of Object.entries(props)) fields[k] = schemaFromOpenAPI(v);
    if (root || o["x-kubernetes-embedded-resource"] === true) {
      fields.apiVersion = SCALAR;
      fields.kind = SCALAR;
      fields.metadata = OBJECT_META;
    }
    let rest: Schema | undefined;
    if (isObj(o.additionalProperties)) rest = schemaFromOpenAPI(o.additionalProperties);
    else if (o.additionalProperties === true || preserve) rest = DEDUCED;
    else if (Object.keys(props).length === 0 && !root) rest = DEDUCED;
    return { k: "struct", fields, rest, atomic: o["x-kubernetes-map-type"] === "atomic" };
  }
  if (preserve) return DEDUCED;
  return SCALAR;
}

export function typesFromCRD(crd: Obj): ResourceType[] {
  const spec = asObj(crd.spec) ?? {};
  const names = asObj(spec.names) ?? {};
  const group = asStr(spec.group) ?? "";
  const plural = asStr(names.plural) ?? "";
  const kind = asStr(names.kind) ?? "";
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObj) : [];
  const storage = versions.find((v) => v.storage === true);
  const storageVersion = asStr(storage?.name) ?? asStr(versions[0]?.name) ?? "v1";
  const out: ResourceType[] = [];
  for (const v of versions) {
    if (v.served === false) continue;
    const version = asStr(v.name) ?? "";
    const sub = asObj(v.subresources) ?? {};
    const scaleSpec = asObj(sub.scale);
    const schemaObj = asObj(asObj(v.schema)?.openAPIV3Schema);
    const cols = Array.isArray(v.additionalPrinterColumns) ? v.additionalPrinterColumns.filter(isObj) : [];
    const printerColumns: PrinterColumn[] =
      cols.length > 0
        ? cols.map((c) => ({
            name: asStr(c.name) ?? "",
            type: asStr(c.type) ?? "string",
            format: asStr(c.format),
            description: asStr(c.description),
            priority: typeof c.priority === "number" ? c.priority : 0,
            jsonPath: asStr(c.jsonPath) ?? "",
          }))
        : [{ name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" }];
    const jsonPathToArr = (p: unknown) => (asStr(p) ?? "").replace(/^\./, "").split(".").filter(Boolean);
    out.push({
      group,
      version,
      resource: plural,
      kind,
      listKind: asStr(names.listKind) ?? `${kind}List`,
      singular: asStr(names.singular) ?? kind.toLowerCase(),
      namespaced: spec.scope !== "Cluster",
      shortNames: Array.isArray(names.shortNames) ? names.shortNames.filter((x): x is string => typeof x === "string") : [],
      categories: Array.isArray(names.categories) ? names.categories.filter((x): x is string => typeof x === "string") : [],
      verbs: ALL_VERBS,
      status: isObj(sub.status),
      scale: scaleSpec
        ? {
            specReplicasPath: jsonPathToArr(scaleSpec.specReplicasPath),
            statusReplicasPath: jsonPathToArr(scaleSpec.statusReplicasPath),
            labelSelectorPath: scaleSpec.labelSelectorPath ? jsonPathToArr(scaleSpec.labelSelectorPath) : undefined,
          }
        : undefined,
      schema: schemaObj ? schemaFromOpenAPI(schemaObj, true) : { k: "struct", fields: { apiVersion: SCALAR, kind: SCALAR, metadata: OBJECT_META }, rest: DEDUCED },
      builtin: false,
      openAPISchema: schemaObj,
      preserveUnknownFields: spec.preserveUnknownFields === true,
      printerColumns,
      crdName: asStr(asObj(crd.metadata)?.name),
      storageVersion,
      generation: "nonMeta",
      smp: false,
      returnDeletedObject: false,
      extraFieldSelectors: Array.isArray(v.selectableFields)
        ? v.selectableFields.map((f) => (asStr(asObj(f)?.jsonPath) ?? "").replace(/^\./, "")).filter(Boolean)
        : [],
      resetMain: isObj(sub.status) ? [["f:status"]] : [],
      resetStatus: [["f:spec"]],
      storageVersionHash: storageVersionHash(group, storageVersion, kind),
    });
  }
  return out;
}

export class Registry {
  private types: ResourceType[] = [];

  constructor() {
    this.types = builtinTypes();
  }

  all(): ResourceType[] {
    return this.types;
  }

  find(group: string, version: string, resource: string): ResourceType | undefined {
    return this.types.find((t) => t.group === group && t.version === version && t.resource === resource);
  }

  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    return this.types.find((t) => apiVersionOf(t) === apiVersion && t.kind === kind);
  }

  /** Any served version of a group/resource (storage is shared across versions). */
  storageType(group: string, resource: string): ResourceType | undefined {
    const all = this.types.filter((t) => t.group === group && t.resource === resource);
    return all.find((t) => t.version === t.storageVersion) ?? all[0];
  }

  groups(): Array<{ group: string; versions: string[]; preferred: string }> {
    const out = new Map<string, string[]>();
    for (const t of this.types) {
      if (t.group === "") continue;
      const vs = out.get(t.group) ?? [];
      if (!vs.includes(t.version)) vs.push(t.version);
      out.set(t.group, vs);
    }
    return [...out.entries()].map(([group, versions]) => {
      const sorted = sortVersions(versions);
      return { group, versions: sorted, preferred: sorted[0] ?? "v1" };
    });
  }

  setCRD(crdName: string, types: ResourceType[]): void {
    this.types = this.types.filter((t) => t.crdName !== crdName).concat(types);
  }

  removeCRD(crdName: string): void {
    this.types = this.types.filter((t) => t.crdName !== crdName);
  }
}

/** Kubernetes version priority: GA > beta > alpha, higher numbers first (apimachinery CompareKubeAwareVersionStrings). */
export function sortVersions(vs: string[]): string[] {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return { rank: 3, major: 0, minor: 0, v };
    const rank = m[2] === undefined ? 0 : m[2] === "beta" ? 1 : 2;
    return { rank, major: Number(m[1]), minor: Number(m[3] ?? 0), v };
  };
  return [...vs].sort((a, b) => {
    const pa = parse(a);
    const pb = parse(b);
    if (pa.rank !== pb.rank) return pa.rank - pb.rank;
    if (pa.rank === 3) return a < b ? -1 : 1;
    if (pa.major !== pb.major) return pb.major - pa.major;
    return pb.minor - pa.minor;
  });
}
