import { describe, expect, it } from "vitest";
import { normaliseRepositoryUrl, repositoryOfSource, resolveRepository, withoutCredentials, type RepositoryCatalog } from "./repositories";

describe("normaliseRepositoryUrl", () => {
  it.each([
    ["https://github.com/acme/fleet", "https", "github.com/acme/fleet"],
    ["https://GitHub.com/acme/fleet.git", "https", "github.com/acme/fleet"],
    ["https://github.com/acme/fleet/", "https", "github.com/acme/fleet"],
    ["https://github.com:443/acme/fleet.git/", "https", "github.com/acme/fleet"],
    ["https://token@github.com/acme/fleet", "https", "github.com/acme/fleet"],
    ["git@github.com:acme/fleet.git", "ssh", "github.com/acme/fleet"],
    ["ssh://git@github.com/acme/fleet", "ssh", "github.com/acme/fleet"],
    ["ssh://git@gitea.internal:2222/acme/fleet.git", "ssh", "gitea.internal:2222/acme/fleet"],
    ["oci://ghcr.io/acme/manifests", "other", "oci://ghcr.io/acme/manifests"],
  ])("%s", (url, transport, key) => {
    expect(normaliseRepositoryUrl(url)).toEqual({ transport, key });
  });
});

describe("withoutCredentials", () => {
  it.each([
    ["https://user:s3cret@github.com/acme/fleet.git", "https://github.com/acme/fleet.git"],
    ["https://ghp_token@github.com/acme/fleet", "https://github.com/acme/fleet"],
    ["ssh://git:pw@github.com/acme/fleet", "ssh://git@github.com/acme/fleet"],
    ["git@github.com:acme/fleet.git", "git@github.com:acme/fleet.git"],
    ["https://github.com/acme/fleet", "https://github.com/acme/fleet"],
  ])("%s → %s", (url, clean) => {
    expect(withoutCredentials(url)).toBe(clean);
  });
});

const catalog: RepositoryCatalog = {
  repositories: [{ name: "fleet", url: "https://github.com/acme/fleet.git", auth: { type: "token", tokenEnv: "FLEET_TOKEN", username: "x-access-token" } }],
  credentials: [
    { urlPrefix: "https://github.com/acme", auth: { type: "token", tokenEnv: "ACME_TOKEN", username: "x-access-token" } },
    { urlPrefix: "https://github.com/acme/platform-", auth: { type: "token", tokenEnv: "PLATFORM_TOKEN", username: "x-access-token" } },
    { urlPrefix: "https://github.com/acme/secure", auth: { type: "token", tokenEnv: "SECURE_TOKEN", username: "x-access-token" } },
    { urlPrefix: "git@github.com:acme", auth: { type: "ssh", keyFile: "/keys/acme" } },
  ],
};

describe("resolveRepository", () => {
  it.each([
    ["https://github.com/acme/fleet", "declared"],
    ["git@github.com:acme/fleet.git", "declared"],
    ["https://github.com/acme/fleet/", "declared"],
  ])("finds the declared repository however %s spells it", (url, origin) => {
    const resolved = resolveRepository(url, catalog);
    expect(resolved.origin).toBe(origin);
    expect(resolved.repository.name).toBe("fleet");
  });

  it("makes up a repository with the longest prefix's credential, on a path-segment boundary", () => {
    const secure = resolveRepository("https://github.com/acme/secure/payments.git", catalog);
    expect(secure).toMatchObject({ origin: "credential", urlPrefix: "https://github.com/acme/secure", repository: { url: "https://github.com/acme/secure/payments.git", auth: { tokenEnv: "SECURE_TOKEN" } } });
    expect(secure.repository.name).toMatch(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/);
    // `acme/secure` does not cover `acme/secure-docs`; `acme` does.
    expect(resolveRepository("https://github.com/acme/secure-docs", catalog)).toMatchObject({ origin: "credential", urlPrefix: "https://github.com/acme" });
  });

  it("uses a token only over https and a key only over ssh", () => {
    expect(resolveRepository("git@github.com:acme/shop.git", catalog).repository.auth).toEqual({ type: "ssh", keyFile: "/keys/acme" });
    expect(resolveRepository("https://github.com/acme/shop", catalog).repository.auth).toMatchObject({ type: "token", tokenEnv: "ACME_TOKEN" });
  });

  it("falls back to no auth, and never hands back a URL with credentials in it", () => {
    const other = resolveRepository("https://deploy:hunter2@gitlab.com/other/repo.git", catalog);
    expect(other.origin).toBe("anonymous");
    expect(other.repository).toEqual({ name: "auto-gitlab-com-other-repo", url: "https://gitlab.com/other/repo.git", auth: { type: "none" } });
    const long = resolveRepository(`https://github.com/acme/${"very-long-name-".repeat(6)}repo`, catalog);
    expect(long.repository.name.length).toBeLessThanOrEqual(63);
    expect(long.repository.name).toMatch(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/);
  });
});

describe("aliases", () => {
  const withAlias: RepositoryCatalog = {
    repositories: [{ name: "mirror", url: "/srv/git/fleet", aliases: ["git@git.example.com:acme/fleet.git", "https://git.example.com/acme/fleet"], auth: { type: "none" } }],
    credentials: [],
  };

  it.each(["https://git.example.com/acme/fleet.git", "ssh://git@git.example.com/acme/fleet", "git@git.example.com:acme/fleet", "/srv/git/fleet"])("%s is the declared repository", (url) => {
    expect(resolveRepository(url, withAlias)).toMatchObject({ origin: "declared", repository: { name: "mirror", url: "/srv/git/fleet" } });
  });

  it("an alias does not cover its siblings", () => {
    expect(resolveRepository("https://git.example.com/acme/fleet-two", withAlias).origin).toBe("anonymous");
  });
});

describe("repositoryOfSource", () => {
  it("takes the declared repository the source names, else the one its URL names", () => {
    expect(repositoryOfSource({ url: "https://elsewhere.example/x", repository: "fleet" }, catalog)).toMatchObject({ ok: true, origin: "declared", repository: { name: "fleet" } });
    expect(repositoryOfSource({ url: "git@github.com:acme/fleet.git" }, catalog)).toMatchObject({ ok: true, origin: "declared", repository: { name: "fleet" } });
  });

  it.each([
    ["https://github.com/acme/shop.git", "token"],
    ["http://github.com/acme/shop", "token"],
    ["ssh://git@github.com/acme/shop.git", "ssh"],
    ["git@github.com:acme/shop", "ssh"],
  ])("makes up %s with the credential that fits its transport (%s)", (url, type) => {
    const found = repositoryOfSource({ url }, catalog);
    expect(found).toMatchObject({ ok: true, origin: "credential", repository: { name: "auto-github-com-acme-shop", auth: { type } } });
  });

  it("refuses a URL nothing covers, naming it without its credentials", () => {
    expect(repositoryOfSource({ url: "https://deploy:hunter2@gitlab.com/other/repo.git" }, catalog)).toEqual({ ok: false, reason: "no repository or credential in driftwatch.yaml matches https://gitlab.com/other/repo.git" });
  });
});
