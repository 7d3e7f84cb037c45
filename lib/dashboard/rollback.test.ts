import { describe, expect, it } from "vitest";
import { CommitGraph } from "@/lib/lineage/graph";
import { rollbackGuidance, type AppliedRow } from "./rollback";
import type { CommitInfo, RepoHistory } from "./revisions";

// main: e (the estate) ← a (api) ← c (cart) ← w (api and web together); r was rewritten away.
const sha = (c: string) => c.repeat(40);
const commits: Array<Pick<CommitInfo, "sha" | "parents" | "changedPaths" | "message">> = [
  { sha: sha("e"), parents: [], changedPaths: ["apps/api/deploy.yaml", "apps/cart/deploy.yaml", "apps/web/deploy.yaml"], message: "estate" },
  { sha: sha("a"), parents: [sha("e")], changedPaths: ["apps/api/deploy.yaml"], message: "api: 2 replicas" },
  { sha: sha("c"), parents: [sha("a")], changedPaths: ["apps/cart/deploy.yaml"], message: "cart: 3 replicas" },
  { sha: sha("f"), parents: [sha("c")], changedPaths: ["apps/api/deploy.yaml", "apps/web/deploy.yaml"], message: "api and web: a label" },
  { sha: sha("d"), parents: [sha("c")], changedPaths: ["apps/api/deploy.yaml"], message: "rewritten" },
];
const history: RepoHistory = {
  repositoryId: "r",
  graph: new CommitGraph(commits),
  commits: new Map(commits.map((c) => [c.sha, { ...c, authorName: "Alice", authorEmail: "alice@example.com", committedAt: "2026-12-01T00:00:00.000Z" }])),
};
/** Applied newest first, as the pages load them. */
const applied = (...shas: string[]): AppliedRow[] => shas.map((s, i) => ({ sha: sha(s), source: "controller", firstSeenAt: new Date(Date.UTC(2026, 11, 10 - i)), endedAt: i === 0 ? null : new Date(Date.UTC(2026, 11, 11 - i)) }));

describe("rollbackGuidance", () => {
  it("an environment reverts the whole range back to each earlier applied revision", () => {
    const r = rollbackGuidance({ name: "production", path: "apps", approvedSha: sha("f"), appliedSha: sha("f") }, history, applied("f", "c", "a", "e"));
    expect(r.current?.message).toBe("api and web: a label");
    expect(r.targets.map((t) => [t.revision.message, t.revertCommand, t.commits])).toEqual([
      ["cart: 3 replicas", `git revert --no-edit ${sha("c")}..${sha("f")}`, 1],
      ["api: 2 replicas", `git revert --no-edit ${sha("a")}..${sha("f")}`, 2],
      ["estate", `git revert --no-edit ${sha("e")}..${sha("f")}`, 3],
    ]);
  });

  it("an application reverts only the commits that changed its path, once per distinct return, and lists no return that changes none of its files", () => {
    // The api's controller reported every head: c changed only the cart, so returning to c or to a undoes the same (f).
    const r = rollbackGuidance({ name: "api", path: "apps/api", approvedSha: sha("f"), appliedSha: sha("f") }, history, applied("f", "c", "a", "e"), { ownCommitsOnly: true });
    expect(r.targets.map((t) => [t.revision.message, t.revertCommand, t.commits, t.touchesOtherPaths])).toEqual([
      // f also changes the web's files: said, with the restore of the api's path only.
      ["cart: 3 replicas", `git revert --no-edit ${sha("c")}..${sha("f")}`, 1, 1],
      ["estate", `git revert --no-edit ${sha("f")} ${sha("a")}`, 2, 1],
    ]);
    expect(r.targets[1]?.restoreCommand).toBe(`git restore --source=${sha("e")} -- apps/api && git commit -m 'Roll back api to eeeeeee'`);
    // The cart's files changed once since the estate: returning before c reverts c alone, not the api's commits around it.
    const cart = rollbackGuidance({ name: "cart", path: "apps/cart", approvedSha: sha("c"), appliedSha: sha("f") }, history, applied("f", "c", "a", "e"), { ownCommitsOnly: true });
    expect(cart.targets.map((t) => [t.revision.message, t.revertCommand])).toEqual([["api: 2 replicas", `git revert --no-edit ${sha("a")}..${sha("c")}`]]);
  });

  it("a revision the current one does not contain (history rewritten) is restored, never reverted", () => {
    const r = rollbackGuidance({ name: "api", path: "apps/api", approvedSha: sha("f"), appliedSha: sha("f") }, history, applied("f", "d"), { ownCommitsOnly: true });
    expect(r.targets).toEqual([expect.objectContaining({ revision: expect.objectContaining({ message: "rewritten" }), revertCommand: null, commits: 0 })]);
  });

  it("nothing approved or applied yet: no guidance", () => {
    expect(rollbackGuidance({ name: "api", path: "apps/api", approvedSha: null, appliedSha: null }, history, applied("e"))).toEqual({ current: null, targets: [] });
  });
});
