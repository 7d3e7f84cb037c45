// The Git side of the collector: mirrors, revisions, rendering. This is what
// the rest of the app may use from lib/git.
export { GitError, isGitError, redact, type GitErrorCategory } from "./errors";
export { syncMirror, mirrorPathFor, type SyncResult } from "./mirror";
export {
  listRevisions,
  approvedRevision,
  isAncestor,
  treeHash,
  resolveCommit,
  normalisePath,
  type GitRevision,
} from "./revisions";
export {
  renderManifests,
  findObjectSource,
  clearRenderCache,
  MAX_MANIFEST_BYTES,
  type RenderOptions,
  type RenderResult,
  type ObjectSource,
} from "./render";
export { objectKey, type RenderedObject, type RenderProblem } from "./manifests";
export { isClusterScoped, apiGroup } from "./cluster-scoped";
export { findKustomize, type KustomizeBinary } from "./kustomize";
