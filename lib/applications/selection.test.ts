import { describe, expect, it } from "vitest";
import { compileSelection, destinationMatches } from "./selection";

const obj = (namespace: string, name: string, labels: Record<string, string> = {}) => ({ namespace, name, labels });

describe("compileSelection", () => {
  it.each([
    ["everything by default", {}, obj("flux-system", "apps"), true],
    ["in a listed namespace", { namespaces: ["flux-system"] }, obj("flux-system", "apps"), true],
    ["not in another namespace", { namespaces: ["flux-system"] }, obj("tenants", "apps"), false],
    ["an included name glob", { include: ["infra-*"] }, obj("flux-system", "infra-configs"), true],
    ["not a name no include matches", { include: ["infra-*"] }, obj("flux-system", "apps"), false],
    ["not an excluded name", { exclude: ["*-canary"] }, obj("flux-system", "shop-canary"), false],
    ["exclude wins over include", { include: ["shop-*"], exclude: ["shop-canary"] }, obj("flux-system", "shop-canary"), false],
    ["a namespace/name glob", { include: ["team-a/*"] }, obj("team-a", "api"), true],
    ["not a namespace/name glob of another namespace", { include: ["team-a/*"] }, obj("team-b", "api"), false],
    ["by label selector", { labelSelector: "tier in (apps),!ignored" }, obj("x", "y", { tier: "apps" }), true],
    ["not when the label selector refuses", { labelSelector: "tier=infra" }, obj("x", "y", { tier: "apps" }), false],
  ])("takes %s", (_what, selection, o, expected) => {
    expect(compileSelection({ namespaces: [], include: [], exclude: [], ...selection })(o)).toBe(expected);
  });
});

describe("destinationMatches", () => {
  it.each([
    [{ name: "production" }, { name: "production", namespace: "shop" }, true],
    [{ name: "production" }, { name: "staging" }, false],
    [{ server: "https://prod.example.com:6443/" }, { server: "https://PROD.example.com:6443" }, true],
    [{ server: "https://prod.example.com:6443" }, { name: "production" }, false],
    [{ name: "production", server: "https://prod.example.com:6443" }, { server: "https://prod.example.com:6443" }, true],
    // Argo CD names its own cluster `in-cluster` or https://kubernetes.default.svc.
    [{ name: "in-cluster" }, { server: "https://kubernetes.default.svc" }, true],
    [{ server: "https://kubernetes.default.svc" }, { name: "in-cluster" }, true],
  ])("%j ~ %j: %s", (wanted, actual, expected) => {
    expect(destinationMatches(wanted, actual)).toBe(expected);
  });
});
