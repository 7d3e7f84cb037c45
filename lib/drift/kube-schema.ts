// What the drift engine knows about built-in kinds: which lists merge by
// which key, which fields hold quantities, which maps are free-form, and
// which values the API server fills in by itself (defaults). Unknown kinds
// and unknown fields fall back to generic rules (lists of named objects merge
// by `name`; `requests`/`limits`/`hard`/… maps hold quantities).

import { NOISY_ANNOTATIONS, SERVER_METADATA_FIELDS } from "./metadata-noise";
import type { Scalar } from "./path";

export type DefaultCheck = (value: unknown, parent: Record<string, unknown> | null) => boolean;

export interface SchemaNode {
  fields?: Readonly<Record<string, SchemaNode>>;
  /** Schema of every value of a map whose keys are data (labels, resource names). */
  any?: SchemaNode;
  /** Schema of list items. */
  items?: SchemaNode;
  /** List items are matched by these fields instead of by position. */
  mergeKeys?: readonly string[];
  /** Values the server assumes for absent merge-key fields (ports: protocol TCP). */
  keyDefaults?: Readonly<Record<string, Scalar>>;
  /** Compared by position even when items look named. */
  atomic?: boolean;
  /** A list of scalars whose order does not matter (finalizers). */
  set?: boolean;
  /** Map keys are data: zero values ("" / 0 / false) are kept by the server and therefore meaningful. */
  free?: boolean;
  /** True when a value present only live is what the server fills in by itself. */
  isDefault?: DefaultCheck;
  /** Map keys that the server adds by itself (value irrelevant). */
  defaultKeys?: ReadonlySet<string>;
  /** Map keys never compared (server bookkeeping). */
  skipKeys?: ReadonlySet<string>;
  /** Labels/annotations: controllers inject keys with known prefixes at apply time. */
  injectable?: boolean;
  /** Never compared. */
  skip?: boolean;
  /** Scalar is a resource quantity. */
  quantity?: boolean;
}

const eq =
  (expected: Scalar): DefaultCheck =>
  (v) =>
    v === expected;
const anyValue: DefaultCheck = () => true;

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ak = Object.keys(a);
  const bo = b as Record<string, unknown>;
  if (ak.length !== Object.keys(bo).length) return false;
  return ak.every((k) => deepEqual((a as Record<string, unknown>)[k], bo[k]));
}
const eqDeep =
  (expected: unknown): DefaultCheck =>
  (v) =>
    deepEqual(v, expected);

export const SKIP: SchemaNode = Object.freeze({ skip: true });
export const GENERIC: SchemaNode = Object.freeze({});
export const FREE_MAP: SchemaNode = Object.freeze({ free: true });
export const QUANTITY: SchemaNode = Object.freeze({ quantity: true });
export const QUANTITY_MAP: SchemaNode = Object.freeze({ free: true, any: QUANTITY });
const ATOMIC: SchemaNode = { atomic: true };

// Generic knowledge used for fields no typed schema describes (CRDs included).
const GENERIC_QUANTITY_MAPS = new Set([
  "requests",
  "limits",
  "hard",
  "capacity",
  "allocatable",
  "overhead",
  "default",
  "defaultRequest",
  "max",
  "min",
  "maxLimitRequestRatio",
]);
const GENERIC_FREE_MAPS = new Set(["labels", "annotations", "data", "stringData", "binaryData", "matchLabels", "nodeSelector", "selector"]);

export function childSchema(node: SchemaNode, key: string): SchemaNode {
  const f = node.fields?.[key];
  if (f) return f;
  if (node.any) return node.any;
  if (GENERIC_QUANTITY_MAPS.has(key)) return QUANTITY_MAP;
  if (GENERIC_FREE_MAPS.has(key)) return FREE_MAP;
  if (key === "sizeLimit" || key === "storage") return QUANTITY;
  return GENERIC;
}

export function itemSchema(node: SchemaNode): SchemaNode {
  return node.items ?? GENERIC;
}

/** Kubernetes' default pull policy: Always for `:latest` or untagged images, IfNotPresent otherwise. */
export function defaultPullPolicy(image: unknown): string | undefined {
  if (typeof image !== "string" || image === "") return undefined;
  if (image.includes("@")) return "IfNotPresent";
  const lastSlash = image.lastIndexOf("/");
  const colon = image.indexOf(":", lastSlash + 1);
  if (colon < 0) return "Always";
  return image.slice(colon + 1) === "latest" ? "Always" : "IfNotPresent";
}

