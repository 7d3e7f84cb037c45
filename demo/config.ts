// The demo's driftwatch.yaml: three environments on the three imitations,
// read-only collection credentials, and a separate write credential for
// pausing (the narrow one a real install would configure). Test names its one
// application; staging and production discover theirs from the controllers
// (an Argo CD app-of-apps, a Flux multi-cluster layout), as a real estate would.
import { stringify } from "yaml";
import type { DemoWorld } from "./world";
import { DEMO_REPO_URL } from "./play";

export function demoConfigYaml(world: DemoWorld): string {
  const cluster = (env: "test" | "staging" | "production", write = false) => ({ kubeconfig: world.kubeconfigs[env], context: write ? env : `${env}-readonly` });
  const environment = (name: "test" | "staging" | "production", description: string, applications: Record<string, unknown>, extra: Record<string, unknown>) => ({
    name,
    description,
    cluster: cluster(name),
    defaultNamespace: "shop",
    // Watch: a kubectl change shows on an open page within a second or two
    // (e2e/live-update.spec.ts measures it); the 10 s runs still list, as a check on the watch.
    mode: "watch",
    interval: "10s",
    ...applications,
    write: cluster(name, true),
    ...extra,
  });
  return stringify({
    // The controllers name the repository by its Git host URL; Driftwatch reads the local copy under that alias.
    repositories: [{ name: "shop", url: world.repo.dir, aliases: [DEMO_REPO_URL] }],
    environments: [
      environment(
        "test",
        "Every merge lands here first.",
        { namespaces: ["shop"], source: { repository: "shop", branch: "main", path: "envs/test" }, controller: { type: "flux", namespace: "flux-system", name: "shop-test" } },
        { staleAfter: "15m" },
      ),
      environment("staging", "Release candidates, reconciled by an Argo CD app-of-apps.", // The root Application deploys the child Applications, which live in argocd.
        { namespaces: ["argocd", "shop"], discover: { argocd: { namespace: "argocd" } } }, { staleAfter: "30m" }),
      // Production's infrastructure and Flux's own objects live outside the shop namespace.
      environment("production", "Customers are here.", { namespaces: ["flux-system", "ingress-nginx", "shop"], discover: { flux: { namespaces: ["flux-system", "ingress-nginx"] } } }, { staleAfter: "30m", confirmPause: true, maxPause: "1d" }),
    ],
    alerts: { webhooks: [], runbooks: {}, auditCheckpoints: false },
  });
}
