import { beforeEach, describe, expect, it, vi } from "vitest";
import { parseConfig } from "@/lib/config";
import type { DiscoveryOutcome } from "@/lib/applications/discover";
import type { ApplicationSpec } from "@/lib/applications/spec";
import type { ClusterClient } from "@/lib/kube/client";
import type { Discovery } from "@/lib/kube/discovery";
import { KubeError } from "@/lib/kube/errors";
import { RunFailure, type CollectorContext } from "./run-context";

const discoverApplications = vi.fn<() => Promise<DiscoveryOutcome>>();
vi.mock("@/lib/applications/discover", () => ({ discoverApplications: () => discoverApplications() }));
const { applicationsOfRun } = await import("./run-applications");

const config = parseConfig(`
repositories:
  - { name: fleet, url: /srv/git/fleet, aliases: ["https://git.example.com/acme/fleet.git"] }
credentials:
  - { urlPrefix: "https://git.example.com/acme", auth: { type: token, tokenEnv: ACME_TOKEN } }
environments:
  - name: production
    cluster: { kubeconfig: ./k.yaml }
    applications:
      - { name: infra, source: { repository: fleet, path: infra } }
    discover: { flux: {} }
  - name: staging
    cluster: { kubeconfig: ./k.yaml }
    source: { repository: fleet, path: staging }
`);
const [production, staging] = config.environments;
const ctx = { config } as CollectorContext;
const cluster = vi.fn(async () => ({ client: {} as ClusterClient, discovery: {} as Discovery }));

function flux(name: string, url: string, kind: "Kustomization" | "HelmRelease" = "Kustomization"): ApplicationSpec {
  return {
    name: `flux-system/${name}`,
    kind: kind === "Kustomization" ? "flux-kustomization" : "flux-helmrelease",
    promotionKey: name,
    controller: { type: "flux", kind, namespace: "flux-system", name },
    sources: [{ url, ref: { branch: "main" }, path: name, render: kind === "Kustomization" ? "kustomize" : "helm" }],
    labels: {},
  };
}

function outcome(specs: ApplicationSpec[], extra: Partial<DiscoveryOutcome> = {}): DiscoveryOutcome {
  return { applications: new Map([["production", specs]]), unmatched: [], warnings: [], unlisted: [], objectsRead: specs.length, ...extra };
}

beforeEach(() => {
  discoverApplications.mockReset();
  cluster.mockClear();
});

describe("applicationsOfRun", () => {
  it("does not ask the cluster for an environment that does not discover", async () => {
    const apps = await applicationsOfRun(ctx, staging!, cluster, async () => []);
    expect(apps.specs.map((s) => s.name)).toEqual(["default"]);
    expect(cluster).not.toHaveBeenCalled();
    expect(discoverApplications).not.toHaveBeenCalled();
  });

  it("adds the discovered applications to the declared ones, each with the repository it is fetched from", async () => {
    discoverApplications.mockResolvedValue(outcome([flux("api", "git@git.example.com:acme/fleet.git"), flux("tools", "https://git.example.com/acme/tools.git"), flux("stray", "https://elsewhere.example/x.git")]));
    const apps = await applicationsOfRun(ctx, production!, cluster, async () => []);
    expect(apps.specs.map((s) => s.name)).toEqual(["infra", "flux-system/api", "flux-system/tools", "flux-system/stray"]);
    // The alias names the declared repository; the credential covers tools; nothing covers the stray URL.
    expect([...apps.repositories.keys()].sort()).toEqual(["auto-git-example-com-acme-tools", "fleet"]);
    expect(apps.repositories.get("auto-git-example-com-acme-tools")).toMatchObject({ url: "https://git.example.com/acme/tools.git", auth: { type: "token", tokenEnv: "ACME_TOKEN" } });
    expect(apps.unfetchable).toEqual(new Map([["flux-system/stray", "no repository or credential in driftwatch.yaml matches https://elsewhere.example/x.git"]]));
  });

  it("fetches every Git source of a multi-source application, and an application whose chart no helmRepositories entry covers not at all", async () => {
    const argo = (name: string, sources: ApplicationSpec["sources"]): ApplicationSpec => ({ name: `argocd/${name}`, kind: "argocd-application", promotionKey: name, controller: { type: "argocd", kind: "Application", namespace: "argocd", name }, sources, labels: {} });
    const chart = { url: "https://charts.example/stable", ref: { semver: "1.x" }, path: ".", render: "helm" as const, chart: "web" };
    discoverApplications.mockResolvedValue(
      outcome([
        argo("multi", [
          { url: "https://git.example.com/acme/tools.git", ref: { branch: "main" }, path: ".", render: "plain", refName: "values", refOnly: true },
          { url: "https://git.example.com/acme/fleet.git", ref: { branch: "main" }, path: "web", render: "plain" },
        ]),
        argo("charted", [chart]),
      ]),
    );
    const apps = await applicationsOfRun(ctx, production!, cluster, async () => []);
    expect([...apps.repositories.keys()].sort()).toEqual(["auto-git-example-com-acme-tools", "fleet"]);
    expect(apps.unfetchable).toEqual(new Map([["argocd/charted", "no helmRepositories entry in driftwatch.yaml matches https://charts.example/stable (chart web); Driftwatch fetches charts only from the repositories it lists"]]));
  });

  it("a declared application wins over a discovered one of the same name, with a warning; discovery's warnings are the run's", async () => {
    const clash = { ...flux("infra", "https://git.example.com/acme/fleet.git"), name: "infra" };
    discoverApplications.mockResolvedValue(outcome([clash], { warnings: [{ code: "source", message: "Kustomization flux-system/x: its source GitRepository flux-system/y does not exist" }] }));
    const apps = await applicationsOfRun(ctx, production!, cluster, async () => []);
    expect(apps.specs).toHaveLength(1);
    expect(apps.specs[0]?.kind).toBe("declared");
    expect(apps.warnings.map((w) => w.message)).toEqual([
      "Kustomization flux-system/x: its source GitRepository flux-system/y does not exist",
      "application infra is declared in driftwatch.yaml and discovered (Kustomization flux-system/infra); the declared one is collected",
    ]);
  });

  it("keeps the known applications of a kind that could not be listed, and only those", async () => {
    const release = flux("ingress", "https://charts.example.com", "HelmRelease");
    const gone = flux("gone", "https://git.example.com/acme/fleet.git");
    discoverApplications.mockResolvedValue(outcome([], { unlisted: [{ kind: "HelmRelease", namespace: null, reason: "forbidden" }] }));
    const known = [
      { id: "1", name: release.name, removedAt: null, controllerRef: release.controller, spec: release },
      { id: "2", name: gone.name, removedAt: null, controllerRef: gone.controller, spec: gone },
      { id: "3", name: "flux-system/old", removedAt: new Date(), controllerRef: { ...release.controller, name: "old" }, spec: { ...release, name: "flux-system/old" } },
    ];
    const apps = await applicationsOfRun(ctx, production!, cluster, async () => known);
    expect(apps.keptForUnlistedKinds).toEqual([{ spec: release, error: { category: "forbidden", severity: "warning", message: "its HelmRelease could not be listed in any namespace this run; its last known state is kept" } }]);
  });

  it("a cluster that cannot be read fails the run as the cluster's error", async () => {
    discoverApplications.mockRejectedValue(new KubeError("unreachable", "connect ECONNREFUSED"));
    await expect(applicationsOfRun(ctx, production!, cluster, async () => [])).rejects.toBeInstanceOf(RunFailure);
  });
});
