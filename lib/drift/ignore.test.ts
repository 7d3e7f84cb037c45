import { describe, expect, it } from "vitest";
import { compileIgnoreRules, IgnoreRuleError, matchIgnoreRule, rulesFor } from "./ignore";
import { parsePathPattern, type Segment } from "./path";

const target = { group: "apps", kind: "Deployment", name: "api", namespace: "shop" };
const replicas: Segment[] = [{ t: "field", name: "spec" }, { t: "field", name: "replicas" }];

describe("ignore rules", () => {
  it.each([
    [{ name: "r", kinds: ["Deployment"] }, true],
    [{ name: "r", kinds: ["apps/Deployment"] }, true],
    [{ name: "r", kinds: ["extensions/Deployment"] }, false],
    [{ name: "r", names: ["a*"] }, true],
    [{ name: "r", names: ["ap?"] }, true],
    [{ name: "r", names: ["web"] }, false],
    [{ name: "r", namespaces: ["shop", "billing"] }, true],
    [{ name: "r", namespaces: ["kube-*"] }, false],
  ])("%j applies to apps/Deployment shop/api: %s", (rule, ok) => {
    expect(rulesFor(compileIgnoreRules([rule]), target).length).toBe(ok ? 1 : 0);
  });

  it("matches by pointer, path or manager, and a rule without selectors hides everything", () => {
    const rules = compileIgnoreRules([
      { name: "ptr", jsonPointers: ["/spec/replicas"] },
      { name: "path", paths: ["metadata.labels.foo"] },
      { name: "mgr", managers: ["kube-*"] },
    ]);
    expect(matchIgnoreRule(rules, { segs: replicas, path: ["spec", "replicas"], manager: null })?.name).toBe("ptr");
    const label: Segment[] = [{ t: "field", name: "metadata" }, { t: "field", name: "labels" }, { t: "field", name: "foo" }];
    expect(matchIgnoreRule(rules, { segs: label, path: ["metadata", "labels", "foo"], manager: null })?.name).toBe("path");
    const image: Segment[] = [{ t: "field", name: "spec" }, { t: "field", name: "image" }];
    expect(matchIgnoreRule(rules, { segs: image, path: ["spec", "image"], manager: "kube-controller-manager" })?.name).toBe("mgr");
    expect(matchIgnoreRule(rules, { segs: image, path: ["spec", "image"], manager: "kubectl" })).toBeNull();
    expect(matchIgnoreRule(compileIgnoreRules([{ name: "all", kinds: ["Job"] }]), { segs: image, path: ["spec", "image"], manager: null })?.name).toBe("all");
  });

  it("rejects bad syntax naming the rule", () => {
    expect(() => compileIgnoreRules([{ name: "broken", paths: ["spec..replicas"] }])).toThrow(IgnoreRuleError);
    expect(() => compileIgnoreRules([{ name: "broken", jsonPointers: ["spec/replicas"] }])).toThrow(/broken/);
    expect(() => compileIgnoreRules([{ name: "", paths: ["a"] }])).toThrow(IgnoreRuleError);
  });

  it("a selector path with a merge key matches the concrete item", () => {
    const rules = compileIgnoreRules([{ name: "canary", paths: ["spec.template.spec.containers[name=api].image"] }]);
    const segs: Segment[] = [
      ...parsePathPattern("spec.template.spec.containers").map((p) => ({ t: "field" as const, name: (p as { name: string }).name })),
      { t: "item", index: 3, keys: [["name", "api"]] },
      { t: "field", name: "image" },
    ];
    expect(matchIgnoreRule(rules, { segs, path: ["spec", "template", "spec", "containers", 3, "image"], manager: null })?.name).toBe("canary");
  });
});
