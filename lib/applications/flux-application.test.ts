// Flux objects shaped as the controllers' v1/v2 APIs define them (and as
// `flux create … --export` writes them), turned into applications.
import { describe, expect, it } from "vitest";
import type { Obj } from "@/lib/git";
import { fluxHelmReleaseSpec, fluxKustomizationSpec, type SourceLookup, type TransformOptions } from "./flux-application";

const gitRepository = (name: string, ref: Obj | undefined, url = "https://github.com/acme/fleet"): Obj => ({
  apiVersion: "source.toolkit.fluxcd.io/v1",
  kind: "GitRepository",
  metadata: { name, namespace: "flux-system" },
  spec: { interval: "1m0s", url, ...(ref ? { ref } : {}), secretRef: { name: "flux-system" } },
});

const sourceObjects: Obj[] = [
  gitRepository("flux-system", { branch: "main" }),
  gitRepository("default-branch", undefined),
  gitRepository("tagged", { tag: "v2.3.1" }),
  gitRepository("ranged", { semver: ">=1.0.0 <2.0.0" }),
  gitRepository("pinned", { branch: "main", commit: "0D1E2F3A4B5C6D7E8F901234567890ABCDEF1234" }),
  gitRepository("pull", { name: "refs/pull/42/head" }),
  { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "OCIRepository", metadata: { name: "manifests", namespace: "flux-system" }, spec: { interval: "5m", url: "oci://ghcr.io/acme/manifests/app", ref: { tag: "1.4.0" } } },
  { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "OCIRepository", metadata: { name: "digest", namespace: "flux-system" }, spec: { interval: "5m", url: "oci://ghcr.io/acme/charts/podinfo", ref: { digest: "sha256:2a9c1e8f60b0c7b3e43f8d33a6b0b7fbb9d3e1d1e9c7a5f2c0d1b2a3c4d5e6f7" } } },
  { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "HelmRepository", metadata: { name: "podinfo", namespace: "flux-system" }, spec: { interval: "1h", url: "https://stefanprodan.github.io/podinfo" } },
  { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "HelmRepository", metadata: { name: "bitnami", namespace: "infra" }, spec: { interval: "1h", type: "oci", url: "oci://registry-1.docker.io/bitnamicharts" } },
  { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "HelmChart", metadata: { name: "redis", namespace: "infra" }, spec: { chart: "redis", version: "20.x", sourceRef: { kind: "HelmRepository", name: "bitnami" }, interval: "10m" } },
  { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "Bucket", metadata: { name: "minio", namespace: "flux-system" }, spec: { bucketName: "manifests", endpoint: "minio.example.com", interval: "5m" } },
];

function lookup(objects: Obj[], unreadable: string[] = []): SourceLookup {
  return {
    find(kind, namespace, name) {
      const meta = (o: Obj) => o.metadata as { name: string; namespace: string };
      const found = objects.find((o) => o.kind === kind && meta(o).name === name && meta(o).namespace === namespace);
      if (found) return found;
      return unreadable.includes(kind) ? "unreadable" : "missing";
    },
  };
}

const opts: TransformOptions = { repositoryFor: (url) => (url.includes("github.com/acme/fleet") ? "fleet" : undefined), promotionKeys: {} };

function kustomization(name: string, sourceRef: Obj, extra: Obj = {}): Obj {
  return {
    apiVersion: "kustomize.toolkit.fluxcd.io/v1",
    kind: "Kustomization",
    metadata: { name, namespace: "flux-system", labels: { "toolkit.fluxcd.io/tier": "apps" } },
    spec: { interval: "10m", path: "./apps/production/", prune: true, wait: true, sourceRef, ...extra },
  };
}

