import { describe, expect, it } from "vitest";
import { autoWebProcesses, nodeFlagsWithoutLoader } from "./web";

describe("nodeFlagsWithoutLoader", () => {
  it("keeps Node.js flags and drops the TypeScript loader in every spelling", () => {
    expect(
      nodeFlagsWithoutLoader([
        "--require",
        "/app/node_modules/tsx/dist/preflight.cjs",
        "--import",
        "file:///app/node_modules/tsx/dist/loader.mjs",
        "--max-old-space-size=640",
        "--import=tsx",
        "--cpu-prof",
        "--cpu-prof-dir=/tmp/prof",
        "--require",
        "/app/instrument.cjs",
      ]),
    ).toEqual(["--max-old-space-size=640", "--cpu-prof", "--cpu-prof-dir=/tmp/prof", "--require", "/app/instrument.cjs"]);
  });
});

describe("autoWebProcesses", () => {
  it("leaves one CPU to the collector and Postgres, and runs 1 to 4 web processes", () => {
    expect([1, 2, 3, 4, 8, 64].map(autoWebProcesses)).toEqual([1, 1, 2, 3, 4, 4]);
  });
});
