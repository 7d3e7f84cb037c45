import { describe, expect, it } from "vitest";
import type { HelmReleaseSummary } from "@/lib/helm/release-desired";
import { chartRevisionOf } from "./chart-revision";

const kustomizationCommit = "a".repeat(40);
const fromHelmRepository = [{ url: "https://kubernetes.github.io/ingress-nginx", ref: { semver: "4.11.x" }, path: ".", render: "helm", chart: "ingress-nginx" }];

function release(over: Partial<HelmReleaseSummary> = {}): HelmReleaseSummary {
  return {
    releaseName: "ingress-nginx",
    releaseNamespace: "ingress-nginx",
    storageNamespace: "ingress-nginx",
    released: { revision: 1, status: "deployed", chart: { name: "ingress-nginx", version: "4.11.3", appVersion: "1.11.3" }, deployedAt: "2026-12-01T10:00:00Z" },
    declared: { chart: "ingress-nginx", version: "4.11.3", chartRef: null },
    verdict: { state: "released", changes: [], reason: null },
    valuesDiff: null,
    history: [],
    ...over,
  };
}

describe("chartRevisionOf", () => {
  it("gives a Flux HelmRelease from a Helm repository its released chart and version, not the commit of the Kustomization declaring it", () => {
    expect(chartRevisionOf({ sources: fromHelmRepository, approvedSha: kustomizationCommit, appliedSha: kustomizationCommit, helm: release() })).toEqual({
      name: "ingress-nginx",
      applied: { version: "4.11.3", appVersion: "1.11.3" },
      approved: null,
    });
  });

  it("names what Git asks for only while the release does not have it: a range the release satisfies is not news", () => {
    const pending = release({ declared: { chart: "ingress-nginx", version: "4.12.0", chartRef: null }, verdict: { state: "pending", changes: ["chart version"], reason: null } });
    expect(chartRevisionOf({ sources: fromHelmRepository, approvedSha: null, appliedSha: null, helm: pending })?.approved).toBe("4.12.0");
    const range = release({ declared: { chart: "ingress-nginx", version: "4.11.x", chartRef: null } });
    expect(chartRevisionOf({ sources: fromHelmRepository, approvedSha: null, appliedSha: null, helm: range })?.approved).toBeNull();
    const nothingYet = release({ released: null, verdict: { state: "unknown", changes: [], reason: "no release in Helm's storage" } });
    expect(chartRevisionOf({ sources: fromHelmRepository, approvedSha: null, appliedSha: null, helm: nothingYet })).toEqual({ name: "ingress-nginx", applied: null, approved: "4.11.3" });
  });

  it("reads an Argo CD chart source's revisions as chart versions, approved only when it differs from the synced one", () => {
    const argo = [{ url: "https://charts.bitnami.com/bitnami", ref: { tag: "18.2.0" }, path: ".", render: "helm", chart: "redis" }];
    expect(chartRevisionOf({ sources: argo, approvedSha: "18.2.0", appliedSha: "18.2.0", helm: null })).toEqual({ name: "redis", applied: { version: "18.2.0", appVersion: null }, approved: null });
    expect(chartRevisionOf({ sources: argo, approvedSha: "18.3.0", appliedSha: "18.2.0", helm: null })?.approved).toBe("18.3.0");
    // A multi-source application: its chart source's own approved version, the Git source lending values skipped.
    const multi = [{ url: "https://git.example.com/values.git", ref: { branch: "main" }, path: ".", refName: "values", refOnly: true }, { ...argo[0], approved: "18.4.0" }];
    expect(chartRevisionOf({ sources: multi, approvedSha: "18.2.0", appliedSha: "18.2.0", helm: null })).toMatchObject({ name: "redis", approved: "18.4.0" });
  });

  it("leaves an application whose source is Git to its commits, a chart folder in Git included", () => {
    expect(chartRevisionOf({ sources: [{ url: "https://git.example.com/fleet.git", ref: { branch: "main" }, path: "apps/production/api", render: "kustomize" }], approvedSha: kustomizationCommit, appliedSha: kustomizationCommit, helm: null })).toBeNull();
    expect(chartRevisionOf({ sources: [{ url: "https://git.example.com/fleet.git", ref: { branch: "main" }, path: "charts/api", render: "helm" }], approvedSha: null, appliedSha: null, helm: release() })).toBeNull();
    expect(chartRevisionOf({ sources: [], approvedSha: null, appliedSha: null, helm: null })).toBeNull();
  });
});
