import { describe, expect, it } from "vitest";
import { finaliseObjects, objectsFromDocuments, parseManifestText, type RenderProblem, type RenderedObject } from "./manifests";

function parseOk(file: string, text: string) {
  const res = parseManifestText(file, text);
  if (!res.ok) throw new Error(`expected ${file} to parse: ${res.message}`);
  return res.docs;
}

function render(file: string, text: string, defaultNamespace = "team-a") {
  const problems: RenderProblem[] = [];
  const objects = finaliseObjects(objectsFromDocuments(file, parseOk(file, text), problems), defaultNamespace, problems);
  return { objects, problems };
}

const ns = (r: RenderedObject) => (r.object.metadata as Record<string, unknown>).namespace;

describe("parseManifestText", () => {
  it("reads YAML the way Kubernetes does (YAML 1.1 octal and booleans, no base-60, no timestamps)", () => {
    const [doc] = parseOk(
      "a.yaml",
      ["mode: 0644", "enabled: yes", "disabled: off", "ports: 8080:80", "date: 2024-01-01", "octal: 010_0", "hex: 0x1F", "none: ~"].join("\n"),
    );
    expect(doc!.value).toEqual({
      mode: 420,
      enabled: true,
      disabled: false,
      ports: "8080:80",
      date: "2024-01-01",
      octal: 64,
      hex: 31,
      none: null,
    });
  });

  it("splits multi-document files, skipping empty documents, with start lines", () => {
    const docs = parseOk("a.yaml", "---\n---\na: 1\n---\n# only a comment\n---\nb: 2\nc: 3\n");
    const nonEmpty = docs.filter((d) => d.value !== null);
    expect(nonEmpty.map((d) => d.value)).toEqual([{ a: 1 }, { b: 2, c: 3 }]);
    expect(nonEmpty.map((d) => d.line)).toEqual([3, 7]);
  });

  it("reports the line of a syntax error in a later document", () => {
    const res = parseManifestText("bad.yaml", "a: 1\n---\nb: 2\n---\nc:\n  - x\n  y: [1, 2\n");
    expect(res.ok).toBe(false);
    if (res.ok) return;
    expect(res.line).toBeGreaterThanOrEqual(6);
    expect(res.line).toBeLessThanOrEqual(8);
    expect(res.message).toMatch(/invalid YAML/);
  });

  it("reports duplicate keys (kubectl refuses them too)", () => {
    const res = parseManifestText("dup.yaml", "metadata:\n  name: a\n  name: b\n");
    expect(res).toMatchObject({ ok: false, line: 3 });
  });

  it("supports anchors and merge keys, and refuses alias bombs instead of hanging", () => {
    const [doc] = parseOk("a.yaml", "base: &b {p: 1, q: 2}\nderived:\n  <<: *b\n  q: 3\n");
    expect((doc!.value as Record<string, unknown>).derived).toEqual({ p: 1, q: 3 });
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (let i = 0; i < 12; i++) bomb.push(`${"bcdefghijklm"[i]}: &${"bcdefghijklm"[i]} [*${"abcdefghijkl"[i]}, *${"abcdefghijkl"[i]}, *${"abcdefghijkl"[i]}, *${"abcdefghijkl"[i]}]`);
    const res = parseManifestText("bomb.yaml", bomb.join("\n"));
    expect(res).toMatchObject({ ok: false, message: expect.stringMatching(/alias/i) });
  });

  it("reads JSON, with the line of an error", () => {
    expect(parseOk("a.json", '{"apiVersion":"v1"}')[0]!.value).toEqual({ apiVersion: "v1" });
    const res = parseManifestText("b.json", '{\n  "a": 1,\n  "b": \n}\n');
    expect(res).toMatchObject({ ok: false, line: 4, message: 'invalid JSON: unexpected "}"' });
    expect(parseManifestText("c.json", '{"a": [1, 2,\n\n')).toMatchObject({ ok: false, line: 3, message: "invalid JSON: unexpected end of file" });
    expect(parseManifestText("d.json", '{"a": tru}')).toMatchObject({ ok: false, line: 1 });
  });

  it("ignores a byte-order mark", () => {
    expect(parseOk("bom.yaml", "\ufeffa: 1\n")[0]!.value).toEqual({ a: 1 });
  });
});

