// Desired state: the manifests of an environment's path at a revision, read
// straight from the mirror's object database (no work tree over the mirror).
import { readBlobs } from "./blob-reader";
import { GitError, gitStderrSummary } from "./errors";
import { runGit } from "./exec";
import {
  deepFreeze,
  finaliseObjects,
  objectKey,
  objectsFromDocuments,
  parseManifestText,
  type RenderedObject,
  type RenderProblem,
} from "./manifests";
import { ParseCache, RenderCache, type CachedRender, type FileParse } from "./render-cache";
import { normalisePath, resolveCommit } from "./revisions";
import { apiGroup, isClusterScoped } from "./cluster-scoped";
import { controllerRenderKey, fluxCommonMetadata, planControllerRender, type ControllerRender } from "./controller-render";
import { hasSkipMarker } from "./argocd-directory";
import { argoSourceOverrideFiles } from "./argocd-source";
import { MAX_MANIFEST_BYTES, repoTree } from "./repo-tree";
import { renderKustomize, type RemoteBaseSource } from "./render-kustomize";
import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { ArgoChartReference, ClusterCapabilities } from "@/lib/helm/argocd-helm";
import { renderHelmSource, type FetchedChart, type HelmRenderSettings } from "@/lib/helm/render-helm";

export { MAX_MANIFEST_BYTES } from "./repo-tree";
export { RenderRefusedError, type RemoteBaseSource } from "./render-kustomize";

/** What a Helm source render needs besides the chart: the binary, the destination cluster's discovery, and how a repository chart is fetched. */
export interface HelmSourceContext {
  /** A path or a name on PATH (the caller passes HELM_BIN). */
  bin?: string;
  cluster: ClusterCapabilities;
  /** Fetches and verifies a chart from a configured repository (chart-fetch.ts); absent: repository charts are refused. */
  fetchChart?: (ref: ArgoChartReference) => Promise<FetchedChart>;
}

export interface RenderOptions {
  path: string;
  mode: "plain" | "kustomize" | "helm";
  defaultNamespace: string;
  /** kustomize or kubectl: a path or a name on PATH (the caller passes KUSTOMIZE_BIN). */
  kustomizeBin?: string;
  /** Plain mode: files larger than this are reported, not parsed (default MAX_MANIFEST_BYTES). */
  maxFileBytes?: number;
  /** Render as the environment's controller does (Flux Kustomization or Argo CD Application settings). */
  controller?: ControllerRender;
  /** Kustomize mode: the remote bases Driftwatch may fetch itself (the allowlist); none when absent. */
  remoteBases?: RemoteBaseSource;
  /** Helm sources (mode "helm", or an Argo CD Application with helm settings or a repository chart). */
  helm?: HelmSourceContext;
}

export interface RenderResult {
  /** Frozen: shared with the render cache. Copy an object before changing it. */
  objects: RenderedObject[];
  problems: RenderProblem[];
  /** Tree hash of the environment's path at the revision. */
  treeHash: string | null;
  cached: boolean;
  /**
   * Repository-relative files the render read, sorted: the manifest files
   * under the path (plain), or every kustomization, resource, patch and
   * generator file the build reaches (kustomize; files of remote bases are
   * not in this repository and not listed).
   */
  inputs: string[];
  /**
   * Allowlisted remote bases the build read (as the kustomizations name them),
   * and helmCharts fetched by a version range. Their refs (and ranges) may
   * move, so such a render is never reused for a later run.
   */
  remoteBases: string[];
  /**
   * Charts fetched from a Helm repository by an exact version (kustomize
   * helmCharts): pinned, so the same commit's render is reused, but not held
   * by the tree, so never carried to another commit.
   */
  fetchedCharts?: string[];
}

const fetchedOf = (r: { fetchedCharts?: readonly string[] }): { fetchedCharts?: string[] } => (r.fetchedCharts?.length ? { fetchedCharts: [...r.fetchedCharts] } : {});

const MANIFEST_FILE = /\.(ya?ml|json)$/i;

