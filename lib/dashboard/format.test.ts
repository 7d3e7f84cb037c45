import { describe, expect, it } from "vitest";
import { sourceText } from "./format";

describe("sourceText", () => {
  it("names a Git source by repository, path, ref and render", () => {
    expect(sourceText({ url: "https://git.example.com/acme/shop.git", repository: "shop", ref: "main", path: "envs/production", render: "kustomize", chart: null })).toBe("shop:envs/production@main (kustomize)");
  });
  it("names a chart from a Helm repository by chart, version and repository", () => {
    expect(sourceText({ url: "https://charts.shop.example", repository: null, ref: "1.4.0", path: ".", render: "helm", chart: "search" })).toBe("search 1.4.0 from https://charts.shop.example");
  });
});
