// Structural schemas of the built-in kinds, written from the list/map
// annotations of k8s.io/api (listType, listMapKey, mapType, structType,
// patchStrategy, patchMergeKey). Parts we do not describe are "open" structs:
// named fields with atomic lists, as most Go API types are.
import {
  ATOMIC_LIST,
  atomicList,
  BOOL,
  I32,
  I64,
  STR,
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
export function closed(go: string, fields: Record<string, Schema>, opts: { atomic?: boolean; retainKeys?: boolean } = {}): Schema {
  return struct(fields, { ...opts, closed: true, go });
}

export const STRING_MAP = mapOf(STR);
const ATOMIC_STRING_MAP = mapOf(STR, true);
export const LABEL_SELECTOR = struct({ matchLabels: STRING_MAP, matchExpressions: ATOMIC_LIST }, { atomic: true });
export const RESOURCE_LIST = mapOf(QUANTITY);

export const OBJECT_META: Schema = closed("v1.ObjectMeta", {
  name: STR,
  generateName: STR,
  namespace: STR,
  selfLink: STR,
  uid: STR,
  resourceVersion: STR,
  generation: I64,
  creationTimestamp: SCALAR,
  deletionTimestamp: SCALAR,
  deletionGracePeriodSeconds: I64,
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

export const RESOURCE_REQUIREMENTS: Schema = closed("v1.ResourceRequirements", {
  limits: RESOURCE_LIST,
  requests: RESOURCE_LIST,
  claims: mapList(["name"], OPEN, { noSmp: true }),
});

const CONTAINER: Schema = closed("v1.Container", {
  name: STR,
  image: STR,
  command: atomicList(STR),
  args: atomicList(STR),
  workingDir: STR,
  ports: mapList(
    ["containerPort", "protocol"],
    closed("v1.ContainerPort", { name: STR, hostPort: I32, containerPort: I32, protocol: STR, hostIP: STR }),
    { smpKey: "containerPort", keyDefaults: { protocol: "TCP" } },
  ),
  envFrom: ATOMIC_LIST,
  env: mapList(
    ["name"],
    closed("v1.EnvVar", {
      name: STR,
      value: STR,
      valueFrom: closed("v1.EnvVarSource", { fieldRef: OPEN, resourceFieldRef: OPEN, configMapKeyRef: OPEN, secretKeyRef: OPEN }),
    }),
  ),
  resources: RESOURCE_REQUIREMENTS,
  resizePolicy: ATOMIC_LIST,
  restartPolicy: SCALAR,
  volumeMounts: mapList(
    ["mountPath"],
    closed("v1.VolumeMount", { name: STR, readOnly: BOOL, recursiveReadOnly: STR, mountPath: STR, subPath: STR, mountPropagation: STR, subPathExpr: STR }),
  ),
  volumeDevices: mapList(["devicePath"], OPEN),
  livenessProbe: PROBE,
  readinessProbe: PROBE,
  startupProbe: PROBE,
  lifecycle: struct({ postStart: LIFECYCLE_HANDLER, preStop: LIFECYCLE_HANDLER }),
  terminationMessagePath: STR,
  terminationMessagePolicy: STR,
  imagePullPolicy: STR,
  securityContext: OPEN,
  stdin: BOOL,
  stdinOnce: BOOL,
  tty: BOOL,
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

export const POD_SPEC: Schema = closed("v1.PodSpec", {
  volumes: mapList(["name"], VOLUME, { retainKeys: true }),
  initContainers: mapList(["name"], CONTAINER),
  containers: mapList(["name"], CONTAINER),
  ephemeralContainers: mapList(["name"], CONTAINER),
  restartPolicy: STR,
  terminationGracePeriodSeconds: I64,
  activeDeadlineSeconds: I64,
  dnsPolicy: STR,
  nodeSelector: ATOMIC_STRING_MAP,
  serviceAccountName: STR,
  serviceAccount: STR,
  automountServiceAccountToken: BOOL,
  nodeName: STR,
  hostNetwork: BOOL,
  hostPID: BOOL,
  hostIPC: BOOL,
  shareProcessNamespace: BOOL,
  securityContext: OPEN,
  imagePullSecrets: mapList(["name"], struct({ name: SCALAR })),
  hostname: STR,
  subdomain: STR,
  affinity: OPEN,
  schedulerName: STR,
  tolerations: ATOMIC_LIST,
  hostAliases: mapList(["ip"], OPEN),
  priorityClassName: STR,
  priority: I32,
  dnsConfig: OPEN,
  readinessGates: ATOMIC_LIST,
  runtimeClassName: SCALAR,
  enableServiceLinks: BOOL,
  preemptionPolicy: SCALAR,
  overhead: RESOURCE_LIST,
  topologySpreadConstraints: mapList(["topologyKey", "whenUnsatisfiable"], OPEN, { smpKey: "topologyKey" }),
  setHostnameAsFQDN: BOOL,
  os: OPEN,
  hostUsers: BOOL,
  schedulingGates: mapList(["name"], OPEN),
  resourceClaims: mapList(["name"], OPEN, { retainKeys: true }),
  resources: RESOURCE_REQUIREMENTS,
});

export const POD_TEMPLATE_SPEC: Schema = closed("v1.PodTemplateSpec", { metadata: OBJECT_META, spec: POD_SPEC });

export const CONDITIONS = mapList(["type"], OPEN);

export function topLevel(go: string, fields: Record<string, Schema>): Schema {
  return closed(go, { apiVersion: STR, kind: STR, metadata: OBJECT_META, ...fields });
}

export const DEPLOYMENT: Schema = topLevel("v1.Deployment", {
  spec: closed("v1.DeploymentSpec", {
    replicas: I32,
    selector: LABEL_SELECTOR,
    template: POD_TEMPLATE_SPEC,
    strategy: closed("v1.DeploymentStrategy", { type: STR, rollingUpdate: closed("v1.RollingUpdateDeployment", { maxUnavailable: SCALAR, maxSurge: SCALAR }) }, { retainKeys: true }),
    minReadySeconds: I32,
    revisionHistoryLimit: I32,
    paused: BOOL,
    progressDeadlineSeconds: I32,
  }),
  status: struct({ conditions: CONDITIONS }),
});

export const PVC: Schema = struct({
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

export const STATEFUL_SET: Schema = topLevel("v1.StatefulSet", {
  spec: closed("v1.StatefulSetSpec", {
    replicas: I32,
    selector: LABEL_SELECTOR,
    template: POD_TEMPLATE_SPEC,
    volumeClaimTemplates: atomicList(PVC),
    serviceName: STR,
    podManagementPolicy: STR,
    updateStrategy: closed("v1.StatefulSetUpdateStrategy", { type: STR, rollingUpdate: closed("v1.RollingUpdateStatefulSetStrategy", { partition: I32, maxUnavailable: SCALAR }) }),
    revisionHistoryLimit: SCALAR,
    minReadySeconds: SCALAR,
    persistentVolumeClaimRetentionPolicy: closed("v1.StatefulSetPersistentVolumeClaimRetentionPolicy", { whenDeleted: STR, whenScaled: STR }),
    ordinals: OPEN,
  }),
  status: struct({ conditions: CONDITIONS }),
});

export const SERVICE: Schema = topLevel("v1.Service", {
  spec: closed("v1.ServiceSpec", {
    ports: mapList(
      ["port", "protocol"],
      closed("v1.ServicePort", { name: STR, protocol: STR, appProtocol: STR, port: I32, targetPort: SCALAR, nodePort: I32 }),
      { smpKey: "port", keyDefaults: { protocol: "TCP" } },
    ),
    selector: ATOMIC_STRING_MAP,
    clusterIP: STR,
    clusterIPs: atomicList(STR),
    type: STR,
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

export const CONFIG_MAP: Schema = topLevel("v1.ConfigMap", { data: STRING_MAP, binaryData: STRING_MAP, immutable: BOOL });
export const SECRET: Schema = topLevel("v1.Secret", { data: STRING_MAP, stringData: STRING_MAP, type: STR, immutable: BOOL });
export const SERVICE_ACCOUNT: Schema = topLevel("v1.ServiceAccount", {
  secrets: mapList(["name"], OPEN),
  imagePullSecrets: atomicList(struct({ name: SCALAR })),
  automountServiceAccountToken: SCALAR,
});
export const NAMESPACE: Schema = topLevel("v1.Namespace", {
  spec: closed("v1.NamespaceSpec", { finalizers: atomicList(STR) }),
  status: closed("v1.NamespaceStatus", { phase: STR, conditions: CONDITIONS }),
});
export const INGRESS: Schema = topLevel("v1.Ingress", {
  spec: closed("v1.IngressSpec", { ingressClassName: SCALAR, defaultBackend: OPEN, tls: ATOMIC_LIST, rules: ATOMIC_LIST }),
  status: struct({ loadBalancer: struct({ ingress: ATOMIC_LIST }) }),
});
export const CRD: Schema = topLevel("v1.CustomResourceDefinition", {
  spec: closed("v1.CustomResourceDefinitionSpec", {
    group: STR,
    names: closed("v1.CustomResourceDefinitionNames", { plural: SCALAR, singular: SCALAR, shortNames: atomicList(SCALAR), kind: SCALAR, listKind: SCALAR, categories: atomicList(SCALAR) }),
    scope: SCALAR,
    versions: atomicList(OPEN),
    conversion: OPEN,
    preserveUnknownFields: SCALAR,
  }),
  status: struct({ conditions: CONDITIONS, acceptedNames: OPEN, storedVersions: atomicList(SCALAR) }),
});
export const SCALE: Schema = topLevel("v1.Scale", { spec: struct({ replicas: I32 }), status: struct({ replicas: I32, selector: STR }) });


const HPA_RULES = (go: string) =>
  closed(go, {
    stabilizationWindowSeconds: I32,
    selectPolicy: STR,
    policies: atomicList(closed("v2.HPAScalingPolicy", { type: STR, value: I32, periodSeconds: I32 })),
  });

export const HORIZONTAL_POD_AUTOSCALER: Schema = topLevel("v2.HorizontalPodAutoscaler", {
  spec: closed("v2.HorizontalPodAutoscalerSpec", {
    scaleTargetRef: closed("v2.CrossVersionObjectReference", { kind: STR, name: STR, apiVersion: STR }),
    minReplicas: I32,
    maxReplicas: I32,
    metrics: atomicList(OPEN),
    behavior: closed("v2.HorizontalPodAutoscalerBehavior", { scaleUp: HPA_RULES("v2.HPAScalingRules"), scaleDown: HPA_RULES("v2.HPAScalingRules") }),
  }),
  status: struct({ currentMetrics: ATOMIC_LIST, conditions: CONDITIONS }),
});
