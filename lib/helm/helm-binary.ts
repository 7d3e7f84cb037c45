// Helm renders Helm sources, as in Argo CD's repo server: the real binary,
// found the way kustomize is (HELM_BIN, else `helm` on PATH). The container
// image ships a pinned one (deploy/Dockerfile).
import path from "node:path";
import { GitError } from "@/lib/git/errors";
import { executable, onPath } from "@/lib/git/kustomize";

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