const cache = new RenderCache();
const inflight = new Map<string, Promise<CachedRender & { remoteBases?: string[] }>>();
const parses = new ParseCache();

/** Where a plain render's file parses are kept for the next render of the same path and options (any commit). */
function plainParseKey(mirrorPath: string, rel: string, opts: RenderOptions): string {
  return ["plain", mirrorPath, rel, opts.defaultNamespace, opts.maxFileBytes ?? "", controllerRenderKey(opts.controller)].join("\0");
}

/** For tests and for memory pressure. */
export function clearRenderCache(): void {
  cache.clear();
  parses.clear();
}

interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
  size: number;
  path: string;
}

/**
 * The commit `sha` names and the tree of `rel` in it, from one `git rev-parse`
 * (a process less on every render; a helm render is a few processes in all).
 * When either is missing, the separate lookups say which.
 */
/**
 * What a full commit id names never changes: its tree, and the tree of a path
 * in it. Every application of a repository asks these at the same commits in
 * every run, each a git process; remembered here (bounded), they are asked once.
 */
const FULL_SHA = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/;
const immutable = new LRUCache<string, { commit: string; pathHash: string } | string>({ max: 4096 });

async function commitAndPath(mirrorPath: string, sha: string, rel: string): Promise<{ commit: string; pathHash: string }> {
  if (!FULL_SHA.test(sha)) return lookupCommitAndPath(mirrorPath, sha, rel);
  const key = `path\0${mirrorPath}\0${sha}\0${rel}`;
  const hit = immutable.get(key);
  if (hit && typeof hit !== "string") return hit;
  const found = await lookupCommitAndPath(mirrorPath, sha, rel);
  immutable.set(key, found);
  return found;
}

/** The root tree of a commit given by its full id (null: not in the mirror). */
async function rootTreeOf(mirrorPath: string, commit: string): Promise<string | null> {
  const key = `tree\0${mirrorPath}\0${commit}`;
  const hit = immutable.get(key);
  if (typeof hit === "string") return hit;
  const tree = await revParse(mirrorPath, `${commit}^{tree}`);
  if (tree && FULL_SHA.test(commit)) immutable.set(key, tree);
  return tree;
}

/** The whole tree of a commit, listed once for every application rendered at it (a few commits kept: a tree can be large). */
const listedTrees = new LRUCache<string, Promise<Awaited<ReturnType<typeof repoTree>>>>({ max: 8 });
function listedTreeOf(mirrorPath: string, commit: string): ReturnType<typeof repoTree> {
  if (!FULL_SHA.test(commit)) return repoTree(mirrorPath, commit);
  const key = `${mirrorPath}\0${commit}`;
  let listed = listedTrees.get(key);
  if (!listed) {
    listed = repoTree(mirrorPath, commit);
    listedTrees.set(key, listed);
    listed.catch(() => listedTrees.delete(key));
  }
  return listed;
}

async function lookupCommitAndPath(mirrorPath: string, sha: string, rel: string): Promise<{ commit: string; pathHash: string }> {
  // Without --verify, git 2.39 echoes an --end-of-options back: a name that could be read as an option takes the separate lookups instead.
  const res = sha.startsWith("-") ? null : await runGit(mirrorPath, ["rev-parse", `${sha}^{commit}`, rel ? `${sha}^{commit}:${rel}` : `${sha}^{tree}`], { category: "render" });
  const [commit, pathHash] = res ? res.stdout.toString("utf8").trim().split("\n") : [];
  if (res?.code === 0 && commit && /^[0-9a-f]{40,64}$/.test(commit) && pathHash && /^[0-9a-f]{40,64}$/.test(pathHash)) return { commit, pathHash };
  const resolved = await resolveCommit(mirrorPath, sha);
  const tree = await revParse(mirrorPath, rel ? `${resolved}:${rel}` : `${resolved}^{tree}`);
  if (!tree) throw new GitError("render", `path "${rel}" does not exist at ${resolved.slice(0, 12)}`);
  return { commit: resolved, pathHash: tree };
}

