// An Argo CD Helm source, as the repo server turns it into a `helm template`
// command line (argo-cd reposerver/repository/repository.go helmTemplate and
// util/helm/cmd.go template). Pure: the settings, the repository's file list
// and the cluster's discovery in; arguments, or the reason they cannot be
// built, out. The render (render-helm.ts) runs them.
import path from "node:path";
import { stringify as toYaml } from "yaml";
import { dropUndefined, rec, str, strList, type Obj } from "@/lib/git/shape";

export interface ArgoHelmParameter {
  name: string;
  value: string;
  forceString?: boolean;
}

/** `spec.source.helm` of an Application (argoproj.io/v1alpha1 ApplicationSourceHelm), the fields that change the output. */
export interface ArgoHelmOptions {
  releaseName?: string;
  namespace?: string;
  valueFiles?: string[];
  ignoreMissingValueFiles?: boolean;
  /** A YAML document; `valuesObject` wins when both are set, as in Argo CD. */
  values?: string;
  valuesObject?: Record<string, unknown>;
  parameters?: ArgoHelmParameter[];
  fileParameters?: Array<{ name: string; path: string }>;
  skipCrds?: boolean;
  skipSchemaValidation?: boolean;
  skipTests?: boolean;
  /** Argo CD's `kubeVersion` / `apiVersions` overrides of what the destination cluster reports. */
  kubeVersion?: string;
  apiVersions?: string[];
}

/** A chart Argo CD pulls from a Helm repository or OCI registry (`repoURL` + `chart` + `targetRevision`) instead of a Git path. */
export interface ArgoChartReference {
  repoURL: string;
  chart: string;
  /** A version or a semver range; empty means the newest. */
  targetRevision: string;
}

export function argoHelmOptionsOf(source: Obj): ArgoHelmOptions | undefined {
  const h = rec(source.helm);
  if (!h) return undefined;
  const parameters = Array.isArray(h.parameters)
    ? h.parameters.flatMap((p) => {
        const r = rec(p);
        const name = str(r?.name);
        // Argo CD sends a parameter without a value as an empty string.
        return name ? [dropUndefined({ name, value: str(r?.value) ?? "", forceString: r?.forceString === true ? true : undefined })] : [];
      })
    : undefined;
  const fileParameters = Array.isArray(h.fileParameters)
    ? h.fileParameters.flatMap((p) => {
        const r = rec(p);
        const name = str(r?.name);
        const file = str(r?.path);
        return name && file ? [{ name, path: file }] : [];
      })
    : undefined;
  return dropUndefined({
    releaseName: str(h.releaseName) || undefined,
    namespace: str(h.namespace) || undefined,
    valueFiles: strList(h.valueFiles),
    ignoreMissingValueFiles: h.ignoreMissingValueFiles === true ? true : undefined,
    values: str(h.values) || undefined,
    valuesObject: rec(h.valuesObject),
    parameters,
    fileParameters,
    skipCrds: h.skipCrds === true ? true : undefined,
    skipSchemaValidation: h.skipSchemaValidation === true ? true : undefined,
    skipTests: h.skipTests === true ? true : undefined,
    kubeVersion: str(h.kubeVersion) || undefined,
    apiVersions: strList(h.apiVersions),
  });
}

export function argoChartReferenceOf(source: Obj): ArgoChartReference | undefined {
  const chart = str(source.chart);
  const repoURL = str(source.repoURL);
  if (!chart || !repoURL) return undefined;
  return { repoURL, chart, targetRevision: str(source.targetRevision) ?? "" };
}

/** The values Argo CD writes to a temporary file and passes last: `valuesObject`, else `values`; none when both are empty. */
export function inlineValuesYaml(o: ArgoHelmOptions): string | undefined {
  if (o.valuesObject && Object.keys(o.valuesObject).length > 0) return toYaml(o.valuesObject);
  if (o.values && o.values.trim()) return o.values;
  return undefined;
}

/**
 * Argo CD escapes every unescaped `,` in a --set value (helm would split the
 * value there), except in a `{a,b}` list literal (util/helm/cmd.go
 * cleanSetParameters).
 */
