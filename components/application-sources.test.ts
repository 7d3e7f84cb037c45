import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ApplicationSummaryDto } from "@/lib/api/contract";
import { ApplicationSources } from "./application-sources";

type Source = ApplicationSummaryDto["sources"][number];
const CHART_SHA = "a".repeat(40);
const VALUES_SHA = "b".repeat(40);
const NEXT_SHA = "c".repeat(40);

const sources: Source[] = [
  { url: "https://charts.example", repository: null, ref: "1.*", follows: { kind: "semver", ref: "1.*", resolved: null, text: "semver 1.*" }, path: ".", render: "helm", chart: "web", refName: null, refOnly: false, approved: "1.1.0", applied: "1.0.0" },
  { url: "https://git.example/values.git", repository: "values", ref: "main", follows: { kind: "branch", ref: "main", resolved: null, text: "branch main" }, path: ".", render: "plain", chart: null, refName: "values", refOnly: true, approved: NEXT_SHA, applied: VALUES_SHA },
  { url: "https://git.example/charts.git", repository: "charts", ref: "main", follows: { kind: "branch", ref: "main", resolved: null, text: "branch main" }, path: "extras", render: "plain", chart: null, refName: null, refOnly: false, approved: CHART_SHA, applied: null },
];

describe("ApplicationSources", () => {
  it("lists every source in order with where it is read from, what it follows, and its approved and applied revision", () => {
    const html = renderToString(createElement(ApplicationSources, { sources }));
    const rows = [...html.matchAll(/<tr data-testid="application-source">(.*?)<\/tr>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim());
    expect(rows).toEqual([
      "1 https://charts.example chart web semver 1.* 1.1.0 1.0.0",
      `2 values lends files only ref: values branch main ${NEXT_SHA.slice(0, 7)} ${VALUES_SHA.slice(0, 7)}`,
      `3 charts extras branch main ${CHART_SHA.slice(0, 7)} —`,
    ]);
    // Commits link to their page; a chart version is not a commit.
    expect(html).toContain(`href="/commits/${NEXT_SHA}"`);
    expect(html).not.toContain('href="/commits/1.1.0"');
  });
});