async function revParse(mirrorPath: string, spec: string): Promise<string | null> {
  const res = await runGit(mirrorPath, ["rev-parse", "--verify", "--quiet", "--end-of-options", spec], { category: "render" });
  const out = res.stdout.toString("utf8").trim();
  return res.code === 0 && out ? out : null;
}

/** Every entry under `rel` at `commit`, recursively, with sizes. */
async function listTree(mirrorPath: string, commit: string, rel: string): Promise<TreeEntry[]> {
  const args = ["--literal-pathspecs", "ls-tree", "-r", "-z", "-l", commit];
  if (rel) args.push("--", rel);
  const res = await runGit(mirrorPath, args, { category: "render" });
  if (res.code !== 0) throw new GitError("render", `listing ${rel || "/"} at ${commit} failed: ${gitStderrSummary(res.stderr)}`);
  const entries: TreeEntry[] = [];
  for (const rec of res.stdout.toString("utf8").split("\0")) {
    const tab = rec.indexOf("\t");
    if (tab < 0) continue;
    const [mode, type, oid, size] = rec.slice(0, tab).split(/\s+/);
    if (!mode || !type || !oid) continue;
    entries.push({ mode, type, oid, size: Number(size) || 0, path: rec.slice(tab + 1) });
  }
  return entries;
}

/** The manifest files under the path; what is skipped and why goes to `problems`. */
function manifestFiles(entries: TreeEntry[], problems: RenderProblem[], maxBytes = MAX_MANIFEST_BYTES): TreeEntry[] {
  const files: TreeEntry[] = [];
  for (const e of entries) {
    if (!MANIFEST_FILE.test(e.path)) continue;
    if (e.type !== "blob") continue;
    if (e.mode === "120000") {
      problems.push({ path: e.path, severity: "warning", message: "symbolic link skipped: manifests are read from files only" });
      continue;
    }
    if (e.size > maxBytes) {
      const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
      problems.push({ path: e.path, severity: "error", message: `file is ${mb(e.size)}, over the ${mb(maxBytes)} limit; skipped` });
      continue;
    }
    files.push(e);
  }
  return files;
}

/** Which parse of a blob a file takes: JSON or YAML by its name (a rename can change it), and the reader the key fixed. */
function fileParseKey(file: TreeEntry): string {
  return `${file.oid}\0${/\.json$/i.test(file.path) ? "json" : "yaml"}`;
}

let filesParsed = 0;
let rendersRun = 0;

/** How many renders this process ran rather than found in its cache (tests: what a push re-rendered). */
export function rendersRunCount(): number {
  return rendersRun;
}

/** How many manifest files plain renders have parsed in this process (tests: what a render re-read). */
export function plainFilesParsed(): number {
  return filesParsed;
}

function parseFile(file: TreeEntry, content: Buffer, controller: ControllerRender | undefined): FileParse {
  filesParsed++;
  const text = content.toString("utf8");
  if (controller?.type === "argocd" && hasSkipMarker(text)) return { kind: "skip-marker" };
  // Flux reads these files through kustomize even without a build step here: kustomize's YAML rules.
  // Frozen: later renders of the same key reuse these documents, and finaliseObjects copies what it changes.
  return { kind: "parsed", result: deepFreeze(parseManifestText(file.path, text, controller?.type === "flux" ? "kustomize" : "kubectl")) };
}

/**
 * `parseKey`: the (mirror, path, options) a previous render's parses are kept
 * under; files whose blob that render parsed are not read again.
 */
