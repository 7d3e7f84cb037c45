// The per-process caches stay within their budget when one process serves
// many environments: the least recently used environment's render and rows
// go first, and a run of it simply renders and reads again.
import { afterEach, describe, expect, it } from "vitest";
import { memoGit, memoRender, memoRenderRevisions, RENDERED_REVISIONS, rememberedRows, rememberRows, resetRunMemo } from "./run-memo";
import type { CurrentRow } from "./store";

const render = (n: number) => ({ objects: Array.from({ length: n }, (_, i) => ({ i })) });
const rows = (n: number) => new Map(Array.from({ length: n }, (_, i) => [`k${i}`, {} as CurrentRow]));
const settled = () => new Promise((r) => setTimeout(r, 0));

afterEach(() => resetRunMemo());

describe("run memo bounds", () => {
  it("counts a git answer by the documents it says it holds, not as one: large answers leave the budget as their size says", async () => {
    resetRunMemo({ objects: 100 });
    let asked = 0;
    const historiesAt = (tip: string) => memoGit(["mirror", "histories", tip], async () => (asked++, tip), () => 45);
    await historiesAt("t1");
    await historiesAt("t2");
    await settled();
    await historiesAt("t3"); // 135 > 100: t1, the least recently asked, goes
    await settled();
    expect(asked).toBe(3);
    await historiesAt("t3");
    await historiesAt("t2");
    expect(asked).toBe(3);
    await historiesAt("t1");
    expect(asked).toBe(4);
  });

  it("keeps renders within the object budget, evicting the least recently used environment", async () => {
    resetRunMemo({ objects: 100 });
    let renders = 0;
    const renderOf = (env: string, n: number) => memoRender(env, [env, "sha"], async () => (renders++, render(n)));
    await renderOf("a", 40);
    await renderOf("b", 40);
    await settled();
    await renderOf("a", 40); // a is now the most recent
    await renderOf("c", 40); // 120 > 100: b goes
    await settled();
    expect(renders).toBe(3);
    await renderOf("a", 40);
    await renderOf("c", 40);
    expect(renders).toBe(3);
    await renderOf("b", 40);
    expect(renders).toBe(4);
  });

  it("keeps one application's renders at several revisions, at most RENDERED_REVISIONS of them, the least recently asked dropped", async () => {
    resetRunMemo({ objects: 1_000 });
    let renders = 0;
    const renderAt = (sha: string) => memoRenderRevisions("root", sha, ["settings"], async () => (renders++, render(2)));
    const shas = Array.from({ length: RENDERED_REVISIONS + 1 }, (_, i) => `sha${i}`);
    for (const sha of shas.slice(0, RENDERED_REVISIONS)) await renderAt(sha);
    // Asked again in turns, as children lagging at each revision ask on every run: nothing renders again.
    for (const sha of [...shas.slice(0, RENDERED_REVISIONS)].reverse()) await renderAt(sha);
    expect(renders).toBe(RENDERED_REVISIONS);
    // One revision more: the least recently asked (the first of the turn just asked in reverse, sha7) goes.
    await renderAt(shas[RENDERED_REVISIONS]!);
    await renderAt(shas[0]!);
    expect(renders).toBe(RENDERED_REVISIONS + 1);
    await renderAt(shas[RENDERED_REVISIONS - 1]!);
    expect(renders).toBe(RENDERED_REVISIONS + 2);
  });

  it("does not keep a render larger than the whole budget", async () => {
    resetRunMemo({ objects: 100 });
    let renders = 0;
    await memoRender("big", ["big"], async () => (renders++, render(150)));
    await settled();
    await memoRender("big", ["big"], async () => (renders++, render(150)));
    expect(renders).toBe(2);
  });

  it("keeps current rows within twice the budget (desired + live)", () => {
    resetRunMemo({ objects: 100 });
    rememberRows("e1", { runId: 1, live: rows(60), desired: rows(60), rollout: "{}", controller: "{}", applications: { registered: new Map(), summaries: new Map() } });
    rememberRows("e2", { runId: 2, live: rows(60), desired: rows(60), rollout: "{}", controller: "{}", applications: { registered: new Map(), summaries: new Map() } });
    expect(rememberedRows("e1", 1)).toBeNull();
    expect(rememberedRows("e2", 2)?.live.size).toBe(60);
  });

  it("counts git answers by the entries they hold", async () => {
    resetRunMemo({ objects: 10 });
    let asked = 0;
    const revisions = (tip: string) => memoGit(["recent", tip], async () => (asked++, Array.from({ length: 6 }, (_, i) => `${tip}-${i}`)));
    await revisions("t1");
    await settled();
    await revisions("t2"); // 12 > 10: t1 goes
    await settled();
    await revisions("t2");
    expect(asked).toBe(2);
    await revisions("t1");
    expect(asked).toBe(3);
  });
});
