// How controllers name revisions, turned into a GitRef. Pure.
import type { FOLLOWS_KINDS, GitRef } from "./spec";
import { dropUndefined, rec, str, type Obj } from "@/lib/git";

const EXACT_VERSION = /^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;
// Only version characters and operators (`^1.2`, `~1.2.0`, `1.x`, `>=1.0.0 <2.0.0`, `*`), with a digit or a star.
const SEMVER_RANGE = /^(?=.*[\d*])[\sv\d.xX*^~<>=|,-]+$/;
const FULL_SHA = /^[0-9a-f]{40}$/i;

/**
 * A chart version as Flux's `chart.spec.version` or Argo CD's `targetRevision`
 * for a Helm chart: an exact version is a tag of the chart; anything else
 * (`*`, `1.2.x`, `>=1.0 <2.0`, empty = newest) a semver range.
 */
export function chartVersionRef(version: string | undefined): GitRef {
  const v = (version ?? "").trim();
  if (EXACT_VERSION.test(v)) return { tag: v };
  return { semver: v === "" ? "*" : v };
}

/**
 * An Argo CD `targetRevision` for a Git source. Argo CD resolves a name
 * against the repository's branches and tags; discovery does not read the
 * repository, so a version-shaped name (v1.2.3) is taken as a tag, a semver
 * range as one, and any other name as a branch. Empty and HEAD follow the
 * default branch.
 */
export function argoTargetRevisionRef(targetRevision: string | undefined): GitRef {
  const rev = (targetRevision ?? "").trim();
  if (rev === "" || rev === "HEAD") return { name: "HEAD" };
  if (FULL_SHA.test(rev)) return { commit: rev.toLowerCase() };
  if (rev.startsWith("refs/")) return { name: rev };
  if (EXACT_VERSION.test(rev)) return { tag: rev };
  if (SEMVER_RANGE.test(rev)) return { semver: rev };
  return { branch: rev };
}

/** A Flux GitRepository's `spec.ref`; without one Flux follows the `master` branch. */
export function fluxGitRef(gitRepository: Obj): GitRef {
  const ref = rec(rec(gitRepository.spec)?.ref);
  if (!ref) return { branch: "master" };
  const commit = str(ref.commit)?.toLowerCase();
  const out = dropUndefined({ branch: str(ref.branch) || undefined, tag: str(ref.tag) || undefined, semver: str(ref.semver) || undefined, name: str(ref.name) || undefined, commit: commit || undefined });
  return Object.keys(out).length > 0 ? out : { branch: "master" };
}

/** A Flux OCIRepository's `spec.ref`; without one Flux pulls the `latest` tag. */
export function fluxOciRef(ociRepository: Obj): GitRef {
  const ref = rec(rec(ociRepository.spec)?.ref);
  const out = dropUndefined({ tag: str(ref?.tag) || undefined, semver: str(ref?.semver) || undefined, digest: str(ref?.digest) || undefined });
  return Object.keys(out).length > 0 ? out : { tag: "latest" };
}

/** `./apps/staging/` → `apps/staging`; the repository root is `.`. */
export function normalisePath(path: string | undefined): string {
  const p = (path ?? "").trim().replace(/^(\.\/)+/, "").replace(/^\/+/, "").replace(/\/+$/, "");
  return p === "" || p === "." ? "." : p;
}

export const APPLICATION_ANNOTATION = "driftwatch.io/application";

/**
 * What matches an application across environments: driftwatch.yaml's
 * `promotionKeys` (by `namespace/name`, then `name`), else the object's
 * `driftwatch.io/application` annotation, else its name.
 */
export function promotionKeyOf(obj: Obj, promotionKeys: Record<string, string>): string {
  const meta = rec(obj.metadata) ?? {};
  const name = str(meta.name) ?? "";
  const namespace = str(meta.namespace) ?? "";
  const annotation = str(rec(meta.annotations)?.[APPLICATION_ANNOTATION])?.trim();
  return promotionKeys[`${namespace}/${name}`] ?? promotionKeys[name] ?? (annotation || name);
}

/** What a source follows, for people: its kind, the ref as the controller names it, and what it resolved to on the last run. */
export interface Follows {
  kind: (typeof FOLLOWS_KINDS)[number];
  ref: string;
  /** A semver range's tag, the default branch's name; null when the ref names its commit itself or has not resolved yet. */
  resolved: string | null;
  text: string;
}

const shortName = (ref: string | null) => ref?.replace(/^refs\/(heads|tags)\//, "") ?? null;

/**
 * `tag v1.2.3`, `semver >=1.0 <2 → v1.4.0`, `commit abc1234`, `default branch (main)`, `branch main`,
 * with the precedence the controllers use (commit, ref name, semver, tag, branch).
 * `resolvedRef` is the full ref the collector resolved it through (refs/tags/v1.4.0, refs/heads/main).
 */
export function followsOf(ref: GitRef, resolvedRef: string | null): Follows {
  const resolved = shortName(resolvedRef);
  if (ref.digest) return { kind: "digest", ref: ref.digest, resolved: null, text: `digest ${ref.digest.slice(0, 19)}` };
  if (ref.commit) return { kind: "commit", ref: ref.commit, resolved: null, text: `commit ${ref.commit.slice(0, 7)}` };
  if (ref.name === "HEAD") return { kind: "default-branch", ref: "HEAD", resolved, text: resolved ? `default branch (${resolved})` : "default branch" };
  if (ref.name?.startsWith("refs/heads/")) return { kind: "branch", ref: ref.name, resolved: null, text: `branch ${shortName(ref.name)}` };
  if (ref.name?.startsWith("refs/tags/")) return { kind: "tag", ref: ref.name, resolved: null, text: `tag ${shortName(ref.name)}` };
  if (ref.name) return { kind: "ref", ref: ref.name, resolved: null, text: `ref ${ref.name}` };
  if (ref.semver) return { kind: "semver", ref: ref.semver, resolved, text: resolved ? `semver ${ref.semver} → ${resolved}` : `semver ${ref.semver}` };
  if (ref.tag) return { kind: "tag", ref: ref.tag, resolved: null, text: `tag ${ref.tag}` };
  if (ref.branch) return { kind: "branch", ref: ref.branch, resolved: null, text: `branch ${ref.branch}` };
  return { kind: "default-branch", ref: "HEAD", resolved, text: resolved ? `default branch (${resolved})` : "default branch" };
}
