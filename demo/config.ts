// The demo's driftwatch.yaml: three environments on the three imitations,
// read-only collection credentials, and a separate write credential for
// pausing (the narrow one a real install would configure).
import { stringify } from "yaml";
import type { DemoWorld } from "./world";

export function demoConfigYaml(world: DemoWorld): string {
  const cluster = (env: "test" | "staging" | "production", write = false) => ({ kubeconfig: world.kubeconfigs[env], context: write ? env : `${env}-readonly` });
  const environment = (name: "test" | "staging" | "production", description: string, controller: Record<string, string>, extra: Record<string, unknown>) => ({
    name,
    description,
    cluster: cluster(name),
    namespaces: ["shop"],
    defaultNamespace: "shop",
    // Watch: a kubectl change shows on an open page within a second or two
    // (e2e/live-update.spec.ts measures it); the 10 s runs still list, as a check on the watch.
    mode: "watch",
    interval: "10s",
    source: { repository: "shop", branch: "main", path: `envs/${name}` },
    controller,
    write: cluster(name, true),
    ...extra,
  });
  return stringify({
    repositories: [{ name: "shop", url: world.repo.dir }],
    environments: [
      environment("test", "Every merge lands here first.", { type: "flux", namespace: "flux-system", name: "shop-test" }, { staleAfter: "15m" }),
      environment("staging", "Release candidates, reconciled by Argo CD.", { type: "argocd", namespace: "argocd", name: "shop-staging" }, { staleAfter: "30m" }),
      environment("production", "Customers are here.", { type: "flux", namespace: "flux-system", name: "shop-production" }, { staleAfter: "30m", confirmPause: true, maxPause: "1d" }),
    ],
    alerts: { webhooks: [], runbooks: {}, auditCheckpoints: false },
  });
}
