import { describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/config";
import { gitLocationOf } from "./adopt";

const config = parseConfig(`
repositories:
  - { name: shop, url: https://git.example.com/shop.git }
environments:
  - { name: staging, cluster: { kubeconfig: ./k.yaml }, source: { repository: shop, path: envs/staging } }
  - { name: fleet, cluster: { kubeconfig: ./k.yaml }, discover: { flux: {} } }
`);
const [staging, fleet] = config.environments;

describe("gitLocationOf", () => {
  it("takes the application's own repository and path (a discovered application's are not the environment's)", () => {
    const sources = [{ url: "https://git.example.com/acme/fleet.git", repository: "auto-git-example-com-acme-fleet", ref: { branch: "main" }, path: "apps/production/api", render: "kustomize" }];
    expect(gitLocationOf(sources, fleet!, null)).toEqual({ repositoryName: "auto-git-example-com-acme-fleet", sourcePath: "apps/production/api" });
  });

  it("falls back to the environment's source for rows without an application source", () => {
    expect(gitLocationOf(undefined, staging!, "shop")).toEqual({ repositoryName: "shop", sourcePath: "envs/staging" });
    expect(gitLocationOf([{ url: "https://elsewhere.example/x.git", ref: { branch: "main" }, path: "." }], staging!, "shop")).toEqual({ repositoryName: "shop", sourcePath: "envs/staging" });
    expect(gitLocationOf([], fleet!, null)).toEqual({ repositoryName: null, sourcePath: "." });
  });
});