describe("objects from documents", () => {
  it("expands List kinds and warns about items that are not objects", () => {
    const { objects, problems } = render(
      "list.yaml",
      [
        "apiVersion: v1",
        "kind: List",
        "items:",
        "- {apiVersion: v1, kind: ConfigMap, metadata: {name: one}}",
        "- {apiVersion: v1, kind: ConfigMap, metadata: {name: two, namespace: other}}",
        "- {just: data}",
        "---",
        "apiVersion: v1",
        "kind: ConfigMapList",
        "items: [{apiVersion: v1, kind: ConfigMap, metadata: {name: three}}]",
      ].join("\n"),
    );
    expect(objects.map((o) => `${ns(o)}/${(o.object.metadata as { name: string }).name}`)).toEqual([
      "team-a/one",
      "other/two",
      "team-a/three",
    ]);
    expect(problems).toEqual([expect.objectContaining({ severity: "warning", path: "list.yaml", message: expect.stringContaining("item 2") })]);
  });

  it("skips non-Kubernetes documents with a warning that names the line", () => {
    const { objects, problems } = render("mixed.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\nfoo: bar\n---\nkind: Thing\n");
    expect(objects).toHaveLength(1);
    expect(problems.map((p) => [p.severity, p.line])).toEqual([
      ["warning", 5],
      ["warning", 7],
    ]);
    expect(problems[0]!.message).toContain("not a Kubernetes object");
  });

  it("points a kustomization found in plain mode at the kustomize render mode", () => {
    const { problems } = render("envs/prod/kustomization.yaml", "resources: [a.yaml]\n");
    expect(problems[0]!.message).toContain("render: kustomize");
  });

  it("gives namespaced kinds the default namespace and keeps cluster-scoped ones without", () => {
    const { objects, problems } = render(
      "mix.yaml",
      [
        "{apiVersion: apps/v1, kind: Deployment, metadata: {name: web}}",
        "---",
        "{apiVersion: v1, kind: Namespace, metadata: {name: team-a}}",
        "---",
        "{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: reader, namespace: team-a}}",
        "---",
        "{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: fast}}",
        "---",
        "{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: widgets.example.com}, spec: {group: example.com, scope: Cluster, names: {kind: Widget}}}",
        "---",
        "{apiVersion: example.com/v1, kind: Widget, metadata: {name: w}}",
        "---",
        "{apiVersion: example.com/v1, kind: Gadget, metadata: {name: g}}",
      ].join("\n"),
    );
    const byKind = Object.fromEntries(objects.map((o) => [o.object.kind as string, ns(o)]));
    expect(byKind).toEqual({
      Deployment: "team-a",
      Namespace: undefined,
      ClusterRole: undefined,
      StorageClass: undefined,
      CustomResourceDefinition: undefined,
      Widget: undefined,
      Gadget: "team-a",
    });
    expect(problems).toEqual([expect.objectContaining({ severity: "warning", message: expect.stringContaining("cluster-scoped") })]);
  });

  it("keeps the first of two identical keys and names both files", () => {
    const problems: RenderProblem[] = [];
    const a = objectsFromDocuments("a.yaml", parseOk("a.yaml", "{apiVersion: v1, kind: ConfigMap, metadata: {name: s}, data: {from: a}}"), problems);
    const b = objectsFromDocuments("b.yaml", parseOk("b.yaml", "{apiVersion: v1, kind: ConfigMap, metadata: {name: s, namespace: team-a}, data: {from: b}}"), problems);
    const objects = finaliseObjects([...a, ...b], "team-a", problems);
    expect(objects).toHaveLength(1);
    expect(objects[0]!.object.data).toEqual({ from: "a" });
    expect(problems).toEqual([
      expect.objectContaining({ severity: "error", path: "b.yaml", message: expect.stringMatching(/duplicate object \/ConfigMap\/team-a\/s.*a\.yaml.*b\.yaml/) }),
    ]);
  });
});
