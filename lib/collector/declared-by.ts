// Where an application's controller object is declared in Git, when another
// application of the environment applies it (Argo CD app-of-apps, a Flux
// Kustomization applying child Kustomizations). The controllers see that
// manifest as the child's input: a commit to it changes what the child renders
// (its images, Helm parameters, postBuild variables, patches) although it
// touches nothing under the child's own path.
import { posix } from "node:path";
import { parseAllDocuments } from "yaml";
import type { ControllerRef } from "@/lib/applications/spec";
import { objectKey, type KubeObject } from "@/lib/drift";
import { controllerRenderKey, firstParentHistory, renderManifests, type RenderOptions } from "@/lib/git";
import { readBlobs } from "@/lib/git/blob-reader";
import { repoTree } from "@/lib/git/repo-tree";
import { canonicalJson } from "./canonical";
import type { DesiredEntry } from "./persist";
import { memoGit, memoRenderRevisions } from "./run-memo";

type Obj = Record<string, unknown>;

const CONTROLLER_GROUPS: Record<ControllerRef["kind"], string> = {
  Application: "argoproj.io",
  Kustomization: "kustomize.toolkit.fluxcd.io",
  HelmRelease: "helm.toolkit.fluxcd.io",
};

/** A controller object by kind and name. */
export type ControllerObjectRef = Pick<ControllerRef, "kind" | "namespace" | "name">;

/** The drift key of a controller object (the key its manifest has among a parent's desired objects). */
export function controllerObjectKey(ref: ControllerObjectRef): string {
  return `${CONTROLLER_GROUPS[ref.kind]}/${ref.kind}/${ref.namespace}/${ref.name}`;
}

/** What the search needs of one collected application. */
export interface DeclaringCandidate {
  id: string;
  controller: ControllerObjectRef | undefined;
  /** Its Git mirror and followed ref; a chart from a Helm repository has no mirror. */
  mirrorPath: string;
  branch: string;
  /** A single Git source rendered here (not multi-source, not a HelmRelease's release): only then is a file of it a commit's file. */
  singleGitSource: boolean;
  desired: ReadonlyMap<string, DesiredEntry>;
  /** The files its render read at the branch tip (a kustomize build's), else empty. */
  renderInputs: readonly string[];
}

/**
 * The application of `candidates` whose render declares `child`'s controller
 * object, and the file it is declared in. Only a parent following the same
 * repository and ref counts: its commits are the child's commits, so the
 * file's history is the child's history. A controller object in the cluster
 * but no parent's Git (applied by hand, bootstrapped) is declared nowhere.
 */
export function declaringParent<T extends DeclaringCandidate>(child: DeclaringCandidate, candidates: readonly T[]): { parent: T; path: string; key: string } | null {
  if (!child.controller || !child.singleGitSource || !child.mirrorPath) return null;
  const key = controllerObjectKey(child.controller);
  for (const parent of candidates) {
    if (parent.id === child.id || !parent.singleGitSource || parent.mirrorPath !== child.mirrorPath || parent.branch !== child.branch) continue;
    const path = parent.desired.get(key)?.sourcePath;
    if (path) return { parent, path, key };
  }
  return null;
}

const KUSTOMIZATION_FILES = new Set(["kustomization.yaml", "kustomization.yml", "Kustomization"]);

/** Where a YAML document did not parse. */
const UNREADABLE = Symbol("unreadable");

/** A YAML text's documents as objects, parsed once for every object looked up in it. */
export interface ParsedYaml {
  documents: readonly unknown[];
}

export function parseYaml(text: string): ParsedYaml {
  return { documents: parseAllDocuments(text).map((doc) => (doc.errors.length === 0 ? (doc.toJS() as unknown) : UNREADABLE)) };
}

/**
 * The document of a YAML text that is the object of `key` (one without a
 * namespace counts: its render gives it one), else null. Compared between
 * commits, it says whether a commit to a file declaring several objects
 * changed this one.
 */
