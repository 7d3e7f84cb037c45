// How controllers name revisions, turned into a GitRef. Pure.
import type { GitRef } from "./spec";
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
