import { describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/config";
import { applicationView, chartOfView, declaredApplications } from "./declared";
import type { ApplicationSpec } from "./spec";

const REPOS = `
repositories:
  - { name: platform, url: "https://git.example/platform.git" }
  - { name: shop, url: "https://git.example/shop.git" }
`;

const config = parseConfig(`${REPOS}
environments:
  - name: staging
    cluster: { kubeconfig: ./k.yaml }
    source: { repository: shop, path: envs/staging, render: kustomize }
    controller: { type: flux, name: shop }
  - name: production
    cluster: { kubeconfig: ./k.yaml }
    trackingLabel: team=shop
    applications:
      - name: infra
        source: { repository: platform, path: infra/prod }
      - name: web
        source: { repository: shop, branch: release, path: web, render: kustomize, flux: { targetNamespace: web } }
        controller: { type: flux, name: web }
        promotionKey: shop-web
      - name: api
        source: { repository: shop, path: api }
        trackingLabel: app=api
  - name: fleet
    cluster: { kubeconfig: ./k.yaml }
    discover: { flux: {} }
`);
const [staging, production, fleet] = config.environments;

describe("declaredApplications", () => {
  it("turns today's single source into one application named default", () => {
    expect(declaredApplications(staging!, config.repositories)).toEqual([
      {
        name: "default",
        kind: "flux-kustomization",
        promotionKey: "default",
        controller: { type: "flux", kind: "Kustomization", namespace: "flux-system", name: "shop" },
        sources: [{ url: "https://git.example/shop.git", repository: "shop", ref: { branch: "main" }, path: "envs/staging", render: "kustomize" }],
        labels: {},
      },
    ]);
  });

  it("declares none for an environment that only discovers (no default application)", () => {
    expect(declaredApplications(fleet!, config.repositories)).toEqual([]);
  });

  it("lists declared applications in order, with their kind and promotion key", () => {
    const apps = declaredApplications(production!, config.repositories);
    expect(apps.map((a) => [a.name, a.kind, a.promotionKey, a.sources[0]?.repository, a.sources[0]?.ref.branch])).toEqual([
      ["infra", "declared", "infra", "platform", "main"],
      ["web", "flux-kustomization", "shop-web", "shop", "release"],
      ["api", "declared", "api", "shop", "main"],
    ]);
  });
});

describe("applicationView", () => {
  const byName = (name: string) => declaredApplications(production!, config.repositories).find((a) => a.name === name)!;

  it("leaves a single-source environment exactly as it was", () => {
    const [only] = declaredApplications(staging!, config.repositories);
    const view = applicationView(staging!, only!);
    expect(view.ok && view.env).toBe(staging);
  });

  it.each([
    ["infra", { source: { repository: "platform", branch: "main", path: "infra/prod", render: "plain" }, controller: undefined, trackingLabel: "team=shop" }],
    ["web", { source: { repository: "shop", branch: "release", path: "web", render: "kustomize", flux: { targetNamespace: "web" } }, controller: { type: "flux", kind: "Kustomization", namespace: "flux-system", name: "web" }, trackingLabel: "team=shop" }],
    ["api", { source: { repository: "shop", branch: "main", path: "api", render: "plain" }, controller: undefined, trackingLabel: "app=api" }],
  ])("gives declared application %s its own source, controller and tracking label", (name, expected) => {
    const view = applicationView(production!, byName(name));
    expect(view.ok).toBe(true);
    if (view.ok) expect({ source: view.env.source, controller: view.env.controller, trackingLabel: view.env.trackingLabel }).toEqual(expected);
  });

  const discovered = (over: Partial<ApplicationSpec>): ApplicationSpec => ({
    name: "flux-system/apps",
    kind: "flux-kustomization",
    promotionKey: "apps",
    controller: { type: "flux", kind: "Kustomization", namespace: "flux-system", name: "apps" },
    sources: [{ url: "https://git.example/shop.git", repository: "shop", ref: { branch: "main" }, path: "./apps/prod", render: "kustomize" }],
    labels: {},
    ...over,
  });

  it("renders a discovered Kustomization from its source and controller object", () => {
    const view = applicationView(production!, discovered({}));
    expect(view.ok && { source: view.env.source, controller: view.env.controller }).toEqual({
      source: { repository: "shop", branch: "main", path: "./apps/prod", render: "kustomize" },
      controller: { type: "flux", kind: "Kustomization", namespace: "flux-system", name: "apps" },
    });
  });

  it("collects a discovered HelmRelease where its Kustomization declares it, as a HelmRelease environment", () => {
    const release = { kind: "flux-helmrelease" as const, controller: { type: "flux" as const, kind: "HelmRelease" as const, namespace: "ingress-nginx", name: "ingress-nginx" } };
    const declaredIn = { url: "u", repository: "shop", ref: { branch: "main" }, path: "infrastructure/controllers", render: "kustomize" as const };
    const view = applicationView(production!, discovered({ ...release, declaredIn }));
    expect(view.ok && { source: view.env.source, controller: view.env.controller }).toEqual({
      source: { repository: "shop", branch: "main", path: "infrastructure/controllers", render: "kustomize" },
      controller: { type: "flux", kind: "HelmRelease", namespace: "ingress-nginx", name: "ingress-nginx" },
    });
    const unlisted = applicationView(production!, discovered({ ...release, declaredIn: { ...declaredIn, repository: undefined } }));
    expect(unlisted).toEqual({ ok: false, reason: "no repository or credential in driftwatch.yaml matches u" });
  });

  it("renders a chart kept in Git as an Argo CD Helm source, in the Application's destination namespace", () => {
    const view = applicationView(
      production!,
      discovered({
        controller: { type: "argocd", kind: "Application", namespace: "argocd", name: "podinfo" },
        sources: [{ url: "u", repository: "shop", ref: { branch: "main" }, path: "charts/podinfo", render: "helm" }],
        destination: { namespace: "podinfo" },
      }),
    );
    expect(view.ok && { source: view.env.source, controller: view.env.controller, defaultNamespace: view.env.defaultNamespace }).toEqual({
      source: { repository: "shop", branch: "main", path: "charts/podinfo", render: "helm" },
      controller: { type: "argocd", namespace: "argocd", name: "podinfo" },
      defaultNamespace: "podinfo",
    });
  });

  it.each([
    [{ branch: "release" }, "release"],
    [{ tag: "v1.2.3" }, "refs/tags/v1.2.3"],
    [{ semver: ">=1.0 <2" }, `refs/driftwatch/semver/${Buffer.from(">=1.0 <2").toString("hex")}`],
    [{ commit: "0123456789abcdef0123456789abcdef01234567", branch: "main" }, "refs/driftwatch/commit/0123456789abcdef0123456789abcdef01234567"],
    [{ name: "refs/pull/7/head" }, "refs/driftwatch/named/pull/7/head"],
    [{ name: "HEAD" }, "refs/driftwatch/default-branch"],
  ])("collects an application following %j through the followed ref %s", (ref, followed) => {
    const view = applicationView(production!, discovered({ sources: [{ url: "u", repository: "shop", ref, path: "apps", render: "plain" }] }));
    expect(view.ok && view.env.source.branch).toBe(followed);
  });

  it("collects a chart from a Helm repository as a chart view: its repository, chart and version range in place of a Git location", () => {
    const view = applicationView(production!, discovered({ sources: [{ url: "https://charts.example/stable", ref: { semver: "1.x" }, path: ".", render: "helm", chart: "podinfo" }] }));
    expect(view.ok).toBe(true);
    if (!view.ok) return;
    expect(chartOfView(view.env)).toEqual({ repoURL: "https://charts.example/stable", chart: "podinfo", targetRevision: "1.x" });
    expect(view.env.source).toMatchObject({ render: "helm", branch: "1.x" });
    // A Git source is not a chart view.
    const git = applicationView(production!, discovered({}));
    expect(git.ok && chartOfView(git.env)).toBe(null);
  });

  it("collects a multi-source application: its first rendering source stands for it, a ref-only source is skipped for that", () => {
    const values = { url: "https://git.example/values.git", repository: "shop", ref: { branch: "main" }, path: ".", render: "plain" as const, refName: "values", refOnly: true as const };
    const chart = { url: "https://charts.example", ref: { semver: "1.x" }, path: ".", render: "helm" as const, chart: "podinfo" };
    const view = applicationView(production!, discovered({ sources: [values, chart, discovered({}).sources[0]!] }));
    expect(view.ok).toBe(true);
    if (view.ok) expect(chartOfView(view.env)).toMatchObject({ chart: "podinfo", targetRevision: "1.x" });
  });

  it.each([
    ["no configured repository", { sources: [{ url: "https://other.example/x.git", ref: { branch: "main" }, path: ".", render: "plain" as const }] }, /no repository or credential in driftwatch.yaml matches https:\/\/other.example\/x.git/],
    ["an OCI artifact", { sources: [{ url: "oci://ghcr.io/acme/app", repository: "shop", ref: { digest: "sha256:0123456789abcdef0123456789abcdef" }, path: ".", render: "plain" as const }] }, /OCI artifact sha256:0123.*only Git sources/],
    ["a HelmRelease", { kind: "flux-helmrelease" as const, controller: { type: "flux" as const, kind: "HelmRelease" as const, namespace: "x", name: "y" } }, /no Kustomization is known to apply its HelmRelease/],
    ["two sources, one of them from no configured repository", { sources: [discovered({}).sources[0]!, { url: "https://other.example/values.git", ref: { branch: "main" }, path: ".", render: "plain" as const, refName: "values", refOnly: true as const }] }, /no repository or credential in driftwatch.yaml matches https:\/\/other.example\/values.git/],
    ["only ref sources", { sources: [{ ...discovered({}).sources[0]!, refName: "values", refOnly: true as const }] }, /only ref sources/],
  ])("says why it cannot collect an application with %s", (_what, over, reason) => {
    const view = applicationView(production!, discovered(over));
    expect(view.ok).toBe(false);
    if (!view.ok) expect(view.reason).toMatch(reason);
  });
});