export function declaredDocument(text: string | ParsedYaml, key: string): unknown {
  const parsed = typeof text === "string" ? parseYaml(text) : text;
  const [group, kind, namespace, name] = key.split("/");
  let unreadable = false;
  for (const doc of parsed.documents) {
    if (doc === UNREADABLE) unreadable = true;
    const o = (doc === UNREADABLE ? null : doc) as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } } | null;
    const m = o?.metadata;
    if (!o || typeof o !== "object" || !m || typeof o.apiVersion !== "string" || o.kind !== kind || m.name !== name) continue;
    if ((o.apiVersion.includes("/") ? o.apiVersion.split("/")[0] : "") !== group) continue;
    if (m.namespace === undefined || m.namespace === namespace) return o;
  }
  // Not found in a file that does not parse: unknown (undefined), not absent (null).
  return unreadable ? undefined : null;
}

/**
 * Spec fields of a controller object that steer reconciliation only — when, whether, how patiently — and
 * change nothing it renders. A commit that only turns a child's automated sync off, suspends it or changes its
 * interval is taken up by the controller at once: the child has nothing to catch up on, and is not stale for it.
 */
const RECONCILE_ONLY: Readonly<Record<string, readonly string[]>> = {
  // syncPolicy's syncOptions and managedNamespaceMetadata change what is applied: only automation and retries are left out.
  Application: ["syncPolicy.automated", "syncPolicy.retry", "info", "revisionHistoryLimit", "ignoreDifferences", "project"],
  Kustomization: ["suspend", "interval", "retryInterval", "timeout", "prune", "wait", "force", "healthChecks", "healthCheckExprs", "dependsOn", "deletionPolicy"],
  // install/upgrade stay: their CRD policy and createNamespace change what is applied.
  HelmRelease: ["suspend", "interval", "timeout", "test", "rollback", "uninstall", "dependsOn", "driftDetection", "maxHistory", "persistentClient"],
};

/** What of a declared controller object (declaredDocument) its application renders from: its spec, less RECONCILE_ONLY. */
export function renderedPart(document: unknown): unknown {
  if (!document || typeof document !== "object") return document;
  const { kind, spec } = document as { kind?: unknown; spec?: unknown };
  if (!spec || typeof spec !== "object") return { spec };
  const copy = structuredClone(spec) as Record<string, unknown>;
  for (const path of RECONCILE_ONLY[String(kind)] ?? []) {
    const [field, inner] = path.split(".") as [string, string | undefined];
    const value = copy[field];
    if (inner === undefined) delete copy[field];
    else if (value && typeof value === "object") {
      delete (value as Record<string, unknown>)[inner];
      // `syncPolicy: {automated: …}` and no syncPolicy at all render the same.
      if (Object.keys(value).length === 0) delete copy[field];
    }
  }
  return { spec: copy };
}

/**
 * Of the commits touching a file, newest first, with the object's document
 * in the file after each — and `before`, the document as it was before the
 * oldest of them (null: no such file, or no such object, then): the commits
 * that changed the document, newest first (between two commits touching the
 * file it stays as the older left it). None when none of those read changed
 * it: a neighbour's commits to a shared file are not the object's, however
 * many. Documents are compared canonically (reordered keys are no change).
 */
export function changesOf(touching: ReadonlyArray<{ sha: string; document: unknown }>, before: unknown): string[] {
  return touching
    .filter((c, i) => canonicalJson(c.document ?? null) !== canonicalJson((i + 1 < touching.length ? touching[i + 1]!.document : before) ?? null))
    .map((c) => c.sha);
}

/** A kustomize target: what a patch is aimed at. */
type PatchTarget = { group?: unknown; kind?: unknown; name?: unknown; namespace?: unknown; labelSelector?: unknown; annotationSelector?: unknown };

/**
 * One kustomize patch of a parent, and what it is aimed at (its kustomization's `target`, when it gives one).
 * `path` is the patch file, or, for a patch written inline, the kustomization holding it, with its text.
 */
interface PatchEntry {
  path: string;
  target?: PatchTarget;
  inline?: ParsedYaml;
}

/**
 * The patches a kustomization names (`patches`, `patchesStrategicMerge`,
 * `patchesJson6902`): a file as a repository path (kustomize resolves it from
 * the kustomization's folder), or the patch text written inline.
 */
