import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { HelmReleaseDto } from "@/lib/api/contract";
import { HelmReleasePanel } from "./helm-release-panel";

const release: HelmReleaseDto = {
  releaseName: "podinfo",
  releaseNamespace: "podinfo",
  storageNamespace: "podinfo",
  released: { revision: 1, status: "deployed", chart: { name: "podinfo", version: "6.14.1", appVersion: "6.14.1" }, deployedAt: "2026-12-03T19:38:00Z" },
  declared: { chart: "podinfo", version: "6.14.1", chartRef: null },
  verdict: { state: "pending", changes: ["values changed"], reason: "Ready=True (InstallSucceeded): Helm install succeeded" },
  valuesDiff: {
    entries: [
      { path: "db.password", change: "changed", git: "(masked)" },
      { path: "ui.message", change: "changed", git: '"hello again"' },
    ],
    total: 2,
  },
  history: [{ revision: 1, status: "deployed", chartVersion: "6.14.1", deployedAt: "2026-12-03T19:38:00Z" }],
};

describe("HelmReleasePanel", () => {
  it("shows chart, version, the pending verdict with helm-controller's reason, the values diff masked, and the history", () => {
    const html = renderToString(createElement(HelmReleasePanel, { release }));
    const text = html.replace(/<[^>]+>/g, " ").replace(/&quot;/g, '"').replace(/&#x27;|&apos;/g, "'").replace(/\s+/g, " ");
    expect(text).toContain("podinfo 6.14.1 (app 6.14.1) · revision 1 · deployed");
    expect(text).toContain("changed in Git, not released yet values changed");
    expect(text).toContain("helm-controller: Ready=True (InstallSucceeded): Helm install succeeded");
    expect(text).toContain('ui.message differs "hello again"');
    expect(text).toContain("db.password differs (masked)");
    expect(text).toContain("revision 1 · deployed · chart 6.14.1");
  });

  it("says when nothing is installed and Git's values are the released ones", () => {
    const html = renderToString(createElement(HelmReleasePanel, { release: { ...release, released: null, verdict: { state: "released", changes: [], reason: null }, valuesDiff: { entries: [], total: 0 }, history: [] } }));
    expect(html).toContain("nothing installed yet");
    expect(html).toContain("are the released ones");
    expect(html).not.toContain("Release history");
  });
});
