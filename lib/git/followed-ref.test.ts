import { describe, expect, it } from "vitest";
import { describeFollowedRef, followedRefOf, parseFollowedRef, qualifiedRef } from "./followed-ref";

describe("followed refs", () => {
  it.each([
    [{ branch: "main" }, { kind: "branch", branch: "main" }, "refs/heads/main", "main"],
    [{ tag: "v1.2.3", branch: "main" }, { kind: "tag", tag: "v1.2.3" }, "refs/tags/v1.2.3", "tag v1.2.3"],
    [{ semver: ">=1.0.0 <2.0.0", tag: "v1.0.0" }, { kind: "semver", range: ">=1.0.0 <2.0.0" }, null, "semver range >=1.0.0 <2.0.0"],
    [{ commit: "ABCDEF0123456789abcdef0123456789abcdef01", semver: "*" }, { kind: "commit", commit: "abcdef0123456789abcdef0123456789abcdef01" }, null, "commit abcdef012345"],
    [{ name: "refs/pull/1/head", semver: "*" }, { kind: "name", name: "refs/pull/1/head" }, null, "ref refs/pull/1/head"],
    [{ name: "refs/heads/release" }, { kind: "branch", branch: "release" }, "refs/heads/release", "release"],
    [{ name: "refs/tags/v2.0.0" }, { kind: "tag", tag: "v2.0.0" }, "refs/tags/v2.0.0", "tag v2.0.0"],
    [{ name: "HEAD" }, { kind: "default" }, "refs/driftwatch/default-branch", "the default branch"],
  ])("%j follows with Flux's precedence (commit, name, semver, tag, branch)", (ref, parsed, qualified, words) => {
    const followed = followedRefOf(ref);
    expect(parseFollowedRef(followed)).toEqual(parsed);
    if (qualified) expect(qualifiedRef(followed)).toBe(qualified);
    // Every followed ref is a valid ref name for git (no spaces, ^, ~, *).
    expect(qualifiedRef(followed)).toMatch(/^refs\/[A-Za-z0-9._/-]+$/);
    expect(describeFollowedRef(followed)).toBe(words);
  });
});
