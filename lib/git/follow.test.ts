// Every kind of ref the controllers follow, resolved in a mirror of a real Git
// repository: lightweight and annotated tags, a semver range that moves when a
// new tag is pushed, a pinned commit, a ref name fetched by name, the remote's default branch.
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RepositoryConfig } from "@/lib/config/schema";
import { GitError } from "./errors";
import { followedRefOf } from "./followed-ref";
import { resolveFollowedRef } from "./follow";
import { parseSymrefHead, syncMirror } from "./mirror";
import { approvedRevision, isAncestor, listRevisions } from "./revisions";
import { TestRepo, configMap, tempDir } from "./test-support/repo-fixture";

describe("resolveFollowedRef", () => {
  let upstream: TestRepo;
  let mirrors: string;
  let repo: RepositoryConfig;
  const c: Record<string, string> = {};

  const resolve = async (ref: Parameters<typeof followedRefOf>[0]) => {
    const { mirrorPath, heads } = await syncMirror(repo, mirrors);
    const followed = followedRefOf(ref);
    return { followed, mirrorPath, ...(await resolveFollowedRef({ repo, mirrorsDir: mirrors, mirrorPath, heads }, followed)) };
  };

  beforeAll(() => {
    upstream = TestRepo.create("follow-upstream");
    upstream.write("apps/web/cm.yaml", configMap("web", { v: "1" }));
    c.one = upstream.commit("one", { date: "2026-01-01T00:00:00Z" });
    upstream.git("tag", "v1.0.0");
    upstream.write("apps/web/cm.yaml", configMap("web", { v: "2" }));
    c.two = upstream.commit("two", { date: "2026-01-02T00:00:00Z" });
    upstream.git("tag", "-a", "v1.1.0", "-m", "release 1.1.0");
    upstream.write("docs/readme.yaml", configMap("docs", { v: "1" }));
    c.three = upstream.commit("three: docs only", { date: "2026-01-03T00:00:00Z" });
    upstream.git("tag", "v2.0.0-rc.1");
    upstream.git("tag", "not-a-version");
    mirrors = tempDir("follow-mirrors");
    repo = { name: "follow", url: upstream.dir, auth: { type: "none" } };
  });

  afterAll(() => {
    upstream.cleanup();
    rmSync(mirrors, { recursive: true, force: true });
  });

  it("a lightweight tag and an annotated tag resolve to their commits (annotated ones peeled)", async () => {
    expect(await resolve({ tag: "v1.0.0" })).toMatchObject({ sha: c.one, resolvedRef: null });
    const annotated = await resolve({ tag: "v1.1.0" });
    expect(annotated).toMatchObject({ sha: c.two, resolvedRef: null });
    // Downstream reads the followed ref as it reads a branch.
    expect((await listRevisions(annotated.mirrorPath, annotated.followed)).map((r) => r.sha)).toEqual([c.two, c.one]);
    expect(await approvedRevision(annotated.mirrorPath, annotated.followed, "apps/web")).toBe(c.two);
  });

  it("a semver range takes the highest matching tag, and moves when a new matching tag is pushed", async () => {
    expect(await resolve({ semver: ">=1.0.0 <2.0.0" })).toMatchObject({ sha: c.two, resolvedRef: "refs/tags/v1.1.0" });
    // Pre-releases only when the range asks for them.
    expect(await resolve({ semver: ">=2.0.0-0" })).toMatchObject({ sha: c.three, resolvedRef: "refs/tags/v2.0.0-rc.1" });
    upstream.write("apps/web/cm.yaml", configMap("web", { v: "3" }));
    const four = upstream.commit("four", { date: "2026-01-04T00:00:00Z" });
    upstream.git("tag", "-a", "v1.2.0", "-m", "release 1.2.0");
    const moved = await resolve({ semver: ">=1.0.0 <2.0.0" });
    expect(moved).toMatchObject({ sha: four, resolvedRef: "refs/tags/v1.2.0" });
    expect(await approvedRevision(moved.mirrorPath, moved.followed, "apps/web")).toBe(four);
    expect(await isAncestor(moved.mirrorPath, c.two!, moved.followed)).toBe(true);
  });

  it("a range no tag matches, and a range that is not one, say so", async () => {
    await expect(resolve({ semver: ">=9" })).rejects.toThrow(/no tag of repository "follow" matches semver range ">=9"/);
    await expect(resolve({ semver: "banana" })).rejects.toThrow(/semver range "banana" is not valid/);
  });

  it("a pinned commit resolves to itself; one the repository lacks is named", async () => {
    const pinned = await resolve({ commit: c.one! });
    expect(pinned).toMatchObject({ sha: c.one, resolvedRef: null });
    expect(await approvedRevision(pinned.mirrorPath, pinned.followed, "apps/web")).toBe(c.one);
    const missing = "0123456789abcdef0123456789abcdef01234567";
    const err = await resolve({ commit: missing }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitError);
    expect((err as GitError).message).toMatch(/commit 0123456789abcdef0123456789abcdef01234567 not found in repository "follow"/);
    // A commit on no branch or tag is asked for by id (the local transport, like GitHub, allows it for reachable ones).
    upstream.git("checkout", "--quiet", "-b", "pr");
    const onPr = upstream.commit("on a pull request only", { date: "2026-01-06T00:00:00Z" });
    upstream.git("update-ref", "refs/pull/9/head", onPr);
    upstream.git("checkout", "--quiet", "main");
    upstream.git("branch", "--quiet", "-D", "pr");
    expect(await resolve({ commit: onPr })).toMatchObject({ sha: onPr });
  });

  it("a ref name outside branches and tags is fetched by name", async () => {
    upstream.git("update-ref", "refs/pull/7/head", c.three!);
    expect(await resolve({ name: "refs/pull/7/head" })).toMatchObject({ followed: "refs/driftwatch/named/pull/7/head", sha: c.three });
    await expect(resolve({ name: "refs/pull/8/head" })).rejects.toThrow(/refs\/pull\/8\/head/);
  });

  it("the default branch is what the remote's HEAD points at", async () => {
    const main = await resolve({ name: "HEAD" });
    expect(main).toMatchObject({ resolvedRef: "refs/heads/main", sha: upstream.head("main") });
    upstream.git("checkout", "--quiet", "-b", "trunk");
    const trunkTip = upstream.commit("on trunk", { date: "2026-01-05T00:00:00Z" });
    const trunk = await resolve({ name: "HEAD" });
    expect(trunk).toMatchObject({ resolvedRef: "refs/heads/trunk", sha: trunkTip });
    expect((await listRevisions(trunk.mirrorPath, trunk.followed))[0]?.sha).toBe(trunkTip);
    upstream.git("checkout", "--quiet", "main");
  });

  it("reads the default branch from ls-remote --symref", () => {
    expect(parseSymrefHead("ref: refs/heads/main\tHEAD\n4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39\tHEAD\n")).toBe("main");
    expect(parseSymrefHead("4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39\tHEAD\n")).toBeNull();
  });
});
