// The Roles that let Driftwatch's in-cluster account pause and resume exactly
// the controller objects driftwatch.yaml names, and no other. RBAC can narrow
// a grant to object names (`resourceNames`) but not to fields; which fields
// that account may change is the ValidatingAdmissionPolicy's job
// (deploy/base/pause-policy.yaml).
import { controllerKindOf, type DriftwatchConfig } from "@/lib/config";

export interface ServiceAccountRef {
  namespace: string;
  name: string;
}

export const defaultPauseAccount: ServiceAccountRef = { namespace: "driftwatch", name: "driftwatch-web" };
export const pauseRoleName = "driftwatch-pause";

const controllerResource = {
  Kustomization: { apiGroup: "kustomize.toolkit.fluxcd.io", resource: "kustomizations" },
  HelmRelease: { apiGroup: "helm.toolkit.fluxcd.io", resource: "helmreleases" },
  Application: { apiGroup: "argoproj.io", resource: "applications" },
} as const;

type Manifest = Record<string, unknown> & { kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> } };

const labels = { "app.kubernetes.io/name": "driftwatch", "app.kubernetes.io/component": "web" };

/** Names granted in one namespace per "group/resource"; ANY: every object of it (discovered applications). */
const ANY = "*";
type Grants = Map<string, Set<string>>;

function grant(into: Map<string, Grants>, namespace: string, kind: keyof typeof controllerResource, name: string): void {
  const r = controllerResource[kind];
  const grants = into.get(namespace) ?? new Map<string, Set<string>>();
  into.set(namespace, grants);
  const key = `${r.apiGroup}/${r.resource}`;
  grants.set(key, (grants.get(key) ?? new Set<string>()).add(name));
}

function rulesOf(grants: Grants) {
  return [...grants.keys()].sort().map((key) => {
    const [apiGroup, resource] = key.split("/") as [string, string];
    const names = grants.get(key) ?? new Set<string>();
    // Discovered objects are not known when this is rendered: every object of the kind, where discovery looks.
    return names.has(ANY) ? { apiGroups: [apiGroup], resources: [resource], verbs: ["get", "patch"] } : { apiGroups: [apiGroup], resources: [resource], resourceNames: [...names].sort(), verbs: ["get", "patch"] };
  });
}

/**
 * One Role and RoleBinding per controller namespace, granting get and patch
 * on the named controller objects (of the environment, and of each declared
 * application) of every environment whose `write` credential is the
 * in-cluster account. An environment that discovers its applications gets
 * get and patch on every object of the discovered kinds where it discovers
 * (they are not named in driftwatch.yaml): in its namespaces, or through one
 * ClusterRole where it looks in every namespace. Environments that pause through
 * another credential get nothing here: that credential's own RBAC applies.
 * Deterministic order, so a committed rendering can be compared with a fresh one.
 */
export function pauseRbac(config: Pick<DriftwatchConfig, "environments">, account: ServiceAccountRef = defaultPauseAccount): Manifest[] {
  const byNamespace = new Map<string, Grants>();
  const clusterWide = new Map<string, Grants>();
  for (const env of config.environments) {
    if (!env.write || !("inCluster" in env.write) || !env.write.inCluster) continue;
    // The environment's controller object, and each declared application's (each can be paused on its own).
    const controllers = [env.controller, ...(env.applications ?? []).map((a) => a.controller)];
    for (const c of controllers) if (c) grant(byNamespace, c.namespace, controllerKindOf(c), c.name);
    const flux = env.discover?.flux;
    if (flux) {
      for (const kind of ["Kustomization", "HelmRelease"] as const) {
        if (flux.namespaces.length === 0) grant(clusterWide, "", kind, ANY);
        for (const ns of flux.namespaces) grant(byNamespace, ns, kind, ANY);
      }
    }
    for (const ns of env.discover?.argocd?.namespaces ?? []) grant(byNamespace, ns, "Application", ANY);
  }

  const out: Manifest[] = [];
  const subjects = [{ kind: "ServiceAccount", name: account.name, namespace: account.namespace }];
  const everywhere = clusterWide.get("");
  if (everywhere) {
    out.push({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: pauseRoleName, labels }, rules: rulesOf(everywhere) });
    out.push({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding", metadata: { name: pauseRoleName, labels }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: pauseRoleName }, subjects });
  }
  for (const namespace of [...byNamespace.keys()].sort()) {
    out.push({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: pauseRoleName, namespace, labels }, rules: rulesOf(byNamespace.get(namespace) ?? new Map()) });
    out.push({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: pauseRoleName, namespace, labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: pauseRoleName },
      subjects,
    });
  }
  return out;
}
