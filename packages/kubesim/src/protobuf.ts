// Decoding of application/vnd.kubernetes.protobuf request bodies. kubectl's
// typed clients (kubectl create namespace/configmap/secret/serviceaccount/
// service/deployment/ingress) send protobuf to a real server since 1.32; the
// field numbers below are those of k8s.io/api's generated.proto. The decoded
// object is the JSON a Go round trip of the same struct gives.
import { badRequest, unsupportedMediaType } from "./errors";
import type { Obj } from "./json";

type Scalar = "string" | "bytes" | "int" | "bool" | "time" | "intstr" | "quantity" | "raw";

interface FieldDesc {
  num: number;
  name: string;
  type: Scalar | string;
  repeated: boolean;
  pointer: boolean;
  inline: boolean;
  /** Map value type (maps are repeated key/value entries). */
  mapValue?: Scalar | string;
}

// One line per message: "num name type [flags]" separated by ";".
// Flags: r = repeated, p = pointer (zero values are kept), i = inline (fields merge into the parent),
// map<valueType> as the type for map fields.
const MESSAGES: Record<string, string> = {
  RuntimeTypeMeta: "1 apiVersion string; 2 kind string",
  Unknown: "1 typeMeta RuntimeTypeMeta; 2 raw raw; 3 contentEncoding string; 4 contentType string",
  ObjectMeta:
    "1 name string; 2 generateName string; 3 namespace string; 4 selfLink string; 5 uid string; 6 resourceVersion string; 7 generation int; 8 creationTimestamp time; 9 deletionTimestamp time p; 10 deletionGracePeriodSeconds int p; 11 labels map<string>; 12 annotations map<string>; 13 ownerReferences OwnerReference r; 14 finalizers string r; 17 managedFields ManagedFieldsEntry r",
  OwnerReference: "5 apiVersion string; 1 kind string; 3 name string; 4 uid string; 6 controller bool p; 7 blockOwnerDeletion bool p",
  ManagedFieldsEntry: "1 manager string; 2 operation string; 3 apiVersion string; 4 time time p; 6 fieldsType string; 7 fieldsV1 FieldsV1 p; 8 subresource string",
  FieldsV1: "1 Raw raw",
  LabelSelector: "1 matchLabels map<string>; 2 matchExpressions LabelSelectorRequirement r",
  LabelSelectorRequirement: "1 key string; 2 operator string; 3 values string r",
  Namespace: "1 metadata ObjectMeta; 2 spec NamespaceSpec; 3 status NamespaceStatus",
  NamespaceSpec: "1 finalizers string r",
  NamespaceStatus: "1 phase string",
  ConfigMap: "1 metadata ObjectMeta; 4 immutable bool p; 2 data map<string>; 3 binaryData map<bytes>",
  Secret: "1 metadata ObjectMeta; 5 immutable bool p; 2 data map<bytes>; 4 stringData map<string>; 3 type string",
  ServiceAccount: "1 metadata ObjectMeta; 2 secrets ObjectReference r; 3 imagePullSecrets LocalObjectReference r; 4 automountServiceAccountToken bool p",
  ObjectReference: "1 kind string; 2 namespace string; 3 name string; 4 uid string; 5 apiVersion string; 6 resourceVersion string; 7 fieldPath string",
  LocalObjectReference: "1 name string",
  Service: "1 metadata ObjectMeta; 2 spec ServiceSpec; 3 status ServiceStatus",
  ServiceSpec:
    "1 ports ServicePort r; 2 selector map<string>; 3 clusterIP string; 18 clusterIPs string r; 4 type string; 5 externalIPs string r; 7 sessionAffinity string; 8 loadBalancerIP string; 9 loadBalancerSourceRanges string r; 10 externalName string; 11 externalTrafficPolicy string; 12 healthCheckNodePort int; 13 publishNotReadyAddresses bool; 14 sessionAffinityConfig SessionAffinityConfig p; 19 ipFamilies string r; 17 ipFamilyPolicy string p; 20 allocateLoadBalancerNodePorts bool p; 21 loadBalancerClass string p; 22 internalTrafficPolicy string p; 23 trafficDistribution string p",
  ServicePort: "1 name string; 2 protocol string; 6 appProtocol string p; 3 port int; 4 targetPort intstr; 5 nodePort int",
  ServiceStatus: "1 loadBalancer LoadBalancerStatus",
  LoadBalancerStatus: "",
  SessionAffinityConfig: "1 clientIP ClientIPConfig p",
  ClientIPConfig: "1 timeoutSeconds int p",
  Deployment: "1 metadata ObjectMeta; 2 spec DeploymentSpec; 3 status DeploymentStatus",
  DeploymentSpec:
    "1 replicas int p; 2 selector LabelSelector p; 3 template PodTemplateSpec; 4 strategy DeploymentStrategy; 5 minReadySeconds int; 6 revisionHistoryLimit int p; 7 paused bool; 9 progressDeadlineSeconds int p",
  DeploymentStrategy: "1 type string; 2 rollingUpdate RollingUpdateDeployment p",
  RollingUpdateDeployment: "1 maxUnavailable intstr p; 2 maxSurge intstr p",
  DeploymentStatus: "1 observedGeneration int; 2 replicas int; 3 updatedReplicas int; 7 readyReplicas int; 4 availableReplicas int; 5 unavailableReplicas int",
  PodTemplateSpec: "1 metadata ObjectMeta; 2 spec PodSpec",
  PodSpec:
    "1 volumes Volume r; 20 initContainers Container r; 2 containers Container r; 3 restartPolicy string; 4 terminationGracePeriodSeconds int p; 5 activeDeadlineSeconds int p; 6 dnsPolicy string; 7 nodeSelector map<string>; 8 serviceAccountName string; 9 serviceAccount string; 21 automountServiceAccountToken bool p; 10 nodeName string; 11 hostNetwork bool; 12 hostPID bool; 13 hostIPC bool; 27 shareProcessNamespace bool p; 14 securityContext PodSecurityContext p; 15 imagePullSecrets LocalObjectReference r; 16 hostname string; 17 subdomain string; 19 schedulerName string; 22 tolerations Toleration r; 24 priorityClassName string; 25 priority int p; 29 runtimeClassName string p; 30 enableServiceLinks bool p; 31 preemptionPolicy string p; 35 setHostnameAsFQDN bool p; 37 hostUsers bool p",
  Container:
    "1 name string; 2 image string; 3 command string r; 4 args string r; 5 workingDir string; 6 ports ContainerPort r; 19 envFrom EnvFromSource r; 7 env EnvVar r; 8 resources ResourceRequirements; 9 volumeMounts VolumeMount r; 10 livenessProbe Probe p; 11 readinessProbe Probe p; 22 startupProbe Probe p; 13 terminationMessagePath string; 20 terminationMessagePolicy string; 14 imagePullPolicy string; 15 securityContext SecurityContext p; 16 stdin bool; 17 stdinOnce bool; 18 tty bool",
  ContainerPort: "1 name string; 2 hostPort int; 3 containerPort int; 4 protocol string; 5 hostIP string",
  EnvVar: "1 name string; 2 value string; 3 valueFrom EnvVarSource p",
  EnvVarSource: "1 fieldRef ObjectFieldSelector p; 3 configMapKeyRef ConfigMapKeySelector p; 4 secretKeyRef SecretKeySelector p",
  ObjectFieldSelector: "1 apiVersion string; 2 fieldPath string",
  ConfigMapKeySelector: "1 localObjectReference LocalObjectReference i; 2 key string; 3 optional bool p",
  SecretKeySelector: "1 localObjectReference LocalObjectReference i; 2 key string; 3 optional bool p",
  EnvFromSource: "1 prefix string; 2 configMapRef ConfigMapEnvSource p; 3 secretRef SecretEnvSource p",
  ConfigMapEnvSource: "1 localObjectReference LocalObjectReference i; 2 optional bool p",
  SecretEnvSource: "1 localObjectReference LocalObjectReference i; 2 optional bool p",
  ResourceRequirements: "1 limits map<quantity>; 2 requests map<quantity>",
  VolumeMount: "1 name string; 2 readOnly bool; 3 mountPath string; 4 subPath string; 5 mountPropagation string p; 6 subPathExpr string",
  Volume: "1 name string; 2 volumeSource VolumeSource i",
  VolumeSource: "2 emptyDir EmptyDirVolumeSource p; 6 secret SecretVolumeSource p; 10 persistentVolumeClaim PersistentVolumeClaimVolumeSource p; 19 configMap ConfigMapVolumeSource p",
  EmptyDirVolumeSource: "1 medium string; 2 sizeLimit quantity p",
  SecretVolumeSource: "1 secretName string; 2 items KeyToPath r; 3 defaultMode int p; 4 optional bool p",
  ConfigMapVolumeSource: "1 localObjectReference LocalObjectReference i; 2 items KeyToPath r; 3 defaultMode int p; 4 optional bool p",
  PersistentVolumeClaimVolumeSource: "1 claimName string; 2 readOnly bool",
  KeyToPath: "1 key string; 2 path string; 3 mode int p",
  Probe: "1 handler ProbeHandler i; 2 initialDelaySeconds int; 3 timeoutSeconds int; 4 periodSeconds int; 5 successThreshold int; 6 failureThreshold int; 7 terminationGracePeriodSeconds int p",
  ProbeHandler: "1 exec ExecAction p; 2 httpGet HTTPGetAction p; 3 tcpSocket TCPSocketAction p",
  ExecAction: "1 command string r",
  HTTPGetAction: "1 path string; 2 port intstr; 3 host string; 4 scheme string",
  TCPSocketAction: "1 port intstr; 2 host string",
  PodSecurityContext: "2 runAsUser int p; 6 runAsGroup int p; 3 runAsNonRoot bool p; 5 fsGroup int p",
  SecurityContext: "2 privileged bool p; 4 runAsUser int p; 8 runAsGroup int p; 5 runAsNonRoot bool p; 6 readOnlyRootFilesystem bool p; 7 allowPrivilegeEscalation bool p",
  Toleration: "1 key string; 2 operator string; 3 value string; 4 effect string; 5 tolerationSeconds int p",
  Ingress: "1 metadata ObjectMeta; 2 spec IngressSpec; 3 status IngressStatus",
  IngressSpec: "4 ingressClassName string p; 1 defaultBackend IngressBackend p; 2 tls IngressTLS r; 3 rules IngressRule r",
  IngressRule: "1 host string; 2 ingressRuleValue IngressRuleValue i",
  IngressRuleValue: "1 http HTTPIngressRuleValue p",
  HTTPIngressRuleValue: "1 paths HTTPIngressPath r",
  HTTPIngressPath: "1 path string; 3 pathType string p; 2 backend IngressBackend",
  IngressBackend: "4 service IngressServiceBackend p; 3 resource TypedLocalObjectReference p",
  IngressServiceBackend: "1 name string; 2 port ServiceBackendPort",
  ServiceBackendPort: "1 name string; 2 number int",
  TypedLocalObjectReference: "1 apiGroup string p; 2 kind string; 3 name string",
  IngressTLS: "1 hosts string r; 2 secretName string",
  IngressStatus: "1 loadBalancer IngressLoadBalancerStatus",
  IngressLoadBalancerStatus: "",
  // What kubectl create job/cronjob/role/rolebinding/clusterrole/clusterrolebinding/pdb/quota send.
  Job: "1 metadata ObjectMeta; 2 spec JobSpec",
  JobSpec:
    "1 parallelism int p; 2 completions int p; 3 activeDeadlineSeconds int p; 7 backoffLimit int p; 12 backoffLimitPerIndex int p; 13 maxFailedIndexes int p; 4 selector LabelSelector p; 5 manualSelector bool p; 6 template PodTemplateSpec; 8 ttlSecondsAfterFinished int p; 9 completionMode string p; 10 suspend bool p; 14 podReplacementPolicy string p; 15 managedBy string p",
  JobTemplateSpec: "1 metadata ObjectMeta; 2 spec JobSpec",
  CronJob: "1 metadata ObjectMeta; 2 spec CronJobSpec",
  CronJobSpec:
    "1 schedule string; 8 timeZone string p; 2 startingDeadlineSeconds int p; 3 concurrencyPolicy string; 4 suspend bool p; 5 jobTemplate JobTemplateSpec; 6 successfulJobsHistoryLimit int p; 7 failedJobsHistoryLimit int p",
  PolicyRule: "1 verbs string r; 2 apiGroups string r; 3 resources string r; 4 resourceNames string r; 5 nonResourceURLs string r",
  AggregationRule: "1 clusterRoleSelectors LabelSelector r",
  Role: "1 metadata ObjectMeta; 2 rules PolicyRule r",
  ClusterRole: "1 metadata ObjectMeta; 2 rules PolicyRule r; 3 aggregationRule AggregationRule p",
  Subject: "1 kind string; 2 apiGroup string; 3 name string; 4 namespace string",
  RoleRef: "1 apiGroup string; 2 kind string; 3 name string",
  RoleBinding: "1 metadata ObjectMeta; 2 subjects Subject r; 3 roleRef RoleRef",
  ClusterRoleBinding: "1 metadata ObjectMeta; 2 subjects Subject r; 3 roleRef RoleRef",
  PodDisruptionBudget: "1 metadata ObjectMeta; 2 spec PodDisruptionBudgetSpec",
  PodDisruptionBudgetSpec: "1 minAvailable intstr p; 2 selector LabelSelector p; 3 maxUnavailable intstr p; 4 unhealthyPodEvictionPolicy string p",
  ResourceQuota: "1 metadata ObjectMeta; 2 spec ResourceQuotaSpec",
  ResourceQuotaSpec: "1 hard map<quantity>; 2 scopes string r",
};

