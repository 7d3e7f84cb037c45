// Helm renders Helm sources, as in Argo CD's repo server: the real binary,
// found the way kustomize is (HELM_BIN, else `helm` on PATH). The container
// image ships a pinned one (deploy/Dockerfile).
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { GitError } from "@/lib/git/errors";
import { executable, onPath } from "@/lib/git/kustomize";
import { renderEnv } from "@/lib/git/sandbox";

const INSTALL_HINT = "install helm (v3.8 or newer, or v4), or point HELM_BIN at it";

/** The configured binary (a path, or a name looked up on PATH), else `helm` from PATH; a missing one is a render error saying what to install. */
export function findHelm(configured?: string): string {
  if (configured) {
    const file = configured.includes("/") ? path.resolve(configured) : onPath(configured);
    if (!file || !executable(file)) throw new GitError("render", `helm binary "${configured}" (HELM_BIN) is not an executable file; ${INSTALL_HINT}`);
    return file;
  }
  const found = onPath("helm");
  if (!found) throw new GitError("render", `a Helm source needs the helm binary and none was found on PATH: ${INSTALL_HINT}`);
  return found;
}

/**
 * Helm's whole environment: the renderer sandbox's, with every Helm home in
 * an empty folder of this render. No plugin can be found (there are none, and
 * HELM_NO_PLUGINS says so), no repository configuration or registry login
 * of the host is read, and no kubeconfig exists, so `lookup` answers empty.
 */
export function helmEnv(home: string): NodeJS.ProcessEnv {
  const helm = path.join(home, ".helm");
  return {
    ...renderEnv(home),
    HELM_CACHE_HOME: path.join(helm, "cache"),
    HELM_CONFIG_HOME: path.join(helm, "config"),
    HELM_DATA_HOME: path.join(helm, "data"),
    HELM_PLUGINS: path.join(helm, "plugins"),
    HELM_NO_PLUGINS: "1",
    HELM_REGISTRY_CONFIG: path.join(helm, "config", "registry.json"),
    HELM_REPOSITORY_CONFIG: path.join(helm, "config", "repositories.yaml"),
    HELM_REPOSITORY_CACHE: path.join(helm, "cache", "repository"),
  };
}

/**
 * The program kustomize runs as `--helm-command`: a few lines of sh in front
 * of the real helm that let through only what inflating a chart already in
 * the checkout needs (`version`, `template`). kustomize's own `helm pull`
 * (a chart it did not find), a post-renderer, a repository or kubeconfig
 * flag are refused with a message instead of reaching helm. It also
 * answers kustomize ≤5.6's `helm version -c --short` (helm 4 rejects -c, and
 * those kustomize versions accept only a helm 3 answer).
 */
export async function writeKustomizeHelmCommand(dir: string, helmBin: string): Promise<string> {
  const quoted = `'${helmBin.replace(/'/g, `'\\''`)}'`;
  const script = `#!/bin/sh
case "$1" in
  version)
    v=$(${quoted} version --short) || exit 1
    # kustomize up to 5.6 asks "version -c --short" and accepts only helm 3; helm 4 templates with the same flags.
    case "$2:$v" in -c:v4.*) echo "v3.99.0 (helm $v)" ;; *) echo "$v" ;; esac
    exit 0 ;;
  template) ;;
  *) echo "Driftwatch: kustomize asked helm to run \\"$1\\"; only charts Driftwatch placed in the checkout are inflated (charts are fetched by Driftwatch, never by helm)" >&2; exit 1 ;;
esac
for a in "$@"; do
  case "$a" in
    --post-renderer*|--repo*|--kubeconfig*|--kube-context*|--plugins*|--username*|--password*|--verify*|--keyring*|--dependency-update*)
      echo "Driftwatch: helm template $a is refused in a render" >&2; exit 1 ;;
  esac
done
exec ${quoted} "$@"
`;
  const file = path.join(dir, "helm-for-kustomize");
  await writeFile(file, script, { mode: 0o755 });
  return file;
}
