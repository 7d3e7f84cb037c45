import { describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/config";
import { pauseRbac } from "./pause-rbac";

const config = parseConfig(`
repositories:
  - { name: r, url: https://git.example.com/r.git }
environments:
  - name: a
    cluster: { inCluster: true }
    source: { repository: r }
    controller: { type: flux, namespace: flux-system, name: shop-b }
    write: { inCluster: true }
  - name: b
    cluster: { inCluster: true }
    source: { repository: r }
    controller: { type: flux, namespace: flux-system, name: shop-a }
    write: { inCluster: true }
  - name: c
    cluster: { inCluster: true }
    source: { repository: r }
    controller: { type: argocd, namespace: argocd, name: shop }
    write: { inCluster: true }
  - name: remote-writer
    cluster: { inCluster: true }
    source: { repository: r }
    controller: { type: flux, namespace: team-x, name: not-ours }
    write: { server: "https://k8s.example.com", tokenEnv: OTHER_TOKEN }
  - name: read-only
    cluster: { inCluster: true }
    source: { repository: r }
    controller: { type: flux, namespace: team-y, name: not-paused }
`);

type Role = { kind: string; metadata: { name: string; namespace: string }; rules: Array<{ apiGroups: string[]; resources: string[]; resourceNames: string[]; verbs: string[] }>; subjects?: Array<{ name: string; namespace: string }> };

describe("pauseRbac", () => {
  const manifests = pauseRbac(config) as unknown as Role[];

  it("grants get/patch on exactly the named controller objects, per controller namespace", () => {
    const roles = manifests.filter((m) => m.kind === "Role");
    expect(roles.map((r) => [r.metadata.namespace, r.rules])).toEqual([
      ["argocd", [{ apiGroups: ["argoproj.io"], resources: ["applications"], resourceNames: ["shop"], verbs: ["get", "patch"] }]],
      ["flux-system", [{ apiGroups: ["kustomize.toolkit.fluxcd.io"], resources: ["kustomizations"], resourceNames: ["shop-a", "shop-b"], verbs: ["get", "patch"] }]],
    ]);
  });

  it("leaves out environments that pause through another credential or not at all", () => {
    const namespaces = manifests.map((m) => m.metadata.namespace);
    expect(namespaces).not.toContain("team-x");
    expect(namespaces).not.toContain("team-y");
  });

  it("binds each Role to the given service account", () => {
    const bindings = pauseRbac(config, { namespace: "ops", name: "dw" }).filter((m) => m.kind === "RoleBinding") as unknown as Role[];
    expect(bindings).toHaveLength(2);
    for (const b of bindings) expect(b.subjects).toEqual([{ kind: "ServiceAccount", name: "dw", namespace: "ops" }]);
  });

  it("names each declared application's controller object too, so each can be paused on its own", () => {
    const withApplications = parseConfig(`
repositories:
  - { name: r, url: https://git.example.com/r.git }
environments:
  - name: production
    cluster: { inCluster: true }
    write: { inCluster: true }
    applications:
      - { name: infra, source: { repository: r, path: infra }, controller: { type: flux, namespace: flux-system, name: infra } }
      - { name: shop, source: { repository: r, path: shop }, controller: { type: flux, kind: HelmRelease, namespace: shop, name: shop } }
      - { name: settings, source: { repository: r, path: settings } }
`);
    const roles = (pauseRbac(withApplications) as unknown as Role[]).filter((m) => m.kind === "Role");
    expect(roles.map((r) => [r.metadata.namespace, r.rules])).toEqual([
      ["flux-system", [{ apiGroups: ["kustomize.toolkit.fluxcd.io"], resources: ["kustomizations"], resourceNames: ["infra"], verbs: ["get", "patch"] }]],
      ["shop", [{ apiGroups: ["helm.toolkit.fluxcd.io"], resources: ["helmreleases"], resourceNames: ["shop"], verbs: ["get", "patch"] }]],
    ]);
  });

  it("grants every object of the discovered kinds where an environment discovers, so all its applications can be paused together", () => {
    const discovering = parseConfig(`
repositories:
  - { name: r, url: https://git.example.com/r.git }
environments:
  - name: staging
    cluster: { inCluster: true }
    write: { inCluster: true }
    discover: { flux: { namespaces: [flux-system] }, argocd: {} }
  - name: production
    cluster: { inCluster: true }
    write: { inCluster: true }
    discover: { flux: {} }
  - name: elsewhere
    cluster: { inCluster: true }
    discover: { flux: { namespaces: [team-z] } }
`);
    const manifests = pauseRbac(discovering) as unknown as Array<Role & { roleRef?: { kind: string } }>;
    expect(manifests.map((m) => [m.kind, m.metadata.namespace ?? null])).toEqual([
      ["ClusterRole", null],
      ["ClusterRoleBinding", null],
      ["Role", "argocd"],
      ["RoleBinding", "argocd"],
      ["Role", "flux-system"],
      ["RoleBinding", "flux-system"],
    ]);
    const every = (group: string, resource: string) => ({ apiGroups: [group], resources: [resource], verbs: ["get", "patch"] });
    // production discovers Flux in every namespace: one ClusterRole, no names.
    expect(manifests[0]?.rules).toEqual([every("helm.toolkit.fluxcd.io", "helmreleases"), every("kustomize.toolkit.fluxcd.io", "kustomizations")]);
    expect(manifests[1]?.roleRef).toMatchObject({ kind: "ClusterRole", name: "driftwatch-pause" });
    expect(manifests[2]?.rules).toEqual([every("argoproj.io", "applications")]);
    expect(manifests[4]?.rules).toEqual([every("helm.toolkit.fluxcd.io", "helmreleases"), every("kustomize.toolkit.fluxcd.io", "kustomizations")]);
  });

  it("renders nothing when no environment pauses in-cluster", () => {
    expect(pauseRbac({ environments: [] })).toEqual([]);
  });
});
