// `npm start` serves the production build; it builds first when there is no
// build or the sources are newer than it, so a fresh clone needs one command.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { inheritedEnvironment } from "@/lib/env";

const SOURCE_DIRS = ["app", "components", "lib", "next.config.js", "package-lock.json", "postcss.config.mjs"];

function newestMtime(p: string): number {
  if (!fs.existsSync(p)) return 0;
  const stat = fs.statSync(p);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(p, { withFileTypes: true })) {
    if (entry.name === "generated" || entry.name === "node_modules" || entry.name.endsWith(".test.ts")) continue;
    newest = Math.max(newest, newestMtime(path.join(p, entry.name)));
  }
  return newest;
}

export function buildIsCurrent(root: string): boolean {
  const buildId = path.join(root, ".next", "BUILD_ID");
  if (!fs.existsSync(buildId)) return false;
  const built = fs.statSync(buildId).mtimeMs;
  return SOURCE_DIRS.every((d) => newestMtime(path.join(root, d)) <= built);
}

export function ensureProductionBuild(root: string, log: (msg: string) => void): void {
  if (buildIsCurrent(root)) return;
  log("Building the dashboard (first start or sources changed; about 30 s)…");
  const result = spawnSync("npx", ["next", "build"], { cwd: root, stdio: "inherit", env: { ...inheritedEnvironment(), NEXT_TELEMETRY_DISABLED: "1" } });
  if (result.status !== 0) throw new Error("next build failed; see the output above");
}

/** The same, without blocking: the demo builds while it plays its history. */
export function ensureProductionBuildAsync(root: string, log: (msg: string) => void): Promise<void> {
  if (buildIsCurrent(root)) return Promise.resolve();
  log("Building the dashboard in the background (first start or sources changed)…");
  return new Promise((resolve, reject) => {
    const child = spawn("npx", ["next", "build"], { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...inheritedEnvironment(), NEXT_TELEMETRY_DISABLED: "1" } });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`next build failed:\n${output.slice(-4000)}`))));
  });
}
