// The kustomization.yaml Flux's kustomize-controller builds from, reproduced:
// for a folder without one it generates one (the folder's manifests and its
// sub-folders', with nested kustomization folders as resources), and in every
// case it writes the Kustomization's spec (targetNamespace, namePrefix/Suffix,
// patches, components, images) into it before `kustomize build`. Pure: the
// caller hands in the repository's file list and the existing file's text.
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { excludedFromFluxArtifact } from "./flux-sourceignore";

export { excludedFromFluxArtifact, fluxArtifactFiles } from "./flux-sourceignore";

export interface FluxSelector {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  labelSelector?: string;
  annotationSelector?: string;
}

export interface FluxImage {
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
}

export interface FluxSubstituteReference {
  kind: "ConfigMap" | "Secret";
  name: string;
  optional?: boolean;
}

/** The part of a Flux `Kustomization.spec` that decides what is rendered. */
export interface FluxRenderSpec {
  targetNamespace?: string;
  namePrefix?: string;
  nameSuffix?: string;
  patches?: Array<{ patch: string; target?: FluxSelector }>;
  images?: FluxImage[];
  components?: string[];
  ignoreMissingComponents?: boolean;
  commonMetadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  postBuild?: { substitute?: Record<string, string>; substituteFrom?: FluxSubstituteReference[] };
}

/** kustomize's recognised names, in the order it (and Flux) looks for them. */
export const KUSTOMIZATION_FILE_NAMES = ["kustomization.yaml", "kustomization.yml", "Kustomization"] as const;

// The JSON names of kustomize's types.Kustomization.
const KUSTOMIZATION_FIELDS = new Set([
  "apiVersion",
  "kind",
  "metadata",
  "openapi",
  "namePrefix",
  "nameSuffix",
  "namespace",
  "commonLabels",
  "labels",
  "commonAnnotations",
  "patchesStrategicMerge",
  "patchesJson6902",
  "patches",
  "images",
  "imageTags",
  "replacements",
  "replicas",
  "vars",
  "sortOptions",
  "resources",
  "components",
  "crds",
  "bases",
  "configMapGenerator",
  "secretGenerator",
  "helmGlobals",
  "helmCharts",
  "helmChartInflationGenerator",
  "generatorOptions",
  "configurations",
  "generators",
  "transformers",
  "validators",
  "buildMetadata",
]);

export type FluxGenerateResult =
  | { ok: true; /** Repository-relative file to write. */ file: string; text: string; created: boolean }
  | { ok: false; file: string; message: string };

interface Dir {
  files: Set<string>;
  dirs: Map<string, Dir>;
}

function treeOf(paths: readonly string[]): Dir {
  const root: Dir = { files: new Set(), dirs: new Map() };
  for (const p of paths) {
    const parts = p.split("/");
    let node = root;
    for (const part of parts.slice(0, -1)) {
      let next = node.dirs.get(part);
      if (!next) node.dirs.set(part, (next = { files: new Set(), dirs: new Map() }));
      node = next;
    }
    node.files.add(parts[parts.length - 1]!);
  }
  return root;
}

function kustomizationIn(dir: Dir): string | undefined {
  return KUSTOMIZATION_FILE_NAMES.find((n) => dir.files.has(n));
}

// Go's byte-wise string order, which filepath.Walk visits a directory in.
function goOrder(a: string, b: string): number {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return Buffer.compare(ba, bb);
}

/**
 * The resources Flux lists for a folder without a kustomization: a depth-first
 * walk in name order, `.yaml`/`.yml` files (exactly those extensions), and a
 * sub-folder holding a kustomization file as one resource, not descended into.
 */
function scanResources(dir: Dir, prefix: string, out: string[]): void {
  const names = [...dir.files, ...dir.dirs.keys()].sort(goOrder);
  for (const name of names) {
    const sub = dir.dirs.get(name);
    if (sub) {
      if (kustomizationIn(sub)) out.push(`${prefix}${name}`);
      else scanResources(sub, `${prefix}${name}/`, out);
      continue;
    }
    if (name.endsWith(".yaml") || name.endsWith(".yml")) out.push(`${prefix}${name}`);
  }
}

function at(root: Dir, rel: string): Dir | undefined {
  let node: Dir | undefined = root;
  for (const part of rel ? rel.split("/") : []) node = node?.dirs.get(part);
  return node;
}

function has(root: Dir, rel: string): boolean {
  const parts = rel.split("/").filter((p) => p && p !== ".");
  const parent = at(root, parts.slice(0, -1).join("/"));
  const last = parts[parts.length - 1];
  if (!parent) return false;
  return last === undefined || parent.files.has(last) || parent.dirs.has(last);
}

/** Local and relative, as Flux requires of a spec component (no URL, no absolute path). */
export function isLocalRelativePath(p: string): boolean {
  const lower = p.toLowerCase();
  for (const remote of ["git::", "gh:", "ssh://", "https://", "http://", "git@", "github.com:", "github.com/"]) {
    if (remote.length < p.length && lower.startsWith(remote)) return false;
  }
  return !p.startsWith("/") && !lower.replace(/^file:\/\//, "").startsWith("/");
}

// sigs.k8s.io/yaml marshals through JSON: keys in sorted order, empty fields left out.
function sortedDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedDeep);
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort(goOrder)) {
      const value = (v as Record<string, unknown>)[k];
      if (value === undefined) continue;
      out[k] = sortedDeep(value);
    }
    return out;
  }
  return v;
}

