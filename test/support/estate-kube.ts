// What tests over the fixture estates (test/fixtures/estates) do to a test
// cluster as a user would: real kubectl with the case's read-write context, and
// Flux's (and Argo CD's) CRDs installed until the collector's discovery serves them.
import fs from "node:fs";
import path from "node:path";
import { ARGOCD_APPLICATION_CRD } from "@driftwatch/kubesim";
import { createClusterClient, type ClusterClient } from "@/lib/kube/client";
import { discover } from "@/lib/kube/discovery";
import type { TestCluster } from "./clusters";
import { runProcess } from "./run-process";
import { requiredKubectl } from "./required-tools";

export const FLUX_CRDS = path.resolve(import.meta.dirname, "../fixtures/flux-crds");
export const ESTATES = path.resolve(import.meta.dirname, "../fixtures/estates");

export type Kubectl = (args: string[], input?: string) => Promise<string>;

/** Real kubectl against the case's cluster, context `t` (read-write); a failure throws with kubectl's stderr. */
export function kubectlFor(cluster: () => TestCluster | undefined, bin = requiredKubectl()): Kubectl {
  return async (args, input = "") => {
    const c = cluster();
    if (!c) throw new Error("no cluster");
    const r = await runProcess(bin, ["--kubeconfig", c.kubeconfigPath, "--context", "t", ...args], input);
    if (r.status !== 0) throw new Error(`kubectl ${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  };
}

/** The collector's read-only credential (deploy/base/rbac.yaml's role on the real server). */
export function collectorReader(cluster: TestCluster): ClusterClient {
  return createClusterClient({ kubeconfig: cluster.kubeconfigPath, context: "t-readonly" }, { timeoutMs: 20_000 });
}

/** Flux's CRDs (and Argo CD's Application CRD), applied with kubectl and waited for until discovery, as the collector sees it, lists them. */
export async function installControllerCrds(kubectl: Kubectl, cluster: TestCluster, opts: { argocd?: boolean } = {}): Promise<void> {
  await kubectl(["apply", "--server-side", "-f", FLUX_CRDS]);
  if (opts.argocd !== false) await kubectl(["apply", "--server-side", "-f", "-"], JSON.stringify(ARGOCD_APPLICATION_CRD));
  const wanted = ["kustomize.toolkit.fluxcd.io/Kustomization", "helm.toolkit.fluxcd.io/HelmRelease", "source.toolkit.fluxcd.io/HelmChart", "source.toolkit.fluxcd.io/GitRepository"];
  if (opts.argocd !== false) wanted.push("argoproj.io/Application");
  const deadline = Date.now() + 30_000;
  for (;;) {
    const served = (await discover(collectorReader(cluster))).byGroupKind;
    if (wanted.every((k) => served.has(k))) return;
    if (Date.now() > deadline) throw new Error("the CRDs are not served after 30 s");
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The Flux fleet estate (test/fixtures/estates/flux-fleet). */
export const FLUX_FLEET = path.join(ESTATES, "flux-fleet");

/** Every file of the Flux fleet estate, committed as its repository's first commit. */
export function commitFluxFleet(repo: { write(file: string, content: Buffer): unknown; commit(message: string): string }): void {
  for (const file of fs.readdirSync(FLUX_FLEET, { recursive: true, encoding: "utf8" })) {
    const full = path.join(FLUX_FLEET, file);
    if (fs.statSync(full).isFile()) repo.write(file, fs.readFileSync(full));
  }
  repo.commit("flux-fleet");
}

/** What kustomize-controller applies for a Kustomization of the fleet: the folder built, postBuild variables substituted, applied server-side. */
export async function applyFleetAsFlux(kubectl: Kubectl, folder: string, substitute: Record<string, string> = {}): Promise<void> {
  let built = await kubectl(["kustomize", path.join(FLUX_FLEET, folder)]);
  for (const [k, v] of Object.entries(substitute)) built = built.replaceAll(`\${${k}}`, v);
  await kubectl(["apply", "--server-side", "--field-manager=kustomize-controller", "-f", "-"], built);
}

/** What kustomize-controller reports once each of `names` (Kustomizations in flux-system) has applied `sha` of main. */
export async function reportFluxApplied(kubectl: Kubectl, sha: string, names: readonly string[]): Promise<void> {
  const status = JSON.stringify({ status: { lastAppliedRevision: `main@sha1:${sha}` } });
  for (const name of names) await kubectl(["-n", "flux-system", "patch", "kustomization", name, "--subresource=status", "--type=merge", "-p", status]);
}

/**
 * kustomize-controller applying a folder of a checkout of the fleet (a test's
 * repository, after its commits), `edit` standing for what the Kustomization's
 * own spec adds to the build (its images).
 */
export async function applyCheckoutAsFlux(kubectl: Kubectl, checkout: string, folder: string, edit: (built: string) => string = (b) => b): Promise<void> {
  const built = await kubectl(["kustomize", path.join(checkout, folder)]);
  await kubectl(["apply", "--server-side", "--field-manager=kustomize-controller", "-f", "-"], edit(built));
}

/** The fleet's production cluster once Flux has reconciled every Kustomization of it. */
export async function reconcileFleetProduction(kubectl: Kubectl, cluster: TestCluster): Promise<void> {
  await installControllerCrds(kubectl, cluster, { argocd: false });
  await kubectl(["create", "namespace", "flux-system"]);
  await applyFleetAsFlux(kubectl, "clusters/production");
  await applyFleetAsFlux(kubectl, "infrastructure/controllers");
  await applyFleetAsFlux(kubectl, "infrastructure/configs", { cluster_env: "production" });
  await applyFleetAsFlux(kubectl, "apps/production");
  for (const service of ["api", "cart", "web", "worker"]) await applyFleetAsFlux(kubectl, `apps/production/${service}`);
}
