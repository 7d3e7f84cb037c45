// CustomResourceDefinitions for the controller objects the demo needs, as
// Flux and Argo CD install them (schemas trimmed to "preserve unknown
// fields"; the status subresource kept, since controllers write through it).
type Obj = Record<string, unknown>;

function crd(group: string, kind: string, plural: string, version: string, shortNames: string[]): Obj {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase(), shortNames },
      scope: "Namespaced",
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
    },
  };
}

export const FLUX_CRDS: Obj[] = [
  crd("source.toolkit.fluxcd.io", "GitRepository", "gitrepositories", "v1", ["gitrepo"]),
  crd("kustomize.toolkit.fluxcd.io", "Kustomization", "kustomizations", "v1", ["ks"]),
];

export const ARGO_CRDS: Obj[] = [crd("argoproj.io", "Application", "applications", "v1alpha1", ["app", "apps"])];
