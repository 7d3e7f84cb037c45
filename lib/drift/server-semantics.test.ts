// Where the API server's own semantics decide what counts as a difference:
// empty Secret values, defaults inside atomic lists (Endpoints ports, RBAC
// subjects), finalizers controllers add, and removing annotations.
// Live objects are spelled as a real API server returns them (managedFields included).
import { describe, expect, it } from "vitest";
import { compareObject } from "./compare";
import { createCompareContext } from "./context";
import { LAST_APPLIED_ANNOTATION } from "./metadata-noise";
import { hashSecretValues } from "./secrets";
import type { Change, CompareOptions, KubeObject, ManagedFieldsEntry, ObjectDrift } from "./types";

type Obj = Record<string, unknown>;

const FLUX: CompareOptions = { controllerManagers: ["kustomize-controller"], controllerManaged: true };
const NO_CONTROLLER: CompareOptions = {};
const KEY = "instance-key";

function mf(manager: string, operation: "Apply" | "Update", apiVersion: string, fieldsV1: Obj, time = "2026-11-30T09:12:44Z"): ManagedFieldsEntry {
  return { manager, operation, apiVersion, time, fieldsType: "FieldsV1", fieldsV1 };
}

function serverMeta(name: string, managedFields: ManagedFieldsEntry[], extra: Obj = {}): KubeObject["metadata"] {
  return {
    name,
    namespace: "shop",
    uid: "5e0c1a43-94d8-4c2b-8d0f-3f1b6d2a7c11",
    resourceVersion: "482913",
    creationTimestamp: "2026-11-30T09:12:44Z",
    managedFields,
    ...extra,
  };
}

// ── Secrets: null and "" ───────────────────────────────────────────────────

const gitSecret = (token: Obj): KubeObject => ({ apiVersion: "v1", kind: "Secret", metadata: { name: "api-token", namespace: "shop" }, type: "Opaque", ...token });

function liveSecret(data: Obj): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: serverMeta("api-token", [
      mf("kustomize-controller", "Apply", "v1", { "f:data": Object.fromEntries(Object.keys(data).map((k) => [`f:${k}`, {}])), "f:type": {} }),
    ]),
    type: "Opaque",
    data,
  };
}

// ── Endpoints: protocol defaulted inside the atomic subsets ───────────────

const gitEndpoints = (port = 5432): KubeObject => ({
  apiVersion: "v1",
  kind: "Endpoints",
  metadata: { name: "external-db", namespace: "shop" },
  subsets: [{ addresses: [{ ip: "10.20.0.5" }], ports: [{ name: "pg", port }] }],
});

/** What `kubectl apply` (client side) of gitEndpoints() leaves behind: subsets owned whole (atomic), protocol filled in. */
function liveEndpoints(port: Obj = { name: "pg", port: 5432, protocol: "TCP" }): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: serverMeta(
      "external-db",
      [
        mf("kubectl-client-side-apply", "Update", "v1", {
          "f:metadata": { "f:annotations": { ".": {}, [`f:${LAST_APPLIED_ANNOTATION}`]: {} } },
          "f:subsets": {},
        }),
      ],
      { annotations: { [LAST_APPLIED_ANNOTATION]: JSON.stringify(gitEndpoints()) + "\n" } },
    ),
    subsets: [{ addresses: [{ ip: "10.20.0.5" }], ports: [port] }],
  };
}

/** The same after someone changed the subsets with kubectl edit (a kubectl manager owns the atomic field now). */
function editedEndpoints(port: Obj): KubeObject {
  const l = liveEndpoints(port);
  l.metadata.managedFields = [mf("kubectl-edit", "Update", "v1", { "f:subsets": {} }, "2026-12-01T07:40:00Z")];
  return l;
}

const gitSlice = (): KubeObject => ({
  apiVersion: "discovery.k8s.io/v1",
  kind: "EndpointSlice",
  metadata: { name: "external-db-1", namespace: "shop", labels: { "kubernetes.io/service-name": "external-db" } },
  addressType: "IPv4",
  endpoints: [{ addresses: ["10.20.0.5"] }],
  ports: [{ name: "pg", port: 5432 }],
});

