import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TestRepo } from "./test-support/repo-fixture";
import { readBlobs } from "./blob-reader";

const repo = TestRepo.create("blob-reader");
afterAll(() => repo.cleanup());

async function read(names: string[]) {
  const out: Array<{ oid: string; text: string | null }> = [];
  for await (const b of readBlobs(path.join(repo.dir, ".git"), names)) out.push({ oid: b.oid, text: b.content?.toString("utf8") ?? null });
  return out;
}

describe("readBlobs", () => {
  it("answers each name in order, a missing one as null — also a commit's file whose path has spaces", async () => {
    repo.write("apps/shop api.yaml", "kind: Application\n");
    const sha = repo.commit("a file with a space in its name");
    expect(await read([`${sha}:apps/shop api.yaml`, `${sha}~1:apps/shop api.yaml`, `${sha}:apps/gone.yaml`, `${sha}:apps/shop api.yaml`])).toEqual([
      { oid: expect.stringMatching(/^[0-9a-f]{40}$/), text: "kind: Application\n" },
      { oid: `${sha}~1:apps/shop api.yaml`, text: null },
      { oid: `${sha}:apps/gone.yaml`, text: null },
      { oid: expect.stringMatching(/^[0-9a-f]{40}$/), text: "kind: Application\n" },
    ]);
  });
});
