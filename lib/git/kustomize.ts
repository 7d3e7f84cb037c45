// Kustomize has no JavaScript implementation worth trusting, so the real
// binary runs: `kustomize build DIR` or `kubectl kustomize DIR`.
import { spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import { env } from "@/lib/env";
import { GitError } from "./errors";
import { networkIsolation, renderEnv } from "./sandbox";

export interface KustomizeBinary {
  /** Absolute path of the executable. */
  file: string;
  flavour: "kustomize" | "kubectl";
}

const INSTALL_HINT =
  'install kustomize, or kubectl 1.27 or newer (it bundles kustomize v5, needed for "patches:"), ' +
  "or point KUSTOMIZE_BIN at one of them";

/** An existing regular file this process may execute. */
export function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The first executable `name` in PATH's folders. */
export function onPath(name: string): string | null {
  for (const dir of (env().PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (executable(candidate)) return candidate;
  }
  return null;
}

function flavourOf(file: string): KustomizeBinary["flavour"] {
  return /^kubectl/i.test(path.basename(file)) ? "kubectl" : "kustomize";
}

/**
 * The binary to run: the configured one (a path, or a name looked up on PATH),
 * else `kustomize`, else `kubectl` from PATH. A missing binary is a render
 * error that says what to install.
 */
export function findKustomize(configured?: string): KustomizeBinary {
  if (configured) {
    const file = configured.includes("/") ? path.resolve(configured) : onPath(configured);
    if (!file || !executable(file)) {
      throw new GitError("render", `kustomize binary "${configured}" (KUSTOMIZE_BIN) is not an executable file; ${INSTALL_HINT}`);
    }
    return { file, flavour: flavourOf(file) };
  }
  const kustomize = onPath("kustomize");
  if (kustomize) return { file: kustomize, flavour: "kustomize" };
  const kubectl = onPath("kubectl");
  if (kubectl) return { file: kubectl, flavour: "kubectl" };
  throw new GitError("render", `render mode "kustomize" needs a kustomize binary and none was found on PATH: ${INSTALL_HINT}`);
}

/**
 * Builds the kustomization in `dir` (inside `root`, a throw-away checkout
 * whose references walkKustomization has already checked). The child gets
 * the sandboxed environment with `home` (an empty folder outside the
 * checkout) and, where the machine allows it, no network; plugins, exec
 * functions and Helm stay off and loads stay inside each kustomization's
 * root (or, as Flux builds, anywhere in the repository). Paths in error
 * messages are made repository-relative.
 */
export function runKustomize(
  bin: KustomizeBinary,
  root: string,
  dir: string,
  opts: {
    home: string;
    timeoutMs?: number;
    /** Flux builds with LoadRestrictionsNone. */ loadAnywhereInRepository?: boolean;
    /** helmCharts: the --enable-helm flags and the environment helm inherits (the sandbox's, with helm's homes). */
    helm?: { args: string[]; env: NodeJS.ProcessEnv };
  },
): Promise<string> {
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const build = bin.flavour === "kubectl" ? ["kustomize", dir] : ["build", dir];
  // Outside its root but inside the repository is safe to allow: walkKustomization has refused every
  // reference that leaves the repository, and the checkout holds no symbolic links.
  const args = [...build, `--load-restrictor=${opts.loadAnywhereInRepository ? "LoadRestrictionsNone" : "LoadRestrictionsRootOnly"}`, ...(opts.helm?.args ?? [])];
  return runRenderer(bin.file, args, { cwd: root, env: opts.helm?.env ?? renderEnv(opts.home), timeoutMs, what: "kustomize build" });
}

const MAX_OUTPUT_BYTES = 512 * 1024 * 1024;

/**
 * Runs a renderer (kustomize, helm) over a throw-away checkout `cwd`: in its
 * own empty network namespace where the machine allows it, with exactly the
 * environment given, a time limit and an output cap. Its stdout is the
 * result; a failure is a render GitError with the checkout's paths made
 * repository-relative.
 */
export function runRenderer(file: string, args: readonly string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; /** "kustomize build", "helm template": how messages name the step. */ what: string; /** The checkout's root, when cwd is a folder inside it (paths in messages are relative to it). */ root?: string }): Promise<string> {
  const { cwd, timeoutMs, what } = opts;
  const root = opts.root ?? cwd;
  const { prefix } = networkIsolation();
  const [command, ...commandArgs] = prefix.length > 0 ? [...prefix, "--", file, ...args] : [file, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(command!, commandArgs, {
      cwd,
      env: opts.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = "";
    let failure: GitError | null = null;
    const timer = setTimeout(() => {
      failure = new GitError("render", `${what} timed out after ${Math.round(timeoutMs / 1000)}s`);
      child.kill("SIGKILL");
    }, timeoutMs);
    child.stdout.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_OUTPUT_BYTES) {
        failure ??= new GitError("render", `${what.split(" ")[0]} output exceeds ${MAX_OUTPUT_BYTES / 1024 / 1024} MB`);
        child.kill("SIGKILL");
        return;
      }
      chunks.push(c);
    });
    child.stderr.on("data", (c: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += c.toString("utf8");
    });
    child.on("error", (e) => {
      failure ??= new GitError("render", `running ${file} failed: ${e.message}`);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (failure) return reject(failure);
      if (code !== 0) {
        const msg = cleanStderr(stderr.split(`${root}/`).join("").split(root).join(".")) || `exit code ${code}`;
        return reject(new GitError("render", `${what} failed: ${msg}`));
      }
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
  });
}

/** kubectl wraps kustomize's message in a klog line (helm prints `Error: `); users need only the message. */
export function cleanStderr(stderr: string): string {
  return stderr
    .split("\n")
    .map((line) => {
      const klog = /^[EWIF]\d{4} [\d:.]+\s+\d+ [^\]]+\] (.*)$/.exec(line);
      const text = klog ? klog[1]! : line;
      const wrapped = /^"command failed" err="(.*)"$/.exec(text);
      return (wrapped ? wrapped[1]!.replace(/\\"/g, '"') : text).replace(/^Error: /, "").trim();
    })
    .filter(Boolean)
    .join("; ");
}
