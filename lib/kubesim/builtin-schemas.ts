// Structural schemas of the built-in kinds, written from the list/map
// annotations of k8s.io/api (listType, listMapKey, mapType, structType,
// patchStrategy, patchMergeKey). Parts we do not describe are "open" structs:
// named fields with atomic lists, as most Go API types are.
import {
  ATOMIC_LIST,
  atomicList,
  mapList,
  mapOf,
  OPEN,
  QUANTITY,
  SCALAR,
  setList,
  struct,
  type Schema,
} from "./schema";

/** A struct whose fields are all listed: anything else is an unknown field the server drops (or rejects when strict). */
function closed(fields: Record<string, Schema>, opts: { atomic?: boolean; retainKeys?: boolean } = {}): Schema {
  return struct(fields, { ...opts, closed: true });
}

const STRING_MAP = mapOf(SCALAR);
const ATOMIC_STRING_MAP = mapOf(SCALAR, true);
const LABEL_SELECTOR = struct({ matchLabels: STRING_MAP, matchExpressions: ATOMIC_LIST }, { atomic: true });
const RESOURCE_LIST = mapOf(QUANTITY);

export const OBJECT_META: Schema = closed({
  name: SCALAR,
  generateName: SCALAR,
  namespace: SCALAR,
  selfLink: SCALAR,
  uid: SCALAR,
  resourceVersion: SCALAR,
  generation: SCALAR,
  creationTimestamp: SCALAR,
  deletionTimestamp: SCALAR,
  deletionGracePeriodSeconds: SCALAR,
  labels: STRING_MAP,
  annotations: STRING_MAP,
  ownerReferences: mapList(["uid"], struct({}, { atomic: true })),
  finalizers: setList(true),
  managedFields: ATOMIC_LIST,
});

const HTTP_GET = struct({ path: SCALAR, port: SCALAR, host: SCALAR, scheme: SCALAR, httpHeaders: ATOMIC_LIST });
const PROBE = struct({
  exec: struct({ command: atomicList(SCALAR) }),
  httpGet: HTTP_GET,
  tcpSocket: OPEN,
  grpc: OPEN,
  initialDelaySeconds: SCALAR,
  timeoutSeconds: SCALAR,
  periodSeconds: SCALAR,
  successThreshold: SCALAR,
  failureThreshold: SCALAR,
  terminationGracePeriodSeconds: SCALAR,
});
const LIFECYCLE_HANDLER = struct({ exec: struct({ command: atomicList(SCALAR) }), httpGet: HTTP_GET, tcpSocket: OPEN, sleep: OPEN });

export const RESOURCE_REQUIREMENTS: Schema = closed({
  limits: RESOURCE_LIST,
  requests: RESOURCE_LIST,
  claims: mapList(["name"], OPEN, { noSmp: true }),
});

const CONTAINER: Schema = closed({
  name: SCALAR,
  image: SCALAR,
  command: atomicList(SCALAR),
  args: atomicList(SCALAR),
  workingDir: SCALAR,
  ports: mapList(
    ["containerPort", "protocol"],
    closed({ name: SCALAR, hostPort: SCALAR, containerPort: SCALAR, protocol: SCALAR, hostIP: SCALAR }),
    { smpKey: "containerPort", keyDefaults: { protocol: "TCP" } },
  ),
  envFrom: ATOMIC_LIST,
  env: mapList(
    ["name"],
    closed({
      name: SCALAR,
      value: SCALAR,
      valueFrom: closed({ fieldRef: OPEN, resourceFieldRef: OPEN, configMapKeyRef: OPEN, secretKeyRef: OPEN }),
    }),
  ),
  resources: RESOURCE_REQUIREMENTS,
  resizePolicy: ATOMIC_LIST,
  restartPolicy: SCALAR,
  volumeMounts: mapList(
    ["mountPath"],
    closed({ name: SCALAR, readOnly: SCALAR, recursiveReadOnly: SCALAR, mountPath: SCALAR, subPath: SCALAR, mountPropagation: SCALAR, subPathExpr: SCALAR }),
  ),
  volumeDevices: mapList(["devicePath"], OPEN),
  livenessProbe: PROBE,
  readinessProbe: PROBE,
  startupProbe: PROBE,
  lifecycle: struct({ postStart: LIFECYCLE_HANDLER, preStop: LIFECYCLE_HANDLER }),
  terminationMessagePath: SCALAR,
  terminationMessagePolicy: SCALAR,
  imagePullPolicy: SCALAR,
  securityContext: OPEN,
  stdin: SCALAR,
  stdinOnce: SCALAR,
  tty: SCALAR,
});

