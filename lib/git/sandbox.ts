// Where renderers run: programs that read repository content (kustomize,
// and git when it checks a commit out) get an environment the repository
// cannot influence and, where the machine allows it, no network at all.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { env } from "@/lib/env";

/**
 * The whole environment of a renderer child. Nothing is inherited but PATH:
 * no tokens, no proxies, no GIT_* from a hook. HOME is an empty folder made
 * for this render, so a `.gitconfig` committed to the repository can never
 * become git's global configuration (an `ext::` rewrite would run commands);
 * git reads no system or global configuration and may use no transport.
 */
export function renderEnv(home: string): NodeJS.ProcessEnv {
  return {
    ...searchPathOnly(),
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    KUBECONFIG: path.join(home, ".no-kubeconfig"),
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    // A list that names no real protocol: git refuses every transport, ext:: and file:// included.
    GIT_ALLOW_PROTOCOL: "none",
    GIT_PROTOCOL_FROM_USER: "0",
  };
}

/** NODE_ENV and PATH, and nothing else of this process's environment. */
function searchPathOnly(): NodeJS.ProcessEnv {
  const { NODE_ENV, PATH } = env();
  return { NODE_ENV, PATH: PATH ?? "/usr/bin:/bin" };
}

export interface NetworkIsolation {
  /** The command prefix that gives the child its own empty network namespace (loopback down), or [] when none is available. */
  prefix: string[];
  /** Why there is none, for the log. */
  reason?: string;
}

let probed: NetworkIsolation | null = null;

/**
 * A network namespace with nothing in it, from util-linux `unshare`: root
 * may create one directly (`--net`); anyone else needs a user namespace
 * too (`--map-root-user --net`), which most kernels allow. Containers with a
 * default seccomp profile refuse both: then renders run without it and the
 * reference check (kustomize-inputs) plus the sandboxed environment are what
 * keep them off the network. Probed once per process.
 */
export function networkIsolation(): NetworkIsolation {
  if (probed) return probed;
  if (process.platform !== "linux") return (probed = { prefix: [], reason: `no network namespaces on ${process.platform}` });
  const attempts = [["unshare", "--net"], ["unshare", "--map-root-user", "--net"]];
  let reason = "";
  for (const prefix of attempts) {
    const [cmd, ...args] = prefix as [string, ...string[]];
    const res = spawnSync(cmd, [...args, "--", "true"], { stdio: ["ignore", "ignore", "pipe"], timeout: 5_000, env: searchPathOnly() });
    if (res.status === 0) return (probed = { prefix });
    reason = res.error ? res.error.message : res.stderr.toString("utf8").trim() || `exit code ${res.status}`;
  }
  return (probed = { prefix: [], reason: `unshare is not permitted here (${reason})` });
}