export function cleanSetParameter(value: string): string {
  if (value.startsWith("{") && value.endsWith("}")) return value;
  let out = "";
  let previous = "";
  for (const ch of value) {
    out += ch === "," && previous !== "\\" ? "\\," : ch;
    previous = ch;
  }
  return out;
}

export type ValueFileResolution = { ok: true; files: string[] } | { ok: false; file: string; reason: string };

/** Repository-relative path of `file` as Argo CD resolves it: relative to the chart folder, or to the repository root when absolute; null when it leaves the repository. */
export function resolveInRepository(chartDir: string, file: string): string | null {
  const joined = file.startsWith("/") ? path.posix.normalize(file.slice(1)) : path.posix.normalize(path.posix.join(chartDir || ".", file));
  if (joined === ".." || joined.startsWith("../") || path.posix.isAbsolute(joined)) return null;
  return joined === "." ? "" : joined;
}

export type RepositoryNode = { type: "file" } | { type: "dir" } | { type: "link" } | { type: "submodule" } | undefined;

/** Where `$ref/…` value files are written beside a chart: under `.git/`, a name no Git tree or chart archive can hold. */
export const REF_VALUES_DIR = ".git/driftwatch-ref-values";

/**
 * The `$<ref>/<path>` entries of `valueFiles` (a multi-source application's
 * files of its `ref:` sources), each with the source it names and the path
 * in that repository (from its root, as Argo CD reads it). A path leaving
 * the repository is left out (and so refused when rendering).
 */
export function refValueFiles(valueFiles: readonly string[]): Array<{ entry: string; refName: string; file: string }> {
  return valueFiles.flatMap((entry) => {
    const m = /^\$([^/]+)\/(.+)$/.exec(entry);
    if (!m) return [];
    const file = path.posix.normalize(m[2]!).replace(/^\/+/, "");
    return file === ".." || file.startsWith("../") ? [] : [{ entry, refName: m[1]!, file }];
  });
}

/**
 * `valueFiles` in the order Argo CD passes them: relative to the chart folder
 * (absolute: to the repository root), each once, a missing one skipped only
 * with `ignoreMissingValueFiles`. Stricter than Argo CD where it must be: a
 * URL is refused (Driftwatch fetches nothing a commit names), as is a path
 * that leaves the repository, a symbolic link, or a glob (not evaluated here).
 */
export function resolveValueFiles(chartDir: string, valueFiles: readonly string[], ignoreMissing: boolean, node: (file: string) => RepositoryNode, refs: ReadonlyMap<string, string> = new Map()): ValueFileResolution {
  const files: string[] = [];
  for (const raw of valueFiles) {
    // `$<ref>/file` of a multi-source application: a file of the `ref:` source's repository, read and placed by the caller (`refs`).
    if (raw.startsWith("$")) {
      const placed = refs.get(raw);
      if (placed === undefined) {
        if (ignoreMissing) continue;
        return { ok: false, file: raw, reason: "names no file of a `ref:` source of this application (set ignoreMissingValueFiles to skip it)" };
      }
      if (!files.includes(placed)) files.push(placed);
      continue;
    }
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) return { ok: false, file: raw, reason: "a remote values file is refused: Driftwatch fetches only what driftwatch.yaml allows" };
    if (/[*?[]/.test(raw)) return { ok: false, file: raw, reason: "glob value files are not supported; list the files" };
    const rel = resolveInRepository(chartDir, raw);
    if (rel === null) return { ok: false, file: raw, reason: "leaves the repository" };
    const n = node(rel);
    if (n?.type === "link") return { ok: false, file: raw, reason: "is a symbolic link; values are read from files only" };
    if (n?.type !== "file") {
      if (n === undefined && ignoreMissing) continue;
      return { ok: false, file: raw, reason: n === undefined ? "does not exist (set ignoreMissingValueFiles to skip it)" : "is not a file" };
    }
    if (!files.includes(rel)) files.push(rel);
  }
  return { ok: true, files };
}

