import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalRepoUrl, matchRepositories } from "./match";
import { identifyDelivery, isPushEvent, safeCompare, verifyProof } from "./providers";
import { parsePush } from "./push";
import { WebhookLimiter } from "./rate-limit";
import type { RepositoryConfig } from "@/lib/config";

const headers = (h: Record<string, string>) => ({ get: (n: string) => h[n.toLowerCase()] ?? null });
const repo = (name: string, url: string): RepositoryConfig => ({ name, url, auth: { type: "none" } });

describe("canonicalRepoUrl", () => {
  it.each([
    ["https://github.com/acme/shop.git", "github.com/acme/shop"],
    ["https://GitHub.com/acme/shop/", "github.com/acme/shop"],
    ["https://user@github.com:443/acme/shop", "github.com/acme/shop"],
    ["ssh://git@github.com/acme/shop.git", "github.com/acme/shop"],
    ["git@github.com:acme/shop.git", "github.com/acme/shop"],
    ["git://github.com/acme/shop.git", "github.com/acme/shop"],
    ["gitlab.example.com:group/sub/infra.git", "gitlab.example.com/group/sub/infra"],
    ["file:///srv/git/shop.git", "file:/srv/git/shop"],
    ["/srv/git/shop/", "file:/srv/git/shop"],
    ["", null],
    ["not a url", null],
  ])("%s → %s", (input, expected) => {
    expect(canonicalRepoUrl(input)).toBe(expected);
  });
});

describe("matchRepositories", () => {
  const repos = [repo("shop", "git@github.com:acme/shop.git"), repo("infra", "https://gitlab.internal/platform/infra"), repo("infra-fork", "https://gitlab.internal/someone/infra")];
  it("matches a clone URL in any form against the configured URL", () => {
    expect(matchRepositories({ branch: "main", ref: null, after: null, urls: ["https://github.com/acme/shop.git"], names: [] }, repos).map((r) => r.name)).toEqual(["shop"]);
  });
  it("falls back to an owner/name path only when it names exactly one repository", () => {
    expect(matchRepositories({ branch: "main", ref: null, after: null, urls: ["https://gitlab.public.example/platform/infra.git"], names: ["platform/infra"] }, repos).map((r) => r.name)).toEqual(["infra"]);
    expect(matchRepositories({ branch: "main", ref: null, after: null, urls: [], names: ["infra"] }, repos)).toEqual([]);
  });
  it("matches nothing for another repository", () => {
    expect(matchRepositories({ branch: "main", ref: null, after: null, urls: ["https://github.com/acme/other.git"], names: ["acme/other"] }, repos)).toEqual([]);
  });
});

describe("identifyDelivery and verifyProof", () => {
  const body = Buffer.from('{"ref":"refs/heads/main"}');
  const sig = createHmac("sha256", "s3cret").update(body).digest("hex");
  it("reads each provider's headers", () => {
    expect(identifyDelivery(headers({ "x-github-event": "push", "x-github-delivery": "d1", "x-hub-signature-256": `sha256=${sig}` }))).toEqual({ provider: "github", deliveryId: "d1", event: "push", proof: `sha256=${sig}` });
    expect(identifyDelivery(headers({ "x-gitlab-event": "Push Hook", "x-gitlab-token": "t", "x-gitlab-event-uuid": "u" }))?.provider).toBe("gitlab");
    // Gitea sends GitHub-compatible headers too; its own win.
    expect(identifyDelivery(headers({ "x-github-event": "push", "x-gitea-event": "push", "x-gitea-signature": sig, "x-gitea-delivery": "g" }))).toMatchObject({ provider: "gitea", deliveryId: "g" });
    expect(identifyDelivery(headers({ "x-forgejo-signature": sig, "x-forgejo-delivery": "f" }))).toMatchObject({ provider: "gitea", deliveryId: "f" });
    expect(identifyDelivery(headers({ "x-driftwatch-signature": `sha256=${sig}`, "x-driftwatch-delivery": "x" }))).toMatchObject({ provider: "generic", deliveryId: "x" });
    expect(identifyDelivery(headers({ "content-type": "application/json" }))).toBeNull();
  });
  it("accepts only the exact HMAC in the provider's format", () => {
    expect(verifyProof("github", `sha256=${sig}`, "s3cret", body)).toBe(true);
    expect(verifyProof("github", `sha256=${sig.toUpperCase()}`, "s3cret", body)).toBe(true);
    expect(verifyProof("github", sig, "s3cret", body)).toBe(false);
    expect(verifyProof("github", `sha1=${sig}`, "s3cret", body)).toBe(false);
    expect(verifyProof("gitea", sig, "s3cret", body)).toBe(true);
    expect(verifyProof("gitea", sig, "other", body)).toBe(false);
    expect(verifyProof("generic", `sha256=${sig}`, "s3cret", Buffer.from(body.toString() + " "))).toBe(false);
    expect(verifyProof("gitlab", "s3cret", "s3cret", body)).toBe(true);
    expect(verifyProof("gitlab", "s3cre", "s3cret", body)).toBe(false);
    expect(verifyProof("gitlab", "", "", body)).toBe(false);
  });
  it("compares in constant time whatever the lengths", () => {
    expect(safeCompare("a", "a")).toBe(true);
    expect(safeCompare("a", "ab")).toBe(false);
  });
  it("knows push events", () => {
    expect(isPushEvent({ provider: "gitlab", deliveryId: null, event: "Push Hook", proof: null })).toBe(true);
    expect(isPushEvent({ provider: "gitlab", deliveryId: null, event: "Tag Push Hook", proof: null })).toBe(false);
    expect(isPushEvent({ provider: "github", deliveryId: null, event: "ping", proof: null })).toBe(false);
    expect(isPushEvent({ provider: "generic", deliveryId: null, event: null, proof: null })).toBe(true);
  });
});

describe("parsePush", () => {
  it("reads branch, tip and every repository URL", () => {
    expect(parsePush({ ref: "refs/heads/release/1.2", after: "abc", repository: { clone_url: "https://h/a/b.git", ssh_url: "git@h:a/b.git", full_name: "a/b" } })).toEqual({
      branch: "release/1.2",
      ref: "refs/heads/release/1.2",
      after: "abc",
      urls: ["https://h/a/b.git", "git@h:a/b.git"],
      names: ["a/b"],
    });
    expect(parsePush({ ref: "refs/tags/v1" }).branch).toBeNull();
    expect(parsePush("nonsense")).toEqual({ branch: null, ref: null, after: null, urls: [], names: [] });
  });
});

describe("WebhookLimiter", () => {
  it("stops an address after its failures, not others", () => {
    const l = new WebhookLimiter({ failuresPer10Minutes: 2, requestsPerMinute: 100 });
    const t = 1_000_000;
    expect(l.admit("a", t).allowed).toBe(true);
    l.failed("a", t);
    l.failed("a", t);
    expect(l.admit("a", t).allowed).toBe(false);
    expect(l.admit("b", t).allowed).toBe(true);
    expect(l.admit("a", t + 11 * 60_000).allowed).toBe(true);
  });
  it("caps requests per minute", () => {
    const l = new WebhookLimiter({ requestsPerMinute: 3 });
    const results = [0, 1, 2, 3].map(() => l.admit("a", 5_000).allowed);
    expect(results).toEqual([true, true, true, false]);
  });
});
