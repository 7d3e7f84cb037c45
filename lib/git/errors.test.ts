import { describe, expect, it } from "vitest";
import { GitError, categoriseFetchFailure, gitStderrSummary, redact } from "./errors";

describe("redact", () => {
  const token = "ghp_s3cr3tT0kenValue42";

  it("removes known secrets in plain, base64 and URL-encoded form", () => {
    const basic = Buffer.from(`x-access-token:${token}`).toString("base64");
    const text = `token ${token}; header Basic ${basic}; raw ${Buffer.from(token).toString("base64")}; url ${encodeURIComponent(token)}`;
    const out = redact(text, [token, basic]);
    expect(out).not.toContain(token);
    expect(out).not.toContain(basic);
    expect(out).not.toContain(Buffer.from(token).toString("base64").replace(/=+$/, ""));
  });

  it("removes credentials embedded in URLs and Authorization headers even when not known", () => {
    expect(redact("fatal: unable to access 'https://user:hunter2@git.example.com/r.git/'")).toBe(
      "fatal: unable to access 'https://[redacted]@git.example.com/r.git/'",
    );
    expect(redact("https://ghp_abcdef123456@github.com/o/r")).toBe("https://[redacted]@github.com/o/r");
    expect(redact("> Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig")).not.toContain("eyJ");
    // An ssh user name is not a secret; a password in an ssh URL is.
    expect(redact("ssh://git@github.com/o/r")).toBe("ssh://git@github.com/o/r");
    expect(redact("ssh://git:pw123456@host/r")).toBe("ssh://git:[redacted]@host/r");
  });

  it("leaves ordinary words alone", () => {
    expect(redact("HTTP Basic: Access denied; basic authentication failed")).toBe("HTTP Basic: Access denied; basic authentication failed");
  });

  it("is applied by GitError itself", () => {
    const e = new GitError("git-auth", `bad token ${token}`, [token]);
    expect(e.message).toBe("bad token [redacted]");
    expect(e.category).toBe("git-auth");
  });
});

describe("categorising git's complaints", () => {
  it.each([
    ["fatal: Authentication failed for 'https://git.example.com/r.git/'", "git-auth"],
    ["fatal: could not read Username for 'https://git.example.com': terminal prompts disabled", "git-auth"],
    ["git@github.com: Permission denied (publickey).", "git-auth"],
    ["Host key verification failed.", "git-auth"],
    ["remote: HTTP Basic: Access denied", "git-auth"],
    ["fatal: unable to access 'https://x/': The requested URL returned error: 403", "git-auth"],
    ["fatal: '/srv/gone' does not appear to be a git repository", "git-fetch"],
    ["fatal: unable to access 'https://x/': Could not resolve host: x", "git-fetch"],
    ["ssh: connect to host 10.0.0.1 port 22: Connection refused", "git-fetch"],
    ["fatal: unable to access 'https://x/': The requested URL returned error: 502", "git-fetch"],
  ])("%s → %s", (stderr, category) => {
    expect(categoriseFetchFailure(stderr)).toBe(category);
  });

  it("summarises stderr without progress noise or git's boilerplate", () => {
    const stderr = [
      "remote: Counting objects: 100% (3/3), done.",
      "ssh: connect to host 10.0.0.1 port 22: Connection refused",
      "fatal: Could not read from remote repository.",
      "",
      "Please make sure you have the correct access rights",
      "and the repository exists.",
    ].join("\n");
    expect(gitStderrSummary(stderr)).toBe("ssh: connect to host 10.0.0.1 port 22: Connection refused");
  });
});
