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
import { memoGit, memoRender } from "./run-memo";

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

/**
 * The document of a YAML text that is the object of `key` (one without a
 * namespace counts: its render gives it one), else null. Compared between
 * commits, it says whether a commit to a file declaring several objects
 * changed this one.
 */
export function declaredDocument(text: string, key: string): unknown {
  const [group, kind, namespace, name] = key.split("/");
  let unreadable = false;
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) unreadable = true;
    const o = (doc.errors.length === 0 ? doc.toJS() : null) as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } } | null;
    const m = o?.metadata;
    if (!o || !m || typeof o.apiVersion !== "string" || o.kind !== kind || m.name !== name) continue;
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

/**
 * The file a parent's render took the object of `key` from. A plain render
 * says (its source path); a kustomize build names only its kustomization, so
 * the file is looked for among what the build read at the tip: the manifest
 * declaring the object. Not found, the kustomization stands for it (a
 * commit to it may change every object it lists).
 */
export async function declaringFile(mirrorPath: string, tip: string | undefined, found: { path: string; key: string }, renderInputs: readonly string[]): Promise<string> {
  if (!tip || !KUSTOMIZATION_FILES.has(posix.basename(found.path))) return found.path;
  const candidates = renderInputs.filter((f) => /\.ya?ml$/.test(f) && !KUSTOMIZATION_FILES.has(posix.basename(f)));
  const file = await memoGit([mirrorPath, "declaring-file", tip, found.key, ...candidates], async () => {
    const tree = await repoTree(mirrorPath, tip);
    const byOid = new Map<string, string>();
    for (const f of candidates) {
      const oid = tree.node(f)?.type === "file" ? tree.oid(f) : undefined;
      if (oid && !byOid.has(oid)) byOid.set(oid, f);
    }
    let declaring: string | null = null;
    // Every blob is read to the end (one git process for all of them): the first declaring one wins.
    for await (const blob of readBlobs(mirrorPath, [...byOid.keys()])) {
      if (!declaring && blob.content && declaredDocument(blob.content.toString("utf8"), found.key) != null) declaring = byOid.get(blob.oid) ?? null;
    }
    return declaring;
  }).catch(() => null);
  return file ?? found.path;
}

/** The file declaring an application's controller object, and that object as its parent renders it at a revision. */
export interface Declaration {
  path: string;
  /**
   * The commits of the ref up to `tip` that changed the object's manifest (not only its file), newest first, among
   * the file's CHANGE_DEPTH newest commits: the child's own changes, though outside its path. Empty when unknown.
   */
  changes: (ref: string, tip: string) => Promise<string[]>;
  /** The newest of `changes`; null when unknown. */
  changedLast: (ref: string, tip: string) => Promise<string | null>;
  /** Null when the parent's render at `sha` fails or lacks the object (the child was added later). */
  objectAt: (sha: string) => Promise<Obj | null>;
}

/** How many of the file's newest commits are read for the object's last change; beyond, the oldest read stands for it. */
const CHANGE_DEPTH = 20;

/**
 * The declaration of `key` in a parent's render: the parent rendered at the
 * asked revision with its own render settings, as its controller would have
 * applied the child's manifest then (a parent's postBuild variables or
 * kustomize patches reach the child's spec). Renders are remembered under the
 * parent's name, so its children at one revision share one render.
 */
export function declarationIn(parent: { memoName: string; mirrorPath: string; renderOptions: RenderOptions }, path: string, key: string): Declaration {
  const { memoName, mirrorPath, renderOptions } = parent;
  const settings = [JSON.stringify({ ...renderOptions, controller: undefined }), controllerRenderKey(renderOptions.controller)];
  const declaration: Declaration = {
    path,
    changes: (ref, tip) =>
      memoGit([mirrorPath, "declaration-changes", ref, tip, path, key], async () => {
        const shas = (await firstParentHistory(mirrorPath, ref, tip)).recentTouching(path, [], { window: 200, depth: CHANGE_DEPTH });
        const touching: Array<{ sha: string; document: unknown }> = [];
        // `<commit>:<file>` names the file's blob at each commit: one git process for all of them, in order.
        // And the file as it was before the oldest of them (missing: that commit created it).
        const names = [...shas.map((sha) => `${sha}:${path}`), ...(shas.length > 0 ? [`${shas[shas.length - 1]}~1:${path}`] : [])];
        const documents: unknown[] = [];
        for await (const blob of readBlobs(mirrorPath, names)) documents.push(blob.content ? renderedPart(declaredDocument(blob.content.toString("utf8"), key)) : null);
        // A commit leaving the file unparsable says nothing of the object: compared across, a broken edit and its mend are no change.
        for (const [n, sha] of shas.entries()) if (documents[n] !== undefined) touching.push({ sha, document: documents[n] });
        return changesOf(touching, documents[shas.length] ?? null);
      }).catch(() => []),
    changedLast: async (ref, tip) => (await declaration.changes(ref, tip))[0] ?? null,
    objectAt: (sha) =>
      memoRender(`${memoName}\0declared children`, [mirrorPath, sha, ...settings], () => renderManifests(mirrorPath, sha, renderOptions))
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