const KEY_TO_PATH_LIST = atomicList(struct({ key: SCALAR, path: SCALAR, mode: SCALAR }));

const VOLUME: Schema = struct({
  name: SCALAR,
  configMap: struct({ name: SCALAR, items: KEY_TO_PATH_LIST, defaultMode: SCALAR, optional: SCALAR }),
  secret: struct({ secretName: SCALAR, items: KEY_TO_PATH_LIST, defaultMode: SCALAR, optional: SCALAR }),
  emptyDir: struct({ medium: SCALAR, sizeLimit: QUANTITY }),
  persistentVolumeClaim: struct({ claimName: SCALAR, readOnly: SCALAR }),
  hostPath: struct({ path: SCALAR, type: SCALAR }),
  projected: struct({ sources: ATOMIC_LIST, defaultMode: SCALAR }),
  downwardAPI: struct({ items: ATOMIC_LIST, defaultMode: SCALAR }),
});

export const POD_SPEC: Schema = closed({
  volumes: mapList(["name"], VOLUME, { retainKeys: true }),
  initContainers: mapList(["name"], CONTAINER),
  containers: mapList(["name"], CONTAINER),
  ephemeralContainers: mapList(["name"], CONTAINER),
  restartPolicy: SCALAR,
  terminationGracePeriodSeconds: SCALAR,
  activeDeadlineSeconds: SCALAR,
  dnsPolicy: SCALAR,
  nodeSelector: ATOMIC_STRING_MAP,
  serviceAccountName: SCALAR,
  serviceAccount: SCALAR,
  automountServiceAccountToken: SCALAR,
  nodeName: SCALAR,
  hostNetwork: SCALAR,
  hostPID: SCALAR,
  hostIPC: SCALAR,
  shareProcessNamespace: SCALAR,
  securityContext: OPEN,
  imagePullSecrets: mapList(["name"], struct({ name: SCALAR })),
  hostname: SCALAR,
  subdomain: SCALAR,
  affinity: OPEN,
  schedulerName: SCALAR,
  tolerations: ATOMIC_LIST,
  hostAliases: mapList(["ip"], OPEN),
  priorityClassName: SCALAR,
  priority: SCALAR,
  dnsConfig: OPEN,
  readinessGates: ATOMIC_LIST,
  runtimeClassName: SCALAR,
  enableServiceLinks: SCALAR,
  preemptionPolicy: SCALAR,
  overhead: RESOURCE_LIST,
  topologySpreadConstraints: mapList(["topologyKey", "whenUnsatisfiable"], OPEN, { smpKey: "topologyKey" }),
  setHostnameAsFQDN: SCALAR,
  os: OPEN,
  hostUsers: SCALAR,
  schedulingGates: mapList(["name"], OPEN),
  resourceClaims: mapList(["name"], OPEN, { retainKeys: true }),
  resources: RESOURCE_REQUIREMENTS,
});

export const POD_TEMPLATE_SPEC: Schema = closed({ metadata: OBJECT_META, spec: POD_SPEC });

const CONDITIONS = mapList(["type"], OPEN);

function topLevel(fields: Record<string, Schema>): Schema {
  return closed({ apiVersion: SCALAR, kind: SCALAR, metadata: OBJECT_META, ...fields });
}

export const DEPLOYMENT: Schema = topLevel({
  spec: closed({
    replicas: SCALAR,
    selector: LABEL_SELECTOR,
    template: POD_TEMPLATE_SPEC,
    strategy: closed({ type: SCALAR, rollingUpdate: closed({ maxUnavailable: SCALAR, maxSurge: SCALAR }) }, { retainKeys: true }),
    minReadySeconds: SCALAR,
    revisionHistoryLimit: SCALAR,
    paused: SCALAR,
    progressDeadlineSeconds: SCALAR,
  }),
  status: struct({ conditions: CONDITIONS }),
});