function liveSlice(): KubeObject {
  return {
    ...gitSlice(),
    metadata: serverMeta("external-db-1", [
      mf("kubectl-edit", "Update", "discovery.k8s.io/v1", {
        "f:addressType": {},
        "f:endpoints": {},
        "f:metadata": { "f:labels": { ".": {}, "f:kubernetes.io/service-name": {} } },
        "f:ports": {},
      }),
    ], { labels: { "kubernetes.io/service-name": "external-db" } }),
    ports: [{ name: "pg", port: 5432, protocol: "TCP" }],
  };
}

const gitPolicy = (): KubeObject => ({
  apiVersion: "networking.k8s.io/v1",
  kind: "NetworkPolicy",
  metadata: { name: "api-ingress", namespace: "shop" },
  spec: { podSelector: { matchLabels: { app: "api" } }, ingress: [{ ports: [{ port: 8080 }] }] },
});

function livePolicy(): KubeObject {
  return {
    ...gitPolicy(),
    metadata: serverMeta("api-ingress", [mf("kubectl-edit", "Update", "networking.k8s.io/v1", { "f:spec": { "f:ingress": {}, "f:podSelector": {}, "f:policyTypes": {} } })]),
    spec: { podSelector: { matchLabels: { app: "api" } }, ingress: [{ ports: [{ port: 8080, protocol: "TCP" }] }], policyTypes: ["Ingress"] },
  };
}

// ── Annotations: Git drops every one ──────────────────────────────────────

const gitConfig = (annotations?: Record<string, string>): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "api-config", namespace: "shop", ...(annotations ? { annotations } : {}) },
  data: { LOG_LEVEL: "info" },
});

const PREVIOUS = { team: "payments", "example.com/runbook": "https://runbooks.example.com/api" };

/** Applied server-side by kustomize-controller from a Git revision that still had the annotations. */
function liveConfigFlux(): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: serverMeta(
      "api-config",
      [
        mf("kustomize-controller", "Apply", "v1", {
          "f:data": { "f:LOG_LEVEL": {} },
          "f:metadata": { "f:annotations": { "f:team": {}, "f:example.com/runbook": {} } },
        }),
      ],
      { annotations: { ...PREVIOUS } },
    ),
    data: { LOG_LEVEL: "info" },
  };
}

/** Applied with client-side `kubectl apply` from a revision that still had the annotations. */
function liveConfigClientSide(): KubeObject {
  const previous = gitConfig(PREVIOUS);
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: serverMeta(
      "api-config",
      [
        mf("kubectl-client-side-apply", "Update", "v1", {
          "f:data": { ".": {}, "f:LOG_LEVEL": {} },
          "f:metadata": { "f:annotations": { ".": {}, [`f:${LAST_APPLIED_ANNOTATION}`]: {}, "f:team": {}, "f:example.com/runbook": {} } },
        }),
      ],
      { annotations: { ...PREVIOUS, [LAST_APPLIED_ANNOTATION]: JSON.stringify(previous) + "\n" } },
    ),
    data: { LOG_LEVEL: "info" },
  };
}

// ── the table ──────────────────────────────────────────────────────────────

interface Case {
  name: string;
  desired: () => KubeObject;
  live: () => KubeObject;
  options?: CompareOptions;
  expect: (r: ObjectDrift) => void;
}

const changes = (r: ObjectDrift): Change[] => {
  if (r.type !== "Modified") throw new Error(`expected Modified, got ${JSON.stringify(r)}`);
  return r.changes;
};
const brief = (r: ObjectDrift) => changes(r).map((c) => [c.display, c.kind, c.attribution.manager]);
const inSync = (r: ObjectDrift) => expect(r).toEqual({ type: "InSync", ignored: {} });

// ── RoleBinding: apiGroup defaulted inside the atomic subjects ─────────────

const gitBinding = (subjects: Obj[] = [{ kind: "User", name: "gotk:apps:reconciler" }, { kind: "Group", name: "tenants" }, { kind: "ServiceAccount", name: "dev-team", namespace: "shop" }]): KubeObject => ({
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "RoleBinding",
  metadata: { name: "gotk-reconciler", namespace: "shop" },
  roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" },
  subjects,
});