async function renderPlain(
  mirrorPath: string,
  commit: string,
  rel: string,
  defaultNamespace: string,
  maxFileBytes: number | undefined,
  parseKey: string,
  controller?: ControllerRender,
  only?: readonly string[],
): Promise<CachedRender> {
  const problems: RenderProblem[] = [];
  let files = manifestFiles(await listTree(mirrorPath, commit, rel), problems, maxFileBytes);
  if (only) {
    const byPath = new Map(files.map((f) => [f.path, f]));
    files = only.flatMap((p) => {
      const file = byPath.get(p);
      if (!file && p.endsWith(".jsonnet")) problems.push({ path: p, severity: "warning", message: "Argo CD evaluates jsonnet; rendering never runs repository code, so this file's objects are not compared" });
      return file ?? [];
    });
  }
  const previous = parses.last(parseKey);
  const current = new Map<string, FileParse>();
  const unread = new Map<string, TreeEntry>();
  for (const file of files) {
    const key = fileParseKey(file);
    const known = previous?.get(key);
    if (known) current.set(key, known);
    else if (!unread.has(key)) unread.set(key, file);
  }
  const toRead = [...unread.values()];
  let i = 0;
  for await (const blob of readBlobs(mirrorPath, toRead.map((f) => f.oid))) {
    const file = toRead[i++]!;
    // A missing object is reported below and never remembered: a later fetch may bring it.
    if (blob.content) current.set(fileParseKey(file), parseFile(file, blob.content, controller));
  }

  const objects: RenderedObject[] = [];
  for (const file of files) {
    const parsed = current.get(fileParseKey(file));
    if (!parsed) {
      problems.push({ path: file.path, severity: "error", message: "object missing from the mirror; skipped" });
      continue;
    }
    if (parsed.kind === "skip-marker") continue;
    if (!parsed.result.ok) {
      problems.push({ path: file.path, line: parsed.result.line, severity: "error", message: `${parsed.result.message} (file skipped)` });
      continue;
    }
    for (const o of objectsFromDocuments(file.path, parsed.result.docs, problems)) objects.push(o);
  }
  parses.remember(parseKey, current);
  return { objects: finaliseObjects(fluxCommonMetadata(controller, objects), defaultNamespace, problems), problems, inputs: files.map((f) => f.path).sort() };
}

async function renderAsController(
  mirrorPath: string,
  commit: string,
  rel: string,
  opts: RenderOptions,
  controller: ControllerRender,
): Promise<CachedRender & { remoteBases: string[] }> {
  const listed = await listedTreeOf(mirrorPath, commit);
  const plan = await planControllerRender(controller, listed.paths, rel, opts.mode === "kustomize" ? "kustomize" : "plain", (file) => listed.read(file), commit);
  const result =
    plan.kind === "plain"
      ? { ...(await renderPlain(mirrorPath, commit, rel, opts.defaultNamespace, opts.maxFileBytes, plainParseKey(mirrorPath, rel, opts), controller, plan.files)), remoteBases: [] }
      : await renderKustomize(mirrorPath, commit, rel, opts.defaultNamespace, opts.kustomizeBin, opts.remoteBases, { controller, plan, listed }, opts.helm);
  // Argo CD's override files were read too (their options may name ${ARGOCD_APP_REVISION}): inputs, as what decides the output.
  const present = new Set(listed.paths);
  const overrides = controller.type === "argocd" ? argoSourceOverrideFiles(rel, controller.env?.appName).filter((f) => present.has(f)) : [];
  return overrides.length > 0 ? { ...result, inputs: [...new Set([...result.inputs, ...overrides])].sort() } : result;
}

/**
 * Renders the desired objects of `opts.path` at `sha`. A malformed file is a
 * problem of that file (path, line) and the others still render; a missing
 * path, a failing kustomize build or a missing binary is a GitError, because
 * then nothing trustworthy was rendered.
 */
