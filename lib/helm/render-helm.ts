// Rendering an Argo CD Helm source: the chart folder of a commit (or a chart
// archive Driftwatch fetched and verified itself) through `helm template`
// with the arguments Argo CD's repo server would pass, in the renderer
// sandbox. Everything the chart may read is checked first: value and file
// parameters inside the repository, dependencies vendored in charts/.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { argoSourceOverrideFiles, mergeArgoSourceOverrides } from "@/lib/git/argocd-source";
import { RenderFileError } from "@/lib/git/controller-render";
import { GitError } from "@/lib/git/errors";
import { runRenderer } from "@/lib/git/kustomize";
import type { Refusal } from "@/lib/git/kustomize-inputs";
import { finaliseObjects, objectsFromDocuments, parseManifestText, type RenderedObject, type RenderProblem } from "@/lib/git/manifests";
import type { CachedRender } from "@/lib/git/render-cache";
import { RenderRefusedError } from "@/lib/git/render-kustomize";
import { materialiseFiles, repoTree, type ListedTree } from "@/lib/git/repo-tree";
import { rec, str, type Obj } from "@/lib/git/shape";
import { helmTemplateArgs, inlineValuesYaml, isArgoHook, REF_VALUES_DIR, resolveInRepository, resolveValueFiles, type ArgoHelmOptions, type ClusterCapabilities, type RepositoryNode } from "./argocd-helm";
import { unpackChart } from "./chart-archive";
import { findHelm, helmEnv } from "./helm-binary";

/** A chart archive Driftwatch fetched from a configured repository and verified by digest (chart-fetch.ts). */
export interface FetchedChart {
  /** Local path of the verified `.tgz`. */
  file: string;
  /** `sha256:…` of the archive. */
  digest: string;
  name: string;
  version: string;
  /** The index entry's `created` (RFC 3339), when the repository gives it; an OCI registry does not. */
  created?: string;
}

export interface HelmRenderSettings {
  /** The Application's name: Argo CD's release name unless `releaseName` is set. */
  appName: string;
  /** The destination namespace. */
  namespace: string;
  options: ArgoHelmOptions;
  cluster: ClusterCapabilities;
  /** Set for a chart from a Helm repository or OCI registry; the Git path is then not read. */
  chart?: FetchedChart;
  /** The text of each `$<ref>/<path>` value file (a multi-source application's `ref:` sources), by its valueFiles entry. */
  refFiles?: Record<string, string>;
}

/** Writes the `$ref` value files beside the chart (under REF_VALUES_DIR) and says where each entry is, relative to `root`. */
async function placeRefFiles(refFiles: Record<string, string> | undefined, root: string): Promise<Map<string, string>> {
  const placed = new Map<string, string>();
  for (const [i, [entry, text]] of Object.entries(refFiles ?? {}).entries()) {
    const rel = `${REF_VALUES_DIR}/${i}.yaml`;
    await mkdir(path.join(root, REF_VALUES_DIR), { recursive: true });
    await writeFile(path.join(root, rel), text);
    placed.set(entry, rel);
  }
  return placed;
}

interface ChartDependency {
  name: string;
  repository: string;
}

function dependenciesOf(chartYaml: string, requirementsYaml: string | null): ChartDependency[] {
  const fromDoc = (text: string | null): ChartDependency[] => {
    if (!text) return [];
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch {
      return [];
    }
    const deps = rec(doc)?.dependencies;
    return Array.isArray(deps) ? deps.flatMap((d) => (str(rec(d)?.name) ? [{ name: str(rec(d)?.name)!, repository: str(rec(d)?.repository) ?? "" }] : [])) : [];
  };
  // apiVersion v1 charts declare them in requirements.yaml.
  return [...fromDoc(chartYaml), ...fromDoc(requirementsYaml)];
}

/**
 * What `helm template` of the chart folder would read that is not the
 * chart's own files: dependencies must already be in charts/ (Argo CD would
 * run `helm dependency build` and download them; Driftwatch does not).
 * `read` gives a file of the chart as checked out.
 */