/** What a real kube-apiserver returns after kustomize-controller's server-side apply of gitBinding(): User and Group subjects get the RBAC API group. */
function liveBinding(subjects: Obj[] = [
  { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "gotk:apps:reconciler" },
  { apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "tenants" },
  { kind: "ServiceAccount", name: "dev-team", namespace: "shop" },
], manager = "kustomize-controller"): KubeObject {
  return {
    ...gitBinding(),
    metadata: serverMeta("gotk-reconciler", [mf(manager, manager === "kustomize-controller" ? "Apply" : "Update", "rbac.authorization.k8s.io/v1", { "f:roleRef": {}, "f:subjects": {} })]),
    subjects,
  };
}

// ── Flux objects: the finalizer the reconciling controller adds ────────────

const gitKustomization = (): KubeObject => ({
  apiVersion: "kustomize.toolkit.fluxcd.io/v1",
  kind: "Kustomization",
  metadata: { name: "tenants", namespace: "flux-system" },
  spec: { interval: "5m", path: "./tenants/staging", prune: true, sourceRef: { kind: "GitRepository", name: "flux-system" } },
});

/** As a real server returns it once applied by the flux-system Kustomization and reconciled (gotk-kustomize-controller adds its finalizer). */
function liveKustomization(finalizers: string[], finalizerManager = "gotk-kustomize-controller"): KubeObject {
  return {
    ...gitKustomization(),
    metadata: serverMeta(
      "tenants",
      [
        mf("kustomize-controller", "Apply", "kustomize.toolkit.fluxcd.io/v1", { "f:spec": { "f:interval": {}, "f:path": {}, "f:prune": {}, "f:sourceRef": { "f:kind": {}, "f:name": {} } } }),
        mf(finalizerManager, "Update", "kustomize.toolkit.fluxcd.io/v1", { "f:metadata": { "f:finalizers": { ".": {}, ...Object.fromEntries(finalizers.map((f) => [`v:"${f}"`, {}])) } } }),
      ],
      { namespace: "flux-system", finalizers },
    ),
  };
}