function targetOf(s: FluxSelector | undefined): Record<string, string> | undefined {
  if (!s) return undefined;
  const t: Record<string, string> = {};
  for (const key of ["group", "version", "kind", "name", "namespace", "labelSelector", "annotationSelector"] as const) {
    if (s[key]) t[key] = s[key];
  }
  return t;
}

/**
 * The kustomization.yaml kustomize-controller writes into `dir` before
 * building. `repoFiles`: every file of the artifact, repository-relative (the
 * caller's tree listing); `existing`: the folder's own kustomization, if any.
 */
export function generateFluxKustomization(
  repoFiles: readonly string[],
  dir: string,
  existing: { file: string; text: string } | null,
  spec: FluxRenderSpec,
): FluxGenerateResult {
  const inArtifact = repoFiles.filter((f) => !excludedFromFluxArtifact(f));
  const root = treeOf(inArtifact);
  const prefix = dir ? `${dir}/` : "";
  let kus: Record<string, unknown>;
  let file: string;
  let created: boolean;
  if (existing) {
    file = existing.file;
    created = false;
    let parsed: unknown;
    try {
      parsed = parseYaml(existing.text) ?? {};
    } catch (e) {
      return { ok: false, file, message: `invalid kustomization: ${(e as Error).message.split("\n")[0]}` };
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return { ok: false, file, message: "invalid kustomization: not a mapping" };
    // Flux reads the file into kustomize's Kustomization type and writes it back: fields that type lacks are dropped.
    const known = Object.entries(parsed as Record<string, unknown>).filter(([k]) => KUSTOMIZATION_FIELDS.has(k));
    kus = { apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization", ...Object.fromEntries(known) };
    // Flux's guard against "kustomization.yaml is empty" for a kustomization of only generators or components.
    if (!Array.isArray(kus.resources) || kus.resources.length === 0) kus.buildMetadata = ["originAnnotations"];
  } else {
    file = `${prefix}kustomization.yaml`;
    created = true;
    const resources: string[] = [];
    const node = at(root, dir);
    if (node) scanResources(node, "./", resources);
    kus = { apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization" };
    // Flux's placeholder so that an empty folder builds to nothing instead of failing.
    if (resources.length === 0) kus.namespace = "_placeholder";
    else kus.resources = resources;
  }

  if (spec.targetNamespace !== undefined) kus.namespace = spec.targetNamespace;
  if (spec.namePrefix !== undefined) kus.namePrefix = spec.namePrefix;
  if (spec.nameSuffix !== undefined) kus.nameSuffix = spec.nameSuffix;
  if (spec.patches?.length) {
    const patches = Array.isArray(kus.patches) ? [...(kus.patches as unknown[])] : [];
    for (const p of spec.patches) patches.push({ patch: p.patch, target: targetOf(p.target) });
    kus.patches = patches;
  }
  for (const component of spec.components ?? []) {
    if (!isLocalRelativePath(component)) return { ok: false, file, message: `component path '${component}' must be local and relative` };
    if (spec.ignoreMissingComponents && !has(root, `${prefix}${component}`.split("/").reduce<string[]>(normaliseStep, []).join("/"))) continue;
    kus.components = [...(Array.isArray(kus.components) ? (kus.components as unknown[]) : []), component];
  }
  if (spec.images?.length) {
    const images = Array.isArray(kus.images) ? (kus.images as Array<Record<string, unknown>>).map((i) => ({ ...i })) : [];
    for (const image of spec.images) {
      const same = images.find((i) => i.name === image.name);
      if (same) {
        // Flux merges into the kustomization's own entry; tag and digest move together (setting one clears the other).
        if (image.newName) same.newName = image.newName;
        if (image.newTag || image.digest) {
          same.newTag = image.newTag || undefined;
          same.digest = image.digest || undefined;
        }
      } else {
        images.push({ name: image.name, newName: image.newName || undefined, newTag: image.newTag || undefined, digest: image.digest || undefined });
      }
    }
    kus.images = images;
  }
  return { ok: true, file, text: stringifyYaml(sortedDeep(kus), { lineWidth: 0, indentSeq: false }), created };
}

function normaliseStep(acc: string[], part: string): string[] {
  if (part === "" || part === ".") return acc;
  if (part === "..") return acc.slice(0, -1);
  return [...acc, part];
}

/** The repository files Flux's generated kustomization would list for `dir` (nested kustomization folders left out). */
export function fluxResourceFiles(repoFiles: readonly string[], dir: string): string[] {
  const node = at(treeOf(repoFiles.filter((f) => !excludedFromFluxArtifact(f))), dir);
  const out: string[] = [];
  if (node) scanResources(node, dir ? `${dir}/` : "", out);
  return out;
}

/** Whether rendering `dir` needs a kustomize build at all (anything plain reading would get wrong). */
export function fluxNeedsBuild(repoFiles: readonly string[], dir: string, spec: FluxRenderSpec): boolean {
  if (spec.targetNamespace !== undefined || spec.namePrefix || spec.nameSuffix) return true;
  if (spec.patches?.length || spec.images?.length || spec.components?.length) return true;
  if (spec.postBuild) return true;
  const prefix = dir ? `${dir}/` : "";
  return repoFiles.some((f) => f.startsWith(prefix) && (KUSTOMIZATION_FILE_NAMES as readonly string[]).includes(f.slice(f.lastIndexOf("/") + 1)));
}