async function dependencyRefusals(tree: ListedTree, chartDir: string, read: (file: string) => Promise<string>): Promise<Refusal[]> {
  const prefix = chartDir ? `${chartDir}/` : "";
  const chartYamlPath = `${prefix}Chart.yaml`;
  const requirements = tree.node(`${prefix}requirements.yaml`)?.type === "file" ? await read(`${prefix}requirements.yaml`) : null;
  const refusals: Refusal[] = [];
  for (const dep of dependenciesOf(await read(chartYamlPath), requirements)) {
    const vendored = tree.node(`${prefix}charts/${dep.name}/Chart.yaml`)?.type === "file" || tree.paths.some((f) => f.startsWith(`${prefix}charts/${dep.name}-`) && f.endsWith(".tgz"));
    if (!vendored) {
      refusals.push({
        file: chartYamlPath,
        reference: `${dep.name} (${dep.repository || "no repository"})`,
        reason: "the dependency is not vendored in charts/; Driftwatch renders offline and does not run `helm dependency build` (commit the dependency, e.g. `helm dependency build`, to the chart's charts/ folder)",
      });
    }
  }
  return refusals;
}

/**
 * `# Source: chart/templates/x.yaml` (helm's comment before each document)
 * as a repository path; the output itself otherwise.
 */
function sourceOfDocument(text: string, chartDir: string, fallback: string): string {
  const m = /^# Source: ([^\n]+)$/m.exec(text);
  if (!m) return fallback;
  const inChart = m[1]!.trim().split("/").slice(1).join("/");
  return chartDir ? `${chartDir}/${inChart}` : inChart;
}

function objectsOfOutput(output: string, chartDir: string, fallback: string, problems: RenderProblem[]): RenderedObject[] {
  const parsed = parseManifestText("helm-template-output.yaml", output);
  if (!parsed.ok) throw new GitError("render", `helm template output could not be read: ${parsed.message}`);
  const objects: RenderedObject[] = [];
  for (const doc of parsed.docs) {
    const source = sourceOfDocument(output.slice(doc.range[0], doc.range[1]), chartDir, fallback);
    for (const o of objectsFromDocuments(source, [doc], problems)) if (!isArgoHook(o.object as Obj)) objects.push(o);
  }
  return objects;
}

/**
 * The value and file-parameter files of a chart archive, unpacked (plain
 * files only) under `into`: resolved as in a Git chart folder, the archive
 * standing for the repository.
 */
async function archiveValueFiles(chart: FetchedChart, o: ArgoHelmOptions, into: string, refFiles: Record<string, string> | undefined): Promise<{ valueFiles: string[]; setFiles: Array<{ name: string; file: string }> }> {
  const files = new Set(await unpackChart(chart.file, chart.name, into));
  const node = (f: string): RepositoryNode => (files.has(f) ? { type: "file" } : undefined);
  const where = `${chart.name}-${chart.version}.tgz`;
  const refusals: Refusal[] = [];
  const resolved = resolveValueFiles(chart.name, o.valueFiles ?? [], o.ignoreMissingValueFiles === true, node, await placeRefFiles(refFiles, into));
  if (!resolved.ok) refusals.push({ file: where, reference: `valueFiles: ${resolved.file}`, reason: resolved.reason });
  const setFiles: Array<{ name: string; file: string }> = [];
  for (const p of o.fileParameters ?? []) {
    const rel = resolveInRepository(chart.name, p.path);
    if (rel === null || !files.has(rel)) refusals.push({ file: where, reference: `fileParameters: ${p.name}=${p.path}`, reason: rel === null ? "leaves the chart" : "is not a file of the chart" });
    else setFiles.push({ name: p.name, file: path.join(into, rel) });
  }
  if (refusals.length > 0) throw new RenderRefusedError(refusals, [...files]);
  return { valueFiles: resolved.ok ? resolved.files.map((f) => path.join(into, f)) : [], setFiles };
}

/**
 * Renders the chart at `chartDir` of `commit` (or `settings.chart`, a
 * fetched archive) as Argo CD would. Refusals (a values file outside the
 * repository, through a link, a linked chart file, a dependency not
 * vendored) come before helm runs. Only the files helm may read are written
 * out: the chart folder, then the value and file-parameter files.
 */
