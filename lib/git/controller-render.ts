// Rendering as the environment's controller renders: which kustomization file
// to write before `kustomize build` (Flux's generated or rewritten one, or
// Argo CD's edited one), which files an Argo CD directory source reads, and
// what Flux does to kustomize's output (postBuild, commonMetadata). Pure: the
// render pipeline (render.ts) does the reading, writing and running.
import { createHash } from "node:crypto";
import { applyArgoKustomizeOptions, argoBuildVariables, hasArgoKustomizeOptions, selectDirectoryFiles, type ArgoBuildEnv, type ArgoDirectoryOptions, type ArgoKustomizeOptions } from "./argocd-directory";
import { argoSourceOverrideFiles, mergeArgoSourceOverrides, type ArgoSourceOptions } from "./argocd-source";
import { fluxArtifactFiles, fluxNeedsBuild, fluxResourceFiles, generateFluxKustomization, KUSTOMIZATION_FILE_NAMES, type FluxRenderSpec } from "./flux-generate";
import { objectsFromDocuments, parseManifestText, type RenderedObject, type RenderProblem } from "./manifests";
import { GitError } from "./errors";
import type { ArgoChartReference, ArgoHelmOptions } from "@/lib/helm/argocd-helm";
import { checkVariableNames, envsubst, EnvsubstError, substitutionDisabled, withCommonMetadata } from "./postbuild";

export type ControllerRender =
  | {
      type: "flux";
      spec: FluxRenderSpec;
      /** postBuild variables, resolved (substituteFrom read from the cluster, then `substitute`). Never logged or stored. */
      variables?: ReadonlyMap<string, string>;
      /** The source's own ignore rules (GitRepository `spec.ignore`), applied after the .sourceignore files. */
      sourceIgnore?: string;
    }
  | {
      type: "argocd";
      directory?: ArgoDirectoryOptions;
      kustomize?: ArgoKustomizeOptions;
      helm?: ArgoHelmOptions;
      /** A chart from a Helm repository or OCI registry in place of the Git path. */
      chart?: ArgoChartReference;
      /** For `${ARGOCD_APP_*}` in kustomize options. */
      env?: ArgoBuildEnv;
    };

/** A render failure that belongs to one file of the repository (a kustomization, a generated one, a patch). */
export class RenderFileError extends GitError {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super("render", message);
    this.name = "RenderFileError";
  }
}

/**
 * What distinguishes one controller render from another, for cache keys. The
 * variables count by a hash only: a key must not carry Secret values.
 */
export function controllerRenderKey(c: ControllerRender | undefined): string {
  if (!c) return "";
  if (c.type === "argocd") return JSON.stringify(["argocd", c.directory ?? null, c.kustomize ?? null, c.env ?? null, c.helm ?? null, c.chart ?? null]);
  const vars = c.variables ? [...c.variables].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : null;
  const varsHash = vars ? createHash("sha256").update(JSON.stringify(vars)).digest("hex") : "";
  return JSON.stringify(["flux", c.spec, varsHash, c.sourceIgnore ?? null]);
}

export function kustomizationFileIn(repoFiles: readonly string[], dir: string): string | undefined {
  const prefix = dir ? `${dir}/` : "";
  const present = new Set(repoFiles);
  return KUSTOMIZATION_FILE_NAMES.map((n) => `${prefix}${n}`).find((f) => present.has(f));
}

/**
 * The kustomization to blame for a failed build: the deepest one kustomize
 * says it was reading (`recursed accumulation of path '…'`) that exists in
 * the repository, else the one built. A generated file is never blamed when
 * a file of the repository can be.
 */
export function blameKustomization(message: string, built: string, repoFiles: readonly string[]): string {
  const dirs = [...message.matchAll(/recursed (?:accumulation|merging) of path '([^']+)'/g)].map((m) => m[1]!);
  for (const dir of dirs.reverse()) {
    const own = kustomizationFileIn(repoFiles, dir.replace(/^\.\/?/, "").replace(/\/$/, ""));
    if (own) return own;
  }
  return built;
}

export type RenderPlan =
  | { kind: "plain"; /** Argo CD directory source: only these files, in this order. */ files?: string[] }
  | { kind: "kustomize"; /** The kustomization to (over)write before building, if the controller changes it. */ write?: { file: string; text: string }; kustomizationFile: string };

/** Whether `rel`, relative to `dir`, names a file or folder of the repository (never outside it). */
function existsInRepo(repoFiles: readonly string[], dir: string, rel: string): boolean {
  const parts: string[] = [];
  for (const part of `${dir}/${rel}`.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) return false;
      parts.pop();
    } else parts.push(part);
  }
  const target = parts.join("/");
  return target === "" || repoFiles.some((f) => f === target || f.startsWith(`${target}/`));
}

/**
 * How the controller renders `dir` at `revision`. `readExisting` gives the text
 * of a repository file (only the folder's kustomization is asked for).
 */
