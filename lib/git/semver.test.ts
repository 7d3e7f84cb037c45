import { describe, expect, it } from "vitest";
import { compareVersions, highestMatchingTag, parseRange, parseVersion, SemverRangeError } from "./semver";

const satisfies = (range: string, tag: string) => {
  const v = parseVersion(tag);
  if (!v) throw new Error(`${tag} is not a version`);
  return parseRange(range).test(v);
};

describe("parseVersion", () => {
  it.each([
    ["1.2.3", [1, 2, 3, []]],
    ["v1.2.3", [1, 2, 3, []]],
    ["v2.0.0-rc.1+build.5", [2, 0, 0, ["rc", "1"]]],
  ])("%s is a version", (tag, [major, minor, patch, pre]) => {
    expect(parseVersion(tag)).toEqual({ major, minor, patch, prerelease: pre, original: tag });
  });

  it.each(["v1.2", "1", "release-1.2.3", "01.2.3", "1.2.3.4", "latest", "V1.2.3"])("%s is not (Flux skips it)", (tag) => {
    expect(parseVersion(tag)).toBeNull();
  });

  it("orders by precedence: pre-releases below their release, numeric identifiers numerically", () => {
    const order = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.10.0", "2.0.0"].map((t) => parseVersion(t)!);
    for (let i = 1; i < order.length; i++) expect(compareVersions(order[i - 1]!, order[i]!), `${order[i - 1]!.original} < ${order[i]!.original}`).toBe(-1);
    expect(compareVersions(parseVersion("1.0.0+a")!, parseVersion("v1.0.0+b")!)).toBe(0);
  });
});

describe("parseRange (Masterminds/semver semantics, as Flux uses them)", () => {
  it.each([
    [">=1.0.0 <2.0.0", "1.4.0", true],
    [">=1.0.0 <2.0.0", "2.0.0", false],
    [">=1.0, <2", "1.9.9", true],
    [">= 1.0 < 2", "0.9.0", false],
    ["^1.2.3", "1.9.0", true],
    ["^1.2.3", "1.2.2", false],
    ["^1.2.3", "2.0.0", false],
    ["^0.2.3", "0.2.9", true],
    ["^0.2.3", "0.3.0", false],
    ["^0.0.3", "0.0.4", false],
    ["~1.2.3", "1.2.9", true],
    ["~1.2.3", "1.3.0", false],
    ["~1", "1.9.0", true],
    ["1.2.x", "1.2.7", true],
    ["1.2.x", "1.3.0", false],
    ["1.2", "1.2.7", true],
    ["*", "7.0.0", true],
    ["*", "7.0.0-rc.1", false],
    [">1.2", "1.2.9", false],
    [">1.2", "1.3.0", true],
    ["<=1.2", "1.2.9", true],
    ["<=1.2", "1.3.0", false],
    ["1.2 - 1.4.5", "1.4.5", true],
    ["1.2 - 1.4.5", "1.4.6", false],
    ["<1.0.0 || >=3.0.0", "3.1.0", true],
    ["<1.0.0 || >=3.0.0", "2.0.0", false],
    ["!=1.2.3", "1.2.3", false],
    [">=1.0.0", "1.5.0-rc.1", false],
    [">=1.5.0-rc.0", "1.5.0-rc.1", true],
    ["=v1.2.3", "v1.2.3", true],
  ])("%s admits %s: %s", (range, tag, expected) => {
    expect(satisfies(range, tag)).toBe(expected);
  });

  it.each(["", "banana", ">=1.0 ||", ">=a.b"])("refuses %j with the range in the message", (range) => {
    expect(() => parseRange(range)).toThrow(SemverRangeError);
  });
});

describe("highestMatchingTag", () => {
  const at = (name: string, committedAt = 0) => ({ name, committedAt });

  it("picks the highest version in range, ignoring tags that are not strict semver", () => {
    const tags = [at("v1.0.0"), at("v1.4.0"), at("v1.10.0-rc.1"), at("v2.0.0"), at("v1.5"), at("latest")];
    expect(highestMatchingTag(">=1.0 <2", tags)).toBe("v1.4.0");
    expect(highestMatchingTag("*", tags)).toBe("v2.0.0");
    expect(highestMatchingTag(">=3", tags)).toBeNull();
  });

  it("moves when a new matching tag arrives", () => {
    const tags = [at("v1.0.0"), at("v1.4.0")];
    expect(highestMatchingTag("^1", tags)).toBe("v1.4.0");
    expect(highestMatchingTag("^1", [...tags, at("v1.5.0")])).toBe("v1.5.0");
  });

  it("between versions equal but for build metadata, the tag whose commit is newest", () => {
    expect(highestMatchingTag("^1", [at("1.0.0+b", 200), at("1.0.0+a", 100)])).toBe("1.0.0+b");
    expect(highestMatchingTag("^1", [at("1.0.0+a", 100), at("1.0.0+b", 200)])).toBe("1.0.0+b");
  });
});
