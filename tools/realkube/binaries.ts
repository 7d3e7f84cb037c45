// The real Kubernetes-side programs the test suite runs, each built from its
// own small Go module beside this file. Each module pins one program, so one
// program's dependencies (k8s.io at v0.34 for kube-apiserver, v0.36/v0.37 for
// Helm and Flux) never force another's versions.
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export type BinaryName = "etcd" | "kube-apiserver" | "helm" | "source-controller" | "kustomize-controller" | "helm-controller";

interface Recipe {
  /** Folder under tools/realkube holding the module that pins it. */
  module: string;
  /** Package path handed to `go build`. */
  pkg: string;
  ldflags?: string;
}

// kube-apiserver reports its version to clients (kubectl's skew warning, the
// /version endpoint); the release build stamps it, so a module build must too.
const kubeVersion = "v1.34.4";
const kubeVersionFlags = [
  `-X k8s.io/component-base/version.gitVersion=${kubeVersion}`,
  "-X k8s.io/component-base/version.gitMajor=1",
  "-X k8s.io/component-base/version.gitMinor=34",
  "-X k8s.io/component-base/version.gitTreeState=clean",
].join(" ");

export const recipes: Record<BinaryName, Recipe> = {
  etcd: { module: "etcd", pkg: "." },
  "kube-apiserver": { module: "kube-apiserver", pkg: "k8s.io/kubernetes/cmd/kube-apiserver", ldflags: kubeVersionFlags },
  // Helm's release build stamps the full version too; without it `helm version` says "v4.3".
  helm: { module: "helm", pkg: "helm.sh/helm/v4/cmd/helm", ldflags: "-X helm.sh/helm/v4/internal/version.version=v4.3.2" },
  "source-controller": { module: "source-controller", pkg: "github.com/fluxcd/source-controller" },
  "kustomize-controller": { module: "kustomize-controller", pkg: "github.com/fluxcd/kustomize-controller" },
  "helm-controller": { module: "helm-controller", pkg: "github.com/fluxcd/helm-controller" },
};

export const binaryNames = Object.keys(recipes) as BinaryName[];

const modulesRoot = path.resolve(import.meta.dirname);

/** `$XDG_CACHE_HOME/driftwatch/realkube`, or `~/.cache/...` like the XDG default. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), ".cache");
  return path.join(base, "driftwatch", "realkube");
}

let goVersionMemo: string | undefined;
function goVersion(): string {
  if (goVersionMemo === undefined) {
    const r = spawnSync("go", ["env", "GOVERSION"], { encoding: "utf8" });
    if (r.error || r.status !== 0) throw new Error(`realkube: the Go toolchain is needed to build the real Kubernetes binaries and \`go env GOVERSION\` failed: ${r.error?.message ?? r.stderr}`);
    goVersionMemo = r.stdout.trim();
  }
  return goVersionMemo;
}

/**
 * The cache key: everything that decides the binary's bytes — the module's
 * go.mod, go.sum and wrapper sources, the package, the link flags and the Go
 * release. Changing a pin moves the binary to a new folder; nothing is reused
 * across versions by accident.
 */
export function recipeHash(name: BinaryName): string {
  const recipe = recipes[name];
  const dir = path.join(modulesRoot, recipe.module);
  const hash = createHash("sha256");
  hash.update(`${goVersion()}\n${recipe.pkg}\n${recipe.ldflags ?? ""}\n`);
  for (const file of fs.readdirSync(dir).filter((f) => /^go\.(mod|sum)$|\.go$/.test(f)).sort()) {
    hash.update(`${file}\n`);
    hash.update(fs.readFileSync(path.join(dir, file)));
  }
  return hash.digest("hex").slice(0, 16);
}

export function binaryPath(name: BinaryName, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheRoot(env), `${name}-${recipeHash(name)}`, "bin", name);
}

export function isBuilt(name: BinaryName): boolean {
  try {
    fs.accessSync(binaryPath(name), fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface BuildResult {
  name: BinaryName;
  path: string;
  /** null when the cached binary was reused. */
  seconds: number | null;
}

/**
 * Builds the binary into its cache folder unless it is already there. The
 * build writes beside the final name and renames, so an interrupted build
 * never leaves a half-written binary that a later run would trust.
 */
export function ensureBinary(name: BinaryName, log: (line: string) => void = () => {}): BuildResult {
  const target = binaryPath(name);
  if (isBuilt(name)) return { name, path: target, seconds: null };
  const recipe = recipes[name];
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const partial = `${target}.partial-${process.pid}`;
  const args = ["build", "-trimpath", "-mod=readonly", "-o", partial];
  if (recipe.ldflags) args.push(`-ldflags=${recipe.ldflags}`);
  args.push(recipe.pkg);
  log(`realkube: building ${name} (go ${args.join(" ")}) in tools/realkube/${recipe.module}`);
  const started = Date.now();
  const r = spawnSync("go", args, { cwd: path.join(modulesRoot, recipe.module), stdio: ["ignore", "inherit", "inherit"] });
  if (r.error || r.status !== 0) {
    fs.rmSync(partial, { force: true });
    throw new Error(`realkube: building ${name} failed (${r.error?.message ?? `go build exited ${r.status}`}); see Go's output above`);
  }
  fs.renameSync(partial, target);
  return { name, path: target, seconds: (Date.now() - started) / 1000 };
}