export async function renderHelmSource(mirrorPath: string, commit: string, chartDir: string, settings: HelmRenderSettings, helmBin: string | undefined): Promise<CachedRender> {
  const bin = findHelm(helmBin);
  const fromArchive = settings.chart;
  const tree = fromArchive ? undefined : await repoTree(mirrorPath, commit);
  const chartYaml = chartDir ? `${chartDir}/Chart.yaml` : "Chart.yaml";
  if (tree && tree.node(chartYaml)?.type !== "file") throw new GitError("render", `no Chart.yaml in "${chartDir || "/"}" at ${commit.slice(0, 12)}: a Helm source is a chart folder`);
  const chartFiles = tree ? tree.paths.filter((p) => p.startsWith(chartDir ? `${chartDir}/` : "")) : [];
  const links = chartFiles.filter((f) => tree!.node(f)?.type === "link");
  if (links.length > 0) throw new RenderRefusedError(links.map((f) => ({ file: f, reference: f, reason: "a symbolic link in a chart is refused: a chart is read from files only" })), chartFiles);

  const dir = await mkdtemp(path.join(os.tmpdir(), "driftwatch-helm-"));
  try {
    const home = path.join(dir, "home");
    const root = path.join(dir, "tree");
    await mkdir(path.join(home, ".helm", "plugins"), { recursive: true });
    let o = settings.options;
    let valueFiles: string[] = [];
    let setFiles: Array<{ name: string; file: string }> = [];
    let inputs: string[] = [];
    if (tree) {
      await materialiseFiles(mirrorPath, tree, chartFiles, root);
      const read = (file: string) => readFile(path.join(root, file), "utf8");
      const node = (f: string): RepositoryNode => tree.node(f);
      // Argo CD merges the folder's .argocd-source files (Image Updater writes helm parameters there) over the Application's.
      const overrides = argoSourceOverrideFiles(chartDir, settings.appName).filter((f) => node(f)?.type === "file");
      if (overrides.length > 0) {
        const merged = mergeArgoSourceOverrides({ helm: o }, await Promise.all(overrides.map(async (file) => ({ file, text: await read(file) }))));
        if (!merged.ok) throw new RenderFileError(merged.file, merged.message);
        o = merged.options.helm ?? {};
      }
      const refusals = await dependencyRefusals(tree, chartDir, read);
      const refs = await placeRefFiles(settings.refFiles, root);
      const resolved = resolveValueFiles(chartDir, o.valueFiles ?? [], o.ignoreMissingValueFiles === true, node, refs);
      if (resolved.ok) valueFiles = resolved.files;
      else refusals.push({ file: chartYaml, reference: `valueFiles: ${resolved.file}`, reason: resolved.reason });
      for (const p of o.fileParameters ?? []) {
        const rel = resolveInRepository(chartDir, p.path);
        const kind = rel === null ? undefined : node(rel)?.type;
        if (rel === null || kind !== "file") {
          refusals.push({ file: chartYaml, reference: `fileParameters: ${p.name}=${p.path}`, reason: rel === null ? "leaves the repository" : kind === "link" ? "is a symbolic link" : "is not a file of the repository" });
        } else setFiles.push({ name: p.name, file: rel });
      }
      if (refusals.length > 0) throw new RenderRefusedError(refusals, chartFiles);
      const inChart = new Set(chartFiles);
      const placed = new Set(refs.values());
      const outside = [...new Set([...valueFiles, ...setFiles.map((f) => f.file)])].filter((f) => !inChart.has(f) && !placed.has(f));
      if (outside.length > 0) await materialiseFiles(mirrorPath, tree, outside, root);
      inputs = [...chartFiles, ...outside].sort();
      valueFiles = valueFiles.map((f) => path.join(root, f));
      setFiles = setFiles.map((f) => ({ ...f, file: path.join(root, f.file) }));
    }
    if (fromArchive && ((o.valueFiles ?? []).length > 0 || (o.fileParameters ?? []).length > 0)) {
      // A repository chart's value files are files of its archive, relative to the chart folder as Argo CD unpacks it.
      ({ valueFiles, setFiles } = await archiveValueFiles(fromArchive, o, path.join(dir, "chart"), settings.refFiles));
    }
    const inline = inlineValuesYaml(o);
    const inlineValuesFile = inline === undefined ? undefined : path.join(dir, "inline-values.yaml");
    if (inlineValuesFile) await writeFile(inlineValuesFile, inline!);
    const args = helmTemplateArgs({ chart: fromArchive ? fromArchive.file : ".", appName: settings.appName, namespace: settings.namespace, options: o, valueFiles, inlineValuesFile, cluster: settings.cluster, setFiles });
    const cwd = fromArchive ? dir : path.join(root, chartDir);
    const output = await runRenderer(bin, args, { cwd, root: fromArchive ? dir : root, env: helmEnv(home), timeoutMs: 120_000, what: "helm template" }).catch((e: unknown) => {
      if (e instanceof GitError) throw new GitError("render", e.message.split(dir).join(""));
      throw e;
    });
    const problems: RenderProblem[] = [];
    const fallback = fromArchive ? `${fromArchive.name}-${fromArchive.version}.tgz` : chartYaml;
    const objects = objectsOfOutput(output, fromArchive ? "" : chartDir, fallback, problems);
    return { objects: finaliseObjects(objects, o.namespace || settings.namespace, problems), problems, inputs };
  } finally {
    // Nothing reads the folder any more: the render does not wait for its removal.
    rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
