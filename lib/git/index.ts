// The Git side of the collector: mirrors, revisions, rendering. This is what
// the rest of the app may use from lib/git.
//
// What callers can rely on:
// - Every failure is a GitError with a category (git-auth, git-fetch,
//   git-missing-ref, render) and a message already cleared of credentials.
// - A failed sync leaves the mirror as it was: the last good state stays readable.
// - The approved revision follows the branch's first-parent line (a merge that
//   brings a change counts as touching the path). "Branch" there is a followed
//   ref (followed-ref.ts): a branch name, or a tag, semver range, commit, ref
//   name or the default branch, which resolveFollowedRef points at its commit
//   after each fetch.
// - renderManifests throws only when nothing trustworthy rendered (unknown
//   revision, missing path, kustomize failure or binary missing); a bad file is
//   a RenderProblem and the rest renders. A kustomize build whose references
//   leave the repository (remote, file://, absolute, links, plugins, Helm) is
//   refused before kustomize runs: RenderRefusedError names file and reference.
// - Renderers run sandboxed (lib/git/sandbox.ts): empty HOME, no git config,
//   no transports, no network namespace route where the machine allows it.
// - A render lists its inputs: the repository files it read.
// - Rendered objects are frozen (shared through the render cache): copy before
//   changing, e.g. before hashing Secret values. Secret values in Git are
//   returned as they are; hashing them is the collector's job.
// - The plain-mode cache is keyed by the path's tree hash; kustomize output by
//   the whole commit tree, since an overlay may read bases outside its path.
// - With `controller` set, rendering follows Flux (generated kustomization,
//   spec written into it, postBuild, commonMetadata) or Argo CD (directory
//   options, kustomize edits); the cache key then holds every setting, and
//   postBuild variables only by hash. A failure a file is to blame for is a
//   RenderFileError (a GitError of category render) naming that file.
export { GitError, isGitError, redact, type GitErrorCategory } from "./errors";
export { syncMirror, mirrorPathFor, type SyncResult } from "./mirror";
export { followedRefOf, parseFollowedRef, qualifiedRef, describeFollowedRef, type Followed, type FollowableRef } from "./followed-ref";
export { resolveFollowedRef, type ResolvedFollow } from "./follow";
export { parseVersion, parseRange, highestMatchingTag, SemverRangeError } from "./semver";
export {
  listRevisions,
  approvedRevision,
  isAncestor,
  treeHash,
  resolveCommit,
  normalisePath,
  type GitRevision,
} from "./revisions";
export { firstParentHistory, approvedRevisionAt, isAncestorAt, resetHistoryIndexes, type FirstParentHistory } from "./history-index";
export {
  renderManifests,
  findObjectSource,
  clearRenderCache,
  RenderRefusedError,
  MAX_MANIFEST_BYTES,
  type RemoteBaseSource,
  type RenderOptions,
  type HelmSourceContext,
  type RenderResult,
  type ObjectSource,
} from "./render";
export { objectKey, type RenderedObject, type RenderProblem } from "./manifests";
export { isClusterScoped, apiGroup } from "./cluster-scoped";
export { findKustomize, type KustomizeBinary } from "./kustomize";
export { networkIsolation } from "./sandbox";
export { controllerRenderKey, RenderFileError, type ControllerRender } from "./controller-render";
export type { FluxRenderSpec, FluxSelector, FluxSubstituteReference } from "./flux-generate";
export type { ArgoBuildEnv, ArgoDirectoryOptions, ArgoKustomizeOptions, ArgoKustomizePatch } from "./argocd-directory";
export { mergeVariables } from "./postbuild";
export { argoSourceOptions, type ArgoSourceOptions } from "./argocd-source";
export { dropUndefined, rec, selectorOf, str, strList, strMap, type Obj } from "./shape";
