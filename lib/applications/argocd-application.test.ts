// Argo CD Applications shaped as argoproj.io/v1alpha1 defines them
// (pkg/apis/application/v1alpha1/types.go: ApplicationSpec, ApplicationSource,
// ApplicationDestination), turned into applications.
import { describe, expect, it } from "vitest";
import type { Obj } from "@/lib/git";
import { argoApplicationSpec, argoSyncedRevisions, joinSources, repeatedResourceMessage } from "./argocd-application";
import type { TransformOptions } from "./flux-application";

const opts: TransformOptions = { repositoryFor: (url) => (url.startsWith("https://github.com/acme/") ? "acme-gitops" : undefined), promotionKeys: {} };

function application(name: string, spec: Obj, metadata: Obj = {}): Obj {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name, namespace: "argocd", finalizers: ["resources-finalizer.argocd.argoproj.io"], ...metadata },
    spec: { project: "default", destination: { server: "https://kubernetes.default.svc", namespace: "shop" }, syncPolicy: { automated: { prune: true, selfHeal: true } }, ...spec },
  };
}

describe("argoApplicationSpec", () => {
  it.each([
    ["a branch", "main", { branch: "main" }],
    ["HEAD (the default branch)", "HEAD", { name: "HEAD" }],
    ["no targetRevision (the default branch)", undefined, { name: "HEAD" }],
    ["a version tag", "v1.8.0", { tag: "v1.8.0" }],
    ["a semver range over tags", "~1.8.0", { semver: "~1.8.0" }],
    ["a full commit", "6E1A2B3C4D5E6F708192A3B4C5D6E7F8091A2B3C", { commit: "6e1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c" }],
    ["a ref name", "refs/heads/release", { name: "refs/heads/release" }],
    ["a branch whose name has an x in it", "fix-experiments", { branch: "fix-experiments" }],
  ])("reads targetRevision as %s", (_what, targetRevision, ref) => {
    const { spec, problems } = argoApplicationSpec(
      application("shop-api", { source: { repoURL: "https://github.com/acme/gitops.git", path: "apps/api/overlays/staging", ...(targetRevision === undefined ? {} : { targetRevision }) } }),
      opts,
    );
    expect(problems).toEqual([]);
    expect(spec).toEqual({
      name: "argocd/shop-api",
      kind: "argocd-application",
      promotionKey: "shop-api",
      controller: { type: "argocd", kind: "Application", namespace: "argocd", name: "shop-api" },
      sources: [{ url: "https://github.com/acme/gitops.git", repository: "acme-gitops", ref, path: "apps/api/overlays/staging", render: "plain" }],
      destination: { server: "https://kubernetes.default.svc", namespace: "shop" },
      labels: {},
    });
  });

  it.each([
    ["directory options: plain", { directory: { recurse: true, include: "*.yaml" } }, "plain"],
    ["kustomize options: kustomize", { kustomize: { namePrefix: "staging-", images: ["shop/api:1.8.0"] } }, "kustomize"],
    ["helm options on a chart folder: helm", { helm: { valueFiles: ["values-staging.yaml"], releaseName: "api" } }, "helm"],
  ])("renders a source with %s", (_what, options, render) => {
    const { spec } = argoApplicationSpec(application("a", { source: { repoURL: "https://github.com/acme/gitops", path: "./apps/a/", targetRevision: "main", ...options } }), opts);
    expect(spec.sources[0]).toMatchObject({ path: "apps/a", render });
  });

  it("reads a chart from a Helm repository: the chart, its version, no path", () => {
    const { spec } = argoApplicationSpec(application("redis", { source: { repoURL: "https://charts.bitnami.com/bitnami", chart: "redis", targetRevision: "20.1.3", helm: { releaseName: "redis" } } }), opts);
    expect(spec.sources).toEqual([{ url: "https://charts.bitnami.com/bitnami", ref: { tag: "20.1.3" }, path: ".", render: "helm", chart: "redis" }]);
  });

  it("reads every entry of spec.sources in order, a ref-only source (it only lends values files) marked as such", () => {
    const { spec, problems } = argoApplicationSpec(
      application("web", {
        sources: [
          { repoURL: "https://charts.example.com", chart: "web", targetRevision: "2.x", helm: { valueFiles: ["$values/envs/prod/web.yaml"] } },
          { repoURL: "https://github.com/acme/values.git", targetRevision: "main", ref: "values" },
          { repoURL: "https://github.com/acme/gitops.git", targetRevision: "main", path: "extras/web" },
        ],
      }),
      opts,
    );
    expect(problems).toEqual([]);
    expect(spec.sources).toEqual([
      { url: "https://charts.example.com", ref: { semver: "2.x" }, path: ".", render: "helm", chart: "web" },
      { url: "https://github.com/acme/values.git", repository: "acme-gitops", ref: { branch: "main" }, path: ".", render: "plain", refName: "values", refOnly: true },
      { url: "https://github.com/acme/gitops.git", repository: "acme-gitops", ref: { branch: "main" }, path: "extras/web", render: "plain" },
    ]);
  });

  it("keeps a hub Application's destination by name", () => {
    const { spec } = argoApplicationSpec(application("api-prod", { destination: { name: "production", namespace: "shop" }, source: { repoURL: "https://github.com/acme/gitops", path: "apps/api" } }), opts);
    expect(spec.destination).toEqual({ name: "production", namespace: "shop" });
  });

  it("says so when a source renders with a config management plugin, and when there is no source", () => {
    const plugin = argoApplicationSpec(application("p", { source: { repoURL: "https://github.com/acme/gitops", path: "apps/p", plugin: { name: "sops" } } }), opts);
    expect(plugin.problems).toEqual([{ code: "unsupported", message: expect.stringContaining("config management plugin (sops)") }]);
    const none = argoApplicationSpec(application("n", {}), opts);
    expect(none.spec.sources).toEqual([]);
    expect(none.problems).toEqual([{ code: "source", message: "Application argocd/n has no source" }]);
  });

  it("takes the promotion key from the driftwatch.io/application annotation", () => {
    const { spec } = argoApplicationSpec(application("api-staging", { source: { repoURL: "https://github.com/acme/gitops", path: "apps/api" } }, { annotations: { "driftwatch.io/application": "api" } }), opts);
    expect(spec.promotionKey).toBe("api");
  });
});

