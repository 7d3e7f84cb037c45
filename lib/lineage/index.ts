export { CommitGraph, type CommitNode } from "./graph";
export {
  liveness,
  normaliseHistory,
  promotionHops,
  behindSince,
  staleTime,
  unionOfIntervals,
  revertCommand,
  type AppliedInterval,
  type Liveness,
  type Hop,
} from "./promotion";

/** Paths in Git are compared as prefixes: an environment at `deploy/prod` owns `deploy/prod/api.yaml`. */
export function touchesPath(changedPaths: readonly string[], envPath: string): boolean {
  const base = envPath.replace(/^\.\/?/, "").replace(/\/+$/, "");
  if (base === "" || base === ".") return true;
  return changedPaths.some((p) => p === base || p.startsWith(base + "/"));
}
