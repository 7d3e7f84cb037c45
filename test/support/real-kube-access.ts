// What the real-controller tests do to the real API server: kubectl with the
// cluster's admin kubeconfig, a GET with the read-write token, and waiting for
// a controller to get somewhere. One copy for real Flux and real helm-controller.
import { request, type RealKube } from "@/tools/realkube/cluster";
import type { Obj } from "@/lib/git";
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