const PROBE: SchemaNode = {
  fields: {
    timeoutSeconds: { isDefault: eq(1) },
    periodSeconds: { isDefault: eq(10) },
    successThreshold: { isDefault: eq(1) },
    failureThreshold: { isDefault: eq(3) },
    httpGet: { fields: { scheme: { isDefault: eq("HTTP") } } },
  },
};

const FIELD_REF: SchemaNode = { fields: { apiVersion: { isDefault: eq("v1") } } };
const RESOURCE_FIELD_REF: SchemaNode = { fields: { divisor: { quantity: true, isDefault: (v) => v === "0" || v === 0 } } };

const CONTAINER: SchemaNode = {
  fields: {
    imagePullPolicy: { isDefault: (v, parent) => v === defaultPullPolicy(parent?.image) },
    terminationMessagePath: { isDefault: eq("/dev/termination-log") },
    terminationMessagePolicy: { isDefault: eq("File") },
    ports: {
      mergeKeys: ["containerPort", "protocol"],
      keyDefaults: { protocol: "TCP" },
      items: { fields: { protocol: { isDefault: eq("TCP") } } },
    },
    env: {
      mergeKeys: ["name"],
      items: { fields: { valueFrom: { fields: { fieldRef: FIELD_REF, resourceFieldRef: RESOURCE_FIELD_REF } } } },
    },
    envFrom: ATOMIC,
    volumeMounts: { mergeKeys: ["mountPath"] },
    volumeDevices: { mergeKeys: ["devicePath"] },
    resizePolicy: {
      mergeKeys: ["resourceName"],
      isDefault: (v) => Array.isArray(v) && v.every((p) => (p as { restartPolicy?: unknown } | null)?.restartPolicy === "NotRequired"),
    },
    resources: { fields: { requests: QUANTITY_MAP, limits: QUANTITY_MAP, claims: { mergeKeys: ["name"] } } },
    livenessProbe: PROBE,
    readinessProbe: PROBE,
    startupProbe: PROBE,
    args: ATOMIC,
    command: ATOMIC,
  },
};

const DOWNWARD_API: SchemaNode = {
  fields: {
    defaultMode: { isDefault: eq(420) },
    items: { atomic: true, items: { fields: { fieldRef: FIELD_REF, resourceFieldRef: RESOURCE_FIELD_REF } } },
  },
};

const VOLUME: SchemaNode = {
  fields: {
    configMap: { fields: { defaultMode: { isDefault: eq(420) }, items: ATOMIC } },
    secret: { fields: { defaultMode: { isDefault: eq(420) }, items: ATOMIC } },
    downwardAPI: DOWNWARD_API,
    projected: {
      fields: {
        defaultMode: { isDefault: eq(420) },
        sources: {
          atomic: true,
          items: {
            fields: {
              serviceAccountToken: { fields: { expirationSeconds: { isDefault: eq(3600) } } },
              downwardAPI: DOWNWARD_API,
            },
          },
        },
      },
    },
    hostPath: { fields: { type: { isDefault: eq("") } } },
    emptyDir: { fields: { sizeLimit: QUANTITY } },
  },
};

const POD_SPEC: SchemaNode = {
  fields: {
    containers: { mergeKeys: ["name"], items: CONTAINER },
    initContainers: { mergeKeys: ["name"], items: CONTAINER },
    ephemeralContainers: { mergeKeys: ["name"], items: CONTAINER },
    volumes: { mergeKeys: ["name"], items: VOLUME },
    imagePullSecrets: { mergeKeys: ["name"] },
    hostAliases: { mergeKeys: ["ip"] },
    tolerations: ATOMIC,
    topologySpreadConstraints: { mergeKeys: ["topologyKey", "whenUnsatisfiable"] },
    readinessGates: { mergeKeys: ["conditionType"] },
    resourceClaims: { mergeKeys: ["name"] },
    schedulingGates: { mergeKeys: ["name"] },
    restartPolicy: { isDefault: eq("Always") },
    terminationGracePeriodSeconds: { isDefault: eq(30) },
    dnsPolicy: { isDefault: eq("ClusterFirst") },
    schedulerName: { isDefault: eq("default-scheduler") },
    // The deprecated alias mirrors serviceAccountName.
    serviceAccount: { isDefault: (v, parent) => v === parent?.serviceAccountName },
    enableServiceLinks: { isDefault: eq(true) },
    priority: { isDefault: eq(0) },
    preemptionPolicy: { isDefault: eq("PreemptLowerPriority") },
    nodeSelector: FREE_MAP,
    overhead: QUANTITY_MAP,
  },
};

