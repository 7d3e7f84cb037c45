// Playing Argo CD in a discovery test: an Application created in the
// cluster's argocd namespace, and a sync as the application controller does
// it — the rendered documents of its sources joined in order (the last copy
// of a repeated object wins), each given the destination namespace and the
// tracking annotation beside its own annotations, applied client-side as argocd-controller, then the
// revision(s) it synced written to the Application's status.
import { parseAllDocuments, stringify } from "yaml";
import type { Kubectl } from "./estate-kube";

type Obj = Record<string, unknown>;

/** Creates (server-side) the Application `argocd/<name>` with `spec`, deploying to `namespace` of the local cluster. */
export async function createApplication(kubectl: Kubectl, name: string, namespace: string, spec: Obj): Promise<void> {
  const application = { apiVersion: "argoproj.io/v1alpha1", kind: "Application", metadata: { name, namespace: "argocd" }, spec: { project: "default", ...spec, destination: { server: "https://kubernetes.default.svc", namespace } } };
  await kubectl(["apply", "--server-side", "-f", "-"], stringify(application));
}

/** Applies what the Application `argocd/<name>` renders (YAML texts, in source order) and reports `sync` as its status. */
export async function argoSync(kubectl: Kubectl, name: string, namespace: string, rendered: readonly string[], sync: Obj): Promise<void> {
  const byKey = new Map<string, Obj>();
  for (const text of rendered) {
    for (const doc of parseAllDocuments(text)) {
      const o = doc.toJS() as Obj | null;
      if (!o) continue;
      const m = o.metadata as { name: string; annotations?: Record<string, string> };
      const group = String(o.apiVersion).includes("/") ? String(o.apiVersion).split("/")[0] : "";
      const tracking = { "argocd.argoproj.io/tracking-id": `${name}:${group}/${String(o.kind)}:${namespace}/${m.name}` };
      byKey.set(`${group}/${String(o.kind)}/${namespace}/${m.name}`, { ...o, metadata: { ...m, namespace, annotations: { ...m.annotations, ...tracking } } });
    }
  }
  await kubectl(["apply", "--field-manager=argocd-controller", "-f", "-"], [...byKey.values()].map((o) => stringify(o)).join("---\n"));
  await kubectl(["-n", "argocd", "patch", "applications.argoproj.io", name, "--type=merge", "-p", JSON.stringify({ status: { sync: { status: "Synced", ...sync }, health: { status: "Healthy" } } })]);
}
