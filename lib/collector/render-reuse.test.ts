import { describe, expect, it } from "vitest";
import { FirstParentHistory } from "@/lib/git/history-index";
import { renderHoldsAt, renderMayDependOnRevision } from "./render-reuse";

/** A line of commits c1 … c5 (oldest first), each changing the given files. */
function history(...changes: string[][]): FirstParentHistory {
  const commits = changes.map((changedPaths, i) => ({ sha: `c${i + 1}`, firstParent: i === 0 ? null : `c${i}`, changedPaths }));
  return FirstParentHistory.fromWalk([...commits].reverse(), true);
}

const overlay = { sha: "c1", inputs: ["apps/prod/api/kustomization.yaml", "apps/base/api/deployment.yaml", "apps/base/api/kustomization.yaml"], remoteBases: [] };
const line = history(["apps/prod/api/kustomization.yaml", "apps/base/api/deployment.yaml"], ["apps/prod/cart/kustomization.yaml"], ["README.md"], ["apps/base/api/service.yaml"], ["apps/.sourceignore"]);
const holds = (next: string, over: Partial<Parameters<typeof renderHoldsAt>[0]> = {}) =>
  renderHoldsAt({ last: overlay, next, path: "apps/prod/api", mode: "kustomize", controller: { type: "flux", spec: {} as never }, history: line, ...over });

describe("whether an application's last render holds at a newer revision", () => {
  it("holds while the commits in between change other folders only", () => {
    expect(holds("c2")).toBe(true);
    expect(holds("c3")).toBe(true);
  });

  it("does not when a commit changes a directory the build read outside its path (a file added beside a base's input)", () => {
    expect(holds("c4")).toBe(false);
  });

  it("does not when a .sourceignore anywhere changed", () => {
    expect(holds("c5", { last: { ...overlay, sha: "c4" } })).toBe(false);
  });

  it("does not when its own path changed", () => {
    expect(holds("c3", { path: "apps/prod/cart" })).toBe(false);
  });

  it("does not backwards, off the line, without history, or with remote bases", () => {
    expect(holds("c1", { last: { ...overlay, sha: "c3" } })).toBe(false);
    expect(holds("elsewhere")).toBe(false);
    expect(holds("c2", { history: null })).toBe(false);
    expect(holds("c2", { last: { ...overlay, remoteBases: ["github.com/acme/bases//web?ref=main"] } })).toBe(false);
    expect(holds("c2", { last: { ...overlay, fetchedCharts: ["helm chart redis 19.0.1 from https://charts.example.com"] } })).toBe(false);
  });

  it("does not when Argo CD may substitute the revision, or Helm renders", () => {
    expect(holds("c2", { controller: { type: "argocd", kustomize: { images: ["app:${ARGOCD_APP_REVISION}"] } } })).toBe(false);
    expect(holds("c2", { controller: { type: "argocd", kustomize: { namePrefix: "p-" } } })).toBe(true);
    expect(holds("c2", { mode: "helm", controller: undefined })).toBe(false);
  });
});

describe("renders that may name their revision", () => {
  it("are Argo CD's with build variables, override files or Helm; never Flux's or a plain folder's", () => {
    expect(renderMayDependOnRevision("kustomize", { type: "argocd", kustomize: { commonLabels: { rev: "$ARGOCD_APP_REVISION_SHORT" } } }, [])).toBe(true);
    expect(renderMayDependOnRevision("kustomize", { type: "argocd" }, ["apps/api/.argocd-source-api.yaml"])).toBe(true);
    expect(renderMayDependOnRevision("plain", { type: "argocd", helm: {} }, [])).toBe(true);
    expect(renderMayDependOnRevision("kustomize", { type: "argocd" }, ["apps/api/kustomization.yaml"])).toBe(false);
    expect(renderMayDependOnRevision("kustomize", { type: "flux", spec: {} as never, variables: new Map([["rev", "x"]]) }, [])).toBe(false);
    expect(renderMayDependOnRevision("plain", undefined, ["apps/api/a.yaml"])).toBe(false);
  });
});