describe("fluxKustomizationSpec", () => {
  it.each([
    ["a branch", "flux-system", { branch: "main" }],
    ["no ref: Flux's default, master", "default-branch", { branch: "master" }],
    ["a tag", "tagged", { tag: "v2.3.1" }],
    ["a semver range", "ranged", { semver: ">=1.0.0 <2.0.0" }],
    ["a commit on a branch", "pinned", { branch: "main", commit: "0d1e2f3a4b5c6d7e8f901234567890abcdef1234" }],
    ["a ref name", "pull", { name: "refs/pull/42/head" }],
  ])("follows a GitRepository with %s", (_what, source, ref) => {
    const { spec, problems } = fluxKustomizationSpec(kustomization("apps", { kind: "GitRepository", name: source }), lookup(sourceObjects), opts);
    expect(problems).toEqual([]);
    expect(spec).toEqual({
      name: "flux-system/apps",
      kind: "flux-kustomization",
      promotionKey: "apps",
      controller: { type: "flux", kind: "Kustomization", namespace: "flux-system", name: "apps" },
      sources: [{ url: "https://github.com/acme/fleet", repository: "fleet", ref, path: "apps/production", render: "kustomize" }],
      labels: { "toolkit.fluxcd.io/tier": "apps" },
    });
  });

  it("follows an OCIRepository artifact by tag, and the repository root when spec.path is unset", () => {
    const ks = kustomization("app", { kind: "OCIRepository", name: "manifests" });
    delete (ks.spec as Obj).path;
    const { spec } = fluxKustomizationSpec(ks, lookup(sourceObjects), opts);
    expect(spec.sources).toEqual([{ url: "oci://ghcr.io/acme/manifests/app", ref: { tag: "1.4.0" }, path: ".", render: "kustomize" }]);
  });

  it("takes the promotion key from driftwatch.yaml, else the driftwatch.io/application annotation, else the name", () => {
    const annotated = kustomization("shop-api-prod", { kind: "GitRepository", name: "flux-system" });
    (annotated.metadata as Obj).annotations = { "driftwatch.io/application": "shop-api" };
    expect(fluxKustomizationSpec(annotated, lookup(sourceObjects), opts).spec.promotionKey).toBe("shop-api");
    expect(fluxKustomizationSpec(annotated, lookup(sourceObjects), { ...opts, promotionKeys: { "flux-system/shop-api-prod": "api" } }).spec.promotionKey).toBe("api");
    expect(fluxKustomizationSpec(annotated, lookup(sourceObjects), { ...opts, promotionKeys: { "shop-api-prod": "api2" } }).spec.promotionKey).toBe("api2");
  });

  it.each([
    ["a source that does not exist", { kind: "GitRepository", name: "gone" }, [], "its source GitRepository flux-system/gone does not exist"],
    ["a source the credential cannot list", { kind: "GitRepository", name: "gone" }, ["GitRepository"], "its source GitRepository flux-system/gone could not be read"],
    ["a source in another namespace", { kind: "GitRepository", name: "flux-system", namespace: "tenants" }, [], "its source GitRepository tenants/flux-system does not exist"],
    ["a Bucket", { kind: "Bucket", name: "minio" }, [], "follows a Bucket"],
  ])("keeps the application, without a source, and says why for %s", (_what, sourceRef, unreadable, message) => {
    const { spec, problems } = fluxKustomizationSpec(kustomization("apps", sourceRef), lookup(sourceObjects, unreadable), opts);
    expect(spec.name).toBe("flux-system/apps");
    expect(spec.sources).toEqual([]);
    expect(problems.map((p) => p.message).join("\n")).toContain(message);
  });

  it("says when the Kustomization applies to a remote cluster", () => {
    const ks = kustomization("remote", { kind: "GitRepository", name: "flux-system" }, { kubeConfig: { secretRef: { name: "prod-kubeconfig" } } });
    const { spec, problems } = fluxKustomizationSpec(ks, lookup(sourceObjects), opts);
    expect(spec.sources).toHaveLength(1);
    expect(problems).toEqual([{ code: "unsupported", message: expect.stringContaining("remote cluster") }]);
  });
});

