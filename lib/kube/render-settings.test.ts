import { describe, expect, it } from "vitest";
import { argoIgnoreRulesOf, argoRenderOptionsOf, fluxRenderSpecOf } from "./render-settings";

describe("fluxRenderSpecOf", () => {
  it("takes the render fields of a Kustomization as the API server returns it", () => {
    const ks = {
      apiVersion: "kustomize.toolkit.fluxcd.io/v1",
      kind: "Kustomization",
      metadata: { name: "apps", namespace: "flux-system" },
      spec: {
        interval: "10m",
        path: "./apps/prod",
        prune: true,
        targetNamespace: "apps",
        namePrefix: "p-",
        patches: [{ patch: "- op: remove\n  path: /spec/replicas", target: { kind: "Deployment", labelSelector: "tier=web" } }, { target: { kind: "X" } }],
        images: [{ name: "podinfo", newTag: "6.8.0" }, { newTag: "no-name" }],
        components: ["../components/ha"],
        commonMetadata: { labels: { team: "a" } },
        postBuild: {
          substitute: { cluster: "prod" },
          substituteFrom: [{ kind: "ConfigMap", name: "vars" }, { kind: "Secret", name: "secret-vars", optional: true }, { kind: "Bucket", name: "nope" }],
        },
      },
      status: { lastAppliedRevision: "main@sha1:abc" },
    };
    expect(fluxRenderSpecOf(ks)).toEqual({
      targetNamespace: "apps",
      namePrefix: "p-",
      patches: [{ patch: "- op: remove\n  path: /spec/replicas", target: { kind: "Deployment", labelSelector: "tier=web" } }],
      images: [{ name: "podinfo", newTag: "6.8.0" }],
      components: ["../components/ha"],
      commonMetadata: { labels: { team: "a" } },
      postBuild: {
        substitute: { cluster: "prod" },
        substituteFrom: [
          { kind: "ConfigMap", name: "vars", optional: false },
          { kind: "Secret", name: "secret-vars", optional: true },
        ],
      },
    });
  });

  it("a Kustomization without render fields renders as a plain generated kustomization", () => {
    expect(fluxRenderSpecOf({ spec: { interval: "1m", path: "./", prune: false } })).toEqual({});
  });
});

describe("argoRenderOptionsOf", () => {
  it("directory and kustomize of a single source", () => {
    const app = {
      metadata: { name: "guestbook-prod", namespace: "argocd" },
      spec: {
        project: "web",
        destination: { server: "https://kubernetes.default.svc", namespace: "gb" },
        source: {
          repoURL: "https://github.com/acme/apps",
          targetRevision: "main",
          path: "guestbook",
          directory: { recurse: true, include: "{*.yaml,*.yml}", exclude: "test/*" },
          kustomize: {
            images: ["gb=acme/gb:2"],
            namePrefix: "prod-",
            commonLabels: { env: "prod" },
            commonAnnotations: { a: "b" },
            commonAnnotationsEnvsubst: true,
            namespace: "gb",
            forceCommonLabels: true,
            replicas: [{ name: "gb", count: 3 }, { name: "worker", count: "2" }, { count: 1 }],
            patches: [{ target: { kind: "Deployment", name: "gb" }, patch: "- op: remove\n  path: /spec/replicas", options: { allowNameChange: true } }, { path: "ha.yaml" }, "junk"],
            components: ["../components/ha"],
            ignoreMissingComponents: true,
          },
        },
      },
    };
    expect(argoRenderOptionsOf(app, "guestbook")).toEqual({
      env: { appName: "guestbook-prod", appNamespace: "gb", project: "web", repoURL: "https://github.com/acme/apps", sourcePath: "guestbook", targetRevision: "main" },
      directory: { recurse: true, include: "{*.yaml,*.yml}", exclude: "test/*" },
      kustomize: {
        images: ["gb=acme/gb:2"],
        namePrefix: "prod-",
        commonLabels: { env: "prod" },
        commonAnnotations: { a: "b" },
        commonAnnotationsEnvsubst: true,
        namespace: "gb",
        forceCommonLabels: true,
        replicas: [{ name: "gb", count: 3 }, { name: "worker", count: "2" }],
        patches: [{ target: { kind: "Deployment", name: "gb" }, patch: "- op: remove\n  path: /spec/replicas", options: { allowNameChange: true } }, { path: "ha.yaml" }],
        components: ["../components/ha"],
        ignoreMissingComponents: true,
      },
    });
  });

  it("of several sources, the one at the environment's path", () => {
    const app = { spec: { sources: [{ path: "charts/x", directory: { recurse: true } }, { path: "./envs/prod/", directory: { exclude: "*.md" } }] } };
    expect(argoRenderOptionsOf(app, "envs/prod")).toEqual({ env: { sourcePath: "./envs/prod/" }, directory: { exclude: "*.md" } });
  });

  it("empty include/exclude strings are no filter", () => {
    expect(argoRenderOptionsOf({ spec: { source: { directory: { include: "", exclude: "" } } } }, ".")).toEqual({ env: {}, directory: {} });
  });
});

describe("argoIgnoreRulesOf", () => {
  it("turns spec.ignoreDifferences into ignore rules: pointers and managers kept, jq-only entries hide nothing", () => {
    const app = {
      spec: {
        ignoreDifferences: [
          { group: "apps", kind: "Deployment", jsonPointers: ["/spec/replicas"] },
          { kind: "ConfigMap", name: "feature-flags", namespace: "shop", jsonPointers: ["/data"], jqPathExpressions: [".data.x"] },
          { group: "*", kind: "Service", managedFieldsManagers: ["kube-controller-manager"] },
          { group: "apps", kind: "StatefulSet", jqPathExpressions: [".spec.volumeClaimTemplates[]?"] },
          { kind: "*", jsonPointers: ["not-a-pointer"] },
          { jsonPointers: ["/x"] },
        ],
      },
    };
    expect(argoIgnoreRulesOf(app)).toEqual([
      { name: "Argo CD ignoreDifferences[0]", kinds: ["apps/Deployment"], jsonPointers: ["/spec/replicas"] },
      { name: "Argo CD ignoreDifferences[1]", kinds: ["/ConfigMap"], names: ["feature-flags"], namespaces: ["shop"], jsonPointers: ["/data"] },
      { name: "Argo CD ignoreDifferences[2]", kinds: ["Service"], managers: ["kube-controller-manager"] },
    ]);
    expect(argoIgnoreRulesOf({ spec: {} })).toEqual([]);
  });
});