const cases: Case[] = [
  { name: 'Secret: live null equals Git "" in data', desired: () => gitSecret({ data: { token: "" } }), live: () => liveSecret({ token: null }), expect: inSync },
  { name: 'Secret: live null equals Git "" in stringData', desired: () => gitSecret({ stringData: { token: "" } }), live: () => liveSecret({ token: null }), expect: inSync },
  {
    name: 'Secret: live null equals Git "" once both are hashed at ingestion',
    desired: () => hashSecretValues(gitSecret({ stringData: { token: "" } }), KEY),
    live: () => hashSecretValues(liveSecret({ token: null }), KEY),
    expect: inSync,
  },
  {
    name: "Secret: live null against a non-empty Git value is still a masked change",
    desired: () => hashSecretValues(gitSecret({ stringData: { token: "abc" } }), KEY),
    live: () => hashSecretValues(liveSecret({ token: null }), KEY),
    expect: (r) => expect(changes(r).map((c) => [c.display, c.kind, c.live])).toEqual([["data.token", "changed", "(changed)"]]),
  },
  {
    name: "Endpoints: protocol TCP the server adds inside the atomic subsets is not drift",
    desired: () => gitEndpoints(),
    live: () => liveEndpoints(),
    options: NO_CONTROLLER,
    expect: inSync,
  },
  {
    name: "Endpoints: the default is not drift even when a kubectl manager owns the atomic subsets",
    desired: () => gitEndpoints(),
    live: () => editedEndpoints({ name: "pg", port: 5432, protocol: "TCP" }),
    options: FLUX,
    expect: inSync,
  },
  {
    name: "Endpoints: a real change inside the atomic subsets is drift, attributed to the owner of subsets",
    desired: () => gitEndpoints(),
    live: () => editedEndpoints({ name: "pg", port: 5433, protocol: "TCP" }),
    options: FLUX,
    expect: (r) => expect(brief(r)).toEqual([["subsets[0].ports[0].port", "changed", "kubectl-edit"]]),
  },
  {
    name: "Endpoints: a protocol other than the default is drift",
    desired: () => gitEndpoints(),
    live: () => editedEndpoints({ name: "pg", port: 5432, protocol: "UDP" }),
    options: FLUX,
    expect: (r) => expect(brief(r)).toEqual([["subsets[0].ports[0].protocol", "added", "kubectl-edit"]]),
  },
  { name: "EndpointSlice: port protocol the server fills in inside the atomic ports is not drift", desired: gitSlice, live: liveSlice, options: FLUX, expect: inSync },
  { name: "NetworkPolicy: port protocol inside the atomic ingress rules is not drift", desired: gitPolicy, live: livePolicy, options: FLUX, expect: inSync },
  { name: "RoleBinding: the API group the server adds to User and Group subjects is not drift", desired: () => gitBinding(), live: () => liveBinding(), options: FLUX, expect: inSync },
  {
    name: "RoleBinding: an API group on a ServiceAccount subject is drift, attributed to the owner of subjects",
    desired: () => gitBinding(),
    live: () =>
      liveBinding(
        [
          { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "gotk:apps:reconciler" },
          { apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "tenants" },
          { apiGroup: "example.com", kind: "ServiceAccount", name: "dev-team", namespace: "shop" },
        ],
        "kubectl-edit",
      ),
    options: FLUX,
    expect: (r) => expect(brief(r)).toEqual([["subjects[2].apiGroup", "added", "kubectl-edit"]]),
  },
  {
    name: "RoleBinding: a subject added by hand inside the atomic subjects is drift",
    desired: () => gitBinding([{ kind: "User", name: "gotk:apps:reconciler" }]),
    live: () => liveBinding([{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "gotk:apps:reconciler" }, { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "mallory" }], "kubectl-edit"),
    options: FLUX,
    expect: (r) => expect(brief(r)).toEqual([["subjects[1]", "added", "kubectl-edit"]]),
  },
  { name: "Kustomization: Flux's own finalizer, added by the controller, is not drift", desired: gitKustomization, live: () => liveKustomization(["finalizers.fluxcd.io"]), options: FLUX, expect: inSync },
  {
    name: "Kustomization: a finalizer added by hand beside Flux's is drift (it blocks deletion)",
    desired: gitKustomization,
    live: () => liveKustomization(["finalizers.fluxcd.io", "example.com/hold"], "kubectl-patch"),
    options: FLUX,
    expect: (r) => expect(brief(r)).toEqual([["metadata.finalizers", "added", "kubectl-patch"]]),
  },
  {
    name: "annotations: Git dropped every one (Flux server-side apply) → each key, never the whole map",
    desired: () => gitConfig(),
    live: liveConfigFlux,
    options: FLUX,
    expect: (r) =>
      expect(brief(r)).toEqual([
        ["metadata.annotations.team", "unpruned", "kustomize-controller"],
        ['metadata.annotations["example.com/runbook"]', "unpruned", "kustomize-controller"],
      ]),
  },
  {
    name: "annotations: Git dropped every one (client-side kubectl apply) → each key, never last-applied-configuration",
    desired: () => gitConfig(),
    live: liveConfigClientSide,
    options: NO_CONTROLLER,
    expect: (r) =>
      expect(brief(r)).toEqual([
        ["metadata.annotations.team", "unpruned", "kubectl-client-side-apply"],
        ['metadata.annotations["example.com/runbook"]', "unpruned", "kubectl-client-side-apply"],
      ]),
  },
  {
    name: "annotations: Git dropped one of them → that key only",
    desired: () => gitConfig({ team: "payments" }),
    live: liveConfigClientSide,
    options: NO_CONTROLLER,
    expect: (r) => expect(brief(r)).toEqual([['metadata.annotations["example.com/runbook"]', "unpruned", "kubectl-client-side-apply"]]),
  },
  {
    name: "annotations: a manifest carrying a last-applied copy against a live object without annotations → only the real keys are removed",
    desired: () => ({ ...gitConfig({ team: "payments" }), metadata: { ...gitConfig().metadata, annotations: { team: "payments", [LAST_APPLIED_ANNOTATION]: "{}" } } }),
    live: () => ({ ...liveConfigFlux(), metadata: { ...liveConfigFlux().metadata, annotations: undefined } }),
    options: FLUX,
    expect: (r) => expect(brief(r)).toEqual([["metadata.annotations.team", "removed", "kustomize-controller"]]),
  },
];

describe("the engine follows the API server's semantics", () => {
  it.each(cases)("$name", (c) => {
    const r = compareObject(c.desired(), c.live(), createCompareContext({ ...(c.options ?? FLUX), secretKey: KEY }));
    c.expect(r);
    expect(JSON.stringify(r)).not.toContain("last-applied-configuration");
  });
});