/** What the destination cluster reports, as Argo CD hands it to helm. */
export interface ClusterCapabilities {
  /** `GET /version`'s gitVersion, e.g. "v1.34.4". */
  kubeVersion?: string;
  /** Every served `group/version` and `group/version/Kind` (core: `v1`, `v1/Pod`), sorted. */
  apiVersions: string[];
}

/** Argo CD's APIResourcesToStrings with kinds: each group version, and each group version with its kind. */
export function apiVersionStrings(resources: Iterable<{ group: string; version: string; kind: string }>): string[] {
  const set = new Set<string>();
  for (const r of resources) {
    const gv = r.group ? `${r.group}/${r.version}` : r.version;
    set.add(gv);
    set.add(`${gv}/${r.kind}`);
  }
  return [...set].sort();
}

/** Argo CD parses the version generically (k8s.io/apimachinery ParseGeneric) and passes `vMAJOR.MINOR.PATCH`, dropping pre-release and build suffixes. */
export function helmKubeVersion(version: string | undefined): string | undefined {
  const m = version ? /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(version.trim()) : null;
  return m ? `v${m[1]}.${m[2]}.${m[3] ?? "0"}` : undefined;
}

export interface HelmTemplateInput {
  /** The chart as helm is given it: a folder relative to the working directory, or an archive path. */
  chart: string;
  /** The Application's name (Argo CD's default release name). */
  appName: string;
  /** Destination namespace. */
  namespace: string;
  options: ArgoHelmOptions;
  /** Value files already resolved (paths helm can open). */
  valueFiles: readonly string[];
  /** Where the inline values were written, when there are any. */
  inlineValuesFile?: string;
  /** File parameters already resolved inside the repository (`--set-file`). */
  setFiles?: ReadonlyArray<{ name: string; file: string }>;
  cluster: ClusterCapabilities;
}

/**
 * `helm template` arguments in Argo CD's order. File parameters arrive
 * resolved: the render passes only files inside the repository to `--set-file`.
 */
export function helmTemplateArgs(input: HelmTemplateInput): string[] {
  const o = input.options;
  const args = ["template", input.chart, "--name-template", o.releaseName || input.appName];
  const namespace = o.namespace || input.namespace;
  if (namespace) args.push("--namespace", namespace);
  const kubeVersion = helmKubeVersion(o.kubeVersion ?? input.cluster.kubeVersion);
  if (kubeVersion) args.push("--kube-version", kubeVersion);
  // Argo CD keeps parameters in maps: a later parameter of the same name wins.
  const set = new Map<string, string>();
  const setString = new Map<string, string>();
  for (const p of o.parameters ?? []) (p.forceString ? setString : set).set(p.name, p.value);
  for (const [k, v] of set) args.push("--set", `${k}=${cleanSetParameter(v)}`);
  for (const [k, v] of setString) args.push("--set-string", `${k}=${cleanSetParameter(v)}`);
  for (const f of input.setFiles ?? []) args.push("--set-file", `${f.name}=${cleanSetParameter(f.file)}`);
  for (const f of input.valueFiles) args.push("--values", f);
  if (input.inlineValuesFile) args.push("--values", input.inlineValuesFile);
  for (const v of o.apiVersions && o.apiVersions.length > 0 ? o.apiVersions : input.cluster.apiVersions) args.push("--api-versions", v);
  if (!o.skipCrds) args.push("--include-crds");
  if (o.skipSchemaValidation) args.push("--skip-schema-validation");
  if (o.skipTests) args.push("--skip-tests");
  return args;
}

/**
 * Objects Argo CD does not compare: Helm hooks (except the old `crd-install`,
 * which Argo CD applies as a resource) and its own hooks run at sync time
 * and are deleted by policy, so their absence is not drift.
 */
export function isArgoHook(object: Obj): boolean {
  const annotations = rec(rec(object.metadata)?.annotations) ?? {};
  if (typeof annotations["argocd.argoproj.io/hook"] === "string") return true;
  const helmHook = str(annotations["helm.sh/hook"]);
  if (!helmHook) return false;
  return helmHook.split(",").some((h) => h.trim() !== "crd-install");
}
