// Which helmRepositories entry a chart's repoURL is fetched with: its own, else
// the longest URL prefix's (its credentials lent to the place the Application names).
import { describe, expect, it } from "vitest";
import { helmRepositorySchema } from "@/lib/config/schema";
import { helmRepositoryFor } from "./chart-fetch";

const repo = (name: string, url: string, user = name) => helmRepositorySchema.parse({ name, url, auth: { type: "basic", username: user, passwordEnv: "X" } });
const repositories = [repo("host", "https://charts.example"), repo("team", "https://charts.example/team/"), repo("registry", "oci://ghcr.io/acme")];

describe("the helm repository of a chart's repoURL", () => {
  it("is the entry of that URL, with or without a trailing slash", () => {
    expect(helmRepositoryFor("https://charts.example/team", repositories)).toMatchObject({ name: "team", url: "https://charts.example/team/" });
  });

  it("is else the longest prefix at a path boundary, at the URL the Application names", () => {
    expect(helmRepositoryFor("https://charts.example/team/stable", repositories)).toMatchObject({ name: "team", url: "https://charts.example/team/stable", auth: { username: "team" } });
    expect(helmRepositoryFor("https://charts.example/other", repositories)).toMatchObject({ name: "host", url: "https://charts.example/other" });
    // "teamwork" is not under "team".
    expect(helmRepositoryFor("https://charts.example/teamwork", repositories)).toMatchObject({ name: "host" });
  });

  it("names an OCI registry with or without oci://, and nothing configured matches nothing", () => {
    expect(helmRepositoryFor("ghcr.io/acme/charts", repositories)).toMatchObject({ name: "registry", url: "oci://ghcr.io/acme/charts" });
    expect(helmRepositoryFor("https://elsewhere.example", repositories)).toBe(null);
  });
});
