// Server-side defaulting of the built-in kinds (the SetDefaults_* functions of
// k8s.io/kubernetes for core/v1, apps/v1, networking/v1 and apiextensions/v1),
// plus the shape a Go round trip gives typed objects (zero-value structs such
// as `template.metadata.creationTimestamp: null`, quantities in canonical form).
import { asObj, child, isObj, type Obj } from "./json";
import { canonicalQuantity, isValidQuantity } from "./quantity";

export function setIfAbsent(o: Obj, key: string, v: unknown): void {
  if (o[key] === undefined || o[key] === null) o[key] = v;
}

function dropNullKeys(o: Obj, keep: readonly string[] = []): void {
  for (const k of Object.keys(o)) if (o[k] === null && !keep.includes(k)) delete o[k];
}

export function canonicalResourceList(rl: unknown): void {
  if (!isObj(rl)) return;
  for (const [k, v] of Object.entries(rl)) if (isValidQuantity(v)) rl[k] = canonicalQuantity(v as string | number);
}

function imagePullPolicyFor(image: string): string {
  // SetDefaults_Container: ":latest" or no tag (and no digest) pulls always.
  if (image.includes("@")) return "IfNotPresent";
  const lastSlash = image.lastIndexOf("/");
  const tail = image.slice(lastSlash + 1);
  const colon = tail.lastIndexOf(":");
  const tag = colon >= 0 ? tail.slice(colon + 1) : "";
  return tag === "" || tag === "latest" ? "Always" : "IfNotPresent";
}

function defaultProbe(p: unknown): void {
  if (!isObj(p)) return;
  setIfAbsent(p, "timeoutSeconds", 1);
  setIfAbsent(p, "periodSeconds", 10);
  setIfAbsent(p, "successThreshold", 1);
  setIfAbsent(p, "failureThreshold", 3);
  defaultHttpGet(p.httpGet);
}

function defaultHttpGet(h: unknown): void {
  if (!isObj(h)) return;
  if (!h.path) h.path = "/";
  if (!h.scheme) h.scheme = "HTTP";
}

function defaultContainer(c: unknown): void {
  if (!isObj(c)) return;
  if (typeof c.image === "string" && !c.imagePullPolicy) c.imagePullPolicy = imagePullPolicyFor(c.image);
  if (!c.terminationMessagePath) c.terminationMessagePath = "/dev/termination-log";
  if (!c.terminationMessagePolicy) c.terminationMessagePolicy = "File";
  // ResourceRequirements is a value (not pointer) field: a Go round trip always writes it.
  const res = isObj(c.resources) ? c.resources : {};
  canonicalResourceList(res.limits);
  canonicalResourceList(res.requests);
  c.resources = res;
  if (Array.isArray(c.ports)) for (const p of c.ports) if (isObj(p) && !p.protocol) p.protocol = "TCP";
  if (Array.isArray(c.env)) {
    for (const e of c.env) {
      const fr = asObj(asObj(asObj(e)?.valueFrom)?.fieldRef);
      if (fr && !fr.apiVersion) fr.apiVersion = "v1";
    }
  }
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  const lc = asObj(c.lifecycle);
  if (lc) {
    defaultHttpGet(asObj(lc.postStart)?.httpGet);
    defaultHttpGet(asObj(lc.preStop)?.httpGet);
  }
}

const VOLUME_SOURCES = [
  "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi", "glusterfs",
  "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc", "azureFile", "configMap",
  "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "projected", "portworxVolume", "scaleIO", "storageos", "csi",
  "ephemeral", "image",
];

function defaultVolume(v: unknown): void {
  if (!isObj(v)) return;
  if (!VOLUME_SOURCES.some((s) => v[s] !== undefined && v[s] !== null)) v.emptyDir = {};
  for (const s of ["secret", "configMap", "downwardAPI", "projected"]) {
    const src = asObj(v[s]);
    if (src) setIfAbsent(src, "defaultMode", 420);
  }
  const hp = asObj(v.hostPath);
  if (hp) setIfAbsent(hp, "type", "");
  const ed = asObj(v.emptyDir);
  if (ed && ed.sizeLimit !== undefined && isValidQuantity(ed.sizeLimit)) ed.sizeLimit = canonicalQuantity(ed.sizeLimit as string);
  const proj = asObj(v.projected);
  if (proj && Array.isArray(proj.sources)) {
    for (const src of proj.sources) {
      const sat = asObj(asObj(src)?.serviceAccountToken);
      if (sat) setIfAbsent(sat, "expirationSeconds", 3600);
    }
  }
}