function helmRelease(name: string, spec: Obj): Obj {
  return { apiVersion: "helm.toolkit.fluxcd.io/v2", kind: "HelmRelease", metadata: { name, namespace: "infra" }, spec: { interval: "30m", releaseName: name, ...spec } };
}

describe("fluxHelmReleaseSpec", () => {
  it.each([
    [
      "a chart template from a HelmRepository, an exact version",
      { chart: { spec: { chart: "podinfo", version: "6.7.1", sourceRef: { kind: "HelmRepository", name: "podinfo", namespace: "flux-system" } } } },
      { url: "https://stefanprodan.github.io/podinfo", ref: { tag: "6.7.1" }, path: ".", render: "helm", chart: "podinfo" },
    ],
    [
      "a chart template with a version range",
      { chart: { spec: { chart: "podinfo", version: ">=6.0.0", sourceRef: { kind: "HelmRepository", name: "podinfo", namespace: "flux-system" } } } },
      { url: "https://stefanprodan.github.io/podinfo", ref: { semver: ">=6.0.0" }, path: ".", render: "helm", chart: "podinfo" },
    ],
    [
      "a chart template without a version (the newest)",
      { chart: { spec: { chart: "podinfo", sourceRef: { kind: "HelmRepository", name: "podinfo", namespace: "flux-system" } } } },
      { url: "https://stefanprodan.github.io/podinfo", ref: { semver: "*" }, path: ".", render: "helm", chart: "podinfo" },
    ],
    [
      "a chart folder in a GitRepository",
      { chart: { spec: { chart: "./charts/shop", sourceRef: { kind: "GitRepository", name: "flux-system", namespace: "flux-system" } } } },
      { url: "https://github.com/acme/fleet", repository: "fleet", ref: { branch: "main" }, path: "charts/shop", render: "helm" },
    ],
    [
      "a chartRef to an OCIRepository pinned by digest",
      { chartRef: { kind: "OCIRepository", name: "digest", namespace: "flux-system" } },
      { url: "oci://ghcr.io/acme/charts/podinfo", ref: { digest: "sha256:2a9c1e8f60b0c7b3e43f8d33a6b0b7fbb9d3e1d1e9c7a5f2c0d1b2a3c4d5e6f7" }, path: ".", render: "helm" },
    ],
    [
      "a chartRef to a HelmChart, which points on to an OCI HelmRepository",
      { chartRef: { kind: "HelmChart", name: "redis" } },
      { url: "oci://registry-1.docker.io/bitnamicharts", ref: { semver: "20.x" }, path: ".", render: "helm", chart: "redis" },
    ],
  ])("reads %s", (_what, spec, source) => {
    const result = fluxHelmReleaseSpec(helmRelease("app", spec), lookup(sourceObjects), opts);
    expect(result.problems).toEqual([]);
    expect(result.spec).toMatchObject({ name: "infra/app", kind: "flux-helmrelease", promotionKey: "app", controller: { type: "flux", kind: "HelmRelease", namespace: "infra", name: "app" } });
    expect(result.spec.sources).toEqual([source]);
  });

  it("says what is wrong with a HelmRelease whose chart cannot be followed", () => {
    const missing = fluxHelmReleaseSpec(helmRelease("app", { chartRef: { kind: "OCIRepository", name: "nope" } }), lookup(sourceObjects), opts);
    expect(missing.problems).toEqual([{ code: "source", message: "HelmRelease infra/app: its source OCIRepository infra/nope does not exist" }]);
    const bucket = fluxHelmReleaseSpec(helmRelease("app", { chart: { spec: { chart: "x", sourceRef: { kind: "Bucket", name: "minio", namespace: "flux-system" } } } }), lookup(sourceObjects), opts);
    expect(bucket.problems[0]?.code).toBe("unsupported");
    expect(bucket.spec.sources).toEqual([]);
  });
});
