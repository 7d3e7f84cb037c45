// A push, seen by the plain render alone (issue 21): renderManifests of one
// application path of `--objects` objects in `--files` files at commit A
// (cold), then at B (a file beside the manifests changed: the path's tree
// moved, no manifest did) and at C (one manifest file changed). Rounds repeat
// B and C on new commits; the render cache (by tree) never hits, the parse
// cache (by blob) does for every unchanged file.
//
//   npx tsx bench/render-push.ts [--objects 100000] [--files 2] [--rounds 3]
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { syncMirror } from "../lib/git/mirror";
import { plainFilesParsed, renderManifests } from "../lib/git/render";
import { tempDir } from "../lib/git/test-support/repo-fixture";
import { benchObjects, newRepo, writeManifests } from "./support/fixtures";
import { loadAverage, median, numberArg, round, runIfMain } from "./support/stats";

export interface RenderPushResult {
  objects: number;
  files: number;
  coldMs: number;
  /** Medians over the rounds. */
  treeOnlyMs: number;
  oneFileMs: number;
  filesParsedPerOneFilePush: number;
  loadAverage: number;
}

export async function main(): Promise<RenderPushResult> {
  const objects = numberArg("objects", 100_000);
  const files = numberArg("files", 2);
  const rounds = numberArg("rounds", 3);
  const repo = newRepo("bench-render-push");
  const mirrors = tempDir("bench-render-push-mirrors");
  try {
    const set = benchObjects(objects, { namespaces: 2 });
    const a = writeManifests(repo, "envs/bench", set.desired, files);
    const source = { name: "render-push", url: repo.dir, auth: { type: "none" } } as const;
    const mirror = (await syncMirror(source, mirrors)).mirrorPath;
    const opts = { path: "envs/bench", mode: "plain", defaultNamespace: "bench-0" } as const;
    const timed = async (sha: string): Promise<number> => {
      const t = performance.now();
      const r = await renderManifests(mirror, sha, opts);
      if (r.cached || r.objects.length === 0) throw new Error("the render was served from the render cache or is empty");
      return performance.now() - t;
    };
    const commit = async (message: string): Promise<string> => {
      const sha = repo.commit(message);
      await syncMirror(source, mirrors);
      return sha;
    };
    const coldMs = await timed(a);
    const treeOnly: number[] = [];
    const oneFile: number[] = [];
    let parsed = 0;
    for (let i = 0; i < rounds; i++) {
      repo.write("envs/bench/README.md", `push ${i}\n`);
      treeOnly.push(await timed(await commit(`docs: push ${i}`)));
      const first = path.join(repo.dir, "envs/bench/part-0.yaml");
      repo.write("envs/bench/part-0.yaml", `${readFileSync(first, "utf8")}---\n${`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pushed-${i}\n`}`);
      const before = plainFilesParsed();
      oneFile.push(await timed(await commit(`one file: push ${i}`)));
      parsed = plainFilesParsed() - before;
    }
    const result = { objects, files, coldMs: round(coldMs), treeOnlyMs: round(median(treeOnly)), oneFileMs: round(median(oneFile)), filesParsedPerOneFilePush: parsed, loadAverage: loadAverage() };
    console.log(`render-push: ${objects} objects in ${files} files: cold ${result.coldMs} ms; tree moved, no manifest changed ${result.treeOnlyMs} ms; one file changed ${result.oneFileMs} ms (${parsed} file parsed); load ${result.loadAverage}`);
    return result;
  } finally {
    repo.cleanup();
    rmSync(mirrors, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, main);