export function defaultPodSpec(spec: Obj): void {
  setIfAbsent(spec, "dnsPolicy", "ClusterFirst");
  setIfAbsent(spec, "restartPolicy", "Always");
  setIfAbsent(spec, "terminationGracePeriodSeconds", 30);
  setIfAbsent(spec, "securityContext", {});
  setIfAbsent(spec, "schedulerName", "default-scheduler");
  if (spec.containers === undefined) spec.containers = null;
  for (const key of ["containers", "initContainers", "ephemeralContainers"]) {
    const list = spec[key];
    if (Array.isArray(list)) list.forEach(defaultContainer);
  }
  if (spec.hostNetwork === true) {
    for (const key of ["containers", "initContainers"]) {
      const list = spec[key];
      if (!Array.isArray(list)) continue;
      for (const c of list) {
        const ports = asObj(c)?.ports;
        if (Array.isArray(ports)) for (const p of ports) if (isObj(p) && !p.hostPort) p.hostPort = p.containerPort;
      }
    }
  }
  if (Array.isArray(spec.volumes)) spec.volumes.forEach(defaultVolume);
  canonicalResourceList(spec.overhead);
  const res = asObj(spec.resources);
  if (res) {
    canonicalResourceList(res.limits);
    canonicalResourceList(res.requests);
  }
}

export function defaultPodTemplate(t: Obj): void {
  const md = child(t, "metadata");
  // ObjectMeta is a value field; Go writes its zero CreationTimestamp as null.
  if (md.creationTimestamp === undefined) md.creationTimestamp = null;
  defaultPodSpec(child(t, "spec"));
}

function normaliseMeta(obj: Obj): void {
  const md = child(obj, "metadata");
  dropNullKeys(md);
  for (const k of ["labels", "annotations"]) {
    const m = md[k];
    if (isObj(m) && Object.keys(m).length === 0) delete md[k];
  }
  for (const k of ["finalizers", "ownerReferences", "managedFields"]) {
    const m = md[k];
    if (Array.isArray(m) && m.length === 0) delete md[k];
  }
}

export function defaultDeployment(obj: Obj): void {
  const spec = child(obj, "spec");
  setIfAbsent(spec, "replicas", 1);
  const strategy = child(spec, "strategy");
  if (!strategy.type) strategy.type = "RollingUpdate";
  if (strategy.type === "RollingUpdate") {
    const ru = child(strategy, "rollingUpdate");
    setIfAbsent(ru, "maxUnavailable", "25%");
    setIfAbsent(ru, "maxSurge", "25%");
  }
  setIfAbsent(spec, "revisionHistoryLimit", 10);
  setIfAbsent(spec, "progressDeadlineSeconds", 600);
  if (spec.selector === undefined) spec.selector = null;
  defaultPodTemplate(child(spec, "template"));
  if (!isObj(obj.status)) obj.status = {};
}

