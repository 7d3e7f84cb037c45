import { describe, expect, it } from "vitest";
import { argoTargetRevisionRef, followsOf } from "./refs";

describe("followsOf: what the application page says a source follows", () => {
  const SHA = "abc1234def5678901234567890abcdef01234567";
  it.each([
    [{ tag: "v1.2.3" }, null, "tag v1.2.3"],
    [{ semver: ">=1.0 <2" }, "refs/tags/v1.4.0", "semver >=1.0 <2 → v1.4.0"],
    [{ semver: ">=1.0 <2" }, null, "semver >=1.0 <2"],
    [{ commit: SHA, branch: "main" }, null, "commit abc1234"],
    [{ name: "HEAD" }, "refs/heads/main", "default branch (main)"],
    [argoTargetRevisionRef(""), "refs/heads/trunk", "default branch (trunk)"],
    [{ branch: "main" }, null, "branch main"],
    [{ name: "refs/pull/7/head" }, null, "ref refs/pull/7/head"],
    [{ name: "refs/tags/v2.0.0", tag: "v1" }, null, "tag v2.0.0"],
  ])("%j (resolved %s) → %s", (ref, resolved, text) => {
    expect(followsOf(ref, resolved).text).toBe(text);
  });

  it("keeps the ref as the controller names it beside what it resolved to", () => {
    expect(followsOf({ semver: "^1" }, "refs/tags/v1.5.0")).toEqual({ kind: "semver", ref: "^1", resolved: "v1.5.0", text: "semver ^1 → v1.5.0" });
  });
});