const PVC: Schema = struct({
  apiVersion: SCALAR,
  kind: SCALAR,
  metadata: OBJECT_META,
  spec: struct({
    accessModes: atomicList(SCALAR),
    selector: LABEL_SELECTOR,
    resources: struct({ limits: RESOURCE_LIST, requests: RESOURCE_LIST }),
    dataSource: OPEN,
    dataSourceRef: OPEN,
  }),
  status: struct({ accessModes: atomicList(SCALAR), capacity: RESOURCE_LIST, allocatedResources: RESOURCE_LIST, conditions: CONDITIONS }),
});

export const STATEFUL_SET: Schema = topLevel({
  spec: closed({
    replicas: SCALAR,
    selector: LABEL_SELECTOR,
    template: POD_TEMPLATE_SPEC,
    volumeClaimTemplates: atomicList(PVC),
    serviceName: SCALAR,
    podManagementPolicy: SCALAR,
    updateStrategy: closed({ type: SCALAR, rollingUpdate: closed({ partition: SCALAR, maxUnavailable: SCALAR }) }),
    revisionHistoryLimit: SCALAR,
    minReadySeconds: SCALAR,
    persistentVolumeClaimRetentionPolicy: closed({ whenDeleted: SCALAR, whenScaled: SCALAR }),
    ordinals: OPEN,
  }),
  status: struct({ conditions: CONDITIONS }),
});

export const SERVICE: Schema = topLevel({
  spec: closed({
    ports: mapList(
      ["port", "protocol"],
      closed({ name: SCALAR, protocol: SCALAR, appProtocol: SCALAR, port: SCALAR, targetPort: SCALAR, nodePort: SCALAR }),
      { smpKey: "port", keyDefaults: { protocol: "TCP" } },
    ),
    selector: ATOMIC_STRING_MAP,
    clusterIP: SCALAR,
    clusterIPs: atomicList(SCALAR),
    type: SCALAR,
    externalIPs: atomicList(SCALAR),
    sessionAffinity: SCALAR,
    loadBalancerIP: SCALAR,
    loadBalancerSourceRanges: atomicList(SCALAR),
    externalName: SCALAR,
    externalTrafficPolicy: SCALAR,
    healthCheckNodePort: SCALAR,
    publishNotReadyAddresses: SCALAR,
    sessionAffinityConfig: OPEN,
    ipFamilies: atomicList(SCALAR),
    ipFamilyPolicy: SCALAR,
    allocateLoadBalancerNodePorts: SCALAR,
    loadBalancerClass: SCALAR,
    internalTrafficPolicy: SCALAR,
    trafficDistribution: SCALAR,
  }),
  status: struct({ loadBalancer: struct({ ingress: ATOMIC_LIST }), conditions: CONDITIONS }),
});

export const CONFIG_MAP: Schema = topLevel({ data: STRING_MAP, binaryData: STRING_MAP, immutable: SCALAR });
export const SECRET: Schema = topLevel({ data: STRING_MAP, stringData: STRING_MAP, type: SCALAR, immutable: SCALAR });
export const SERVICE_ACCOUNT: Schema = topLevel({
  secrets: mapList(["name"], OPEN),
  imagePullSecrets: atomicList(struct({ name: SCALAR })),
  automountServiceAccountToken: SCALAR,
});
export const NAMESPACE: Schema = topLevel({
  spec: closed({ finalizers: atomicList(SCALAR) }),
  status: closed({ phase: SCALAR, conditions: CONDITIONS }),
});
export const INGRESS: Schema = topLevel({
  spec: closed({ ingressClassName: SCALAR, defaultBackend: OPEN, tls: ATOMIC_LIST, rules: ATOMIC_LIST }),
  status: struct({ loadBalancer: struct({ ingress: ATOMIC_LIST }) }),
});
export const CRD: Schema = topLevel({
  spec: closed({
    group: SCALAR,
    names: closed({ plural: SCALAR, singular: SCALAR, shortNames: atomicList(SCALAR), kind: SCALAR, listKind: SCALAR, categories: atomicList(SCALAR) }),
    scope: SCALAR,
    versions: atomicList(OPEN),
    conversion: OPEN,
    preserveUnknownFields: SCALAR,
  }),
  status: struct({ conditions: CONDITIONS, acceptedNames: OPEN, storedVersions: atomicList(SCALAR) }),
});
export const SCALE: Schema = topLevel({ spec: struct({ replicas: SCALAR }), status: struct({ replicas: SCALAR, selector: SCALAR }) });