export function defaultStatefulSet(obj: Obj): void {
  const spec = child(obj, "spec");
  setIfAbsent(spec, "podManagementPolicy", "OrderedReady");
  const us = child(spec, "updateStrategy");
  if (!us.type) us.type = "RollingUpdate";
  if (us.type === "RollingUpdate") {
    const ru = child(us, "rollingUpdate");
    setIfAbsent(ru, "partition", 0);
  }
  setIfAbsent(spec, "replicas", 1);
  setIfAbsent(spec, "revisionHistoryLimit", 10);
  const pol = child(spec, "persistentVolumeClaimRetentionPolicy");
  if (!pol.whenDeleted) pol.whenDeleted = "Retain";
  if (!pol.whenScaled) pol.whenScaled = "Retain";
  if (spec.serviceName === undefined || spec.serviceName === null) spec.serviceName = "";
  if (spec.selector === undefined) spec.selector = null;
  defaultPodTemplate(child(spec, "template"));
  if (Array.isArray(spec.volumeClaimTemplates)) {
    for (const pvc of spec.volumeClaimTemplates) {
      if (!isObj(pvc)) continue;
      setIfAbsent(pvc, "apiVersion", "v1");
      setIfAbsent(pvc, "kind", "PersistentVolumeClaim");
      const md = child(pvc, "metadata");
      if (md.creationTimestamp === undefined) md.creationTimestamp = null;
      const ps = child(pvc, "spec");
      setIfAbsent(ps, "volumeMode", "Filesystem");
      const r = asObj(ps.resources);
      if (r) {
        canonicalResourceList(r.requests);
        canonicalResourceList(r.limits);
      }
      const st = child(pvc, "status");
      setIfAbsent(st, "phase", "Pending");
    }
  }
  const status = child(obj, "status");
  setIfAbsent(status, "replicas", 0);
  setIfAbsent(status, "availableReplicas", 0);
}

export function defaultService(obj: Obj): void {
  const spec = child(obj, "spec");
  if (!spec.sessionAffinity) spec.sessionAffinity = "None";
  if (!spec.type) spec.type = "ClusterIP";
  if (spec.sessionAffinity === "ClientIP") {
    const cfg = child(spec, "sessionAffinityConfig");
    const cip = child(cfg, "clientIP");
    setIfAbsent(cip, "timeoutSeconds", 10800);
  }
  if (Array.isArray(spec.ports)) {
    for (const p of spec.ports) {
      if (!isObj(p)) continue;
      if (!p.protocol) p.protocol = "TCP";
      if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === "") p.targetPort = p.port;
    }
  }
  if ((spec.type === "NodePort" || spec.type === "LoadBalancer") && !spec.externalTrafficPolicy) spec.externalTrafficPolicy = "Cluster";
  if (spec.type !== "ExternalName" && !spec.internalTrafficPolicy) spec.internalTrafficPolicy = "Cluster";
  if (spec.type === "LoadBalancer") setIfAbsent(spec, "allocateLoadBalancerNodePorts", true);
  const status = child(obj, "status");
  if (!isObj(status.loadBalancer)) status.loadBalancer = {};
}

export function defaultSecret(obj: Obj): void {
  if (!obj.type) obj.type = "Opaque";
}

export function defaultNamespace(obj: Obj): void {
  const md = child(obj, "metadata");
  // SetDefaults_Namespace: the immutable name label every namespace carries.
  if (typeof md.name === "string" && md.name) {
    const labels = child(md, "labels");
    labels["kubernetes.io/metadata.name"] = md.name;
  }
  child(obj, "spec");
  child(obj, "status");
}

export function defaultIngress(obj: Obj): void {
  child(obj, "spec");
  const status = child(obj, "status");
  if (!isObj(status.loadBalancer)) status.loadBalancer = {};
}

const HPA_SCALE_UP = { stabilizationWindowSeconds: 0, selectPolicy: "Max", policies: [{ type: "Pods", value: 4, periodSeconds: 15 }, { type: "Percent", value: 100, periodSeconds: 15 }] };
const HPA_SCALE_DOWN = { stabilizationWindowSeconds: 300, selectPolicy: "Max", policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] };

function hpaRules(rules: unknown, defaults: Obj): Obj {
  // GenerateHPAScale{Up,Down}Rules: fill each unset part of the rules.
  const r = isObj(rules) ? rules : {};
  if (r.stabilizationWindowSeconds === undefined || r.stabilizationWindowSeconds === null) r.stabilizationWindowSeconds = defaults.stabilizationWindowSeconds;
  if (!r.selectPolicy) r.selectPolicy = defaults.selectPolicy;
  if (!Array.isArray(r.policies) || r.policies.length === 0) r.policies = structuredClone(defaults.policies);
  return r;
}

