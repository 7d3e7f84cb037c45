// What the suites that play Argo CD's repo server on a real kube-apiserver do
// the same way: run kubectl and helm as the repo server runs them, ask the
// cluster what helm is told about it, read what a render applies, and install
// Argo CD's Application CRD. One copy for real charts and kustomize helmCharts.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { parseAllDocuments, stringify } from "yaml";
import type { RealKube } from "@/tools/realkube/cluster";
import { ARGO_APPLICATION_CRD } from "./argo-collect";

type Obj = Record<string, unknown>;

/**
 * `run` a program and `kubectl` with the cluster's admin kubeconfig, both throwing
 * on failure. HOME is `home()`: helm and kustomize write caches there, not in the
 * developer's. Both getters are read when called: the suite creates them in beforeAll.
 */
export function repoServerTools(kubectlBin: string, kube: () => RealKube, home: () => string) {
  function run(bin: string, args: string[], input = "", cwd?: string): string {
    const r = spawnSync(bin, args, { input, encoding: "utf8", cwd, env: { ...process.env, HOME: home() }, maxBuffer: 64 * 1024 * 1024 });
    if (r.status !== 0) throw new Error(`${path.basename(bin)} ${args.slice(0, 4).join(" ")} failed: ${r.stderr}`);
    return r.stdout;
  }
  const kubectl = (args: string[], input = "") => run(kubectlBin, ["--kubeconfig", kube().kubeconfigPath, ...args], input);
  return { run, kubectl };
}

export const metaOf = (o: Obj) => o.metadata as { name: string; namespace?: string; annotations?: Record<string, string> };
export const groupOf = (apiVersion: unknown) => (String(apiVersion).includes("/") ? String(apiVersion).split("/")[0]! : "");

/** What Argo CD's repo server tells helm about the cluster: the server's gitVersion and every API version it serves (group/version and group/version/Kind). */
export function clusterCapabilities(kubectl: (args: string[]) => string): { gitVersion: string; apiVersions: string[] } {
  const gitVersion = (JSON.parse(kubectl(["version", "-o", "json"])) as { serverVersion: { gitVersion: string } }).serverVersion.gitVersion;
  const resources = kubectl(["api-resources", "--no-headers", "-o", "wide"]);
  const apiVersions = new Set<string>();
  for (const line of resources.trim().split("\n")) {
    const cols = line.trim().split(/\s+/);
    // NAME [SHORTNAMES] APIVERSION NAMESPACED KIND VERBS...: the API version is the column before "true"/"false".
    const at = cols.findIndex((c) => c === "true" || c === "false");
    apiVersions.add(cols[at - 1]!).add(`${cols[at - 1]}/${cols[at + 1]}`);
  }
  return { gitVersion, apiVersions: [...apiVersions].sort() };
}

/** The objects of a render that Argo CD applies: hooks are not applied. */
export function appliedObjects(rendered: string): Obj[] {
  return parseAllDocuments(rendered)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => !!o && typeof o === "object" && !metaOf(o).annotations?.["helm.sh/hook"]);
}

/** Argo CD's Application CRD, established, and the namespaces (argocd among them) created. */
export function installArgoApplications(kubectl: (args: string[], input?: string) => string, namespaces: string[]): void {
  kubectl(["apply", "--server-side", "-f", "-"], stringify(ARGO_APPLICATION_CRD));
  kubectl(["wait", "--for=condition=Established", "crd", "--all", "--timeout=60s"]);
  for (const ns of namespaces) kubectl(["create", "namespace", ns]);
}