export function kustomizationPatches(file: string, kustomization: ParsedYaml): PatchEntry[] {
  const k = kustomization.documents[0] as { patches?: unknown; patchesStrategicMerge?: unknown; patchesJson6902?: unknown } | null | undefined;
  if (!k || typeof k !== "object") return [];
  const dir = posix.dirname(file);
  const at = (p: unknown) => (typeof p === "string" && p.length > 0 && !p.includes("\n") ? posix.normalize(posix.join(dir, p)) : null);
  const entries: PatchEntry[] = [];
  for (const list of [k.patches, k.patchesJson6902]) {
    if (!Array.isArray(list)) continue;
    for (const e of list as Array<{ path?: unknown; patch?: unknown; target?: PatchTarget } | null>) {
      const target = e?.target && typeof e.target === "object" ? { target: e.target } : {};
      const path = at(e?.path);
      if (path) entries.push({ path, ...target });
      else if (typeof e?.patch === "string") entries.push({ path: file, inline: parseYaml(e.patch), ...target });
    }
  }
  if (Array.isArray(k.patchesStrategicMerge)) {
    for (const p of k.patchesStrategicMerge) {
      // An entry is a file name, or the patch itself (a YAML text of several lines).
      if (at(p)) entries.push({ path: at(p)! });
      else if (typeof p === "string") entries.push({ path: file, inline: parseYaml(p) });
    }
  }
  return entries;
}

/** The labels and annotations of a declared controller object, which a target's selectors are matched against. */
export interface SelectableMeta {
  labels: Readonly<Record<string, unknown>>;
  annotations: Readonly<Record<string, unknown>>;
}

/**
 * Whether a Kubernetes selector (`k=v,k2==v2`, `k!=v`, `k`, `!k`) selects an object of `values`. A selector
 * not read here (set-based, `k in (a,b)`; anything unparsable) is taken as selecting it, to be safe: a patch
 * wrongly taken for the child's makes it stale for a commit it could have ignored, one wrongly left out would
 * hide its pending rollout.
 */
export function selects(selector: unknown, values: Readonly<Record<string, unknown>>): boolean {
  if (selector === undefined || selector === null || selector === "") return true;
  if (typeof selector !== "string" || /[()]/.test(selector)) return true;
  const has = (k: string) => Object.prototype.hasOwnProperty.call(values, k);
  const value = (k: string) => (has(k) ? String(values[k]) : undefined);
  return selector.split(",").every((raw) => {
    const term = raw.trim();
    const m = /^([^!=\s]+)\s*(!=|==|=)\s*([^!=\s]*)$/.exec(term);
    if (m) return m[2] === "!=" ? value(m[1]!) !== m[3] : value(m[1]!) === m[3];
    if (/^![^!=\s]+$/.test(term)) return !has(term.slice(1));
    if (/^[^!=\s]+$/.test(term)) return has(term);
    return true;
  });
}

/**
 * Whether a patch's kustomize target selects the object of `key` (a target's name is a regular expression),
 * its selectors matched against `meta`, the labels and annotations declared on the object (unknown: they match).
 */
function targets(target: PatchTarget, key: string, meta: SelectableMeta | undefined): boolean {
  const [group, kind, namespace, name] = key.split("/");
  const is = (pattern: unknown, value: string | undefined) => {
    if (pattern === undefined || pattern === null || pattern === "") return true;
    if (typeof pattern !== "string") return false;
    try {
      return new RegExp(`^(?:${pattern})$`).test(value ?? "");
    } catch {
      return pattern === value;
    }
  };
  const given = (v: unknown) => v !== undefined && v !== null && v !== "";
  // A target naming nothing to select by (only a group or a namespace) is taken for none.
  if (![target.kind, target.name, target.labelSelector, target.annotationSelector].some(given)) return false;
  const selected = !meta || (selects(target.labelSelector, meta.labels) && selects(target.annotationSelector, meta.annotations));
  return selected && is(target.group, group) && is(target.kind, kind) && is(target.name, name) && is(target.namespace, namespace);
}

const isControllerKey = (key: string) => Object.entries(CONTROLLER_GROUPS).some(([kind, group]) => key.startsWith(`${group}/${kind}/`));

/** Where a parent's render declares one child's controller object. */
export interface DeclarationFiles {
  /** The file listing it as a resource. */
  path: string;
  /** Kustomize patches of the parent aimed at it: a commit to one changes the child's spec as the parent applies it. */
  patches: readonly DeclarationPatch[];
  /** Every file of the parent declaring or patching a controller object: their histories are read at once, for all its children. */
  siblings: readonly string[];
  /** The labels and annotations it is declared with at the tip, which patch targets select by; unknown when not found. */
  meta?: SelectableMeta;
}

