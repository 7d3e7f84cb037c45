import { describe, expect, it } from "vitest";
import { LabelSelectorError, matchesLabels, parseLabelSelector } from "./label-selector";

const labels = { app: "shop", tier: "web", "toolkit.fluxcd.io/tenant": "team-a" };

describe("label selectors", () => {
  it.each([
    ["", true],
    ["app=shop", true],
    ["app==shop", true],
    ["app=other", false],
    ["app!=other", true],
    ["missing!=x", true],
    ["tier in (web, api)", true],
    ["tier notin (web,api)", false],
    ["missing notin (a)", true],
    ["app", true],
    ["!app", false],
    ["!missing", true],
    ["toolkit.fluxcd.io/tenant=team-a,tier in (web),!legacy", true],
    ["app=shop,tier=db", false],
    // An empty value is a value: only an object labelled `app: ""` matches.
    ["app=", false],
  ])("%j selects the object: %s", (selector, expected) => {
    expect(matchesLabels(parseLabelSelector(selector), labels)).toBe(expected);
  });

  it.each(["tier in (web", "a,,b", "in (x)", "app=sh op", "-bad=1", "app=x)"])("refuses %j", (selector) => {
    expect(() => parseLabelSelector(selector)).toThrow(LabelSelectorError);
  });
});