describe("what an Argo CD Application synced", () => {
  const app = (spec: Record<string, unknown>, status: Record<string, unknown>) => ({ apiVersion: "argoproj.io/v1alpha1", kind: "Application", metadata: { name: "a", namespace: "argocd" }, spec, status });
  const one = { source: { repoURL: "https://charts.example", chart: "web", targetRevision: "1.*" } };
  const two = { sources: [{ repoURL: "https://git.example/a.git", path: "a" }, { repoURL: "https://git.example/b.git", ref: "values" }] };

  it("reads status.sync.revision of a single source while Synced, and the last sync's (history) while OutOfSync", () => {
    expect(argoSyncedRevisions(app(one, { sync: { status: "Synced", revision: "1.2.0" } }))).toEqual(["1.2.0"]);
    expect(argoSyncedRevisions(app(one, { sync: { status: "OutOfSync", revision: "1.3.0" }, history: [{ revision: "1.1.0" }, { revision: "1.2.0" }] }))).toEqual(["1.2.0"]);
    expect(argoSyncedRevisions(app(one, {}))).toEqual([null]);
  });

  it("reads status.sync.revisions per source, in spec.sources order", () => {
    expect(argoSyncedRevisions(app(two, { sync: { status: "Synced", revisions: ["aaa", "bbb"] } }))).toEqual(["aaa", "bbb"]);
    expect(argoSyncedRevisions(app(two, { sync: { status: "OutOfSync", revisions: ["ccc", "ddd"] }, history: [{ revisions: ["aaa", "bbb"] }] }))).toEqual(["aaa", "bbb"]);
    // A single revision does not say which of several sources it is.
    expect(argoSyncedRevisions(app(two, { sync: { status: "Synced", revision: "aaa" } }))).toEqual([null, null]);
  });
});

describe("joining a multi-source application's objects", () => {
  const item = (key: string, from: string) => ({ key, object: { from } });
  it("keeps source order, lets the last source's copy of a repeated object win, and says how often it appeared", () => {
    const joined = joinSources(
      [
        [item("apps/Deployment/shop/web", "first"), item("/ConfigMap/shop/a", "first")],
        [item("/ConfigMap/shop/b", "second"), item("apps/Deployment/shop/web", "second")],
        [item("apps/Deployment/shop/web", "third")],
      ],
      (i) => i.key,
    );
    expect(joined.items.map((i) => [i.key, i.object.from])).toEqual([
      ["apps/Deployment/shop/web", "third"],
      ["/ConfigMap/shop/a", "first"],
      ["/ConfigMap/shop/b", "second"],
    ]);
    expect(joined.repeated).toEqual([{ key: "apps/Deployment/shop/web", count: 3 }]);
    expect(repeatedResourceMessage(joined.repeated[0]!)).toBe("Resource apps/Deployment/shop/web appeared 3 times among application resources.");
  });
});