export interface DeclarationPatch {
  /** The patch file, or the kustomization holding inline patches. */
  path: string;
  /**
   * How it is aimed at the child: by its kustomization's target (a JSON 6902 patch, or a strategic merge one
   * renamed to the target); by the child's document in it (strategic merge); or patches written inline in the
   * kustomization at `path`, each aimed either way.
   */
  aim: "target" | "document" | "inline";
}

/** What a parent's kustomize build read at a tip, read once for all its children: the resources declaring controller objects, and the patches. */
interface ParentFiles {
  /** `group/kind/name` of each controller object declared as a resource → each file declaring it, in build order, with the namespace it gives. */
  declared: Map<string, Array<{ namespace: unknown; file: string; meta: SelectableMeta }>>;
  patches: PatchEntry[];
  patchTexts: Map<string, ParsedYaml>;
  siblings: string[];
}

/** Whether a patch may be aimed at some controller object: a target of a controller kind or of any kind, an inline patch naming one. */
function mayPatchController(p: PatchEntry): boolean {
  if (p.target) return p.target.kind === undefined || p.target.kind === null || Object.keys(CONTROLLER_GROUPS).includes(String(p.target.kind));
  return Boolean(p.inline?.documents.some((d) => Object.keys(CONTROLLER_GROUPS).includes(String((d as { kind?: unknown } | null)?.kind))));
}

const recordOf = (v: unknown): Record<string, unknown> => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

async function parentFiles(mirrorPath: string, tip: string, inputs: readonly string[]): Promise<ParentFiles> {
  const tree = await repoTree(mirrorPath, tip);
  const files = inputs.filter((f) => (/\.ya?ml$/.test(f) || KUSTOMIZATION_FILES.has(posix.basename(f))) && tree.node(f)?.type === "file");
  const oids = files.map((f) => tree.oid(f)!);
  const texts = new Map<string, ParsedYaml>();
  // One git process for every file of the build: identical files share a blob, read once.
  const byOid = new Map<string, ParsedYaml>();
  for await (const blob of readBlobs(mirrorPath, [...new Set(oids)])) if (blob.content) byOid.set(blob.oid, parseYaml(blob.content.toString("utf8")));
  for (const [i, f] of files.entries()) {
    const parsed = byOid.get(oids[i]!);
    if (parsed) texts.set(f, parsed);
  }
  const patches = files.filter((f) => KUSTOMIZATION_FILES.has(posix.basename(f))).flatMap((f) => kustomizationPatches(f, texts.get(f) ?? { documents: [] }));
  const patchPaths = new Set(patches.filter((p) => !p.inline).map((p) => p.path));
  const declared: ParentFiles["declared"] = new Map();
  const siblings = new Set<string>();
  for (const [file, parsed] of texts) {
    if (KUSTOMIZATION_FILES.has(posix.basename(file))) continue;
    for (const doc of parsed.documents) {
      const o = doc as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown; namespace?: unknown; labels?: unknown; annotations?: unknown } } | null;
      if (!o || typeof o !== "object" || typeof o.apiVersion !== "string" || typeof o.kind !== "string" || typeof o.metadata?.name !== "string") continue;
      const key = `${o.apiVersion.split("/")[0]}/${o.kind}/${o.metadata.name}`;
      if (!isControllerKey(key)) continue;
      siblings.add(file);
      // A patch names the object it changes as a resource would: it is not where the object is declared.
      if (patchPaths.has(file)) continue;
      // As written in the file: labels a kustomization adds (`labels`, `commonLabels`) are not seen by its selectors here.
      const meta = { labels: recordOf(o.metadata.labels), annotations: recordOf(o.metadata.annotations) };
      declared.set(key, [...(declared.get(key) ?? []), { namespace: o.metadata.namespace, file, meta }]);
    }
  }
  for (const p of patches) if (mayPatchController(p)) siblings.add(p.path);
  return { declared, patches, patchTexts: new Map([...texts].filter(([f]) => patchPaths.has(f))), siblings: [...siblings].sort() };
}

/** Whether a patch of a parent is aimed at the object of `key`: by its target, else by the object's document in it. */
function aimedAt(p: PatchEntry, text: ParsedYaml | undefined, key: string, meta: SelectableMeta | undefined): boolean {
  return p.target ? targets(p.target, key, meta) : declaredDocument(text ?? { documents: [] }, key) != null;
}

