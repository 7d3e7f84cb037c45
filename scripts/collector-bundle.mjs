// The collector's runtime: one esbuild bundle of its TypeScript, run by plain
// node. Plain JavaScript so that the process starting it loads no TypeScript
// loader. Under tsx a collector process carried ~75 MiB more resident memory
// than the same code bundled (at rest, Prisma connected: 275–309 against
// 203–220 MiB): tsx's loader hooks and what it keeps per module loaded. A
// fleet runs many collector processes, so that is paid per replica.
//
// Our own code (lib/, scripts/, the workspace packages, whose sources are
// TypeScript) goes into the bundle; every npm package stays an import resolved
// from node_modules, as under tsx, so nothing of theirs changes (Prisma's query
// compiler, client-node, pg). The bundle therefore lives inside the project
// (.build/), where those imports resolve.
//
//   node scripts/collector-bundle.mjs     builds .build/collector.mjs (npm run build runs it)
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build, stop } from "esbuild";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const BUILD_DIR = path.join(ROOT, ".build");
export const COLLECTOR_ENTRY = path.join(ROOT, "scripts", "collector-main.ts");

// The collector process's V8 heap limit. Its peak memory follows the heap
// limit more than its data: under Node's default limit (a quarter of the
// machine's memory or more) the garbage of a 100,000-object run piles up to
// gigabytes before V8 collects it, while what a run keeps alive is a few
// hundred MiB. `npm run collector` sets this limit unless the operator set one
// (`NODE_OPTIONS=--max-old-space-size=N`, or the flag itself); the collection
// bench measures the collector with the same default.
export const COLLECTOR_HEAP_MIB = 768;

const HEAP_FLAG = "--max-old-space-size";

/** Whether node was started with a heap limit of its own (Node takes the flag with dashes or underscores). */
export function heapLimitSet(execArgv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? "") {
  return [...execArgv, ...nodeOptions.split(/\s+/)]
    .map((a) => a.replace(/_/g, "-"))
    .some((a) => a.startsWith(`${HEAP_FLAG}=`) || a === HEAP_FLAG);
}

/** Bare imports that are not ours: left to node_modules. `@/…` (tsconfig paths) and the workspace packages are ours. */
const npmPackagesExternal = {
  name: "npm-packages-external",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith("@/") || args.path.startsWith("@driftwatch/") || args.path.startsWith("node:")) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/**
 * Bundles `entry` to `outfile` (with a source map beside it). Written to a
 * temporary file first and renamed, so a process starting at the same moment
 * never reads half a bundle. Returns the bundle's path.
 */
export async function bundleEntry(entry, outfile) {
  fs.mkdirSync(path.dirname(outfile), { recursive: true });
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: "linked",
    // Stack traces and class names in logs read as in the sources.
    keepNames: true,
    tsconfig: path.join(ROOT, "tsconfig.json"),
    plugins: [npmPackagesExternal],
    write: false,
    logLevel: "silent",
  }).finally(() => stop()); // esbuild's service process would otherwise live as long as the collector
  const tmpSuffix = `.${process.pid}.${Date.now()}.tmp`;
  for (const file of result.outputFiles) {
    fs.writeFileSync(file.path + tmpSuffix, file.contents);
    fs.renameSync(file.path + tmpSuffix, file.path);
  }
  return outfile;
}

function writable(dir) {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The collector's bundle, built from the sources now, so it never runs stale
 * code (esbuild takes a fraction of a second). Where the bundle's folder is
 * read-only (the image: its files belong to root, the process to `node`) the
 * bundle `npm run build` made is used, and said so with its build time: in
 * the image its sources cannot have moved; anywhere else the notice says how
 * old it is.
 */
export async function collectorBundle(outfile = path.join(BUILD_DIR, "collector.mjs"), bundle = bundleEntry, canWrite = writable) {
  const dir = path.dirname(outfile);
  if (fs.existsSync(outfile) && !canWrite(dir)) {
    console.error(`collector: ${path.relative(ROOT, dir) || dir} is read-only; running the bundle built ${fs.statSync(outfile).mtime.toISOString()}`);
    return outfile;
  }
  return bundle(COLLECTOR_ENTRY, outfile);
}

/**
 * Runs the collector's bundle: in this process when node already has a heap
 * limit, otherwise in a child started with the default one (signals passed on,
 * its exit code this process's).
 */
export async function runCollector(args = process.argv.slice(2)) {
  const bundle = await collectorBundle();
  if (heapLimitSet()) {
    process.setSourceMapsEnabled(true);
    await import(pathToFileURL(bundle).href);
    return;
  }
  // An IPC channel: the collector stops (finishing its run) when this process is gone, even by SIGKILL.
  const child = spawn(process.execPath, [...process.execArgv, "--enable-source-maps", `${HEAP_FLAG}=${COLLECTOR_HEAP_MIB}`, bundle, ...args], { stdio: ["inherit", "inherit", "inherit", "ipc"] });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  // A child killed by a signal (the OOM killer's SIGKILL, V8's abort on an exhausted heap) exits as a shell reports it: 128 + the signal.
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 0)));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(`built ${path.relative(ROOT, await collectorBundle())}`);
}
