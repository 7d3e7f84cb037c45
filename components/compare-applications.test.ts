import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { CompareApplicationDto } from "@/lib/api/contract";
import { CompareApplications } from "./compare-applications";

const sha = (c: string) => c.repeat(40);
const applications: CompareApplicationDto[] = [
  { promotionKey: "shop", from: { name: "shop", appliedSha: sha("a"), driftCount: 0, objectCount: 4 }, to: { name: "shop-production", appliedSha: sha("b"), driftCount: 2, objectCount: 4 }, sameRevision: false },
  { promotionKey: "ingress", from: { name: "ingress", appliedSha: sha("c"), driftCount: 0, objectCount: 1 }, to: { name: "ingress", appliedSha: sha("c"), driftCount: 0, objectCount: 1 }, sameRevision: true },
  { promotionKey: "metrics", from: null, to: { name: "metrics", appliedSha: null, driftCount: 0, objectCount: 1 }, sameRevision: false },
];

const text = (html: string) => html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");

describe("CompareApplications", () => {
  it("lists each promotion key with both sides' commits and drift, and what differs", () => {
    const t = text(renderToString(createElement(CompareApplications, { applications, from: "staging", to: "production", chosen: null, onChoose: () => undefined })));
    expect(t).toContain("3 matched by promotion key · 2 on a different commit or missing");
    expect(t).toContain("shop different commit shop aaaaaaa shop-production bbbbbbb 2 drifted");
    expect(t).toContain("ingress same commit ingress ccccccc ingress ccccccc");
    expect(t).toContain("metrics absent metrics not applied");
    expect(t.match(/Compare objects/g)).toHaveLength(3);
  });

  it("marks the chosen application and offers the way back to all of them", () => {
    const html = renderToString(createElement(CompareApplications, { applications, from: "staging", to: "production", chosen: "shop", onChoose: () => undefined }));
    const current = html.match(/<tr[^>]*aria-current="true"[^>]*>(.*?)<\/tr>/s);
    expect(text(current?.[1] ?? "")).toContain("shop different commit");
    expect(html.match(/aria-current="true"/g)).toHaveLength(1);
    expect(text(html)).toContain("All applications");
    expect(text(html).match(/Compare objects/g)).toHaveLength(2);
  });
});