/**
 * The files a parent's render took the object of `key` from. A plain render
 * says (its source path); a kustomize build names only its kustomization, so
 * the file is looked for among what the build read at the tip: the manifest
 * listing the object as a resource — not a patch naming it, which is the
 * child's input too (`patches`), as is a kustomization with patches aimed at
 * it written inline. Not found, the kustomization stands for it (a commit to
 * it may change every object it lists). What the build read is read once per
 * tip for all the parent's children.
 */
export async function declaringFile(mirrorPath: string, tip: string | undefined, found: { parent: Pick<DeclaringCandidate, "desired" | "renderInputs">; path: string; key: string }): Promise<DeclarationFiles> {
  const { parent, key } = found;
  if (!tip || !KUSTOMIZATION_FILES.has(posix.basename(found.path))) {
    const siblings = new Set([found.path]);
    for (const [k, entry] of parent.desired) if (entry.sourcePath && isControllerKey(k)) siblings.add(entry.sourcePath);
    return { path: found.path, patches: [], siblings: [...siblings].sort() };
  }
  const inputs = parent.renderInputs;
  const files = await memoGit([mirrorPath, "declaring-files", tip, ...inputs], () => parentFiles(mirrorPath, tip, inputs), (f) => f.declared.size + documentsIn(f.patchTexts.values())).catch(() => null);
  if (!files) return { path: found.path, patches: [], siblings: [found.path] };
  const [group, kind, namespace, name] = key.split("/");
  const declared = files.declared.get(`${group}/${kind}/${name}`)?.find((d) => d.namespace === undefined || d.namespace === namespace);
  const path = declared?.file ?? found.path;
  const patches = new Map<string, DeclarationPatch>();
  for (const p of files.patches) {
    if (!aimedAt(p, p.inline ?? files.patchTexts.get(p.path), key, declared?.meta)) continue;
    patches.set(p.path, { path: p.path, aim: p.inline ? "inline" : p.target ? "target" : "document" });
  }
  return { path, patches: [...patches.values()], siblings: [...new Set([...files.siblings, path, ...patches.keys()])].sort(), ...(declared ? { meta: declared.meta } : {}) };
}

/** The file declaring an application's controller object, and that object as its parent renders it at a revision. */
export interface Declaration {
  path: string;
  /** The files whose commits can be the child's changes: the declaring file and the patches aimed at it. */
  files: readonly string[];
  /**
   * The commits of the ref up to `tip` that changed the object's manifest or a patch aimed at it (not only their files), newest first, among
   * the file's CHANGE_DEPTH newest commits: the child's own changes, though outside its path. Null when unknown (git failed): not none.
   */
  changes: (ref: string, tip: string) => Promise<string[] | null>;
  /** The newest of `changes`; null when unknown. */
  changedLast: (ref: string, tip: string) => Promise<string | null>;
  /** Null when the parent's render at `sha` fails or lacks the object (the child was added later). */
  objectAt: (sha: string) => Promise<Obj | null>;
}

/** How many of the file's newest commits are read for the object's last change; beyond, the oldest read stands for it. */
const CHANGE_DEPTH = 20;

/** Of one file, its newest commits (CHANGE_DEPTH) and the file after each, then before the oldest (null: no such file). */
interface FileHistory {
  shas: readonly string[];
  texts: ReadonlyArray<ParsedYaml | null>;
}

/**
 * The recent history of every file of `files` (a parent's declaring and patch
 * files), read for all of them in one git process and kept per tip, so the
 * parent's children, however many, share it.
 */
function fileHistories(mirrorPath: string, ref: string, tip: string, files: readonly string[]): Promise<ReadonlyMap<string, FileHistory>> {
  return memoGit([mirrorPath, "declaration-histories", ref, tip, ...files], async () => {
    const history = await firstParentHistory(mirrorPath, ref, tip);
    const shasOf = files.map((file) => history.recentTouching(file, [], { window: 200, depth: CHANGE_DEPTH }));
    // `<commit>:<file>` names the file's blob at each commit, and `<oldest>~1:<file>` as it was before the oldest of them (missing: that commit created it).
    const names = files.flatMap((file, i) => {
      const shas = shasOf[i]!;
      return [...shas.map((sha) => `${sha}:${file}`), ...(shas.length > 0 ? [`${shas[shas.length - 1]}~1:${file}`] : [])];
    });
    const texts: Array<ParsedYaml | null> = [];
    for await (const blob of readBlobs(mirrorPath, names)) texts.push(blob.content ? parseYaml(blob.content.toString("utf8")) : null);
    const out = new Map<string, FileHistory>();
    let at = 0;
    for (const [i, file] of files.entries()) {
      const shas = shasOf[i]!;
      const n = shas.length + (shas.length > 0 ? 1 : 0);
      out.set(file, { shas, texts: texts.slice(at, at + n) });
      at += n;
    }
    return out;
    // Counted in the cache budget by the documents it holds (up to CHANGE_DEPTH + 1 parsed versions of each file), not as one answer.
  }, (histories) => documentsIn([...histories.values()].flatMap((h) => h.texts)));
}