const TEMPLATE_META: SchemaNode = {
  fields: { labels: FREE_MAP, annotations: FREE_MAP, creationTimestamp: SKIP },
};

const POD_TEMPLATE: SchemaNode = { fields: { metadata: TEMPLATE_META, spec: POD_SPEC } };

/** A port in an atomic list (Endpoints, EndpointSlice, NetworkPolicy): the server sets protocol TCP when absent. */
const PORT_WITH_PROTOCOL: SchemaNode = { fields: { protocol: { isDefault: eq("TCP") } } };

const RBAC_SUBJECTS: SchemaNode = {
  atomic: true,
  items: { fields: { apiGroup: { isDefault: (v, parent) => v === "rbac.authorization.k8s.io" && (parent?.kind === "User" || parent?.kind === "Group") } } },
};

const LABEL_SELECTOR: SchemaNode = { fields: { matchLabels: FREE_MAP, matchExpressions: ATOMIC } };

// Finalizers the server's own controllers, or a GitOps controller on the objects it reconciles
// (Flux's on every Kustomization, HelmRelease and source), add by themselves: never in Git.
const SYSTEM_FINALIZERS = new Set(["kubernetes.io/pvc-protection", "kubernetes.io/pv-protection", "foregroundDeletion", "orphan", "finalizers.fluxcd.io"]);

function metadataSchema(extraLabelDefaults?: ReadonlySet<string>): SchemaNode {
  return {
    fields: {
      name: SKIP,
      namespace: SKIP,
      generateName: SKIP,
      ...Object.fromEntries(SERVER_METADATA_FIELDS.map((f) => [f, SKIP])),
      labels: { free: true, injectable: true, ...(extraLabelDefaults ? { defaultKeys: extraLabelDefaults } : {}) },
      annotations: { free: true, injectable: true, skipKeys: NOISY_ANNOTATIONS },
      finalizers: { set: true, items: { isDefault: (v) => typeof v === "string" && SYSTEM_FINALIZERS.has(v) } },
      ownerReferences: { mergeKeys: ["uid"] },
    },
  };
}

const METADATA = metadataSchema();

function root(fields: Record<string, SchemaNode>, meta: SchemaNode = METADATA): SchemaNode {
  return { fields: { apiVersion: SKIP, kind: SKIP, status: SKIP, metadata: meta, ...fields } };
}

const JOB_TEMPLATE_LABELS = new Set([
  "controller-uid",
  "job-name",
  "batch.kubernetes.io/controller-uid",
  "batch.kubernetes.io/job-name",
]);

const JOB_SPEC: SchemaNode = {
  fields: {
    backoffLimit: { isDefault: eq(6) },
    completions: { isDefault: eq(1) },
    parallelism: { isDefault: eq(1) },
    completionMode: { isDefault: eq("NonIndexed") },
    suspend: { isDefault: eq(false) },
    podReplacementPolicy: { isDefault: eq("TerminatingOrFailed") },
    manualSelector: { isDefault: eq(false) },
    // Generated from the job's uid when the manifest has none.
    selector: { ...LABEL_SELECTOR, isDefault: anyValue },
    template: {
      fields: {
        metadata: { fields: { ...TEMPLATE_META.fields, labels: { free: true, defaultKeys: JOB_TEMPLATE_LABELS } } },
        spec: POD_SPEC,
      },
    },
  },
};

const PVC_SPEC: SchemaNode = {
  fields: {
    volumeMode: { isDefault: eq("Filesystem") },
    // Filled by the default-storage-class admission plugin and the binder.
    storageClassName: { isDefault: anyValue },
    volumeName: { isDefault: anyValue },
    accessModes: ATOMIC,
    resources: { fields: { requests: QUANTITY_MAP, limits: QUANTITY_MAP } },
    selector: LABEL_SELECTOR,
  },
};

const HPA_SCALE_UP = {
  stabilizationWindowSeconds: 0,
  selectPolicy: "Max",
  policies: [
    { type: "Pods", value: 4, periodSeconds: 15 },
    { type: "Percent", value: 100, periodSeconds: 15 },
  ],
};
const HPA_SCALE_DOWN = {
  stabilizationWindowSeconds: 300,
  selectPolicy: "Max",
  policies: [{ type: "Percent", value: 100, periodSeconds: 15 }],
};
function rulesSchema(defaults: typeof HPA_SCALE_UP): SchemaNode {
  return {
    fields: {
      stabilizationWindowSeconds: { isDefault: eq(defaults.stabilizationWindowSeconds) },
      selectPolicy: { isDefault: eq(defaults.selectPolicy) },
      policies: { atomic: true, isDefault: eqDeep(defaults.policies) },
    },
  };
}