export async function planControllerRender(
  c: ControllerRender,
  repoFiles: readonly string[],
  dir: string,
  mode: "plain" | "kustomize",
  readExisting: (file: string) => Promise<string>,
  revision = "",
): Promise<RenderPlan> {
  if (c.type === "argocd") {
    const own = kustomizationFileIn(repoFiles, dir);
    // The repository's override files (Argo CD Image Updater's write-back) are merged over the Application's options.
    const present = new Set(repoFiles);
    const overrideFiles = argoSourceOverrideFiles(dir, c.env?.appName).filter((f) => present.has(f));
    let options: ArgoSourceOptions = { directory: c.directory, kustomize: c.kustomize };
    if (overrideFiles.length > 0) {
      const merged = mergeArgoSourceOverrides(options, await Promise.all(overrideFiles.map(async (file) => ({ file, text: await readExisting(file) }))));
      if (!merged.ok) throw new RenderFileError(merged.file, merged.message);
      options = merged.options;
    }
    // Argo CD builds with kustomize whenever the folder has a kustomization, and reads a directory otherwise.
    if (!own) {
      return { kind: "plain", files: selectDirectoryFiles(repoFiles, dir, options.directory ?? {}) };
    }
    if (!hasArgoKustomizeOptions(options.kustomize)) return { kind: "kustomize", kustomizationFile: own };
    const edited = applyArgoKustomizeOptions(await readExisting(own), options.kustomize ?? {}, {
      variables: argoBuildVariables(c.env ?? {}, revision),
      exists: (rel) => existsInRepo(repoFiles, dir, rel),
    });
    if (!edited.ok) throw new RenderFileError(own, edited.message);
    return { kind: "kustomize", write: { file: own, text: edited.text }, kustomizationFile: own };
  }
  // What source-controller packs: without its default exclusions and what .sourceignore files exclude.
  const ignoreFiles = repoFiles.filter((f) => f === ".sourceignore" || f.endsWith("/.sourceignore"));
  const sourceIgnores = await Promise.all(ignoreFiles.map(async (f) => ({ dir: f.slice(0, Math.max(0, f.lastIndexOf("/"))), text: await readExisting(f) })));
  if (c.sourceIgnore) sourceIgnores.push({ dir: "", text: c.sourceIgnore });
  const artifact = fluxArtifactFiles(repoFiles, sourceIgnores);
  const ownInArtifact = kustomizationFileIn(artifact, dir);
  // Without anything for kustomize to do, Flux's generated kustomization lists exactly these files:
  // read them as they are, whatever the mode (a discovered Kustomization is always "kustomize"),
  // so a folder of plain manifests needs no kustomize binary and no build per revision.
  if (!fluxNeedsBuild(artifact, dir, c.spec)) return { kind: "plain", files: fluxResourceFiles(artifact, dir) };
  const generated = generateFluxKustomization(artifact, dir, ownInArtifact ? { file: ownInArtifact, text: await readExisting(ownInArtifact) } : null, c.spec);
  if (!generated.ok) throw new RenderFileError(generated.file, generated.message);
  return { kind: "kustomize", write: { file: generated.file, text: generated.text }, kustomizationFile: generated.file };
}

/**
 * Flux's steps after `kustomize build`: postBuild substitution per object
 * (skipped for objects marked `kustomize.toolkit.fluxcd.io/substitute: disabled`),
 * then objects from the result. An error names the object, never a value.
 */
export function fluxPostBuild(c: ControllerRender | undefined, output: string, sourcePath: string, problems: RenderProblem[]): RenderedObject[] {
  const parsed = parseManifestText("kustomize-output.yaml", output);
  if (!parsed.ok) throw new RenderFileError(sourcePath, `kustomize output could not be read: ${parsed.message}`);
  const vars = c?.type === "flux" ? c.variables : undefined;
  if (c?.type !== "flux" || !c.spec.postBuild || !vars || vars.size === 0) return objectsFromDocuments(sourcePath, parsed.docs, problems);
  const invalid = checkVariableNames(vars);
  if (invalid) throw new RenderFileError(sourcePath, `post build failed: ${invalid}`);
  const objects: RenderedObject[] = [];
  for (const doc of parsed.docs) {
    const value = doc.value as Record<string, unknown> | null;
    if (!value || typeof value !== "object" || substitutionDisabled(value)) {
      objects.push(...objectsFromDocuments(sourcePath, [doc], problems));
      continue;
    }
    const label = `${String(value.apiVersion ?? "")}, Kind=${String(value.kind ?? "")}/${String((value.metadata as { name?: unknown } | undefined)?.name ?? "")}`;
    let text: string;
    try {
      text = envsubst(output.slice(doc.range[0], doc.range[1]), vars);
    } catch (e) {
      if (e instanceof EnvsubstError) throw new RenderFileError(sourcePath, `post build failed for '${label}': envsubst error: variable substitution failed: ${e.message}`);
      throw e;
    }
    const again = parseManifestText("substituted.yaml", text);
    if (!again.ok) throw new RenderFileError(sourcePath, `post build failed for '${label}': the substituted object is not valid YAML${again.line ? ` (line ${again.line} of the object)` : ""}`);
    objects.push(...objectsFromDocuments(sourcePath, again.docs.map((d) => ({ ...d, index: doc.index, line: doc.line })), problems));
  }
  return objects;
}

/** Flux's spec.commonMetadata, set on every object it applies. */
export function fluxCommonMetadata(c: ControllerRender | undefined, objects: RenderedObject[]): RenderedObject[] {
  const common = c?.type === "flux" ? c.spec.commonMetadata : undefined;
  if (!common || (!Object.keys(common.labels ?? {}).length && !Object.keys(common.annotations ?? {}).length)) return objects;
  return objects.map((o) => ({ ...o, object: withCommonMetadata(o.object, common) }));
}
