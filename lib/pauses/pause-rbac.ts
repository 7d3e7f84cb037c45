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

/**
 * One Role and RoleBinding per controller namespace, granting get and patch
 * on the named controller objects (of the environment, and of each declared
 * application) of every environment whose `write` credential is the
 * in-cluster account. Discovered applications are not named in
 * driftwatch.yaml: pausing one needs a grant its operators write for it. Environments that pause through
 * another credential get nothing here: that credential's own RBAC applies.
 * Deterministic order, so a committed rendering can be compared with a fresh one.
 */
export function pauseRbac(config: Pick<DriftwatchConfig, "environments">, account: ServiceAccountRef = defaultPauseAccount): Manifest[] {
  // namespace -> "group/resource" -> names
  const byNamespace = new Map<string, Map<string, Set<string>>>();
  for (const env of config.environments) {
    if (!env.write || !("inCluster" in env.write) || !env.write.inCluster) continue;
    // The environment's controller object, and each declared application's (each can be paused on its own).
    const controllers = [env.controller, ...(env.applications ?? []).map((a) => a.controller)];
    for (const c of controllers) {
      if (!c) continue;
      const r = controllerResource[controllerKindOf(c)];
      const grants = byNamespace.get(c.namespace) ?? new Map<string, Set<string>>();
      byNamespace.set(c.namespace, grants);
      const key = `${r.apiGroup}/${r.resource}`;
      grants.set(key, (grants.get(key) ?? new Set<string>()).add(c.name));
    }
  }

  const out: Manifest[] = [];
  for (const namespace of [...byNamespace.keys()].sort()) {
    const grants = byNamespace.get(namespace) ?? new Map<string, Set<string>>();
    out.push({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: pauseRoleName, namespace, labels },
      rules: [...grants.keys()].sort().map((key) => {
        const [apiGroup, resource] = key.split("/") as [string, string];
        return { apiGroups: [apiGroup], resources: [resource], resourceNames: [...(grants.get(key) ?? [])].sort(), verbs: ["get", "patch"] };
      }),
    });
    out.push({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: pauseRoleName, namespace, labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: pauseRoleName },
      subjects: [{ kind: "ServiceAccount", name: account.name, namespace: account.namespace }],
    });
  }
  return out;
}
