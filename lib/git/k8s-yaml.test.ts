import { describe, expect, it } from "vitest";
import { KUSTOMIZE_YAML_SCHEMA, parseKubernetesYaml } from "./k8s-yaml";

function values(src: string): unknown[] {
  const res = parseKubernetesYaml(src);
  if (!res.ok) throw new Error(res.message);
  return res.docs.map((d) => d.value);
}

describe("parseKubernetesYaml", () => {
  // Each expectation is what `kubectl apply` sends for the same text (go-yaml v2 → JSON).
  it.each([
    ["0644", 420],
    ["0o17", 15],
    ["0x1F", 31],
    ["0b101", 5],
    ["-12", -12],
    ["1_000", 1000],
    ["08", 8],
    ["1e3", 1000],
    ["1.5", 1.5],
    [".5", 0.5],
    ["yes", true],
    ["y", true],
    ["On", true],
    ["off", false],
    ["NO", false],
    ["~", null],
    ["1:30", "1:30"],
    ["2024-01-01", "2024-01-01"],
    ["2024-01-01T10:00:00Z", "2024-01-01T10:00:00Z"],
    ["100m", "100m"],
    ["'0644'", "0644"],
  ])("reads %s as %j", (text, expected) => {
    expect(values(`v: ${text}\n`)).toEqual([{ v: expected }]);
  });

  // What `kustomize build` (kyaml, go-yaml v3) writes for the same text, as Flux then applies it.
  it.each([
    ["yes", "yes"],
    ["y", "y"],
    ["On", "On"],
    ["off", "off"],
    ["NO", "NO"],
    ["true", true],
    ["False", false],
    ["0644", 420],
    ["0x1F", 31],
    ["1e3", 1000],
    ["~", null],
    // Checked against `kustomize build` (kubectl 1.32's kustomize v5.5) and, for the first, real Flux.
    ["2024-05-01", "2024-05-01T00:00:00Z"],
    ["2024-1-1", "2024-01-01T00:00:00Z"],
    ["2024-01-01T10:00:00Z", "2024-01-01T10:00:00Z"],
    ["2024-01-01 10:00:00", "2024-01-01T10:00:00Z"],
    ["2024-01-01T10:00:00.5+02:00", "2024-01-01T10:00:00.5+02:00"],
    ["2001-12-14t21:59:43.10-05:00", "2001-12-14T21:59:43.1-05:00"],
    ["2024-01-01T10:00:00", "2024-01-01T10:00:00"],
    ["2024-01-01T10:00:00+00:00", "2024-01-01T10:00:00Z"],
    ["2024-01-01T10:00:00.000Z", "2024-01-01T10:00:00Z"],
    ["2024-13-01", "2024-13-01"],
    ["2024-02-30", "2024-02-30"],
    ["2024-01-01T24:00:00Z", "2024-01-01T24:00:00Z"],
    ["'2024-05-01'", "2024-05-01"],
  ])("as kustomize reads it, reads %s as %j", (text, expected) => {
    const res = parseKubernetesYaml(`v: ${text}\n`, KUSTOMIZE_YAML_SCHEMA);
    expect(res.ok && res.docs.map((d) => d.value)).toEqual([{ v: expected }]);
  });

  it("splits documents at markers, including `...` ends, inline content and directives", () => {
    const src = ["%YAML 1.1", "---", "a: 1", "...", "b: 2", "--- {c: 3}", "--- |", "  text", "---", "# empty", "---"].join("\n");
    const res = parseKubernetesYaml(src);
    expect(res.ok && res.docs.map((d) => [d.value, d.line])).toEqual([
      [{ a: 1 }, 3],
      [{ b: 2 }, 5],
      [{ c: 3 }, 6],
      ["text\n", 7],
    ]);
  });

  it("handles CRLF line endings", () => {
    expect(values("a: 1\r\n---\r\nb: yes\r\n")).toEqual([{ a: 1 }, { b: true }]);
  });

  it("gives each document its character range", () => {
    const src = "a: 1\n---\nb: 2\n";
    const res = parseKubernetesYaml(src);
    expect(res.ok && res.docs.map((d) => src.slice(...d.range))).toEqual(["a: 1\n", "---\nb: 2\n"]);
  });

  it("reports errors with the file's line number, not the document's", () => {
    const res = parseKubernetesYaml("a: 1\n---\nb: 2\n---\nmetadata:\n  name: x\n  name: y\n");
    expect(res).toMatchObject({ ok: false, line: 7, message: expect.stringContaining("duplicated mapping key") });
  });
});
