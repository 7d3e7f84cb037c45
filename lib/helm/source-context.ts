// What a collection run hands a Helm source render: HELM_BIN, the
// destination cluster's version and API versions (as Argo CD's repo server
// receives them from the application controller), and chart fetching from
// driftwatch.yaml's helmRepositories into the data folder's chart cache.
import path from "node:path";
import type { DriftwatchConfig } from "@/lib/config";
import { dataDir, env } from "@/lib/env";
import type { ControllerRender, HelmSourceContext, RenderOptions } from "@/lib/git";
import type { ClusterClient } from "@/lib/kube/client";
import type { Discovery } from "@/lib/kube/discovery";
import { apiVersionStrings } from "./argocd-helm";
import { fetchChart } from "./chart-fetch";

/**
 * Whether a render with these settings may run helm (and needs the cluster's
 * capabilities): a Helm source, or a kustomize build whose helmCharts are
 * inflated (any but Flux's, whose kustomize-controller never inflates them).
 */
export function rendersWithHelm(mode: RenderOptions["mode"], controller: ControllerRender | undefined): boolean {
  return mode === "helm" || (mode === "kustomize" && controller?.type !== "flux") || (controller?.type === "argocd" && Boolean(controller.helm || controller.chart));
}

const serverVersions = new WeakMap<Discovery, Promise<{ gitVersion?: string }>>();

/** The chart cache: verified archives named by digest. */
export function chartCacheDir(): string {
  return path.join(dataDir(), "helm-charts");
}

/**
 * Discovery lists each group's preferred version (lib/kube/discovery), so
 * `--api-versions` holds those; a chart testing `.Capabilities.APIVersions.Has`
 * for an older, still-served version sees it missing where Argo CD (which
 * lists every served version) would see it.
 */
export async function helmSourceContext(client: ClusterClient, discovery: Discovery, config: DriftwatchConfig): Promise<HelmSourceContext> {
  // One /version per discovery (a collection run's view of the cluster), however many applications render with helm.
  let version = serverVersions.get(discovery);
  if (!version) serverVersions.set(discovery, (version = client.requestJson<{ gitVersion?: string }>("GET", "/version").catch(() => ({ gitVersion: undefined }))));
  const { gitVersion } = await version;
  const repositories = config.helmRepositories;
  return {
    bin: env().HELM_BIN,
    cluster: { kubeVersion: gitVersion, apiVersions: apiVersionStrings(discovery.byGroupKind.values()) },
    fetchChart: repositories.length > 0 ? (ref) => fetchChart(ref, { repositories, cacheDir: chartCacheDir() }) : undefined,
  };
}