const KIND_SCHEMAS: Record<string, SchemaNode> = {
  "apps/Deployment": root({
    spec: {
      fields: {
        replicas: { isDefault: eq(1) },
        revisionHistoryLimit: { isDefault: eq(10) },
        progressDeadlineSeconds: { isDefault: eq(600) },
        strategy: {
          fields: {
            type: { isDefault: eq("RollingUpdate") },
            rollingUpdate: { fields: { maxSurge: { isDefault: eq("25%") }, maxUnavailable: { isDefault: eq("25%") } } },
          },
        },
        selector: LABEL_SELECTOR,
        template: POD_TEMPLATE,
      },
    },
  }),
  "apps/StatefulSet": root({
    spec: {
      fields: {
        replicas: { isDefault: eq(1) },
        revisionHistoryLimit: { isDefault: eq(10) },
        podManagementPolicy: { isDefault: eq("OrderedReady") },
        updateStrategy: {
          fields: {
            type: { isDefault: eq("RollingUpdate") },
            rollingUpdate: { fields: { partition: { isDefault: eq(0) } } },
          },
        },
        persistentVolumeClaimRetentionPolicy: {
          fields: { whenDeleted: { isDefault: eq("Retain") }, whenScaled: { isDefault: eq("Retain") } },
        },
        volumeClaimTemplates: {
          atomic: true,
          items: {
            fields: {
              apiVersion: { isDefault: eq("v1") },
              kind: { isDefault: eq("PersistentVolumeClaim") },
              metadata: { fields: { creationTimestamp: SKIP, labels: FREE_MAP, annotations: FREE_MAP } },
              spec: PVC_SPEC,
              status: SKIP,
            },
          },
        },
        selector: LABEL_SELECTOR,
        template: POD_TEMPLATE,
      },
    },
  }),
  "apps/DaemonSet": root({
    spec: {
      fields: {
        revisionHistoryLimit: { isDefault: eq(10) },
        updateStrategy: {
          fields: {
            type: { isDefault: eq("RollingUpdate") },
            rollingUpdate: { fields: { maxUnavailable: { isDefault: eq(1) }, maxSurge: { isDefault: eq(0) } } },
          },
        },
        selector: LABEL_SELECTOR,
        template: POD_TEMPLATE,
      },
    },
  }),
  "apps/ReplicaSet": root({
    spec: { fields: { replicas: { isDefault: eq(1) }, selector: LABEL_SELECTOR, template: POD_TEMPLATE } },
  }),
  "batch/Job": root({ spec: JOB_SPEC }),
  "batch/CronJob": root({
    spec: {
      fields: {
        concurrencyPolicy: { isDefault: eq("Allow") },
        failedJobsHistoryLimit: { isDefault: eq(1) },
        successfulJobsHistoryLimit: { isDefault: eq(3) },
        suspend: { isDefault: eq(false) },
        jobTemplate: { fields: { metadata: TEMPLATE_META, spec: JOB_SPEC } },
      },
    },
  }),
  "/Pod": root({ spec: { fields: { ...POD_SPEC.fields, nodeName: { isDefault: anyValue }, tolerations: { atomic: true, isDefault: anyValue } } } }),
  "/Service": root({
    spec: {
      fields: {
        type: { isDefault: eq("ClusterIP") },
        sessionAffinity: { isDefault: eq("None") },
        // Allocated by the server.
        clusterIP: { isDefault: anyValue },
        clusterIPs: { isDefault: anyValue },
        ipFamilies: { isDefault: anyValue },
        ipFamilyPolicy: { isDefault: anyValue },
        healthCheckNodePort: { isDefault: anyValue },
        internalTrafficPolicy: { isDefault: eq("Cluster") },
        externalTrafficPolicy: { isDefault: eq("Cluster") },
        allocateLoadBalancerNodePorts: { isDefault: eq(true) },
        sessionAffinityConfig: { fields: { clientIP: { fields: { timeoutSeconds: { isDefault: eq(10800) } } } } },
        selector: FREE_MAP,
        ports: {
          mergeKeys: ["port", "protocol"],
          keyDefaults: { protocol: "TCP" },
          items: {
            fields: {
              protocol: { isDefault: eq("TCP") },
              targetPort: { isDefault: (v, parent) => v === parent?.port },
              nodePort: { isDefault: anyValue },
            },
          },
        },
      },
    },
  }),
  "/PersistentVolumeClaim": root({ spec: PVC_SPEC }),
  "/Namespace": root(
    { spec: { fields: { finalizers: { set: true, items: { isDefault: eq("kubernetes") } } } } },
    metadataSchema(new Set(["kubernetes.io/metadata.name"])),
  ),
  "/ConfigMap": root({ data: FREE_MAP, binaryData: FREE_MAP }),
  // data/stringData are compared by the Secret path of the differ, never here.
  "/Secret": root({ type: { isDefault: eq("Opaque") }, data: SKIP, stringData: SKIP }),
  "/ResourceQuota": root({ spec: { fields: { hard: QUANTITY_MAP } } }),
  "/LimitRange": root({
    spec: {
      fields: {
        limits: {
          atomic: true,
          items: { fields: { default: QUANTITY_MAP, defaultRequest: QUANTITY_MAP, max: QUANTITY_MAP, min: QUANTITY_MAP, maxLimitRequestRatio: QUANTITY_MAP } },
        },
      },
    },
  }),
  "autoscaling/HorizontalPodAutoscaler": root({
    spec: {
      fields: {
        minReplicas: { isDefault: eq(1) },
        metrics: {
          atomic: true,
          isDefault: eqDeep([
            { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } },
          ]),
        },
        behavior: { fields: { scaleUp: rulesSchema(HPA_SCALE_UP), scaleDown: rulesSchema(HPA_SCALE_DOWN) } },
      },
    },
  }),
  // subsets is atomic (whoever wrote it owns all of it), yet the server still defaults inside it.
  "/Endpoints": root({
    subsets: {
      atomic: true,
      items: { fields: { addresses: ATOMIC, notReadyAddresses: ATOMIC, ports: { atomic: true, items: PORT_WITH_PROTOCOL } } },
    },
  }),
  "discovery.k8s.io/EndpointSlice": root({
    endpoints: ATOMIC,
    ports: { atomic: true, items: PORT_WITH_PROTOCOL },
  }),
  "networking.k8s.io/NetworkPolicy": root({
    spec: {
      fields: {
        podSelector: LABEL_SELECTOR,
        policyTypes: { atomic: true, isDefault: anyValue },
        ingress: { atomic: true, items: { fields: { ports: { atomic: true, items: PORT_WITH_PROTOCOL }, from: ATOMIC } } },
        egress: { atomic: true, items: { fields: { ports: { atomic: true, items: PORT_WITH_PROTOCOL }, to: ATOMIC } } },
      },
    },
  }),
  // subjects is atomic; the server fills in the API group of User and Group subjects (a ServiceAccount's stays empty).
  "rbac.authorization.k8s.io/RoleBinding": root({ subjects: RBAC_SUBJECTS }),
  "rbac.authorization.k8s.io/ClusterRoleBinding": root({ subjects: RBAC_SUBJECTS }),
  "networking.k8s.io/Ingress": root({ spec: { fields: { ingressClassName: { isDefault: anyValue }, rules: ATOMIC, tls: ATOMIC } } }),
};