/** How many YAML documents parsed files hold (the run memo counts cached answers by them). */
const documentsIn = (texts: Iterable<ParsedYaml | null>): number => {
  let n = 0;
  for (const t of texts) n += t?.documents.length ?? 0;
  return n;
};

/** The commits of a file's history that changed `documentOf` its text, newest first (changesOf). */
function changesIn(file: FileHistory | undefined, documentOf: (text: ParsedYaml) => unknown): string[] {
  if (!file) return [];
  const documents = file.texts.map((t) => (t ? documentOf(t) : null));
  const touching: Array<{ sha: string; document: unknown }> = [];
  // A commit leaving the file unparsable says nothing of the object: compared across, a broken edit and its mend are no change.
  for (const [n, sha] of file.shas.entries()) if (documents[n] !== undefined) touching.push({ sha, document: documents[n] });
  return changesOf(touching, documents[file.shas.length] ?? null);
}

const unreadable = (text: ParsedYaml) => text.documents.some((d) => d === UNREADABLE);

/** A strategic-merge patch setting only what steers reconciliation applies the same spec as no patch at all. */
const emptySpec = (part: unknown) => canonicalJson(part ?? null) === canonicalJson({ spec: {} });

/**
 * Whether a JSON 6902 path (`/spec/syncPolicy/automated/prune`) is a RECONCILE_ONLY field of an object of
 * `kind` (`syncPolicy.automated`) or inside one.
 */
function reconcileOnlyPath(kind: string, pointer: unknown): boolean {
  if (typeof pointer !== "string" || !pointer.startsWith("/spec/")) return false;
  // JSON pointer escapes: `~1` is a slash, `~0` a tilde.
  const steps = pointer.slice("/spec/".length).split("/").map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
  return (RECONCILE_ONLY[kind] ?? []).some((field) => {
    const fieldSteps = field.split(".");
    return fieldSteps.length <= steps.length && fieldSteps.every((f, i) => f === steps[i]);
  });
}

/**
 * What of a patch aimed at an object of `kind` by its kustomization's target changes what the object renders,
 * compared between commits: of JSON 6902 operations, those not on a RECONCILE_ONLY field (an edit removing
 * `/spec/syncPolicy/automated` or changing a retry is no change); of a strategic-merge patch, its renderedPart.
 * Null when nothing is left, unknown when it does not parse.
 */
export function targetedPatchEffect(text: ParsedYaml, kind: string): unknown {
  if (unreadable(text)) return undefined;
  const [first] = text.documents;
  if (text.documents.length === 1 && Array.isArray(first)) {
    const operations = (first as Array<{ op?: unknown; path?: unknown; from?: unknown } | null>).filter(
      // A move out of a rendered field into a reconcile-only one still removes the rendered field.
      (o) => !(reconcileOnlyPath(kind, o?.path) && (o?.op !== "move" || reconcileOnlyPath(kind, o?.from))),
    );
    return operations.length > 0 ? operations : null;
  }
  // Kustomize renames a targeted strategic-merge patch to each object it selects: its kind is the target's.
  const parts = text.documents.map((d) => (d && typeof d === "object" ? renderedPart({ ...d, kind }) : d)).filter((part) => part != null && !emptySpec(part));
  return parts.length > 0 ? parts : null;
}

/**
 * The declaration of `key` in a parent's render: the parent rendered at the
 * asked revision with its own render settings, as its controller would have
 * applied the child's manifest then (a parent's postBuild variables or
 * kustomize patches reach the child's spec). Renders are remembered under the
 * parent's name and the revision, so its children at one revision share one
 * render, and children lagging at different revisions do not take turns
 * re-rendering it.
 */
