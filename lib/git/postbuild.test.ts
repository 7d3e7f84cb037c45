// Expectations restated from fluxcd/pkg envsubst's expansion tests and its
// varsub rules (names, precedence, the opt-out marker).
import { describe, expect, it } from "vitest";
import { checkVariableNames, envsubst, EnvsubstError, mergeVariables, substitutionDisabled, withCommonMetadata } from "./postbuild";

const vars = (o: Record<string, string>) => new Map(Object.entries(o));

describe("envsubst as Flux", () => {
  const cases: Array<[string, Record<string, string>, string, string]> = [
    ["text alone", {}, "abcdEFGH28ij", "abcdEFGH28ij"],
    ["plain", { app: "web" }, "name: ${app}-svc", "name: web-svc"],
    ["unset is empty (not strict)", {}, "a${nope}b", "ab"],
    ["$var without braces is left alone", { app: "web" }, "$app", "$app"],
    ["length", { v: "abcdEFGH28ij" }, "${#v}", "12"],
    ["upper first", { v: "abcdEFGH28ij" }, "${v^}", "AbcdEFGH28ij"],
    ["upper", { v: "abcdEFGH28ij" }, "${v^^}", "ABCDEFGH28IJ"],
    ["lower first", { v: "ABCDEFGH28IJ" }, "${v,}", "aBCDEFGH28IJ"],
    ["lower", { v: "ABCDEFGH28IJ" }, "${v,,}", "abcdefgh28ij"],
    ["substring from", { p: "/home/bozo/ideas/thoughts.for.today" }, "${p:11}", "ideas/thoughts.for.today"],
    ["substring from, length", { p: "/home/bozo/ideas/thoughts.for.today" }, "${p:11:5}", "ideas"],
    ["= default unused", { v: "abc" }, "${v=xyz}", "abc"],
    ["= default used", {}, "${v=xyz}", "xyz"],
    [":= default used", {}, "${v:=xyz}", "xyz"],
    [":= default used when empty", { v: "" }, "${v:=xyz}", "xyz"],
    [":- default", {}, "replicas: ${R:-2}", "replicas: 2"],
    ["default from a variable", { d: "foo" }, "something ${v=${d}}", "something foo"],
    ["default with text around a variable", { d: "foo1" }, "foo: ${v=prefix${d}-suffix}", "foo: prefixfoo1-suffix"],
    ["default of a transformed variable", { v1: "abcdEFGH28ij" }, "${v=${v1^^}}", "ABCDEFGH28IJ"],
    ["replace suffix", { s: "abcABC123ABCabc" }, "${s/%abc/XYZ}", "abcABC123ABCXYZ"],
    ["replace prefix", { s: "abcABC123ABCabc" }, "${s/#abc/XYZ}", "XYZABC123ABCabc"],
    ["replace all", { s: "abcABC123ABCabc" }, "${s//abc/xyz}", "xyzABC123ABCxyz"],
    ["replace first", { s: "abcABC123ABCabc" }, "${s/abc/xyz}", "xyzABC123ABCabc"],
    ["replace with nothing", { s: "foo.bar" }, "${s/./}", "foobar"],
    ["escaped slash in a pattern", { s: "foo/bar/baz" }, "${s//\\//-}", "foo-bar-baz"],
    ["strip shortest prefix", { f: "bash.string.txt" }, "${f#*.}", "string.txt"],
    ["strip shortest prefix, leading slash", { f: "/path/to/file" }, "${f#*/}", "path/to/file"],
    ["strip longest prefix", { f: "path/to/file" }, "${f##*/}", "file"],
    ["strip shortest suffix", { f: "bash.string.txt" }, "${f%.*}", "bash.string"],
    ["strip longest suffix", { f: "bash.string.txt" }, "${f%%.*}", "bash"],
    ["$$ escapes", { v1: "x" }, "$${v1}", "${v1}"],
    ["escapes mixed with expansions", { v1: "abcdEFGH28ij" }, "some text ${v1}$${var$${v1}$v1${v1}", "some text abcdEFGH28ij${var${v1}$v1abcdEFGH28ij"],
    ["escaped expression keeps its nested expansion", { d: "foo" }, "something $${v=${d}}", "something ${v=foo}"],
    ["backslashes outside an expression stay", { d: "foo" }, "\\\\something ${v=${d}}", "\\\\something foo"],
  ];
  for (const [name, v, input, output] of cases) {
    it(name, () => expect(envsubst(input, vars(v))).toBe(output));
  }

  it.each(["${}", "${v", "${v-default}", "${1 2}"])("%s is a parse error", (input) => {
    expect(() => envsubst(input, vars({ v: "a" }))).toThrow(EnvsubstError);
  });

  it("strict: an unset variable without a default fails, with a default it does not", () => {
    expect(() => envsubst("${missing}", vars({}), true)).toThrow(/variable not set/);
    expect(() => envsubst("${missing^^}", vars({}), true)).toThrow(/variable not set/);
    expect(envsubst("${missing:=d}", vars({}), true)).toBe("d");
    expect(envsubst("${empty}", vars({ empty: "" }), true)).toBe("");
  });
});

describe("variables", () => {
  it("later sources win, inline substitute wins over all, newlines are removed", () => {
    const v = mergeVariables([{ a: "cm", b: "cm" }, { b: "secret\n", c: "s" }], { c: "inline" });
    expect(Object.fromEntries(v)).toEqual({ a: "cm", b: "secret", c: "inline" });
  });

  it("names are checked before anything is substituted, and the message shows no value", () => {
    expect(checkVariableNames(vars({ ok_1: "v", _x: "v" }))).toBeNull();
    const msg = checkVariableNames(vars({ "bad-name": "hunter2" }));
    expect(msg).toContain("'bad-name' var name is invalid");
    expect(msg).not.toContain("hunter2");
  });

  it.each([
    [{ labels: { "kustomize.toolkit.fluxcd.io/substitute": "disabled" } }, true],
    [{ annotations: { "kustomize.toolkit.fluxcd.io/substitute": "disabled" } }, true],
    [{ annotations: { "kustomize.toolkit.fluxcd.io/substitute": "enabled" } }, false],
    [{}, false],
  ])("substitution disabled by %j: %s", (metadata, expected) => {
    expect(substitutionDisabled({ metadata })).toBe(expected);
  });
});

describe("commonMetadata", () => {
  it("sets labels and annotations on the object's metadata, overriding, and leaves pod templates alone", () => {
    const obj = { kind: "Deployment", metadata: { name: "web", labels: { app: "web", team: "old" } }, spec: { template: { metadata: { labels: { app: "web" } } } } };
    const out = withCommonMetadata(obj, { labels: { team: "pay" }, annotations: { owner: "ops" } });
    expect(out.metadata).toEqual({ name: "web", labels: { app: "web", team: "pay" }, annotations: { owner: "ops" } });
    expect(out.spec).toEqual(obj.spec);
    expect(obj.metadata.labels.team).toBe("old");
  });
});
