// Stand-ins for the base images deploy/Dockerfile names, made from what this
// machine can reach (Docker Hub cannot be): Debian's own packages through
// mmdebstrap, the Node.js binary the machine runs, the Go toolchain it has.
// Each stand-in refuses a tag it cannot honour (another Node major, another
// Go release) rather than building something else under that name.
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { removeTree, sh } from "./chroot";

export interface ImageConfig {
  Env: string[];
  User?: string;
  WorkingDir?: string;
  Entrypoint?: string[] | null;
  Cmd?: string[] | null;
  ExposedPorts?: Record<string, Record<string, never>>;
  Labels?: Record<string, string>;
}

export interface Layer {
  /** A folder holding the layer's files; deletions as overlayfs whiteouts until export. */
  dir: string;
  createdBy: string;
}

/** Host folders mounted into build steps of a stage (toolchains, caches); never part of a layer. */
export interface Bind {
  host: string;
  target: string;
  readOnly: boolean;
  /** A single file rather than a folder. */
  file?: boolean;
}

export interface BaseImage {
  ref: string;
  layers: Layer[];
  config: ImageConfig;
  binds: Bind[];
}

export interface BaseContext {
  cacheDir: string;
  workDir: string;
  log: (line: string) => void;
}

const DEFAULT_PATH = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
const DEBIAN_MIRRORS = (suite: string) => [
  `deb http://deb.debian.org/debian ${suite} main`,
  `deb http://deb.debian.org/debian ${suite}-updates main`,
  `deb http://deb.debian.org/debian-security ${suite}-security main`,
];
// What debian:<suite>-slim leaves out, kept in the image's dpkg configuration
// so later `apt-get install` steps leave it out too.
const SLIM_EXCLUDES = [
  "path-exclude=/usr/share/doc/*",
  "path-include=/usr/share/doc/*/copyright",
  "path-exclude=/usr/share/man/*",
  "path-exclude=/usr/share/info/*",
  "path-exclude=/usr/share/locale/*",
  "path-include=/usr/share/locale/locale.alias",
  "path-exclude=/usr/share/lintian/*",
];

/**
 * debian:<suite>-slim: mmdebstrap's `minbase` variant (Essential packages
 * and apt) from Debian's mirrors, cached by suite and recipe. A fresh
 * bootstrap takes ~2 minutes; `fresh` forces one (security updates).
 */
export function debianSlim(suite: string, ctx: BaseContext, fresh: boolean): Layer {
  const recipe = JSON.stringify({ suite, mirrors: DEBIAN_MIRRORS(suite), SLIM_EXCLUDES, variant: "minbase" });
  const dir = path.join(ctx.cacheDir, `debian-${suite}-slim-${createHash("sha256").update(recipe).digest("hex").slice(0, 12)}`);
  const rootfs = path.join(dir, "rootfs");
  if (fresh) removeTree(dir);
  if (!fs.existsSync(rootfs)) {
    ensureHostPackage("mmdebstrap", "mmdebstrap", ctx.log);
    const partial = `${rootfs}.partial-${process.pid}`;
    fs.mkdirSync(dir, { recursive: true });
    ctx.log(`image: bootstrapping debian:${suite}-slim with mmdebstrap (variant minbase) from deb.debian.org`);
    sh(["mmdebstrap", "--mode=root", "--variant=minbase", "--quiet", ...SLIM_EXCLUDES.map((o) => `--dpkgopt=${o}`), suite, partial, ...DEBIAN_MIRRORS(suite)]);
    // A runtime provides these; the bootstrap leaves the host's copies behind.
    fs.rmSync(path.join(partial, "etc/resolv.conf"), { force: true });
    fs.rmSync(path.join(partial, "etc/hostname"), { force: true });
    for (const entry of fs.readdirSync(path.join(partial, "dev"))) fs.rmSync(path.join(partial, "dev", entry), { recursive: true, force: true });
    fs.renameSync(partial, rootfs);
  }
  return { dir: rootfs, createdBy: `mmdebstrap --variant=minbase ${suite} (debian:${suite}-slim stand-in)` };
}

/**
 * node:<major>-<suite>-slim: the Debian layer plus the Node.js binary and npm
 * this machine runs, laid out as the official image lays them out
 * (/usr/local/bin/node, /usr/local/lib/node_modules/npm), and its `node`
 * user (uid/gid 1000, home /home/node, shell /bin/bash). The binary must be
 * the glibc linux-x64 build of the requested major.
 */
