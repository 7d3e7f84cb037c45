import { describe, expect, it } from "vitest";
import { safeNextPath } from "./next-path";

describe("post-sign-in destination", () => {
  it.each([
    ["/", "/"],
    ["/environments/production?tab=drift", "/environments/production?tab=drift"],
    ["/audit?from=2026-12-01T14%3A00&actor=olivia", "/audit?from=2026-12-01T14%3A00&actor=olivia"],
    ["/commits/abc123#lineage", "/commits/abc123#lineage"],
    ["/environments/prod%20east", "/environments/prod%20east"],
  ])("keeps the same-site path %j", (next, expected) => {
    expect(safeNextPath(next)).toBe(expected);
  });

  it.each([
    // absolute and protocol-relative
    ["absolute https", "https://evil.example"],
    ["absolute http with path", "http://evil.example/"],
    ["protocol-relative", "//evil.example"],
    ["protocol-relative with path", "//evil.example/environments"],
    ["javascript scheme", "javascript:alert(1)"],
    ["data scheme", "data:text/html,<script>alert(1)</script>"],
    ["relative without slash", "evil.example"],
    // control characters browsers strip before resolving
    ["TAB between slashes", "/\t/evil.example"],
    ["LF between slashes", "/\n/evil.example"],
    ["CR between slashes", "/\r/evil.example"],
    ["CRLF between slashes", "/\r\n/evil.example"],
    ["NUL between slashes", "/\u0000/evil.example"],
    ["leading TAB", "\t//evil.example"],
    ["DEL", "/\u007f/evil.example"],
    ["vertical tab", "/\u000b/evil.example"],
    ["leading space", " //evil.example"],
    ["unicode line separator", "/\u2028/evil.example"],
    ["fullwidth solidus", "/\uff0f/evil.example"],
    // backslashes (browsers read them as slashes)
    ["slash backslash", "/\\evil.example"],
    ["backslash backslash", "\\\\evil.example"],
    ["backslash in the middle", "/environments\\..\\..\\/evil.example"],
    // percent-encoded forms
    ["encoded double slash", "/%2F%2Fevil.example"],
    ["encoded second slash", "/%2Fevil.example"],
    ["lower-case encoded slash", "/%2fevil.example"],
    ["encoded backslash", "/%5Cevil.example"],
    ["encoded TAB", "/%09/evil.example"],
    ["encoded LF", "/%0A/evil.example"],
    ["encoded CR", "/%0d/evil.example"],
    ["encoded NUL", "/%00/evil.example"],
    ["double-encoded slash", "/%252F%252Fevil.example"],
    ["double-encoded backslash", "/%255Cevil.example"],
    ["broken encoding", "/%E0%A4%A"],
    // back to sign-in or into the API
    ["sign-in loop", "/signin?next=/x"],
    ["sign-in with trailing slash", "/signin/"],
    ["API route", "/api/auth/signout"],
    ["too long", "/" + "a".repeat(2001)],
  ])("refuses %s", (_name, next) => {
    expect(safeNextPath(next)).toBe("/");
  });

  it("sends a missing destination home", () => {
    expect(safeNextPath(null)).toBe("/");
    expect(safeNextPath(undefined)).toBe("/");
    expect(safeNextPath("")).toBe("/");
  });
});
