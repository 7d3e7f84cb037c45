// Field managers → who they stand for. Lists take exact names or globs
// (`Mozilla*`: the API server names a manager after the User-Agent prefix
// when a client sends no fieldManager).

import type { ManagerClass, ManagerLists } from "./types";

export const DEFAULT_HUMAN_MANAGERS: readonly string[] = [
  "kubectl",
  "kubectl-edit",
  "kubectl-patch",
  "kubectl-label",
  "kubectl-annotate",
  "kubectl-set",
  "kubectl-rollout",
  "kubectl-scale",
  "kubectl-create",
  "kubectl-replace",
  "kubectl-run",
  "kubectl-expose",
  "kubectl-autoscale",
  "kubectl-taint",
  "kubectl-*",
  "k9s",
  "Mozilla*",
  "lens*",
  "headlamp*",
  "helm",
  // Argo CD's API server acts for a person editing in its UI.
  "argocd-server",
];

export const DEFAULT_SYSTEM_MANAGERS: readonly string[] = [
  "kube-controller-manager",
  "kube-scheduler",
  "kubelet",
  "kube-apiserver",
  "kube-proxy",
  "cloud-controller-manager",
  "before-first-apply",
  "horizontal-pod-autoscaler",
  "hpa-controller",
  "vpa-recommender",
  "vpa-updater",
  "vpa-admission-controller",
  "cluster-autoscaler",
  "deployment-controller",
  "replicaset-controller",
  "statefulset-controller",
  "daemonset-controller",
  "job-controller",
  "cronjob-controller",
  "endpoint-controller",
  "endpointslice-controller",
  "endpointslicemirroring-controller",
  "node-controller",
  "service-controller",
  "persistent-volume-binder",
  "pvc-protection-controller",
  "pv-protection-controller",
  "attachdetach-controller",
  "resourcequota-controller",
  "namespace-controller",
  "serviceaccount-controller",
  "garbage-collector",
];

/** GitOps controllers known by name; the environment's own ones come from its configuration. */
export const DEFAULT_CONTROLLER_MANAGERS: readonly string[] = [
  "kustomize-controller",
  "helm-controller",
  "argocd-controller",
  "argocd-application-controller",
  "flux",
  "flux-client-side-apply",
];

/** kubectl's client-side apply: a person at a terminal when a controller owns the environment, the deploy tool otherwise. */
export const CLIENT_SIDE_APPLY = "kubectl-client-side-apply";

type Matcher = (name: string) => boolean;

export function globToRegExp(glob: string): RegExp {
  let src = "";
  for (const c of glob) {
    if (c === "*") src += ".*";
    else if (c === "?") src += ".";
    else src += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${src}$`);
}

function compileList(names: readonly string[]): Matcher {
  const exact = new Set<string>();
  const globs: RegExp[] = [];
  for (const n of names) {
    if (n.includes("*") || n.includes("?")) globs.push(globToRegExp(n));
    else exact.add(n);
  }
  return (name) => exact.has(name) || globs.some((g) => g.test(name));
}

export interface ClassifierOptions {
  controllerManagers?: readonly string[];
  controllerManaged?: boolean;
  managers?: ManagerLists;
  extraManagers?: ManagerLists;
}

export interface ManagerClassifier {
  classify(manager: string | null | undefined): ManagerClass;
  /** One of the environment's own controllers (their Apply entries say what Git last contained). */
  isEnvironmentController(manager: string | null | undefined): boolean;
  readonly controllerManaged: boolean;
}

export function createManagerClassifier(opts: ClassifierOptions = {}): ManagerClassifier {
  const own = new Set(opts.controllerManagers ?? []);
  const controllerManaged = opts.controllerManaged ?? own.size > 0;
  const list = (which: keyof ManagerLists, defaults: readonly string[]) => [
    ...(opts.managers?.[which] ?? defaults),
    ...(opts.extraManagers?.[which] ?? []),
  ];
  const controller = compileList([...own, ...list("controller", DEFAULT_CONTROLLER_MANAGERS)]);
  const system = compileList(list("system", DEFAULT_SYSTEM_MANAGERS));
  const human = compileList(list("human", DEFAULT_HUMAN_MANAGERS));
  const cache = new Map<string, ManagerClass>();
  const compute = (m: string): ManagerClass => {
    if (own.has(m)) return "controller";
    if (m === CLIENT_SIDE_APPLY) return controllerManaged ? "human" : "controller";
    if (controller(m)) return "controller";
    if (system(m)) return "system";
    if (human(m)) return "human";
    return "unknown";
  };
  return {
    controllerManaged,
    classify(manager) {
      if (!manager || manager === "ancient-changes") return "unknown";
      let c = cache.get(manager);
      if (c === undefined) cache.set(manager, (c = compute(manager)));
      return c;
    },
    isEnvironmentController(manager) {
      return !!manager && own.has(manager);
    },
  };
}

export function classifyManager(manager: string | null | undefined, opts: ClassifierOptions = {}): ManagerClass {
  return createManagerClassifier(opts).classify(manager);
}
