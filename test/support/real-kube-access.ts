// What the real-controller tests do to the real API server: kubectl with the
// cluster's admin kubeconfig, a GET with the read-write token, and waiting for
// a controller to get somewhere, and stopping it all. One copy for real Flux,
// real helm-controller and the suites that play Argo CD.
import fs from "node:fs";
import { request, type RealKube } from "@/tools/realkube/cluster";
import type { RealFlux } from "@/tools/realkube/flux";
import type { Obj } from "@/lib/git";
import type { TestRepo } from "@/lib/git/test-support/repo-fixture";
import type { GitHttpServer } from "@/lib/git/test-support/git-http-server";
import type { HelmChartRepo } from "./helm-chart-repo";
import { runProcess, type ProcessResult } from "./run-process";

/** `kube` is read when called: the cluster starts in the test file's beforeAll. */
export function realKubeAccess(kube: () => RealKube, kubectlBin: string) {
  const kubectl = (args: string[], input = ""): Promise<ProcessResult> => runProcess(kubectlBin, ["--kubeconfig", kube().kubeconfigPath, ...args], input);
  return {
    kubectl,
    async kubectlOk(args: string[], input = ""): Promise<string> {
      const r = await kubectl(args, input);
      if (r.status !== 0) throw new Error(`kubectl ${args.join(" ")} failed: ${r.stderr}`);
      return r.stdout;
    },
    /** GET with the read-write token; null on 404. */
    async getObject(apiPath: string): Promise<Obj | null> {
      const k = kube();
      const r = await request(`${k.server}${apiPath}`, "GET", k.caPem, k.readWriteToken);
      if (r.status === 404) return null;
      if (r.status !== 200) throw new Error(`GET ${apiPath}: ${r.status} ${r.text}`);
      return JSON.parse(r.text) as Obj;
    },
  };
}

/** Polls until `probe` answers something truthy; controllers take seconds, so every 250 ms. */
export async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000, logOf?: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${logOf ? `\n${logOf()}` : ""}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Stops whatever a suite's beforeAll got as far as starting (controllers before their API server), and puts the environment back. */
export async function stopRealEstate(parts: { restoreEnv?: () => void; flux?: RealFlux; kube?: RealKube; git?: GitHttpServer; charts?: HelmChartRepo; repo?: TestRepo; tmp?: string }): Promise<void> {
  parts.restoreEnv?.();
  await parts.flux?.stop();
  await parts.kube?.stop();
  await parts.git?.close();
  await parts.charts?.close();
  parts.repo?.cleanup();
  if (parts.tmp) fs.rmSync(parts.tmp, { recursive: true, force: true });
}
