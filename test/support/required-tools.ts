// The external programs the suites drive. A missing one fails the suite that
// needs it with what to install — never a skip, so a machine without it can
// never read as green.
import { spawnSync } from "node:child_process";
import { findKustomize, type KustomizeBinary } from "@/lib/git/kustomize";
import { binaryPath, isBuilt } from "@/tools/realkube/binaries";

/** kustomize, else kubectl (KUSTOMIZE_BIN when set); throws the install hint otherwise. */
export function requiredKustomize(): KustomizeBinary {
  return findKustomize(process.env.KUSTOMIZE_BIN);
}

/** kubectl with kustomize v5 (KUBECTL when set, else on PATH); throws what to install otherwise. */
export function requiredKubectl(): string {
  for (const candidate of [process.env.KUBECTL, "kubectl"].filter((c): c is string => Boolean(c))) {
    const r = spawnSync(candidate, ["version", "--client"], { encoding: "utf8" });
    if (r.status === 0 && /Kustomize Version: v[5-9]/.test(r.stdout)) return candidate;
  }
  throw new Error("these tests need kubectl 1.27 or newer (it bundles kustomize v5) on PATH, or KUBECTL pointing at one");
}

/**
 * helm: HELM_BIN when set, else the pinned one tools/realkube builds (npm test
 * builds it first); throws what to do otherwise.
 */
export function requiredHelm(): string {
  if (process.env.HELM_BIN) return process.env.HELM_BIN;
  if (!isBuilt("helm")) throw new Error("these tests need helm: run `npm run realkube:build` (it builds the pinned helm) or point HELM_BIN at one");
  return binaryPath("helm");
}
