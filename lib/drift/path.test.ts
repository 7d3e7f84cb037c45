import { describe, expect, it } from "vitest";
import {
  canonicalFieldsV1Key,
  parseJsonPointer,
  parsePathPattern,
  PathSyntaxError,
  patternMatches,
  pointerMatches,
  renderPath,
  segmentFromFieldsV1Key,
  type Segment,
} from "./path";

const image: Segment[] = [
  { t: "field", name: "spec" },
  { t: "field", name: "template" },
  { t: "field", name: "spec" },
  { t: "field", name: "containers" },
  { t: "item", index: 1, keys: [["name", "api"]], item: { name: "api", image: "x" } },
  { t: "field", name: "image" },
];

describe("paths", () => {
  it.each([
    [image, "spec.template.spec.containers[name=api].image"],
    [[{ t: "field", name: "metadata" }, { t: "field", name: "labels" }, { t: "field", name: "app.kubernetes.io/name" }], 'metadata.labels["app.kubernetes.io/name"]'],
    [[{ t: "field", name: "ports" }, { t: "item", index: 0, keys: [["port", 80], ["protocol", "TCP"]] }], "ports[port=80,protocol=TCP]"],
    [[{ t: "field", name: "args" }, { t: "item", index: 2, keys: null }], "args[2]"],
    [[{ t: "field", name: "finalizers" }, { t: "value", value: "example.com/x" }], "finalizers[=example.com/x]"],
    [[{ t: "field", name: "env" }, { t: "item", index: 0, keys: [["name", "a]b"]] }], 'env[name="a]b"]'],
  ] as [Segment[], string][])("renders %j as %s, and the pattern parser reads it back", (segs, text) => {
    expect(renderPath(segs)).toBe(text);
    expect(patternMatches(parsePathPattern(text), segs)).toBe(true);
  });

  it.each([
    ["spec.template.spec.containers[name=api].image", true],
    ["spec.template.spec.containers[name=api]", true],
    ["spec.template.spec.containers[*].image", true],
    ["spec.template.spec.containers[1].image", true],
    ["spec.template.spec.containers[image=x].image", true],
    ["spec.template.spec.containers[name=web].image", false],
    ["spec.template.spec.containers[0].image", false],
    ["spec.template.spec.containers[name=api].image.tag", false],
    ["spec.replicas", false],
  ])("pattern %s matches the api image: %s", (pattern, ok) => {
    expect(patternMatches(parsePathPattern(pattern), image)).toBe(ok);
  });

  it.each(["", "a..b", ".a", "a.", "a[", "a[name", 'a["x', "a[=x"])("rejects %j", (bad) => {
    expect(() => parsePathPattern(bad)).toThrow(PathSyntaxError);
  });

  it("reads JSON pointers with escapes and matches by prefix", () => {
    expect(parseJsonPointer("/metadata/annotations/a~1b~0c")).toEqual(["metadata", "annotations", "a/b~c"]);
    expect(pointerMatches(["spec", "template"], ["spec", "template", "spec", "containers", 0])).toBe(true);
    expect(pointerMatches(["spec", "template", "spec", "containers", "0", "image"], ["spec", "template", "spec", "containers", 0, "image"])).toBe(true);
    expect(pointerMatches(["spec", "replicas"], ["spec"])).toBe(false);
    expect(() => parseJsonPointer("spec/replicas")).toThrow(PathSyntaxError);
  });

  it("canonicalises FieldsV1 keys so key order and spacing do not matter", () => {
    expect(canonicalFieldsV1Key('k:{"protocol":"TCP", "containerPort":8080}')).toBe('k:{"containerPort":8080,"protocol":"TCP"}');
    expect(canonicalFieldsV1Key('v:"foo"')).toBe('v:"foo"');
    expect(canonicalFieldsV1Key("i:3")).toBe("i:3");
    expect(canonicalFieldsV1Key("k:{broken")).toBeNull();
    expect(canonicalFieldsV1Key("x:1")).toBeNull();
    expect(segmentFromFieldsV1Key('k:{"name":"api"}')).toEqual({ t: "item", index: -1, keys: [["name", "api"]] });
  });
});
