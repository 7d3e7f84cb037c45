// The demo's driftwatch.yaml: three environments on the three imitations,
// read-only collection credentials, and a separate write credential for
// pausing (the narrow one a real install would configure).
import { stringify } from "yaml";
import type { DemoWorld } from "./world";

export function demoConfigYaml(world: DemoWorld): string {
  const cluster = (env: "test" | "staging" | "production", write = false) => ({ kubeconfig: world.kubeconfigs[env], context: write ? env : `${env}-readonly` });
  const common = { namespaces: ["shop"], defaultNamespace: "shop", mode: "poll", interval: "10s" };
  return stringify({
    repositories: [{ name: "shop", url: world.repo.dir }],
    environments: [
      {
        name: "test",
        description: "Every merge lands here first.",
        cluster: cluster("test"),
        ...common,
        source: { repository: "shop", branch: "main", path: "envs/test" },
        controller: { type: "flux", namespace: "flux-system", name: "shop-test" },
        staleAfter: "15m",
        write: cluster("test", true),
      },
      {
        name: "staging",
        description: "Release candidates, reconciled by Argo CD.",
        cluster: cluster("staging"),
        ...common,
        source: { repository: "shop", branch: "main", path: "envs/staging" },
        controller: { type: "argocd", namespace: "argocd", name: "shop-staging" },
        staleAfter: "30m",
        write: cluster("staging", true),
      },
      {
        name: "production",
        description: "Customers are here.",
        cluster: cluster("production"),
        ...common,
        source: { repository: "shop", branch: "main", path: "envs/production" },
        controller: { type: "flux", namespace: "flux-system", name: "shop-production" },
        staleAfter: "30m",
        confirmPause: true,
        maxPause: "1d",
        write: cluster("production", true),
      },
    ],
    alerts: { webhooks: [], runbooks: {} },
  });
}
