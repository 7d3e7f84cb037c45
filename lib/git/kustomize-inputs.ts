// What a kustomize build of one path will read, found before kustomize runs.
// kustomize follows whatever a kustomization names: remote bases (through
// git, which a repository's own configuration can turn into a program),
// files over HTTP, absolute paths, plugins. Every reference is checked here
// against the commit's tree, so a build that would leave the repository is
// refused with the file and the reference that asked for it, and a build
// that is allowed has a known list of inputs.
//
// Pure: the tree and a reader of file text come in, a verdict comes out.
import path from "node:path/posix";
import { parseKubernetesYaml } from "./k8s-yaml";

export type TreeNode = { type: "file" } | { type: "dir" } | { type: "link"; target: string } | { type: "submodule" };

/** One commit's tree: every entry by repository-relative path (directories included). */
export interface RepoTree {
  node(file: string): TreeNode | undefined;
  read(file: string): Promise<string>;
  /** Every entry (files, links, submodules) under a folder, repository-relative. */
  list?(folder: string): string[];
}

/** A remote git base as kustomize spells it: `https://host/org/repo//sub/dir?ref=v1`, `github.com/org/repo/sub?ref=v1`, `git@host:org/repo//sub`. */
export interface RemoteBase {
  /** The kustomization that names it. */
  file: string;
  reference: string;
  /** The repository part, comparable with a configured repository URL (see normaliseRepoUrl). */
  repository: string;
  /** Path inside that repository ("" for its root). */
  subPath: string;
  ref: string | null;
}

export interface Refusal {
  /** Repository-relative file that holds the reference. */
  file: string;
  reference: string;
  reason: string;
}

export interface KustomizeWalk {
  /** Repository-relative files the build reads, sorted. */
  inputs: string[];
  refusals: Refusal[];
  /** Remote bases the allowlist admits: Driftwatch fetches them and points the kustomization at the copy. */
  remoteBases: RemoteBase[];
  /** `helmCharts` entries (only when WalkOptions.helmCharts admits them): kustomize inflates each with helm. */
  helmCharts: HelmChartUse[];
}

/** One `helmCharts` entry, where kustomize's inflator will look for its chart. */
export interface HelmChartUse {
  /** The kustomization that lists it. */
  file: string;
  name: string;
  version: string;
  repo: string;
  /** Repository-relative folder kustomize reads the chart from: chartHome[/name-version]/name. */
  chartPath: string;
  /** Whether that folder is in the commit (then kustomize uses it as found and never pulls). */
  present: boolean;
}

export const KUSTOMIZATION_FILES = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

const HELM_FIELDS = ["helmCharts", "helmGlobals", "helmChartInflationGenerator", "helmChartRepository"];
/** kustomize puts these on helm's command line; a value starting with "-" would be read as a flag (--post-renderer, --kubeconfig…). */
const HELM_ARGUMENT_FIELDS = ["name", "version", "releaseName", "namespace", "nameTemplate", "kubeVersion"];
const CHART_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const FUNCTION_ANNOTATIONS = ["config.kubernetes.io/function", "config.k8s.io/function"];
const MAX_LINK_HOPS = 32;

type Resolved =
  | { status: "file" | "dir"; path: string; link?: string }
  | { status: "missing"; path: string }
  | { status: "outside"; link?: string; target?: string }
  | { status: "submodule"; path: string };

/**
 * Follows `ref` from directory `from` through the tree, the way the
 * operating system would follow it in a checkout with real links.
 */
export function resolveInTree(tree: RepoTree, from: string, ref: string): Resolved {
  const pending = ref.split("/");
  const parts = from ? from.split("/") : [];
  let link: string | undefined;
  let hops = 0;
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) return { status: "outside", link };
      parts.pop();
      continue;
    }
    parts.push(part);
    const here = parts.join("/");
    const node = tree.node(here);
    if (!node) return { status: "missing", path: [here, ...pending.filter((p) => p && p !== ".")].join("/") };
    if (node.type === "submodule") return { status: "submodule", path: here };
    if (node.type === "link") {
      link ??= here;
      if (++hops > MAX_LINK_HOPS) return { status: "outside", link, target: node.target };
      if (node.target.startsWith("/")) return { status: "outside", link, target: node.target };
      parts.pop();
      pending.unshift(...node.target.split("/"));
      continue;
    }
    if (node.type === "file" && pending.some((p) => p && p !== ".")) return { status: "missing", path: [here, ...pending].join("/") };
  }
  const final = parts.join("/");
  const node = final ? tree.node(final) : { type: "dir" as const };
  return { status: node?.type === "file" ? "file" : "dir", path: final, link };
}

