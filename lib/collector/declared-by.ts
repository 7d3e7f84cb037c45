// Where an application's controller object is declared in Git, when another
// application of the environment applies it (Argo CD app-of-apps, a Flux
// Kustomization applying child Kustomizations). The controllers see that
// manifest as the child's input: a commit to it changes what the child renders
// (its images, Helm parameters, postBuild variables, patches) although it
// touches nothing under the child's own path.
import type { ControllerRef } from "@/lib/applications/spec";
import { objectKey, type KubeObject } from "@/lib/drift";
import { controllerRenderKey, renderManifests, type RenderOptions } from "@/lib/git";
import type { DesiredEntry } from "./persist";
import { memoRender } from "./run-memo";

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
}

/**
 * The application of `candidates` whose render declares `child`'s controller
 * object, and the file it is declared in. Only a parent following the same
 * repository and ref counts: its commits are the child's commits, so the
 * file's history is the child's history. A controller object in the cluster
 * but no parent's Git (applied by hand, bootstrapped) is declared nowhere.
 */
export function declaringParent<T extends DeclaringCandidate>(child: DeclaringCandidate, candidates: readonly T[]): { parent: T; path: string } | null {
  if (!child.controller || !child.singleGitSource || !child.mirrorPath) return null;
  const key = controllerObjectKey(child.controller);
  for (const parent of candidates) {
    if (parent.id === child.id || !parent.singleGitSource || parent.mirrorPath !== child.mirrorPath || parent.branch !== child.branch) continue;
    const path = parent.desired.get(key)?.sourcePath;
    if (path) return { parent, path };
  }
  return null;
}

/** The file declaring an application's controller object, and that object as its parent renders it at a revision. */
export interface Declaration {
  path: string;
  /** Null when the parent's render at `sha` fails or lacks the object (the child was added later). */
  objectAt: (sha: string) => Promise<Obj | null>;
}

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
  return {
    path,
    objectAt: (sha) =>
      memoRender(`${memoName}\0declared children`, [mirrorPath, sha, ...settings], () => renderManifests(mirrorPath, sha, renderOptions))
        .then((r) => (r.objects.find((o) => objectKey(o.object as KubeObject) === key)?.object as Obj | undefined) ?? null)
        .catch(() => null),
  };
}

/** Per environment, the applications found declared by another last run: computed after the rest, so their parents' renders are there. */
const children = new Map<string, ReadonlySet<string>>();

/** `names` in the order to compute them: those declared by another application last run go last (stable otherwise). */
export function parentsFirst(environment: string, names: readonly string[]): number[] {
  const known = children.get(environment);
  const order = names.map((_, i) => i);
  return known ? [...order.filter((i) => !known.has(names[i]!)), ...order.filter((i) => known.has(names[i]!))] : order;
}

export function rememberChildren(environment: string, names: Iterable<string>): void {
  children.set(environment, new Set(names));
}
