import { rmSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { gitProcessCounts, resetGitProcessCounts } from "./exec";
import { approvedRevisionAt, firstParentHistory, isAncestorAt, resetHistoryIndexes } from "./history-index";
import { syncMirror } from "./mirror";
import { approvedRevisionFrom, isAncestor } from "./revisions";
import { TestRepo, configMap, tempDir } from "./test-support/repo-fixture";

// A history with what makes first-parent path questions tricky:
//   c1  root: apps/web, apps/api, base/common.yaml, README.md
//   c2  apps/web changed
//   f1  (feature, from c2) apps/api changed      f2  (feature) apps/webby added (a sibling whose name starts like apps/web)
//   c3  base/common.yaml changed (an input of apps/web, outside its path)
//   m1  merge feature: apps/api and apps/webby differ from the FIRST parent (but equal the second)
//   c4  apps/web renamed to apps/site (a delete of apps/web + an add of apps/site)
//   c5  nothing (an empty commit)
//   c6  README.md
//   c7  apps/api deleted
describe("first-parent history index", () => {
  let repo: TestRepo;
  let mirrors: string;
  let mirror: string;
  const sha: Record<string, string> = {};
  const repoConfig = () => ({ name: "history", url: repo.dir, auth: { type: "none" as const } });

  beforeAll(async () => {
    repo = TestRepo.create("history");
    mirrors = tempDir("history-mirrors");
    repo.write("apps/web/app.yaml", configMap("web", { v: "1" })).write("apps/api/app.yaml", configMap("api", { v: "1" }));
    repo.write("base/common.yaml", configMap("common", { v: "1" })).write("README.md", "hello\n");
    sha.c1 = repo.commit("c1", { date: "2024-01-01T10:00:00Z" });
    repo.write("apps/web/app.yaml", configMap("web", { v: "2" }));
    sha.c2 = repo.commit("c2", { date: "2024-01-02T10:00:00Z" });
    repo.git("checkout", "--quiet", "-b", "feature");
    repo.write("apps/api/app.yaml", configMap("api", { v: "2" }));
    sha.f1 = repo.commit("f1", { date: "2024-01-03T10:00:00Z" });
    repo.write("apps/webby/app.yaml", configMap("webby", { v: "1" }));
    sha.f2 = repo.commit("f2", { date: "2024-01-04T10:00:00Z" });
    repo.git("checkout", "--quiet", "main");
    repo.write("base/common.yaml", configMap("common", { v: "2" }));
    sha.c3 = repo.commit("c3", { date: "2024-01-05T10:00:00Z" });
    sha.m1 = repo.merge("feature", "m1", { date: "2024-01-06T10:00:00Z" });
    repo.git("mv", "apps/web", "apps/site");
    sha.c4 = repo.commit("c4", { date: "2024-01-07T10:00:00Z" });
    sha.c5 = repo.commit("c5", { date: "2024-01-08T10:00:00Z" });
    repo.write("README.md", "bye\n");
    sha.c6 = repo.commit("c6", { date: "2024-01-09T10:00:00Z" });
    repo.remove("apps/api");
    sha.c7 = repo.commit("c7", { date: "2024-01-10T10:00:00Z" });
    mirror = (await syncMirror(repoConfig(), mirrors)).mirrorPath;
  });

  beforeEach(() => resetHistoryIndexes());

  afterAll(() => {
    repo.cleanup();
    rmSync(mirrors, { recursive: true, force: true });
  });

  const questions: Array<[string, string[]]> = [
    ["apps/web", []],
    ["apps/web/", []],
    ["./apps/web", []],
    ["apps/web", ["base/common.yaml"]],
    ["apps/web", ["base"]],
    ["apps/web", ["apps/web/app.yaml", "README.md"]],
    ["apps/webby", []],
    ["apps/api", []],
    ["apps/api/app.yaml", []],
    ["apps/site", []],
    ["apps", []],
    ["base", []],
    ["README.md", []],
    ["", []],
    [".", ["base/common.yaml"]],
    ["nowhere", []],
    ["nowhere", ["base/common.yaml"]],
    ["apps/we", []],
  ];

  it("gives every approved revision git log -1 --first-parent gives, at every tip of the line", async () => {
    for (const tip of [sha.c1, sha.c2, sha.c3, sha.m1, sha.c4, sha.c5, sha.c6, sha.c7] as string[]) {
      const history = await firstParentHistory(mirror, "main", tip);
      for (const [path, inputs] of questions) {
        const fromGit = await approvedRevisionFrom(mirror, tip, path, inputs);
        expect({ tip, path, inputs, sha: history.approved(path, inputs) }).toEqual({ tip, path, inputs, sha: fromGit });
      }
    }
  });

  it("counts a merge as touching what it changes against its first parent", async () => {
    const history = await firstParentHistory(mirror, "main", sha.c7!);
    expect(history.approved("apps/webby")).toBe(sha.m1);
    // The rename is a delete of the old path and an add of the new one.
    expect(history.approved("apps/web")).toBe(sha.c4);
    expect(history.approved("apps/site")).toBe(sha.c4);
    expect(history.approved("apps/api")).toBe(sha.c7);
    expect(history.approved("")).toBe(sha.c7);
  });

  it("answers ancestry on the first-parent line as git does, and asks git about side-branch commits", async () => {
    const all = Object.values(sha);
    for (const a of all) {
      for (const d of all) {
        expect({ a, d, is: await isAncestorAt(mirror, "main", sha.c7!, a, d) }).toEqual({ a, d, is: await isAncestor(mirror, a, d) });
      }
    }
    const history = await firstParentHistory(mirror, "main", sha.c7!);
    expect(history.isAncestor(sha.f1!, sha.c7!)).toBeUndefined();
    expect(history.isAncestor(sha.c2!, sha.m1!)).toBe(true);
    expect(history.isAncestor(sha.m1!, sha.c2!)).toBe(false);
  });

  it("lists the recent commits touching a path or its inputs, newest first", async () => {
    const history = await firstParentHistory(mirror, "main", sha.c7!);
    expect(history.recentTouching("apps/web", ["base/common.yaml"], { window: 200, depth: 5 })).toEqual([sha.c4, sha.c3, sha.c2, sha.c1]);
    expect(history.recentTouching("apps/web", ["base/common.yaml"], { window: 200, depth: 2, except: sha.c4 })).toEqual([sha.c3, sha.c2]);
    expect(history.recentTouching("apps/web", [], { window: 3, depth: 5 })).toEqual([]);
    expect(history.touchedAfter(sha.m1!, "apps/site")).toBe(true);
    expect(history.touchedAfter(sha.c4!, "apps/site")).toBe(false);
    expect(history.touchedAfter(sha.f1!, "apps/site")).toBeUndefined();
  });

  it("walks once for every question of every application at one tip", async () => {
    resetGitProcessCounts();
    await Promise.all(questions.map(([path, inputs]) => approvedRevisionAt(mirror, "main", sha.c7!, path, inputs)));
    await Promise.all([isAncestorAt(mirror, "main", sha.c7!, sha.c2!, sha.c7!), isAncestorAt(mirror, "main", sha.c7!, sha.m1!, sha.c6!)]);
    expect(gitProcessCounts()).toEqual({ total: 1, bySubcommand: { log: 1 } });
  });

  it("falls back to git for an answer older than the walk's cap", async () => {
    resetHistoryIndexes({ limit: 3 });
    const history = await firstParentHistory(mirror, "main", sha.c7!);
    expect(history.length).toBe(3);
    expect(history.approved("apps/web")).toBeUndefined();
    expect(history.approved("README.md")).toBe(sha.c6);
    for (const [path, inputs] of questions) {
      expect(await approvedRevisionAt(mirror, "main", sha.c7!, path, inputs)).toBe(await approvedRevisionFrom(mirror, sha.c7!, path, inputs));
    }
  });

  it("extends the index on a fast-forward by walking the new commits only, and walks again after a force-push", async () => {
    const older = sha.c6!;
    await firstParentHistory(mirror, "main", older);
    resetGitProcessCounts();
    const forward = await firstParentHistory(mirror, "main", sha.c7!);
    expect(forward.length).toBe(8);
    expect(forward.approved("apps/api")).toBe(sha.c7);
    expect(forward.approved("apps/webby")).toBe(sha.m1);
    expect(gitProcessCounts().bySubcommand).toEqual({ log: 1 });

    // History rewritten: c7 replaced by another commit on top of c6.
    const rewritten = TestRepo.create("history-rewritten");
    try {
      rewritten.git("fetch", "--quiet", repo.dir, "main");
      rewritten.git("reset", "--quiet", "--hard", sha.c6!);
      rewritten.write("apps/site/extra.yaml", configMap("extra", { v: "1" }));
      const other = rewritten.commit("c7 rewritten", { date: "2024-01-11T10:00:00Z" });
      const { mirrorPath } = await syncMirror({ name: "history", url: rewritten.dir, auth: { type: "none" } }, mirrors);
      expect(mirrorPath).toBe(mirror);
      // The old tip c7 is not on the new line: the index answers for the new history, not the old one.
      const history = await firstParentHistory(mirror, "main", other);
      expect(history.approved("apps/api")).toBe(sha.m1);
      expect(history.approved("apps/site")).toBe(other);
      expect(await approvedRevisionFrom(mirror, other, "apps/api")).toBe(sha.m1);
    } finally {
      rewritten.cleanup();
      // Back to the original history for the other tests.
      await syncMirror(repoConfig(), mirrors);
    }
  });
});
