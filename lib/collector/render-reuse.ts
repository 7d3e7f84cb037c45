// Whether an application's last render still holds at a newer revision.
// Flux reports the repository's new head as every Kustomization's applied
// revision after each push (an Argo CD Application following a branch does
// the same), so the compared revision of every application moves although the
// push touched one folder. Rendering again is a kustomize build per
// application; when nothing the render read changed, the output cannot have.
// Pure: the caller supplies the branch's first-parent history.
import { posix } from "node:path";
import type { ControllerRender, RenderOptions } from "@/lib/git";
import type { FirstParentHistory } from "@/lib/git/history-index";

/** The render a run kept: the revision it was made at and what it read. */
export interface LastRender {
  sha: string;
  /** Repository files the render read (RenderResult.inputs). */
  inputs: readonly string[];
  /** Remote bases and ranged charts it fetched (RenderResult.remoteBases): outside the Git tree. */
  remoteBases: readonly string[];
  /** Charts it fetched from a Helm repository by exact version (RenderResult.fetchedCharts): outside the Git tree too. */
  fetchedCharts?: readonly string[];
}

/**
 * Whether the render can name the revision it was made at, or reads
 * something the Git tree does not pin. Argo CD substitutes its build
 * environment (`$ARGOCD_APP_REVISION` and friends) into kustomize images,
 * labels and (with commonAnnotationsEnvsubst) annotations, and its override
 * files (`.argocd-source*.yaml`, listed in the inputs when present) may add
 * such options; Helm renders (a chart folder, an Application's helm settings,
 * a repository chart) take values, parameters and charts the tree need not
 * hold. Flux's postBuild substitutes only variables from the Kustomization
 * and the cluster (lib/git/postbuild.ts), never the revision, and those are in
 * the render settings key.
 */
export function renderMayDependOnRevision(mode: RenderOptions["mode"], controller: ControllerRender | undefined, inputs: readonly string[]): boolean {
  if (mode === "helm") return true;
  if (controller?.type !== "argocd") return false;
  if (controller.helm || controller.chart) return true;
  if (JSON.stringify([controller.kustomize ?? null, controller.directory ?? null]).includes("$")) return true;
  return inputs.some((f) => posix.basename(f).startsWith(".argocd-source"));
}

/**
 * Whether the render at `last.sha` is the render at `next`: `next` follows it
 * on the branch's first-parent line and no commit in between changed the
 * application's path, a directory holding a file the render read (a file
 * added beside an input, such as a chart's new template, counts), or a
 * `.sourceignore` anywhere (source-controller applies them to the whole
 * artifact). Never when the render fetched something outside the tree or may
 * name its revision (or fetched a chart). `history` null (not walked): no.
 */
export function renderHoldsAt(args: { last: LastRender; next: string; path: string; mode: RenderOptions["mode"]; controller: ControllerRender | undefined; history: Pick<FirstParentHistory, "touchedBetween"> | null }): boolean {
  const { last, next, path, mode, controller, history } = args;
  if (last.sha === next) return true;
  if (!history || last.remoteBases.length > 0 || (last.fetchedCharts?.length ?? 0) > 0) return false;
  if (renderMayDependOnRevision(mode, controller, last.inputs)) return false;
  return readsSameTree(history, { from: last.sha, to: next, path, inputs: last.inputs });
}

/**
 * Whether a render of `path` that read `inputs` at `from` reads the same files
 * at `to`: no commit between them on the first-parent line changed the path,
 * a directory holding an input (a directory counts with everything under it,
 * so a file added beside an input is noticed), or a `.sourceignore` anywhere
 * (source-controller applies them to the whole artifact). Unknown (not on the
 * line): no.
 */
export function readsSameTree(history: Pick<FirstParentHistory, "touchedBetween">, at: { from: string; to: string; path: string; inputs: readonly string[] }): boolean {
  const directories = [...new Set(at.inputs.map((f) => posix.dirname(f)))];
  return history.touchedBetween(at.from, at.to, at.path, directories, { anyFileNamed: ".sourceignore" }) === false;
}