export async function renderManifests(mirrorPath: string, sha: string, opts: RenderOptions): Promise<RenderResult> {
  const rel = normalisePath(opts.path);
  const { commit, pathHash } = await commitAndPath(mirrorPath, sha, rel);

  const helm = helmSettings(opts);
  if (helm) return renderHelm(mirrorPath, commit, rel, pathHash, opts, helm);

  let key: string;
  if (opts.mode === "plain") {
    key = ["plain", mirrorPath, pathHash, opts.defaultNamespace, opts.maxFileBytes ?? ""].join("\0");
  } else {
    // An overlay may use bases outside its path, so only the whole tree pins its output.
    const rootTree = await rootTreeOf(mirrorPath, commit);
    const allowlist = (opts.remoteBases?.repositories ?? []).map((r) => `${r.name}=${r.url}`).join(",");
    // helmCharts render with the helm binary and the cluster's capabilities; a repository chart's version may be a range.
    const helmKey = opts.helm ? createHash("sha256").update(JSON.stringify([opts.helm.bin ?? "", opts.helm.cluster, Boolean(opts.helm.fetchChart)])).digest("hex") : "";
    key = ["kustomize", mirrorPath, rootTree ?? commit, rel, opts.defaultNamespace, opts.kustomizeBin ?? "", allowlist, helmKey].join("\0");
  }
  if (opts.controller) {
    // The controller's settings change the output; a controller render may also read outside the path (components, nested folders).
    const rootTree = await rootTreeOf(mirrorPath, commit);
    // Argo CD's ${ARGOCD_APP_REVISION} in a kustomize option makes the commit itself, not only its tree, an input.
    const revisionInput = opts.controller.type === "argocd" && JSON.stringify(opts.controller.kustomize ?? {}).includes("$") ? commit : "";
    key = [key, rootTree ?? commit, opts.kustomizeBin ?? "", controllerRenderKey(opts.controller), revisionInput].join("\0");
  }

  const hit = cache.get(key);
  if (hit) return { objects: [...hit.objects], problems: [...hit.problems], inputs: [...hit.inputs], remoteBases: [], ...fetchedOf(hit), treeHash: pathHash, cached: true };

  let pending: Promise<CachedRender & { remoteBases?: string[] }> | undefined = inflight.get(key);
  if (!pending) {
    pending = (async () => {
      rendersRun++;
      const { remoteBases, ...result } = opts.controller
        ? await renderAsController(mirrorPath, commit, rel, opts, opts.controller)
        : opts.mode === "plain"
          ? { ...(await renderPlain(mirrorPath, commit, rel, opts.defaultNamespace, opts.maxFileBytes, plainParseKey(mirrorPath, rel, opts))), remoteBases: [] }
          : await renderKustomize(mirrorPath, commit, rel, opts.defaultNamespace, opts.kustomizeBin, opts.remoteBases, undefined, opts.helm);
      const frozen = deepFreeze(result);
      // A remote base is pinned by a ref that may move (a branch): only this commit's own tree is known not to.
      if (remoteBases.length === 0) cache.set(key, frozen);
      return { ...frozen, remoteBases };
    })();
    inflight.set(key, pending);
    pending.finally(() => inflight.delete(key)).catch(() => undefined);
  }
  const result = await pending;
  return { objects: [...result.objects], problems: [...result.problems], inputs: [...result.inputs], remoteBases: [...(result.remoteBases ?? [])], ...fetchedOf(result), treeHash: pathHash, cached: false };
}

/** Argo CD renders a source with Helm when it is a chart folder (render: helm), has helm settings, or names a repository chart. */
function helmSettings(opts: RenderOptions): Omit<HelmRenderSettings, "chart" | "cluster"> | null {
  const c = opts.controller?.type === "argocd" ? opts.controller : undefined;
  if (opts.mode !== "helm" && !c?.helm && !c?.chart) return null;
  const appName = c?.env?.appName ?? c?.helm?.releaseName;
  if (!appName) throw new GitError("render", "a Helm source needs its Application's name (the release name): set controller (type argocd) or source.argocd.helm.releaseName");
  return { appName, namespace: c?.env?.appNamespace || opts.defaultNamespace, options: c?.helm ?? {} };
}

