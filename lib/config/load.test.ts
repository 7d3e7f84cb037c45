import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { ConfigError, parseConfig } from "./load";
import { parseDuration } from "./duration";

function problemsOf(text: string): string[] {
  try {
    parseConfig(text);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  throw new Error("expected the config to be rejected");
}

const VALID = `
repositories:
  - name: shop
    url: https://git.example.com/shop.git
    auth: { type: token, tokenEnv: SHOP_GIT_TOKEN }
environments:
  - name: staging
    cluster: { kubeconfig: ./kube/staging.yaml, context: staging }
    namespaces: [shop]
    source: { repository: shop, branch: main, path: envs/staging }
    controller: { type: argocd, name: shop-staging }
    interval: 30s
    ignore:
      - name: hpa-replicas
        kinds: [Deployment]
        paths: [spec.replicas]
`;

describe("parseConfig", () => {
  it("accepts a valid file and fills in defaults", () => {
    const cfg = parseConfig(VALID);
    const stagingEnv = cfg.environments[0];
    expect(stagingEnv?.interval).toBe(30_000);
    expect(stagingEnv?.staleAfter).toBe(600_000);
    expect(stagingEnv?.source?.render).toBe("plain");
    expect(stagingEnv?.controller).toEqual({ type: "argocd", namespace: "argocd", name: "shop-staging" });
    expect(cfg.repositories[0]?.auth).toEqual({ type: "token", tokenEnv: "SHOP_GIT_TOKEN", username: "x-access-token" });
  });

  it("lists every mistake with its path, not just the first", () => {
    const problems = problemsOf(`
repositories:
  - name: shop
    url: https://git.example.com/shop.git
environments:
  - name: Staging!
    cluster: { kubeconfig: ./k.yaml }
    source: { repository: shpo, path: envs/staging }
    interval: soon
`);
    expect(problems).toHaveLength(3);
    expect(problems.some((p) => p.startsWith("environments[0].name:"))).toBe(true);
    expect(problems.some((p) => p.startsWith("environments[0].interval:") && p.includes("duration"))).toBe(true);
    expect(problems.some((p) => p.startsWith("environments[0].source.repository:") && p.includes('"shpo"'))).toBe(true);
  });

  it("names the line of a problem", () => {
    const problems = problemsOf("environments:\n  - name: x\n    cluster: { kubeconfig: k }\n    source: { repository: nope }\n");
    expect(problems[0]).toMatch(/line 4/);
  });

  it("reports YAML syntax errors with a line number", () => {
    const problems = problemsOf("repositories:\n  - name: shop\n   url: [unclosed\n");
    expect(problems[0]).toMatch(/^line \d+:/);
  });

  it("refuses credentials embedded in a repository URL", () => {
    const problems = problemsOf("repositories:\n  - name: shop\n    url: https://bob:hunter2@git.example.com/x.git\n");
    expect(problems).toEqual([expect.stringMatching(/^repositories\[0\]\.url: must not contain credentials/)]);
  });

  it("rejects unknown keys so typos do not pass silently", () => {
    const problems = problemsOf("repositories: []\nenviroments: []\n");
    expect(problems[0]).toMatch(/enviroments/);
  });

  it("validates the shipped example file", () => {
    const text = fs.readFileSync(path.join(import.meta.dirname, "../../driftwatch.example.yaml"), "utf8");
    const cfg = parseConfig(text);
    expect(cfg.environments.map((e) => e.name)).toEqual(["test", "staging", "production"]);
    expect(cfg.remoteBases).toEqual(["platform-bases"]);
  });

  it("remote bases must name declared repositories", () => {
    const problems = problemsOf("repositories:\n  - name: shop\n    url: https://git.example.com/shop.git\nremoteBases: [shop, elsewhere]\n");
    expect(problems).toEqual([expect.stringMatching(/^remoteBases\[1\]: unknown repository "elsewhere"/)]);
  });
});

describe("parseDuration", () => {
  it.each([
    ["30s", 30_000],
    ["10m", 600_000],
    ["1h30m", 5_400_000],
    ["7d", 604_800_000],
    ["250ms", 250],
  ])("%s → %d ms", (text, ms) => expect(parseDuration(text)).toBe(ms));
  it.each(["", "10", "soon", "5 minutes", "-1s"])("rejects %j", (text) => expect(parseDuration(text)).toBeNull());
});

describe("environments[].applications", () => {
  const REPOS = `
repositories:
  - { name: shop, url: https://git.example.com/shop.git }
environments:
  - name: production
    cluster: { kubeconfig: ./k.yaml }
`;
  it("accepts a list of declared applications; per-environment views see the first one's source", () => {
    const cfg = parseConfig(`${REPOS}    applications:
      - { name: web, source: { repository: shop, path: web }, controller: { type: flux, name: web } }
      - { name: api, source: { repository: shop, path: api } }
`);
    const env = cfg.environments[0]!;
    expect(env.applications?.map((a) => a.name)).toEqual(["web", "api"]);
    expect(env.source).toEqual({ repository: "shop", branch: "main", path: "web", render: "plain" });
    expect(env.controller).toEqual({ type: "flux", kind: "Kustomization", namespace: "flux-system", name: "web" });
  });

  it("accepts an environment that only discovers: no source, no declared applications", () => {
    const cfg = parseConfig(`${REPOS.replace("url: https://git.example.com/shop.git }", "url: https://git.example.com/shop.git, aliases: ['git@git.example.com:shop.git'] }")}    discover: { flux: { namespaces: [flux-system] } }
`);
    const env = cfg.environments[0]!;
    expect(env.source).toBeUndefined();
    expect(env.applications).toBeUndefined();
    expect(env.discover?.flux?.namespaces).toEqual(["flux-system"]);
    expect(cfg.repositories[0]?.aliases).toEqual(["git@git.example.com:shop.git"]);
  });

  it.each([
    ["neither source, applications nor discover", "", "environments[0].source: an environment needs a source, a list of applications or discover"],
    ["credentials in an alias", "", "repositories[0].aliases[0]: must not contain credentials; use auth", `${REPOS.replace("url: https://git.example.com/shop.git }", "url: https://git.example.com/shop.git, aliases: ['https://u:p@git.example.com/shop'] }")}    discover: { flux: {} }\n`],
    ["both", `    source: { repository: shop }\n    applications: [{ name: a, source: { repository: shop } }]\n`, "environments[0].applications: give either source (one application) or applications, not both"],
    ["a duplicate name", `    applications: [{ name: a, source: { repository: shop } }, { name: a, source: { repository: shop, path: x } }]\n`, 'environments[0].applications[1].name: duplicate application "a"'],
    ["an unknown repository", `    applications: [{ name: a, source: { repository: shpo } }]\n`, 'environments[0].applications[0].source.repository: unknown repository "shpo" (declared: shop)'],
    ["an environment-level controller", `    controller: { type: flux, name: x }\n    applications: [{ name: a, source: { repository: shop } }]\n`, "environments[0].controller: with applications, each application names its own controller"],
  ])("rejects %s with a clear message", (_what, yaml, message, whole?: string) => {
    const problems = problemsOf(whole ?? `${REPOS}${yaml}`);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.replace(/ \(line \d+\)$/, "")).toBe(message);
  });
});
