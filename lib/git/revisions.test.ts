import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GitError } from "./errors";
import { syncMirror } from "./mirror";
import { approvedRevision, isAncestor, listRevisions, treeHash } from "./revisions";
import { ALICE, BOB, CAROL, TestRepo, configMap, tempDir } from "./test-support/repo-fixture";

// History (dates are back-dated, so order is by them, not by when the test ran):
//   c1 Alice  01-01  staging + prod + README
//   c2 Bob    01-02  staging
//   c3 Carol  01-03  README
//   f1 Bob    01-04  prod            (on branch "feature", from c3)
//   c4 Alice  01-05  staging
//   m  Carol  01-06  merge feature → main (brings prod)
//   c5 Bob    01-07  README
describe("revisions", () => {
  let repo: TestRepo;
  let mirrors: string;
  let mirror: string;
  const sha: Record<string, string> = {};

  beforeAll(async () => {
    repo = TestRepo.create("revisions");
    mirrors = tempDir("mirrors");
    repo.write("envs/staging/app.yaml", configMap("app", { v: "1" })).write("envs/prod/app.yaml", configMap("app", { v: "1" }));
    repo.write("README.md", "hello\n");
    sha.c1 = repo.commit("Initial environments\n\nstaging and prod", { author: ALICE, date: "2024-01-01T10:00:00Z" });
    repo.write("envs/staging/app.yaml", configMap("app", { v: "2" }));
    sha.c2 = repo.commit("staging: v2", { author: BOB, date: "2024-01-02T10:00:00Z" });
    repo.write("README.md", "hello again\n");
    sha.c3 = repo.commit("docs", { author: CAROL, committer: ALICE, date: "2024-01-03T10:00:00Z" });
    repo.git("checkout", "--quiet", "-b", "feature");
    repo.write("envs/prod/app.yaml", configMap("app", { v: "2" }));
    sha.f1 = repo.commit("prod: v2", { author: BOB, date: "2024-01-04T10:00:00Z" });
    repo.git("checkout", "--quiet", "main");
    repo.write("envs/staging/app.yaml", configMap("app", { v: "3" }));
    sha.c4 = repo.commit("staging: v3", { author: ALICE, date: "2024-01-05T10:00:00Z" });
    sha.m = repo.merge("feature", "Merge feature: promote v2 to prod", { author: CAROL, date: "2024-01-06T10:00:00Z" });
    repo.write("README.md", "bye\n");
    sha.c5 = repo.commit("docs again", { author: BOB, date: "2024-01-07T10:00:00Z" });
    mirror = (await syncMirror({ name: "revs", url: repo.dir, auth: { type: "none" } }, mirrors)).mirrorPath;
  });

  afterAll(() => {
    repo.cleanup();
    rmSync(mirrors, { recursive: true, force: true });
  });

  it("lists the branch's commits newest first with authors, committers, dates and changed paths", async () => {
    const revs = await listRevisions(mirror, "main");
    expect(revs.map((r) => r.sha)).toEqual([sha.c5, sha.m, sha.c4, sha.f1, sha.c3, sha.c2, sha.c1]);
    const c3 = revs.find((r) => r.sha === sha.c3)!;
    expect(c3).toMatchObject({
      authorName: CAROL.name,
      authorEmail: CAROL.email,
      committerName: ALICE.name,
      committerEmail: ALICE.email,
      message: "docs",
      changedPaths: ["README.md"],
      parents: [sha.c2],
    });
    expect(c3.authoredAt.toISOString()).toBe("2024-01-03T10:00:00.000Z");
    expect(c3.committedAt.toISOString()).toBe("2024-01-03T10:00:00.000Z");
    const c1 = revs.at(-1)!;
    expect(c1.parents).toEqual([]);
    expect(c1.message).toBe("Initial environments\n\nstaging and prod");
    expect(c1.changedPaths.sort()).toEqual(["README.md", "envs/prod/app.yaml", "envs/staging/app.yaml"]);
  });

  it("gives a merge its changes against the first parent", async () => {
    const m = (await listRevisions(mirror, "main")).find((r) => r.sha === sha.m)!;
    expect(m.parents).toEqual([sha.c4, sha.f1]);
    expect(m.changedPaths).toEqual(["envs/prod/app.yaml"]);
  });

  it("returns only new commits on the second call (incremental ingestion)", async () => {
    const first = await listRevisions(mirror, "main");
    const known = new Set(first.map((r) => r.sha));
    expect(await listRevisions(mirror, "main", { known })).toEqual([]);

    const extra = TestRepo.create("revisions-incr");
    try {
      extra.git("fetch", "--quiet", repo.dir, "main");
      extra.git("reset", "--quiet", "--hard", "FETCH_HEAD");
      extra.write("envs/prod/app.yaml", configMap("app", { v: "3" }));
      const c6 = extra.commit("prod: v3", { author: ALICE, date: "2024-01-08T10:00:00Z" });
      const c7 = extra.commit("empty", { author: BOB, date: "2024-01-09T10:00:00Z" });
      const m2 = (await syncMirror({ name: "revs-incr", url: extra.dir, auth: { type: "none" } }, mirrors)).mirrorPath;
      const next = await listRevisions(m2, "main", { known });
      expect(next.map((r) => r.sha)).toEqual([c7, c6]);
      expect(next[1]!.changedPaths).toEqual(["envs/prod/app.yaml"]);
    } finally {
      extra.cleanup();
    }
  });

  it("honours a limit and ignores known commits the mirror never had", async () => {
    const revs = await listRevisions(mirror, "main", { limit: 2, known: new Set(["0123456789abcdef0123456789abcdef01234567"]) });
    expect(revs.map((r) => r.sha)).toEqual([sha.c5, sha.m]);
  });

  it("finds the approved revision per environment path", async () => {
    expect(await approvedRevision(mirror, "main", "envs/staging")).toBe(sha.c4);
    // prod changed on the feature branch; on main that change landed with the merge.
    expect(await approvedRevision(mirror, "main", "envs/prod")).toBe(sha.m);
    expect(await approvedRevision(mirror, "main", "./envs/prod/")).toBe(sha.m);
    expect(await approvedRevision(mirror, "feature", "envs/prod")).toBe(sha.f1);
    expect(await approvedRevision(mirror, "main", ".")).toBe(sha.c5);
    expect(await approvedRevision(mirror, "main", "envs/nowhere")).toBeNull();
  });

  it("counts a commit to any render input outside the path as approving it", async () => {
    // staging's render reading README.md (as an overlay reads ../../bases): the README-only c5 is approved.
    expect(await approvedRevision(mirror, "main", "envs/staging", ["README.md"])).toBe(sha.c5);
    // An input changed last by the merge's first-parent line: the merge, as for the path itself.
    expect(await approvedRevision(mirror, "main", "envs/staging", ["envs/prod/app.yaml"])).toBe(sha.m);
    // Inputs inside the path, and a file no commit touches, change nothing.
    expect(await approvedRevision(mirror, "main", "envs/staging", ["envs/staging/app.yaml", "nowhere.yaml"])).toBe(sha.c4);
    // Paths are literal, and thousands of them still fit (they go on stdin).
    const many = Array.from({ length: 5000 }, (_, i) => `unrelated/${"x".repeat(40)}-${i}.yaml`);
    expect(await approvedRevision(mirror, "main", "envs/staging", [...many, "*"])).toBe(sha.c4);
    expect(await approvedRevision(mirror, "main", "envs/staging", [...many, "README.md"])).toBe(sha.c5);
  });

  it("answers ancestry", async () => {
    expect(await isAncestor(mirror, sha.c1!, sha.c5!)).toBe(true);
    expect(await isAncestor(mirror, sha.f1!, sha.m!)).toBe(true);
    expect(await isAncestor(mirror, sha.c5!, sha.c1!)).toBe(false);
    expect(await isAncestor(mirror, sha.f1!, sha.c4!)).toBe(false);
    await expect(isAncestor(mirror, "deadbeef".repeat(5), sha.c1!)).rejects.toMatchObject({ category: "git-missing-ref" });
  });

  it("gives a path's tree hash, unchanged by commits elsewhere", async () => {
    const prodAtM = await treeHash(mirror, sha.m!, "envs/prod");
    expect(prodAtM).toMatch(/^[0-9a-f]{40}$/);
    expect(await treeHash(mirror, sha.c5!, "envs/prod")).toBe(prodAtM);
    expect(await treeHash(mirror, sha.c4!, "envs/prod")).not.toBe(prodAtM);
    expect(await treeHash(mirror, sha.c5!, "envs/nowhere")).toBeNull();
    expect(await treeHash(mirror, sha.c5!, ".")).toBe(repo.git("rev-parse", `${sha.c5}^{tree}`).trim());
  });

  it("reports unknown branches and revisions as git-missing-ref", async () => {
    const err = await listRevisions(mirror, "nope").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitError);
    expect(err).toMatchObject({ category: "git-missing-ref", message: expect.stringContaining('"nope"') });
    await expect(approvedRevision(mirror, "nope", "envs/prod")).rejects.toMatchObject({ category: "git-missing-ref" });
    await expect(treeHash(mirror, "0".repeat(40), "envs/prod")).rejects.toMatchObject({ category: "git-missing-ref" });
  });

  it("says the mirror is missing instead of crashing when it was never synced", async () => {
    const gone = `${mirrors}/never-synced.git`;
    await expect(listRevisions(gone, "main")).rejects.toMatchObject({ category: "git-fetch", message: expect.stringContaining("does not exist") });
    await expect(isAncestor(gone, sha.c1!, sha.c5!)).rejects.toBeInstanceOf(GitError);
  });

  it("refuses paths that climb out of the repository", async () => {
    await expect(treeHash(mirror, sha.c5!, "../etc")).rejects.toMatchObject({ category: "render" });
  });
});
