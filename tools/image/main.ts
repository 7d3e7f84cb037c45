// `npm run image`: builds deploy/Dockerfile without Docker into an OCI image
// tar; `-- --verify` then runs it for real (chroot, uid 1000); `--verify-only`
// checks an image built before. Needs root (overlayfs, chroot), and runs in
// a mount namespace of its own so no mount outlives it.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { defaultCacheDir, ensureHostPackage } from "./bases";
import { buildImage } from "./build";
import { removeTree, sh } from "./chroot";
import { writeImage } from "./oci";
import { verifyImage } from "./verify";

const NS_MARK = "DRIFTWATCH_IMAGE_MOUNT_NS";
const repoRoot = path.resolve(import.meta.dirname, "..", "..");

const { values } = parseArgs({
  options: {
    verify: { type: "boolean", default: false },
    "verify-only": { type: "boolean", default: false },
    out: { type: "string" },
    tag: { type: "string", default: "driftwatch:latest" },
    "fresh-base": { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});

if (values.help) {
  console.log(`npm run image [-- options]   build deploy/Dockerfile without a container runtime
  --verify        then unpack the image and run it (helm, node, git, npm start + GET /api/health)
  --verify-only   verify an image built before (no build)
  --out FILE      the image tar (OCI layout + manifest.json; default ${path.join(defaultCacheDir(), "driftwatch-image.tar")})
  --tag NAME:TAG  its name for docker/podman load (default driftwatch:latest)
  --fresh-base    bootstrap Debian again instead of reusing the cached one`);
  process.exit(0);
}

if (process.getuid?.() !== 0) {
  console.error("npm run image needs root (overlayfs mounts and chroot, as a container runtime would).");
  process.exit(1);
}

if (process.env[NS_MARK] !== "1") {
  // Re-run this script in a private mount namespace: every mount the build makes dies with it.
  const r = spawnSync("unshare", ["--mount", "--propagation", "private", process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: "inherit",
    env: { ...process.env, [NS_MARK]: "1" },
  });
  process.exit(r.status ?? 1);
}

const log = (line: string) => console.log(line);
const cacheDir = defaultCacheDir();
const workDir = path.join(cacheDir, "work");
const outFile = path.resolve(values.out ?? path.join(cacheDir, "driftwatch-image.tar"));
const dockerfile = path.join(repoRoot, "deploy", "Dockerfile");

function mib(bytes: number): string {
  return `${(bytes / 1048576).toFixed(0)} MiB`;
}

async function main(): Promise<void> {
  if (!values["verify-only"]) {
    ensureHostPackage("getfattr", "attr", log);
    removeTree(workDir);
    fs.mkdirSync(workDir, { recursive: true });
    const started = Date.now();
    const image = await buildImage({ dockerfile, context: repoRoot, cacheDir, workDir, freshBase: values["fresh-base"], log });
    const built = Date.now();
    const unpacked = image.layers.reduce((sum, l) => sum + Number(sh(["du", "-sb", "--exclude=./proc", l.dir]).split("\t")[0]), 0);
    await writeImage(image, path.join(workDir, "oci"), outFile, values.tag, log);
    const seconds = (Date.now() - started) / 1000;
    log(`image: ${outFile}: ${image.layers.length} layers, ${mib(fs.statSync(outFile).size)} compressed, ${mib(unpacked)} unpacked; built in ${((built - started) / 1000).toFixed(0)} s, packed in ${((Date.now() - built) / 1000).toFixed(0)} s (${seconds.toFixed(0)} s in all)`);
    log(`image: load it with \`docker load -i ${outFile}\` (or podman load); it is tagged ${values.tag}`);
  }
  if (values.verify || values["verify-only"]) {
    if (!fs.existsSync(outFile)) throw new Error(`no image at ${outFile}; build it first (npm run image)`);
    await verifyImage({ imageTar: outFile, dockerfile, configFile: path.join(repoRoot, "deploy", "base", "driftwatch.yaml"), workDir: path.join(cacheDir, "verify"), log });
  }
  removeTree(workDir);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
