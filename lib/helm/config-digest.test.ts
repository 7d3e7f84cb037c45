import { describe, expect, it } from "vitest";
import { encodeValuesYaml, helmConfigDigest } from "./config-digest";

// Expected digests come from Go: json.Unmarshal of each case, then the steps of
// fluxcd/pkg chartutil.DigestValues (v1.27.2: sigs.k8s.io/yaml v1.6.0
// JSONObjectToYAMLObject, SortMapSlice, go.yaml.in/yaml/v2 v2.4.4 Encode, SHA-256),
// the versions the pinned helm-controller v1.6.4 builds with.
const FROM_GO: Array<[string, string, string]> = [
  ["mixed: quoting, indentless lists, literal block, folding", "{\"a\":1,\"b\":{\"c\":\"true\",\"d\":[1,2,{\"x\":\"y: z\"}]},\"e\":\"\",\"f\":\"line1\\nline2\\n\",\"g\":1000000,\"h\":1.5,\"l\":\"aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp qqqq rrrr ssss\"}", "sha256:909c370eaac60df62b942ea2172393f4f607b6f7885f64b8e5e305594f1e7206"],
  ["podinfo-like values", "{\"replicaCount\":2,\"image\":{\"repository\":\"ghcr.io/stefanprodan/podinfo\",\"tag\":\"6.7.1\",\"pullPolicy\":\"IfNotPresent\"},\"ui\":{\"message\":\"\",\"color\":\"#34577c\",\"logo\":\"\"},\"resources\":{\"limits\":null,\"requests\":{\"cpu\":\"1m\",\"memory\":\"16Mi\"}},\"tolerations\":[],\"affinity\":{},\"nodeSelector\":{}}", "sha256:985e071d495135325670344863e4e5dc412b69e6748bdb376fe747bc0b388203"],
  ["strings go-yaml must quote (or not)", "{\"s\":[\"on\",\"off\",\"yes\",\"no\",\"y\",\"n\",\"~\",\"null\",\"0x1F\",\"017\",\"08\",\"1_000\",\"1e3\",\".5\",\".inf\",\"-\",\"- a\",\"a: b\",\"a #b\",\"a#b\",\"#x\",\"'q'\",\"\\\"dq\\\"\",\"@x\",\"`x\",\"x:\",\"2024-01-02\",\"2024-13-02\",\"1:30\",\"12:30:45\",\"+1\",\"-1.5e-3\",\" lead\",\"trail \",\"tab\\tin\",\"\u00e9 unicode\",\"\\u0001ctl\"]}", "sha256:4a2dc64b0410f1aeb245ce5a7520c9e7ef78ac1058fc153d7a5b52fc47129275"],
  ["nesting, chomping, numbers", "{\"deep\":{\"a\":{\"b\":{\"c\":[{\"d\":[[1,2],[]],\"e\":{}}]}}},\"ml\":\"one\\n\\ntwo\\n\\n\",\"ml2\":\"no trailing\\nnewline\",\"ml3\":\"  indented\\nx\\n\",\"ml4\":\"trail \\nsp\",\"t\":true,\"f\":false,\"z\":0,\"neg\":-7,\"big\":123456789012,\"frac\":0.1,\"tiny\":1.5e-7,\"huge\":1e21}", "sha256:5e43af01a888fbc1f0c4ac226c80494d21ba7046c255c1c1ace5a6c7f821a0b2"],
  ["long strings folded at column 80, single quotes", "{\"long\":{\"nested\":{\"text\":\"The quick brown fox jumps over the lazy dog and keeps running far beyond the eightieth column of text here\"}},\"list\":[\"The quick brown fox jumps over the lazy dog and keeps running far beyond the eightieth column of text here\"],\"q\":\"it's a 'quoted' value: with colon and a very long tail that goes well past eighty columns wide ok\"}", "sha256:4d59c8c7f1fc13f3876e4529becea5a95394ca92163ef09fcc174f6d88d05120"],
  ["keys that need quoting", "{\"password\":\"s3cr3t-canary-value\",\"nested\":{\"true\":\"key true\",\"on\":1,\"\":\"empty key\",\"a b\":\"spaced key\"}}", "sha256:3f22350f15fa5db69e7c86185e0ea589cbcca8e6351c9eed23cd2d7eb6c9bd8e"],
  ["no values", "{}", "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
];

describe("helmConfigDigest", () => {
  it.each(FROM_GO)("equals helm-controller's digest: %s", (_name, json, digest) => {
    expect(helmConfigDigest(JSON.parse(json) as Record<string, unknown>)).toBe(digest);
  });

  it("does not depend on key order, and changes with any value", () => {
    const a = helmConfigDigest({ b: 1, a: { y: "2", x: [1] } });
    expect(helmConfigDigest({ a: { x: [1], y: "2" }, b: 1 })).toBe(a);
    expect(helmConfigDigest({ a: { x: [1], y: 2 }, b: 1 })).not.toBe(a);
  });

  it("writes YAML the way go-yaml v2 does", () => {
    expect(encodeValuesYaml({ b: { list: ["on", "x: y", "plain"], n: 2 }, a: "" })).toBe('a: ""\nb:\n  list:\n  - "on"\n  - \'x: y\'\n  - plain\n  "n": 2\n');
  });
});