/** `github.com/org/repo`, whatever the scheme, user, `.git` suffix or scp form. */
export function normaliseRepoUrl(url: string): string {
  let s = url.trim().replace(/^git::/i, "");
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(s)?.[1]?.toLowerCase();
  if (scheme) {
    s = s.slice(scheme.length + 3).replace(/^[^@/]+@/, "");
    // ssh's port says nothing about which repository it is; an http port does.
    if (/ssh/.test(scheme)) s = s.replace(/^([^/:]+):\d+\//, "$1/");
  } else {
    // scp-like [user@]host:org/repo
    s = s.replace(/^[^@/]+@/, "").replace(/^([^/:]+):/, "$1/");
  }
  return s.replace(/\/+$/, "").replace(/\.git$/i, "").toLowerCase();
}

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const HOSTLIKE = /^[a-z0-9-]+(\.[a-z0-9-]+)+(:\d+)?\//i;

/**
 * What kind of thing a kustomization reference is, before looking in the tree.
 * kustomize tries a missing local path as a remote one, so a reference that
 * looks like a host is remote unless the tree really has it.
 */
export function classifyReference(ref: string): "file-url" | "remote" | "absolute" | "local" {
  const scheme = SCHEME.exec(ref)?.[1]?.toLowerCase();
  if (scheme === "file") return "file-url";
  if (/^[a-z][a-z0-9+.-]*::/i.test(ref) || /^[a-z][a-z0-9+.-]*:\/\//i.test(ref)) return "remote";
  if (/^[^/\s:@]+@[^/\s:]+:/.test(ref)) return "remote";
  if (scheme && scheme.length > 1) return "remote";
  if (ref.startsWith("/") || ref.startsWith("~") || /^[a-z]:[\\/]/i.test(ref)) return "absolute";
  return "local";
}

function looksRemote(ref: string): boolean {
  return HOSTLIKE.test(ref) || /[?&](ref|version|submodules|timeout)=/.test(ref) || /[^/]\/\/[^/]/.test(ref);
}

/** Splits a remote base reference into repository, path and ref (kustomize's `//` separates the path). */
export function parseRemoteBase(file: string, reference: string): RemoteBase {
  let rest = reference;
  let ref: string | null = null;
  const q = rest.indexOf("?");
  if (q >= 0) {
    const params = new URLSearchParams(rest.slice(q + 1));
    ref = params.get("ref") ?? params.get("version");
    rest = rest.slice(0, q);
  }
  const scheme = /^(git::)?([a-z][a-z0-9+.-]*:\/\/)?/i.exec(rest)?.[0] ?? "";
  const body = rest.slice(scheme.length);
  let repoPart: string;
  let subPath = "";
  const split = body.indexOf("//");
  if (split >= 0) {
    repoPart = body.slice(0, split);
    subPath = body.slice(split + 2);
  } else {
    const gitSuffix = /\.git(\/|$)/i.exec(body);
    if (gitSuffix) {
      repoPart = body.slice(0, gitSuffix.index + 4);
      subPath = body.slice(gitSuffix.index + 4);
    } else {
      // host/org/repo[/sub/path]: the first three segments name the repository, as kustomize assumes for GitHub-style hosts.
      const segs = body.replace(/^[^@/]+@([^/:]+):/, "$1/").split("/");
      repoPart = segs.slice(0, 3).join("/");
      subPath = segs.slice(3).join("/");
    }
  }
  return { file, reference, repository: normaliseRepoUrl(scheme + repoPart), subPath: subPath.replace(/^\/+|\/+$/g, ""), ref };
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

function records(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x)) : [];
}

function isInline(entry: string): boolean {
  return entry.includes("\n") || entry.trimStart().startsWith("{");
}

export interface WalkOptions {
  /** Remote bases the configuration allows (compared by normaliseRepoUrl). */
  allowRemote?: (repository: string) => boolean;
  /**
   * `helmCharts`: "inflate" checks each entry and lists it (the build runs
   * with --enable-helm); a string is the reason they are refused. Refused
   * when absent.
   */
  helmCharts?: "inflate" | string;
}

const HELM_NOT_RUN = "Helm chart inflation is not run for this render (it needs the helm binary and the destination cluster's version and API versions, which this render was not given)";

/** Walks the kustomization in `start` and everything it reaches. */
export async function walkKustomization(tree: RepoTree, start: string, opts: WalkOptions = {}): Promise<KustomizeWalk> {
  const inputs = new Set<string>();
  const refusals: Refusal[] = [];
  const remoteBases: RemoteBase[] = [];
  const helmCharts: HelmChartUse[] = [];
  const walked = new Set<string>();
  const refuse = (file: string, reference: string, reason: string) => refusals.push({ file, reference, reason });

  const kustomizationIn = (dir: string): string | undefined =>
    KUSTOMIZATION_FILES.map((f) => (dir ? `${dir}/${f}` : f)).find((f) => tree.node(f)?.type === "file");

  /** A local reference checked for leaving the tree; its resolved path, or null when refused. */
  const local = (file: string, dir: string, reference: string, want: "file" | "dir" | "any", allowRemote: boolean): { status: "file" | "dir"; path: string } | null => {
    const kind = classifyReference(reference);
    if (kind === "file-url") {
      refuse(file, reference, "file:// URLs are not followed: a render reads only its own repository");
      return null;
    }
    if (kind === "absolute") {
      refuse(file, reference, "absolute paths are not followed: a render reads only its own repository");
      return null;
    }
    if (kind === "remote") {
      remote(file, reference, allowRemote);
      return null;
    }
    const r = resolveInTree(tree, dir, reference);
    if (r.status === "outside") {
      const via = r.link ? ` through the symbolic link ${r.link}${r.target ? ` → ${r.target}` : ""}` : "";
      refuse(file, reference, `leaves the repository${via}`);
      return null;
    }
    if (r.status === "submodule") {
      refuse(file, reference, `reaches the submodule ${r.path}, which is not part of this repository's content`);
      return null;
    }
    if (r.status === "missing") {
      if (looksRemote(reference)) remote(file, reference, allowRemote);
      else refuse(file, reference, `does not exist in the repository (${r.path})`);
      return null;
    }
    if (r.link) {
      // The checkout writes links as plain files (core.symlinks=false), so kustomize would read the link's text.
      refuse(file, reference, `goes through the symbolic link ${r.link}; kustomize inputs must be plain files and directories`);
      return null;
    }
    if (want === "file" && r.status === "dir") {
      refuse(file, reference, `is a directory; a file was expected`);
      return null;
    }
    return r;
  };

  const remote = (file: string, reference: string, allowed: boolean) => {
    if (!allowed) {
      refuse(file, reference, "remote references are not fetched by kustomize here; only Driftwatch fetches, and only remote bases (resources, components)");
      return;
    }
    const base = parseRemoteBase(file, reference);
    if (!opts.allowRemote?.(base.repository)) {
      refuse(file, reference, `remote base ${base.repository} is not on the allowlist (remoteBases in driftwatch.yaml)`);
      return;
    }
    if (!base.ref) {
      refuse(file, reference, "an allowlisted remote base must be pinned with ?ref= (a branch, tag or commit)");
      return;
    }
    remoteBases.push(base);
  };

  /**
   * Generator, transformer and validator configurations: only kustomize's
   * builtins run, and the builtins that read files (generators, patches,
   * replacements) have those files checked like the kustomization's own.
   * Their paths are relative to the kustomization that lists the config.
   */
  const pluginConfigs = async (file: string, dir: string, reference: string, text: string) => {
    const parsed = parseKubernetesYaml(text);
    if (!parsed.ok) return;
    for (const doc of parsed.docs) {
      const v = doc.value as Record<string, unknown> | null;
      if (!v || typeof v !== "object") continue;
      const annotations = ((v.metadata as Record<string, unknown> | undefined)?.annotations ?? {}) as Record<string, unknown>;
      const fn = FUNCTION_ANNOTATIONS.find((a) => a in annotations);
      if (fn) refuse(file, reference, `declares a KRM function (${fn}): functions run programs or containers and are not run here`);
      else if (v.apiVersion !== "builtin") refuse(file, reference, `${String(v.apiVersion)} ${String(v.kind)} is a kustomize plugin; only kustomize's builtin generators and transformers run here`);
      else if (v.kind === "HelmChartInflationGenerator") refuse(file, reference, "a HelmChartInflationGenerator configuration is not run here; list the chart under helmCharts in the kustomization");
      else await builtinFiles(file, dir, v);
    }
  };

  const builtinFiles = async (file: string, dir: string, v: Record<string, unknown>) => {
    const paths = [...strings(v.files).map((f) => (f.includes("=") ? f.slice(f.indexOf("=") + 1) : f)), ...strings(v.envs), ...strings(v.paths)];
    for (const key of ["env", "path"]) if (typeof v[key] === "string") paths.push(v[key]);
    for (const r of records(v.replacements)) if (typeof r.path === "string") paths.push(r.path);
    for (const p of paths) if (!isInline(p)) await addFile(file, dir, p);
  };

  const addFile = async (file: string, dir: string, reference: string, asPluginConfig = false) => {
    const r = local(file, dir, reference, "file", false);
    if (!r) return;
    inputs.add(r.path);
    if (asPluginConfig) await pluginConfigs(file, dir, reference, await tree.read(r.path));
  };

  const walkDir = async (file: string, dir: string, reference: string, asPluginConfig: boolean, allowRemote: boolean) => {
    const r = local(file, dir, reference, "any", allowRemote);
    if (!r) return;
    if (r.status === "file") {
      inputs.add(r.path);
      if (asPluginConfig) await pluginConfigs(file, dir, reference, await tree.read(r.path));
      return;
    }
    const k = kustomizationIn(r.path);
    if (!k) {
      refuse(file, reference, `the directory ${r.path || "/"} has no kustomization.yaml`);
      return;
    }
    await walk(k, asPluginConfig);
  };

  /**
   * The `helmCharts` of one kustomization, checked the way kustomize's
   * HelmChartInflationGenerator will use them: the chart at
   * chartHome/name (chartHome/name-version/name when repo and version are
   * both set), its values.yaml unless valuesFile names another, then
   * additionalValuesFiles; every path inside the repository.
   */
  const helm = async (kustomization: string, dir: string, k: Record<string, unknown>) => {
    for (const field of ["helmChartInflationGenerator", "helmChartRepository"]) {
      if (k[field] !== undefined && k[field] !== null) refuse(kustomization, field, "the deprecated form names its own helm binary and home; list the chart under helmCharts");
    }
    const globals = (k.helmGlobals ?? {}) as Record<string, unknown>;
    if (globals.configHome !== undefined) refuse(kustomization, "helmGlobals.configHome", "helm's configuration home is not taken from the repository (it would hold repositories and registry logins)");
    const chartHomeRef = typeof globals.chartHome === "string" && globals.chartHome ? globals.chartHome : "charts";
    const chartHome = insideRepository(kustomization, dir, `helmGlobals.chartHome: ${chartHomeRef}`, chartHomeRef);
    if (chartHome === null) return;
    for (const [i, c] of records(k.helmCharts).entries()) {
      const label = `helmCharts[${i}]`;
      const bad = HELM_ARGUMENT_FIELDS.filter((f) => c[f] !== undefined && (typeof c[f] !== "string" || (c[f] as string).startsWith("-")));
      const badApi = Array.isArray(c.apiVersions) && c.apiVersions.some((v) => typeof v !== "string" || v.startsWith("-"));
      if (bad.length > 0 || badApi) {
        refuse(kustomization, `${label}.${bad[0] ?? "apiVersions"}`, "must be a string that does not start with \"-\" (kustomize passes it to helm as an argument, where it would be read as a flag)");
        continue;
      }
      const name = typeof c.name === "string" ? c.name : "";
      if (!CHART_NAME.test(name)) {
        refuse(kustomization, `${label}.name: ${name}`, "a chart name is one folder name (letters, digits, \".\", \"_\", \"-\")");
        continue;
      }
      const version = typeof c.version === "string" ? c.version : "";
      const repo = typeof c.repo === "string" ? c.repo : "";
      const home = version && repo ? path.join(chartHome, `${name}-${version}`) : chartHome;
      const chartPath = home ? `${home}/${name}` : name;
      if (typeof c.valuesFile === "string" && c.valuesFile) await addFile(kustomization, dir, c.valuesFile);
      for (const f of strings(c.additionalValuesFiles)) await addFile(kustomization, dir, f);
      const node = tree.node(chartPath);
      const present = node?.type === "dir";
      if (node && !present) {
        refuse(kustomization, `${label}: ${chartPath}`, node.type === "link" ? "the chart folder is a symbolic link" : "is not a chart folder");
        continue;
      }
      if (present) {
        const inChart = listUnder(chartPath);
        const links = inChart.filter((f) => tree.node(f)?.type !== "file");
        if (links.length > 0) {
          refuse(kustomization, `${label}: ${links[0]}`, "a symbolic link or submodule in a chart is refused: a chart is read from files only");
          continue;
        }
        for (const f of inChart) inputs.add(f);
      } else if (!repo) {
        refuse(kustomization, `${label}: ${name}`, `no chart at ${chartPath || "/"} and no repo to fetch it from`);
        continue;
      } else if (!/^(https?|oci):\/\//i.test(repo)) {
        refuse(kustomization, `${label}.repo: ${repo}`, "a chart repository is an http(s):// or oci:// URL");
        continue;
      }
      helmCharts.push({ file: kustomization, name, version, repo, chartPath, present });
    }
  };

  /** `ref` from `dir`, normalised, when it stays in the repository and crosses no link; null (refused) otherwise. */
  const insideRepository = (file: string, dir: string, reference: string, ref: string): string | null => {
    if (classifyReference(ref) !== "local") {
      refuse(file, reference, "must be a path inside the repository");
      return null;
    }
    const joined = path.normalize(path.join(dir || ".", ref)).replace(/\/+$/, "");
    if (joined === ".." || joined.startsWith("../")) {
      refuse(file, reference, "leaves the repository");
      return null;
    }
    const rel = joined === "." ? "" : joined;
    const r = rel ? resolveInTree(tree, "", rel) : { status: "dir" as const };
    if (r.status === "outside" || ("link" in r && r.link)) {
      refuse(file, reference, `goes through a symbolic link${"link" in r && r.link ? ` (${r.link})` : ""}`);
      return null;
    }
    return rel;
  };

  const listUnder = (folder: string): string[] => {
    if (!tree.list) throw new Error("walkKustomization: the tree cannot list folders (helmCharts need RepoTree.list)");
    return tree.list(folder);
  };

  const walk = async (kustomization: string, asPluginConfig: boolean): Promise<void> => {
    const visitKey = `${kustomization}\0${asPluginConfig}`;
    if (walked.has(visitKey)) return;
    walked.add(visitKey);
    inputs.add(kustomization);
    const dir = path.dirname(kustomization) === "." ? "" : path.dirname(kustomization);
    const parsed = parseKubernetesYaml(await tree.read(kustomization));
    if (!parsed.ok) {
      refuse(kustomization, kustomization, `cannot be read: ${parsed.message}${parsed.line ? ` (line ${parsed.line})` : ""}`);
      return;
    }
    const k = (parsed.docs[0]?.value ?? {}) as Record<string, unknown>;
    if (typeof k !== "object" || k === null) return;

    const usesHelm = HELM_FIELDS.some((field) => k[field] !== undefined && k[field] !== null);
    if (usesHelm && opts.helmCharts !== "inflate") {
      for (const field of HELM_FIELDS) if (k[field] !== undefined && k[field] !== null) refuse(kustomization, field, opts.helmCharts ?? HELM_NOT_RUN);
    } else if (usesHelm) await helm(kustomization, dir, k);
    for (const r of [...strings(k.resources), ...strings(k.bases)]) await walkDir(kustomization, dir, r, asPluginConfig, true);
    for (const c of strings(k.components)) await walkDir(kustomization, dir, c, asPluginConfig, true);
    for (const p of strings(k.patchesStrategicMerge)) if (!isInline(p)) await addFile(kustomization, dir, p);
    for (const field of ["patches", "patchesJson6902", "replacements"]) {
      for (const p of records(k[field])) if (typeof p.path === "string") await addFile(kustomization, dir, p.path);
    }
    for (const field of ["configMapGenerator", "secretGenerator"]) {
      for (const g of records(k[field])) {
        for (const f of strings(g.files)) await addFile(kustomization, dir, f.includes("=") ? f.slice(f.indexOf("=") + 1) : f);
        for (const e of [...strings(g.envs), ...(typeof g.env === "string" ? [g.env] : [])]) await addFile(kustomization, dir, e);
      }
    }
    for (const c of [...strings(k.crds), ...strings(k.configurations)]) await addFile(kustomization, dir, c);
    const openapi = k.openapi as Record<string, unknown> | undefined;
    if (openapi && typeof openapi === "object" && typeof openapi.path === "string") await addFile(kustomization, dir, openapi.path);
    for (const field of ["generators", "transformers", "validators"]) {
      for (const entry of strings(k[field])) {
        if (isInline(entry)) await pluginConfigs(kustomization, dir, entry.trim().split("\n")[0] ?? entry, entry);
        else await walkDir(kustomization, dir, entry, true, false);
      }
    }
  };

  const first = kustomizationIn(start);
  if (!first) {
    refuse(start || "/", start || ".", "has no kustomization.yaml");
  } else {
    await walk(first, false);
  }
  return { inputs: [...inputs].sort(), refusals, remoteBases, helmCharts };
}
