// Kinds that live outside namespaces. Rendering must not give these the
// environment's default namespace: the live object has none, and a desired
// copy with one would show as Missing + Extra. Keyed by API group and kind;
// CustomResourceDefinitions in the rendered set add their own cluster-scoped kinds.

const CLUSTER_SCOPED = new Set<string>([
  // core
  "/Namespace",
  "/Node",
  "/PersistentVolume",
  "/ComponentStatus",
  // rbac
  "rbac.authorization.k8s.io/ClusterRole",
  "rbac.authorization.k8s.io/ClusterRoleBinding",
  // apiextensions, apiregistration
  "apiextensions.k8s.io/CustomResourceDefinition",
  "apiregistration.k8s.io/APIService",
  // admission
  "admissionregistration.k8s.io/MutatingWebhookConfiguration",
  "admissionregistration.k8s.io/ValidatingWebhookConfiguration",
  "admissionregistration.k8s.io/ValidatingAdmissionPolicy",
  "admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding",
  "admissionregistration.k8s.io/MutatingAdmissionPolicy",
  "admissionregistration.k8s.io/MutatingAdmissionPolicyBinding",
  // storage
  "storage.k8s.io/StorageClass",
  "storage.k8s.io/CSIDriver",
  "storage.k8s.io/CSINode",
  "storage.k8s.io/VolumeAttachment",
  "storage.k8s.io/VolumeAttributesClass",
  // scheduling, node, networking, policy
  "scheduling.k8s.io/PriorityClass",
  "node.k8s.io/RuntimeClass",
  "networking.k8s.io/IngressClass",
  "networking.k8s.io/IPAddress",
  "networking.k8s.io/ServiceCIDR",
  "policy/PodSecurityPolicy",
  "certificates.k8s.io/CertificateSigningRequest",
  "certificates.k8s.io/ClusterTrustBundle",
  "flowcontrol.apiserver.k8s.io/FlowSchema",
  "flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration",
  "resource.k8s.io/DeviceClass",
  "resource.k8s.io/ResourceSlice",
  // well-known add-ons
  "cert-manager.io/ClusterIssuer",
  "external-secrets.io/ClusterSecretStore",
  "external-secrets.io/ClusterExternalSecret",
  "kyverno.io/ClusterPolicy",
  "kyverno.io/ClusterPolicyReport",
  "wgpolicyk8s.io/ClusterPolicyReport",
  "templates.gatekeeper.sh/ConstraintTemplate",
  "snapshot.storage.k8s.io/VolumeSnapshotClass",
  "snapshot.storage.k8s.io/VolumeSnapshotContent",
  "gateway.networking.k8s.io/GatewayClass",
  "metallb.io/BGPPeer",
  "crd.projectcalico.org/GlobalNetworkPolicy",
  "crd.projectcalico.org/IPPool",
  "cilium.io/CiliumClusterwideNetworkPolicy",
]);

export function apiGroup(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

export function isClusterScoped(apiVersion: string, kind: string, extra?: ReadonlySet<string>): boolean {
  const key = `${apiGroup(apiVersion)}/${kind}`;
  return CLUSTER_SCOPED.has(key) || (extra?.has(key) ?? false);
}

/** `group/kind` of every cluster-scoped kind a CRD in `objects` defines. */
export function clusterScopedFromCrds(objects: Iterable<Record<string, unknown>>): Set<string> {
  const out = new Set<string>();
  for (const o of objects) {
    if (o.kind !== "CustomResourceDefinition" || typeof o.spec !== "object" || o.spec === null) continue;
    const spec = o.spec as Record<string, unknown>;
    const names = spec.names as Record<string, unknown> | undefined;
    if (spec.scope === "Cluster" && typeof spec.group === "string" && typeof names?.kind === "string") {
      out.add(`${spec.group}/${names.kind}`);
    }
  }
  return out;
}