export function defaultHPA(obj: Obj): void {
  const spec = child(obj, "spec");
  setIfAbsent(spec, "minReplicas", 1);
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } }];
  }
  for (const m of spec.metrics as unknown[]) {
    for (const src of ["resource", "containerResource", "pods", "object", "external"]) {
      const target = asObj(asObj(asObj(m)?.[src])?.target);
      if (!target) continue;
      for (const q of ["value", "averageValue"]) if (target[q] !== undefined && isValidQuantity(target[q])) target[q] = canonicalQuantity(target[q] as string);
    }
  }
  const behavior = asObj(spec.behavior);
  if (behavior) {
    behavior.scaleUp = hpaRules(behavior.scaleUp, HPA_SCALE_UP);
    behavior.scaleDown = hpaRules(behavior.scaleDown, HPA_SCALE_DOWN);
  }
  if (!isObj(obj.status)) obj.status = { currentMetrics: null, desiredReplicas: 0 };
}

export function defaultCRD(obj: Obj): void {
  const spec = child(obj, "spec");
  const names = child(spec, "names");
  if (!names.singular && typeof names.kind === "string") names.singular = names.kind.toLowerCase();
  if (!names.listKind && typeof names.kind === "string" && names.kind) names.listKind = `${names.kind}List`;
  if (!isObj(spec.conversion)) spec.conversion = { strategy: "None" };
  const conv = child(spec, "conversion");
  if (!conv.strategy) conv.strategy = "None";
  if (conv.strategy === "Webhook") {
    const wh = child(conv, "webhook");
    if (!Array.isArray(wh.conversionReviewVersions)) wh.conversionReviewVersions = ["v1"];
  }
  const status = child(obj, "status");
  if (status.conditions === undefined) status.conditions = null;
  const acc = child(status, "acceptedNames");
  if (acc.plural === undefined) acc.plural = "";
  if (acc.kind === undefined) acc.kind = "";
  if (status.storedVersions === undefined) status.storedVersions = null;
}

/** Runs the defaulter for a built-in kind and normalises metadata. */
export function defaultBuiltin(kind: string, obj: Obj): void {
  normaliseMeta(obj);
  switch (kind) {
    case "Deployment":
      defaultDeployment(obj);
      break;
    case "StatefulSet":
      defaultStatefulSet(obj);
      break;
    case "Service":
      defaultService(obj);
      break;
    case "Secret":
      defaultSecret(obj);
      break;
    case "Namespace":
      defaultNamespace(obj);
      break;
    case "Ingress":
      defaultIngress(obj);
      break;
    case "HorizontalPodAutoscaler":
      defaultHPA(obj);
      break;
    case "CustomResourceDefinition":
      defaultCRD(obj);
      break;
    default:
      break;
  }
}

/** The object a typed `New()` gives for each kind, serialised (the Update baseline on create). */
export function emptyShape(kind: string): Obj {
  const md = { creationTimestamp: null };
  switch (kind) {
    case "Deployment":
      return { metadata: md, spec: { selector: null, template: { metadata: { creationTimestamp: null }, spec: { containers: null } }, strategy: {} }, status: {} };
    case "StatefulSet":
      return {
        metadata: md,
        spec: { selector: null, template: { metadata: { creationTimestamp: null }, spec: { containers: null } }, serviceName: "", updateStrategy: {} },
        status: { replicas: 0, availableReplicas: 0 },
      };
    case "Service":
    case "Ingress":
      return { metadata: md, spec: {}, status: { loadBalancer: {} } };
    case "Namespace":
      return { metadata: md, spec: {}, status: {} };
    case "CustomResourceDefinition":
      return {
        metadata: md,
        spec: { group: "", names: { plural: "", kind: "" }, scope: "", versions: null },
        status: { conditions: null, acceptedNames: { plural: "", kind: "" }, storedVersions: null },
      };
    case "Scale":
      return { metadata: md, spec: {}, status: { replicas: 0 } };
    case "HorizontalPodAutoscaler":
      return { metadata: md, spec: { scaleTargetRef: { kind: "", name: "" }, maxReplicas: 0 }, status: { currentMetrics: null, desiredReplicas: 0 } };
    default:
      return { metadata: md };
  }
}
