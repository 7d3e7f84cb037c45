// Bench scripts in child node processes: how node runs them (under tsx, or
// bundled as the collector runs) and the JSON answer of one that prints it.
// Apart from stats.ts, which the bundled children import: this module builds
// bundles (scripts/collector-bundle.mjs), which a bundle must not contain.
import { spawn } from "node:child_process";
import path from "node:path";
import { BUILD_DIR, bundleEntry } from "../../scripts/collector-bundle.mjs";

/**
 * How node runs a bench script: under tsx, or, `bundled`, as `npm run collector`
 * runs the collector (scripts/collector-bundle.mjs: bundled, plain node, source
 * maps on). A process whose memory is compared with the collector's runs the
 * way the collector does, so neither carries tsx's ~75 MiB the other does not.
 */
export async function nodeArgsFor(script: string, bundled: boolean): Promise<string[]> {
  if (!bundled) return ["--import", "tsx", script];
  const out = path.join(BUILD_DIR, "bench", path.basename(script).replace(/\.ts$/, ".mjs"));
  return ["--enable-source-maps", await bundleEntry(script, out)];
}

/** Runs a script in a child node process (extra node flags first; `bundled`: see nodeArgsFor); its last stdout line that parses as JSON is the answer. */
export async function runChildJson<T>(script: string, args: string[], nodeFlags: string[] = [], opts: { bundled?: boolean } = {}): Promise<T> {
  const scriptArgs = await nodeArgsFor(script, opts.bundled ?? false);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, ...scriptArgs, ...args], { stdio: ["ignore", "pipe", "inherit"], env: process.env });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      const line = out.trim().split("\n").reverse().find((l) => l.startsWith("{"));
      if (code === 0 && line) {
        try {
          resolve(JSON.parse(line) as T);
          return;
        } catch {
          // reported below
        }
      }
      reject(new Error(`${path.basename(script)} ${args.join(" ")} ended with ${signal ?? `code ${code}`}${line ? "" : " and no result"}`));
    });
  });
}
