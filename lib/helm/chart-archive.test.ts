// Unpacking a chart archive for kustomize: archives made by the real `tar`,
// one of them hostile in each way an archive can reach outside the folder
// it is unpacked into.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "@/lib/git/test-support/repo-fixture";
import { unpackChart } from "./chart-archive";

let work: string;
const tar = (archive: string, cwd: string, ...args: string[]) => execFileSync("tar", ["-czf", path.join(work, archive), ...args], { cwd });

beforeAll(() => {
  work = tempDir("chart-archive");
  const src = path.join(work, "src");
  mkdirSync(path.join(src, "web", "templates"), { recursive: true });
  writeFileSync(path.join(src, "web", "Chart.yaml"), "apiVersion: v2\nname: web\nversion: 1.0.0\n");
  writeFileSync(path.join(src, "web", "templates", "cm.yaml"), "kind: ConfigMap\n");
  tar("good.tgz", src, "web");
  symlinkSync("/etc/passwd", path.join(src, "web", "passwd"));
  tar("link.tgz", src, "web");
  rmSync(path.join(src, "web", "passwd"));
  mkdirSync(path.join(src, "a", "b"), { recursive: true });
  writeFileSync(path.join(src, "escape.txt"), "x\n");
  tar("climb.tgz", path.join(src, "a", "b"), "-P", "../../escape.txt");
  tar("other.tgz", src, "web", "escape.txt");
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("unpackChart", () => {
  it("writes the chart's files under <into>/<name>", async () => {
    const into = path.join(work, "out-good");
    expect((await unpackChart(path.join(work, "good.tgz"), "web", into)).sort()).toEqual(["web/Chart.yaml", "web/templates/cm.yaml"]);
    expect(readFileSync(path.join(into, "web", "templates", "cm.yaml"), "utf8")).toBe("kind: ConfigMap\n");
  });

  it.each([
    ["link.tgz", /"web\/passwd" is not a plain file or folder/],
    ["climb.tgz", /"\.\.\/\.\.\/escape\.txt" leaves the chart folder/],
    ["other.tgz", /"escape\.txt" is outside the chart's folder web\//],
  ])("refuses %s and writes nothing outside", async (archive, message) => {
    const into = path.join(work, `out-${archive}`);
    await expect(unpackChart(path.join(work, archive), "web", into)).rejects.toThrow(message);
    expect(existsSync(path.join(into, "web", "passwd"))).toBe(false);
    expect(existsSync(path.join(into, "..", "..", "escape.txt"))).toBe(false);
  });
});