export function declarationIn(parent: { memoName: string; mirrorPath: string; renderOptions: RenderOptions }, files: DeclarationFiles, key: string): Declaration {
  const { memoName, mirrorPath, renderOptions } = parent;
  const { path, patches, siblings } = files;
  const settings = [JSON.stringify({ ...renderOptions, controller: undefined }), controllerRenderKey(renderOptions.controller)];
  const kind = key.split("/")[1]!;
  const declared = (text: ParsedYaml) => renderedPart(declaredDocument(text, key));
  const patchOf = (text: ParsedYaml) => {
    const part = declared(text);
    return emptySpec(part) ? null : part;
  };
  // The inline patches of a kustomization aimed at the child, not the whole file: an edit of its resources,
  // or of a patch aimed at another object, is no change of the child's.
  const inlineOf = (file: string) => (text: ParsedYaml) => {
    if (unreadable(text)) return undefined;
    const effects = kustomizationPatches(file, text)
      .filter((p) => p.inline && aimedAt(p, p.inline, key, files.meta))
      .map((p) => (p.target ? targetedPatchEffect(p.inline!, kind) : patchOf(p.inline!)));
    if (effects.includes(undefined)) return undefined;
    const rendered = effects.filter((e) => e !== null);
    return rendered.length > 0 ? rendered : null;
  };
  const effectOf = (p: DeclarationPatch) => (p.aim === "inline" ? inlineOf(p.path) : p.aim === "target" ? (text: ParsedYaml) => targetedPatchEffect(text, kind) : patchOf);
  const declaration: Declaration = {
    path,
    files: [path, ...patches.map((p) => p.path)],
    changes: (ref, tip) =>
      memoGit([mirrorPath, "declaration-changes", ref, tip, path, key, ...patches.map((p) => p.path)], async () => {
        const histories = await fileHistories(mirrorPath, ref, tip, siblings);
        const own = changesIn(histories.get(path), declared);
        if (patches.length === 0) return own;
        // A patch aimed at the child is its input as much as the file declaring it: a commit changing the child's
        // image there must make the child stale. Each patch is compared as written, less what only steers
        // reconciliation (a strategic-merge patch by the child's document in it, a JSON 6902 patch by its
        // operations, an inline patch by its text in the kustomization), not by rendering the parent at every
        // commit read: the same answer for the commits that matter, at one git process for all.
        const changes = new Set([...own, ...patches.flatMap((p) => changesIn(histories.get(p.path), effectOf(p)))]);
        if (changes.size <= 1) return [...changes];
        const newestFirst = (await firstParentHistory(mirrorPath, ref, tip)).recentTouching(path, patches.map((p) => p.path), { window: 200, depth: CHANGE_DEPTH * (1 + patches.length) });
        return newestFirst.filter((sha) => changes.has(sha));
      }).catch(() => null),
    changedLast: async (ref, tip) => (await declaration.changes(ref, tip))?.[0] ?? null,
    objectAt: (sha) =>
      memoRenderRevisions(`${memoName}\0declared children`, sha, [mirrorPath, ...settings], () => renderManifests(mirrorPath, sha, renderOptions))
        .then((r) => (r.objects.find((o) => objectKey(o.object as KubeObject) === key)?.object as Obj | undefined) ?? null)
        .catch(() => null),
  };
  return declaration;
}

/** Per environment, each application's parent found last run (null: none): the next run computes parents first. */
const parents = new Map<string, ReadonlyMap<string, string | null>>();

/** How many ancestors an application had last run (a parent that is another's child counts its own). */
function depthOf(known: ReadonlyMap<string, string | null>, name: string): number {
  let depth = 0;
  // A cycle (two applications declaring each other) stops at the number of applications.
  for (let at = known.get(name); at && depth < known.size; at = known.get(at)) depth++;
  return depth;
}

/**
 * `names` in the order to compute them: by the depth their parents gave them
 * last run (a root first, its children, theirs), so a parent's render is
 * there when its child needs it; else, and among equals, as given.
 */
export function parentsFirst(environment: string, names: readonly string[]): number[] {
  const known = parents.get(environment);
  const order = names.map((_, i) => i);
  if (!known) return order;
  const depth = names.map((n) => depthOf(known, n));
  return order.sort((a, b) => depth[a]! - depth[b]! || a - b);
}

export function rememberParents(environment: string, found: ReadonlyMap<string, string | null>): void {
  parents.set(environment, found);
}
