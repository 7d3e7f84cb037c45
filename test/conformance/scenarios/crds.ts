// Flux's real CRDs (test/fixtures/flux-crds, as the pinned controllers ship
// them) and the Argo CD Application CRD kubesim's demo uses, with the
// objects Driftwatch reads and writes through them.
import path from "node:path";
import { ARGOCD_APPLICATION_CRD } from "@driftwatch/kubesim";
import type { Scenario } from "../harness";
import type { Target } from "../target";
import { createNamespace, poll } from "./support";

const fluxCrds = path.resolve(import.meta.dirname, "../../fixtures/flux-crds");

async function established(t: Target, name: string): Promise<boolean> {
  const ok = await poll(async () => {
    const crd = (await t.http("GET", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)).json as { status?: { conditions?: Array<{ type: string; status: string }> } };
    return crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True");
  });
  return ok === true;
}

async function servedResource(t: Target, groupVersion: string, resource: string): Promise<boolean> {
  const ok = await poll(async () => {
    const r = (await t.http("GET", `/apis/${groupVersion}`)).json as { resources?: Array<{ name: string }> } | undefined;
    return r?.resources?.some((x) => x.name === resource);
  });
  return ok === true;
}

export const crdScenarios: Scenario[] = [
  {
    name: "Flux and Argo CD CRDs",
    async run(t, rec) {
      await createNamespace(t, "flux-system");
      rec.kubectl("apply the Flux CRDs", await t.kubectl(["apply", "--server-side", "-f", fluxCrds]));
      rec.http("create the Argo CD CRD", await t.http("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", { body: ARGOCD_APPLICATION_CRD }));
      for (const name of ["gitrepositories.source.toolkit.fluxcd.io", "kustomizations.kustomize.toolkit.fluxcd.io", "applications.argoproj.io"]) rec.json(`${name} established`, await established(t, name));
      rec.json("kustomizations served", await servedResource(t, "kustomize.toolkit.fluxcd.io/v1", "kustomizations/status"));
      rec.json("applications served", await servedResource(t, "argoproj.io/v1alpha1", "applications"));
      rec.http("Kustomization CRD read back", await t.http("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/kustomizations.kustomize.toolkit.fluxcd.io"));
      rec.http("Application CRD read back", await t.http("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/applications.argoproj.io"));
      rec.http("Flux discovery", await t.http("GET", "/apis/kustomize.toolkit.fluxcd.io/v1"));

      const base = "/apis/source.toolkit.fluxcd.io/v1/namespaces/flux-system/gitrepositories";
      rec.http("create GitRepository", await t.http("POST", base, { body: { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", metadata: { name: "app" }, spec: { interval: "1m", url: "https://git.example.com/app.git", ref: { branch: "main" } } } }));
      const ks = "/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations";
      rec.http("create Kustomization", await t.http("POST", ks, { body: { apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", metadata: { name: "apps" }, spec: { interval: "5m", path: "./apps", prune: true, sourceRef: { kind: "GitRepository", name: "app" } } } }));
      const status = {
        conditions: [{ type: "Ready", status: "True", reason: "ReconciliationSucceeded", message: "Applied revision: main@sha1:abc", lastTransitionTime: "2024-01-01T00:00:00Z", observedGeneration: 1 }],
        lastAppliedRevision: "main@sha1:abc",
        observedGeneration: 1,
      };
      rec.http("status through the status subresource", await t.http("PATCH", `${ks}/apps/status?fieldManager=kustomize-controller`, { contentType: "application/merge-patch+json", body: { status } }));
      rec.http("main resource ignores status", await t.http("PATCH", `${ks}/apps`, { contentType: "application/merge-patch+json", body: { spec: { suspend: true }, status: { lastAppliedRevision: "forged" } } }));
      rec.http("server-side apply of a Kustomization", await t.http("PATCH", `${ks}/apps?fieldManager=driftwatch`, {
        contentType: "application/apply-patch+yaml",
        body: { apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", metadata: { name: "apps" }, spec: { suspend: false } },
      }));
      rec.kubectl("kubectl get kustomizations (printer columns)", await t.kubectl(["-n", "flux-system", "get", "kustomizations"]));
      rec.kubectl("kubectl get gitrepositories", await t.kubectl(["-n", "flux-system", "get", "gitrepositories"]));
      rec.http("list GitRepositories", await t.http("GET", base));
      rec.http("strategic merge patch is refused", await t.http("PATCH", `${base}/app`, { contentType: "application/strategic-merge-patch+json", body: {} }));
      rec.http("invalid GitRepository", await t.http("POST", base, { body: { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", metadata: { name: "bad" }, spec: { url: "ftp://nope", interval: "1m", suspend: "yes" } } }));
      rec.http("unknown field with fieldValidation=Warn", await t.http("POST", `${base}?fieldValidation=Warn`, { body: { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", metadata: { name: "extra" }, spec: { url: "https://x.example.com/r.git", interval: "1m", extra: 1 } } }));
      rec.http("unknown field with fieldValidation=Strict", await t.http("POST", `${base}?fieldValidation=Strict`, { body: { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", metadata: { name: "strict" }, spec: { url: "https://x.example.com/r.git", interval: "1m", extra: 1 } } }));

      const apps = "/apis/argoproj.io/v1alpha1/namespaces/flux-system/applications";
      rec.http("create Application with status", await t.http("POST", apps, {
        body: {
          apiVersion: "argoproj.io/v1alpha1",
          kind: "Application",
          metadata: { name: "guestbook" },
          spec: { project: "default", source: { repoURL: "https://git.example.com/gb.git", path: "gb", targetRevision: "HEAD" }, destination: { server: "https://kubernetes.default.svc", namespace: "gb" } },
          status: { sync: { status: "Synced", revision: "abc123" } },
        },
      }));
      rec.http("Application status through the main resource", await t.http("PATCH", `${apps}/guestbook`, { contentType: "application/merge-patch+json", body: { status: { sync: { status: "OutOfSync", revision: "def456" } } } }));
      rec.kubectl("kubectl get applications", await t.kubectl(["-n", "flux-system", "get", "applications"]));
      rec.http("delete the Application CRD", await t.http("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/applications.argoproj.io"));
      const gone = await poll(async () => (await t.http("GET", apps)).status === 404, 15_000);
      rec.json("Applications no longer served", gone === true);
    },
  },
];