async function renderHelm(mirrorPath: string, commit: string, rel: string, pathHash: string, opts: RenderOptions, base: Omit<HelmRenderSettings, "chart" | "cluster">): Promise<RenderResult> {
  const c = opts.controller?.type === "argocd" ? opts.controller : undefined;
  const cluster = opts.helm?.cluster ?? { apiVersions: [] };
  let chart: FetchedChart | undefined;
  if (c?.chart) {
    if (!opts.helm?.fetchChart) throw new GitError("render", `chart "${c.chart.chart}" from ${c.chart.repoURL} cannot be fetched: no helmRepositories are configured`);
    chart = await opts.helm.fetchChart(c.chart);
  }
  const settings: HelmRenderSettings = { ...base, cluster, chart };
  // The discovery list is long; its digest pins the key as well. The commit (not its tree) keys the chart:
  // one git call less on a path where helm itself is the only other cost.
  const clusterKey = createHash("sha256").update(JSON.stringify(cluster)).digest("hex");
  const key = ["helm", mirrorPath, chart ? "" : commit, rel, opts.defaultNamespace, opts.helm?.bin ?? "", controllerRenderKey(opts.controller), JSON.stringify(base), clusterKey, chart?.digest ?? ""].join("\0");
  const hit = cache.get(key);
  if (hit) return { objects: [...hit.objects], problems: [...hit.problems], inputs: [...hit.inputs], remoteBases: [], ...fetchedOf(hit), treeHash: pathHash, cached: true };
  let pending = inflight.get(key);
  if (!pending) {
    rendersRun++;
    pending = renderHelmSource(mirrorPath, commit, rel, settings, opts.helm?.bin).then((r) => {
      const frozen = deepFreeze(r);
      cache.set(key, frozen);
      return { ...frozen, remoteBases: [] };
    });
    inflight.set(key, pending);
    pending.finally(() => inflight.delete(key)).catch(() => undefined);
  }
  const result = await pending;
  return { objects: [...result.objects], problems: [...result.problems], inputs: [...result.inputs], remoteBases: [], treeHash: pathHash, cached: false };
}

export interface ObjectSource {
  /** Repository-relative file. */
  file: string;
  /** The whole file's text. */
  text: string;
  /** Which YAML document of the file holds the object (for a `*List`, the list's document). */
  documentIndex: number;
  /** Character offsets of that document in `text`. */
  range: [number, number];
}

/**
 * Which file under `path` at `sha` defines an object (for "adopt": writing a
 * live change back into Git). A definition with the key's namespace is
 * preferred over one that has none (and would get the default).
 */
export async function findObjectSource(
  mirrorPath: string,
  sha: string,
  path: string,
  key: { apiVersion: string; kind: string; namespace?: string; name: string },
): Promise<ObjectSource | null> {
  const commit = await resolveCommit(mirrorPath, sha);
  const rel = normalisePath(path);
  const files = manifestFiles(await listTree(mirrorPath, commit, rel), []);
  const group = apiGroup(key.apiVersion);
  const clusterScoped = isClusterScoped(key.apiVersion, key.kind);
  let fallback: ObjectSource | null = null;

  const matches = (o: unknown): "exact" | "no-namespace" | null => {
    if (typeof o !== "object" || o === null) return null;
    const r = o as Record<string, unknown>;
    const meta = (typeof r.metadata === "object" && r.metadata !== null ? r.metadata : {}) as Record<string, unknown>;
    if (r.kind !== key.kind || meta.name !== key.name || apiGroup(String(r.apiVersion ?? "")) !== group) return null;
    if (clusterScoped || key.namespace === undefined) return "exact";
    if (meta.namespace === key.namespace) return "exact";
    return meta.namespace === undefined || meta.namespace === "" ? "no-namespace" : null;
  };

  let i = 0;
  for await (const blob of readBlobs(mirrorPath, files.map((f) => f.oid))) {
    const file = files[i++]!;
    if (!blob.content) continue;
    const text = blob.content.toString("utf8");
    const parsed = parseManifestText(file.path, text);
    if (!parsed.ok) continue;
    for (const doc of parsed.docs) {
      const v = doc.value as Record<string, unknown> | null;
      const candidates = v && Array.isArray(v.items) && String(v.kind ?? "").endsWith("List") ? v.items : [v];
      for (const c of candidates) {
        const m = matches(c);
        if (!m) continue;
        const found: ObjectSource = { file: file.path, text, documentIndex: doc.index, range: doc.range };
        if (m === "exact") return found;
        fallback ??= found;
      }
    }
  }
  return fallback;
}

export { objectKey };