function nodeImage(major: string, suite: string, ctx: BaseContext, fresh: boolean): BaseImage {
  const version = process.version;
  if (version.split(".")[0] !== `v${major}`) throw new Error(`image: the Dockerfile asks for node:${major}, this machine runs Node ${version}; run the build with Node ${major}`);
  if (process.platform !== "linux" || process.arch !== "x64") throw new Error(`image: the Node.js binary must be linux-x64, not ${process.platform}-${process.arch}`);
  const debian = debianSlim(suite, ctx, fresh);
  const dir = path.join(ctx.workDir, "base-node");
  removeTree(dir);
  const bin = path.join(dir, "usr/local/bin");
  fs.mkdirSync(bin, { recursive: true });
  fs.copyFileSync(process.execPath, path.join(bin, "node"));
  fs.chmodSync(path.join(bin, "node"), 0o755);
  const npmRoot = sh(["npm", "root", "-g"]).trim();
  fs.mkdirSync(path.join(dir, "usr/local/lib/node_modules"), { recursive: true });
  sh(["cp", "-a", path.join(npmRoot, "npm"), path.join(dir, "usr/local/lib/node_modules/npm")]);
  fs.symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", path.join(bin, "npm"));
  fs.symlinkSync("../lib/node_modules/npm/bin/npx-cli.js", path.join(bin, "npx"));
  // groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  // (minbase has no useradd; the files it would write, whole, as a layer carries them).
  fs.mkdirSync(path.join(dir, "etc"));
  const days = Math.floor(Date.now() / 86_400_000);
  for (const [file, line, mode] of [
    ["passwd", "node:x:1000:1000::/home/node:/bin/bash", 0o644],
    ["group", "node:x:1000:", 0o644],
    ["shadow", `node:!:${days}:0:99999:7:::`, 0o640],
    ["gshadow", "node:!::", 0o640],
  ] as const) {
    const base = fs.readFileSync(path.join(debian.dir, "etc", file), "utf8");
    fs.writeFileSync(path.join(dir, "etc", file), `${base.replace(/\n?$/, "\n")}${line}\n`, { mode });
    const st = fs.statSync(path.join(debian.dir, "etc", file));
    fs.chownSync(path.join(dir, "etc", file), st.uid, st.gid);
  }
  fs.mkdirSync(path.join(dir, "home/node"), { recursive: true, mode: 0o755 });
  fs.chownSync(path.join(dir, "home/node"), 1000, 1000);
  ctx.log(`image: node:${major}-${suite}-slim stand-in = debian:${suite}-slim + Node ${version} (${process.execPath}) + npm ${sh(["npm", "--version"]).trim()}`);
  return {
    ref: `node:${major}-${suite}-slim`,
    layers: [debian, { dir, createdBy: `Node ${version} linux-x64 and npm from this machine; user node (1000:1000)` }],
    config: { Env: [DEFAULT_PATH, `NODE_VERSION=${version.slice(1)}`], Cmd: ["node"] },
    binds: [],
  };
}

/**
 * golang:<minor>-<suite>: the Debian layer with this machine's Go toolchain,
 * CA roots (for the module proxy), module cache and build cache mounted in —
 * a build stage only, so nothing of it reaches the image but what is copied out.
 */
function goImage(minor: string, suite: string, ctx: BaseContext, fresh: boolean): BaseImage {
  const version = sh(["go", "env", "GOVERSION"]).trim();
  if (!version.startsWith(`go${minor}.`) && version !== `go${minor}`) throw new Error(`image: the Dockerfile asks for golang:${minor}, this machine has ${version}`);
  const [goroot, modcache, gocache] = sh(["go", "env", "GOROOT", "GOMODCACHE", "GOCACHE"]).trim().split("\n") as [string, string, string];
  ctx.log(`image: golang:${minor}-${suite} stand-in = debian:${suite}-slim + ${version} (${goroot}), module and build caches of this machine`);
  return {
    ref: `golang:${minor}-${suite}`,
    layers: [debianSlim(suite, ctx, fresh)],
    config: { Env: ["PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", `GOLANG_VERSION=${version.slice(2)}`, "GOTOOLCHAIN=local", "GOPATH=/go"], WorkingDir: "/go" },
    binds: [
      { host: goroot, target: "/usr/local/go", readOnly: true },
      { host: "/etc/ssl/certs", target: "/etc/ssl/certs", readOnly: true },
      { host: modcache, target: "/go/pkg/mod", readOnly: false },
      { host: gocache, target: "/root/.cache/go-build", readOnly: false },
    ],
  };
}

export function resolveBase(ref: string, ctx: BaseContext, fresh: boolean): BaseImage {
  const node = /^node:(\d+)-(bookworm)-slim$/.exec(ref);
  if (node) return nodeImage(node[1] as string, node[2] as string, ctx, fresh);
  const go = /^golang:(\d+\.\d+)-(bookworm)$/.exec(ref);
  if (go) return goImage(go[1] as string, go[2] as string, ctx, fresh);
  throw new Error(`image: no daemonless stand-in for base image ${ref} (tools/image/bases.ts knows node:<major>-bookworm-slim and golang:<minor>-bookworm)`);
}

/** Installs a host tool from Debian's packages when it is missing. */
export function ensureHostPackage(command: string, pkg: string, log: (line: string) => void): void {
  const found = (process.env.PATH ?? "").split(":").some((d) => fs.existsSync(path.join(d, command)));
  if (found) return;
  log(`image: installing ${pkg} from Debian's packages (${command} is missing)`);
  sh(["apt-get", "install", "-y", "--no-install-recommends", pkg]);
}

export function defaultCacheDir(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), ".cache"), "driftwatch", "image");
}