const parsed = new Map<string, Map<number, FieldDesc>>();

function desc(message: string): Map<number, FieldDesc> | undefined {
  let d = parsed.get(message);
  if (d) return d;
  const spec = MESSAGES[message];
  if (spec === undefined) return undefined;
  d = new Map();
  for (const line of spec.split(";").map((s) => s.trim()).filter(Boolean)) {
    const [num, name, type, flags = ""] = line.split(/\s+/) as [string, string, string, string | undefined];
    const map = /^map<(\w+)>$/.exec(type);
    d.set(Number(num), {
      num: Number(num),
      name,
      type: map ? "map" : type,
      mapValue: map?.[1],
      repeated: flags.includes("r") || !!map,
      pointer: flags.includes("p"),
      inline: flags.includes("i"),
    });
  }
  parsed.set(message, d);
  return d;
}

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}

  eof(): boolean {
    return this.pos >= this.buf.length;
  }

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw new Error("truncated varint");
      const b = this.buf[this.pos++] as number;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 70n) throw new Error("varint too long");
    }
  }

  bytes(): Buffer {
    const len = Number(this.varint());
    if (this.pos + len > this.buf.length) throw new Error("truncated field");
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
}

function scalar(type: Scalar | string, r: Reader, wire: number): unknown {
  switch (type) {
    case "string":
      return r.bytes().toString("utf8");
    case "bytes":
      return r.bytes().toString("base64");
    case "raw":
      return r.bytes();
    case "int":
      return Number(BigInt.asIntN(64, r.varint()));
    case "bool":
      return r.varint() !== 0n;
    case "time": {
      const m = decodeMessage(r.bytes(), { seconds: 1, nanos: 2 });
      const secs = Number(m.seconds ?? 0);
      if (secs === 0 && Number(m.nanos ?? 0) === 0) return null;
      return new Date(secs * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
    }
    case "intstr": {
      const m = decodeMessage(r.bytes(), { type: 1, intVal: 2, strVal: 3 });
      return Number(m.type ?? 0) === 1 ? String(m.strValRaw ?? "") : Number(m.intVal ?? 0);
    }
    case "quantity": {
      const m = decodeMessage(r.bytes(), { string: 1 });
      return String(m.stringRaw ?? "0");
    }
    default: {
      void wire;
      return decodeObject(r.bytes(), type);
    }
  }
}

/** Minimal decoder for the small well-known messages (Time, IntOrString, Quantity). */
function decodeMessage(buf: Buffer, fields: Record<string, number>): Record<string, unknown> {
  const r = new Reader(buf);
  const byNum = new Map(Object.entries(fields).map(([k, v]) => [v, k]));
  const out: Record<string, unknown> = {};
  while (!r.eof()) {
    const key = Number(r.varint());
    const num = key >> 3;
    const wire = key & 7;
    const name = byNum.get(num);
    if (!name) {
      r.skip(wire);
      continue;
    }
    if (wire === 0) out[name] = BigInt.asIntN(64, r.varint());
    else if (wire === 2) out[`${name}Raw`] = r.bytes().toString("utf8");
    else r.skip(wire);
  }
  return out;
}

function isZero(v: unknown): boolean {
  return v === "" || v === 0 || v === false || v === null;
}

function decodeObject(buf: Buffer, message: string): Obj {
  const d = desc(message);
  const out: Obj = {};
  if (!d) return out;
  const r = new Reader(buf);
  while (!r.eof()) {
    const key = Number(r.varint());
    const num = key >> 3;
    const wire = key & 7;
    const f = d.get(num);
    if (!f) {
      r.skip(wire);
      continue;
    }
    if (f.type === "map") {
      const entry = new Reader(r.bytes());
      let k = "";
      let v: unknown = f.mapValue === "string" || f.mapValue === "bytes" ? "" : null;
      while (!entry.eof()) {
        const ek = Number(entry.varint());
        if (ek >> 3 === 1) k = entry.bytes().toString("utf8");
        else if (ek >> 3 === 2) v = scalar(f.mapValue ?? "string", entry, ek & 7);
        else entry.skip(ek & 7);
      }
      const m = (out[f.name] ??= {}) as Obj;
      m[k] = v;
      continue;
    }
    const value = scalar(f.type, r, wire);
    if (f.inline) {
      if (value && typeof value === "object" && !Buffer.isBuffer(value)) Object.assign(out, value);
      continue;
    }
    if (f.repeated) {
      const list = (out[f.name] ??= []) as unknown[];
      list.push(value);
      continue;
    }
    out[f.name] = value;
  }
  // Scalars that are not pointers are always on the wire; their zero values mean "unset" (omitempty).
  for (const f of d.values()) {
    if (f.repeated || f.inline) continue;
    const v = out[f.name];
    if (v !== undefined && !f.pointer && isZero(v) && f.type !== "time" && f.type !== "intstr") delete out[f.name];
  }
  return out;
}

const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

export const PROTOBUF_CT = "application/vnd.kubernetes.protobuf";

/** Decodes a protobuf request body into the JSON form of the same object. */
export function decodeProtobufObject(body: Buffer, expectedKind: string): Obj {
  if (body.length < 4 || !body.subarray(0, 4).equals(PROTOBUF_MAGIC)) throw badRequest("provided value is not protobuf: missing the \"k8s\\x00\" prefix");
  const unknown = decodeObject(body.subarray(4), "Unknown");
  const tm = (unknown.typeMeta ?? {}) as Obj;
  const kind = typeof tm.kind === "string" && tm.kind ? tm.kind : expectedKind;
  if (!MESSAGES[kind] || !["Namespace", "ConfigMap", "Secret", "ServiceAccount", "Service", "Deployment", "Ingress", "Job", "CronJob", "Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding", "PodDisruptionBudget", "ResourceQuota"].includes(kind)) {
    throw unsupportedMediaType(["application/json", "application/yaml"]);
  }
  const rawBytes = unknown.raw;
  const obj = Buffer.isBuffer(rawBytes) ? decodeObject(rawBytes, kind) : {};
  const fields = (obj.metadata as Obj | undefined)?.managedFields;
  if (Array.isArray(fields)) {
    for (const e of fields as Obj[]) {
      const f = e.fieldsV1 as Obj | undefined;
      if (f && Buffer.isBuffer(f.Raw)) e.fieldsV1 = JSON.parse(f.Raw.toString("utf8")) as unknown;
    }
  }
  return { kind, apiVersion: typeof tm.apiVersion === "string" ? tm.apiVersion : undefined, ...obj };
}
