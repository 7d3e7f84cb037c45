// The one string a collection names what it follows with, its "followed ref"
// (ApplicationEnvironment.source.branch): a branch name as before, else a full
// ref in the mirror. Refs that are not the remote's own (a semver range's
// current tag, a pinned commit, a fetched ref name, the default branch) live
// under refs/driftwatch/, which the mirror's fetch never prunes; follow.ts
// moves them each run. Pure.
/** The ref kinds of a Flux GitRepository `spec.ref` / an Argo CD targetRevision (lib/applications/spec.ts GitRef). */
export interface FollowableRef {
  branch?: string;
  tag?: string;
  semver?: string;
  commit?: string;
  name?: string;
}

const OWN = "refs/driftwatch";
const SEMVER_PREFIX = `${OWN}/semver/`;
const COMMIT_PREFIX = `${OWN}/commit/`;
const NAMED_PREFIX = `${OWN}/named/`;
export const DEFAULT_BRANCH_REF = `${OWN}/default-branch`;

export type Followed =
  | { kind: "branch"; branch: string }
  | { kind: "tag"; tag: string }
  | { kind: "semver"; range: string }
  | { kind: "commit"; commit: string }
  | { kind: "name"; name: string }
  | { kind: "default" };

/**
 * The followed ref for a controller's ref, with Flux's precedence: commit over
 * a ref name over semver over tag over branch. Argo CD's HEAD (a ref named
 * HEAD) is the default branch. Names under refs/heads/ and refs/tags/ are
 * that branch and that tag.
 */
export function followedRefOf(ref: FollowableRef): string {
  if (ref.commit) return `${COMMIT_PREFIX}${ref.commit.toLowerCase()}`;
  if (ref.name === "HEAD") return DEFAULT_BRANCH_REF;
  if (ref.name?.startsWith("refs/heads/")) return ref.name.slice("refs/heads/".length);
  if (ref.name?.startsWith("refs/tags/")) return ref.name;
  if (ref.name) return `${NAMED_PREFIX}${ref.name.replace(/^refs\//, "")}`;
  // Ranges hold characters a ref name may not (spaces, ^, ~, *): hex keeps them reversible.
  if (ref.semver) return `${SEMVER_PREFIX}${Buffer.from(ref.semver, "utf8").toString("hex")}`;
  if (ref.tag) return `refs/tags/${ref.tag}`;
  if (ref.branch) return ref.branch;
  return DEFAULT_BRANCH_REF;
}

/** What a followed ref stands for. */
export function parseFollowedRef(followed: string): Followed {
  if (followed === DEFAULT_BRANCH_REF) return { kind: "default" };
  if (followed.startsWith(COMMIT_PREFIX)) return { kind: "commit", commit: followed.slice(COMMIT_PREFIX.length) };
  if (followed.startsWith(SEMVER_PREFIX)) return { kind: "semver", range: Buffer.from(followed.slice(SEMVER_PREFIX.length), "hex").toString("utf8") };
  if (followed.startsWith(NAMED_PREFIX)) return { kind: "name", name: `refs/${followed.slice(NAMED_PREFIX.length)}` };
  if (followed.startsWith("refs/tags/")) return { kind: "tag", tag: followed.slice("refs/tags/".length) };
  return { kind: "branch", branch: followed };
}

/** The full ref name git reads a followed ref at. */
export function qualifiedRef(followed: string): string {
  return followed.startsWith("refs/") ? followed : `refs/heads/${followed}`;
}

/** The followed ref in words, for messages: a branch by its name (as messages always said it), `tag v1.2.3`, `semver range ^1`, `commit abc1234`. */
export function describeFollowedRef(followed: string): string {
  const f = parseFollowedRef(followed);
  switch (f.kind) {
    case "branch":
      return f.branch;
    case "tag":
      return `tag ${f.tag}`;
    case "semver":
      return `semver range ${f.range}`;
    case "commit":
      return `commit ${f.commit.slice(0, 12)}`;
    case "name":
      return `ref ${f.name}`;
    case "default":
      return "the default branch";
  }
}