const GENERIC_ROOT = root({});

/** Schema for `group/kind` (group "" for core); unknown kinds get generic rules. */
export function kindSchema(group: string, kind: string): SchemaNode {
  return KIND_SCHEMAS[`${group}/${kind}`] ?? GENERIC_ROOT;
}

/** Whether a value present only live is, as a whole, what the server fills in. */
export function isDefaultTree(node: SchemaNode, value: unknown, parent: Record<string, unknown> | null): boolean {
  if (node.skip) return true;
  if (node.isDefault) return node.isDefault(value, parent);
  if (value === null || value === undefined) return true;
  if (typeof value !== "object") return false;
  if (Array.isArray(value)) {
    if (value.length === 0) return true;
    if (!node.set || !node.items?.isDefault) return false;
    const items = node.items;
    return value.every((v) => items.isDefault?.(v, null) === true);
  }
  const obj = value as Record<string, unknown>;
  for (const k in obj) {
    const v = obj[k];
    if (v === null || v === undefined) continue;
    if (node.defaultKeys?.has(k) || node.skipKeys?.has(k)) continue;
    const c = node.fields?.[k];
    if (!c || !isDefaultTree(c, v, obj)) {
      if (typeof v === "object" && isEmptyValue(v)) continue;
      return false;
    }
  }
  return true;
}

export function isEmptyValue(v: object): boolean {
  if (Array.isArray(v)) return v.length === 0;
  for (const _ in v) return false;
  return true;
}
