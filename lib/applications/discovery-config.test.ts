// The `discover:` and `credentials:` keys as a user writes them in driftwatch.yaml.
import { describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/config";

const base = (discover: string, top = "") => `
repositories:
  - name: fleet
    url: https://github.com/acme/fleet
${top}
environments:
  - name: production
    cluster: { kubeconfig: ./kube/prod.yaml }
    source: { repository: fleet }
${discover}
`;

describe("discover: in driftwatch.yaml", () => {
  it("reads Flux and Argo CD discovery with their defaults", () => {
    const cfg = parseConfig(
      base(`    discover:
      flux: { namespaces: [flux-system], exclude: ["*-canary"], labelSelector: "tier in (apps, infra)" }
      argocd: { destination: { name: production } }
      promotionKeys: { shop-api-prod: shop-api }`),
    );
    expect(cfg.environments[0]?.discover).toEqual({
      flux: { namespaces: ["flux-system"], include: [], exclude: ["*-canary"], labelSelector: "tier in (apps, infra)" },
      argocd: { namespaces: ["argocd"], destination: { name: "production" }, include: [], exclude: [] },
      promotionKeys: { "shop-api-prod": "shop-api" },
    });
  });

  it("takes Argo CD's namespace as one value or a list", () => {
    expect(parseConfig(base(`    discover: { argocd: { namespace: gitops } }`)).environments[0]?.discover?.argocd?.namespaces).toEqual(["gitops"]);
    expect(parseConfig(base(`    discover: { argocd: { namespaces: [a, b] } }`)).environments[0]?.discover?.argocd?.namespaces).toEqual(["a", "b"]);
  });

  it.each([
    ["a bad label selector", `    discover: { flux: { labelSelector: "tier in (apps" } }`, /environments\[0\]\.discover\.flux\.labelSelector: unbalanced/],
    ["a destination with neither name nor server", `    discover: { argocd: { destination: {} } }`, /destination: a destination needs name or server/],
    ["an empty discover", `    discover: {}`, /discover: discover needs flux, argocd or both/],
    ["an unknown key", `    discover: { flux: { namespace: x } }`, /discover\.flux/],
  ])("refuses %s, naming where", (_what, discover, message) => {
    // ConfigError lists every problem as `path: message` in its message.
    expect(() => parseConfig(base(discover))).toThrow(message);
  });
});

describe("credentials: in driftwatch.yaml", () => {
  it("reads URL-prefix credentials", () => {
    const cfg = parseConfig(base("", `credentials:\n  - urlPrefix: https://github.com/acme\n    auth: { type: token, tokenEnv: ACME_TOKEN }`));
    expect(cfg.credentials).toEqual([{ urlPrefix: "https://github.com/acme", auth: { type: "token", tokenEnv: "ACME_TOKEN", username: "x-access-token" } }]);
  });

  it("refuses a prefix that carries a password", () => {
    expect(() => parseConfig(base("", `credentials:\n  - urlPrefix: https://me:pw@github.com/acme\n    auth: { type: none }`))).toThrow(/credentials\[0\]\.urlPrefix: must not contain credentials/);
  });
});
