// The validation the real server applies to the fields Driftwatch and its
// users touch, with the same field paths and messages (422 Invalid).
import type { FieldError } from "./errors";
import { asObj, asStr, deepEqual, isObj, type Obj } from "./json";
import { isValidQuantity } from "./quantity";
import type { ResourceType } from "./registry";

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

export type NameRule = "subdomain" | "label" | "dns1035";

export function nameRuleFor(rt: ResourceType): NameRule {
  if (rt.group === "" && rt.resource === "namespaces") return "label";
  if (rt.group === "" && rt.resource === "services") return "dns1035";
  return "subdomain";
}

function nameErrors(name: string, rule: NameRule): string[] {
  const out: string[] = [];
  if (rule === "subdomain") {
    if (name.length > 253) out.push("must be no more than 253 characters");
    if (!DNS1123_SUBDOMAIN.test(name)) out.push(SUBDOMAIN_MSG);
  } else if (rule === "label") {
    if (name.length > 63) out.push("must be no more than 63 characters");
    if (!DNS1123_LABEL.test(name)) out.push(LABEL_MSG);
  } else {
    if (name.length > 63) out.push("must be no more than 63 characters");
    if (!DNS1035_LABEL.test(name)) out.push(DNS1035_MSG);
  }
  return out;
}

function qualifiedNameErrors(key: string): string[] {
  const out: string[] = [];
  const parts = key.split("/");
  let name = key;
  if (parts.length === 2) {
    const prefix = parts[0] as string;
    name = parts[1] as string;
    if (prefix.length === 0) out.push("prefix part must be non-empty");
    else if (!DNS1123_SUBDOMAIN.test(prefix) || prefix.length > 253) out.push(`prefix part ${SUBDOMAIN_MSG}`);
  } else if (parts.length > 2) {
    out.push(
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    );
    return out;
  }
  if (name.length === 0) out.push("name part must be non-empty");
  else if (name.length > 63) out.push("name part must be no more than 63 characters");
  if (name.length > 0 && !QUALIFIED_NAME.test(name)) {
    out.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    );
  }
  return out;
}

export function validateLabels(labels: unknown, path: string, errs: FieldError[]): void {
  if (!isObj(labels)) return;
  for (const [k, v] of Object.entries(labels)) {
    for (const m of qualifiedNameErrors(k)) errs.push({ type: "Invalid", field: path, value: k, detail: m });
    const sv = typeof v === "string" ? v : "";
    if (sv.length > 63) errs.push({ type: "Invalid", field: `${path}`, value: sv, detail: "must be no more than 63 characters" });
    if (!LABEL_VALUE.test(sv)) {
      errs.push({
        type: "Invalid",
        field: path,
        value: sv,
        detail:
          "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      });
    }
  }
}

export function validateObjectMeta(obj: Obj, rt: ResourceType, errs: FieldError[]): void {
  const md = asObj(obj.metadata) ?? {};
  const name = asStr(md.name) ?? "";
  if (!name) errs.push({ type: "Required", field: "metadata.name", detail: "name or generateName is required" });
  else for (const m of nameErrors(name, nameRuleFor(rt))) errs.push({ type: "Invalid", field: "metadata.name", value: name, detail: m });
  validateLabels(md.labels, "metadata.labels", errs);
  if (isObj(md.annotations)) {
    let total = 0;
    for (const [k, v] of Object.entries(md.annotations)) {
      for (const m of qualifiedNameErrors(k)) errs.push({ type: "Invalid", field: "metadata.annotations", value: k, detail: m });
      total += k.length + (typeof v === "string" ? v.length : 0);
    }
    if (total > 256 * 1024) errs.push({ type: "TooLong", field: "metadata.annotations", detail: "must have at most 262144 bytes" });
  }
}

export function goMap(m: unknown): string {
  if (!isObj(m)) return "map[string]string(nil)";
  const entries = Object.keys(m)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(m[k])}`);
  return `map[string]string{${entries.join(", ")}}`;
}

export function selectorMatchesLabels(sel: unknown, labels: unknown): boolean {
  const s = asObj(sel);
  if (!s) return false;
  const l = asObj(labels) ?? {};
  const ml = asObj(s.matchLabels) ?? {};
  for (const [k, v] of Object.entries(ml)) if (l[k] !== v) return false;
  const exprs = Array.isArray(s.matchExpressions) ? s.matchExpressions : [];
  for (const e of exprs) {
    const ex = asObj(e);
    if (!ex) continue;
    const key = asStr(ex.key) ?? "";
    const vals = Array.isArray(ex.values) ? ex.values : [];
    const has = typeof l[key] === "string";
    switch (ex.operator) {
      case "In":
        if (!has || !vals.includes(l[key])) return false;
        break;
      case "NotIn":
        if (has && vals.includes(l[key])) return false;
        break;
      case "Exists":
        if (!has) return false;
        break;
      case "DoesNotExist":
        if (has) return false;
        break;
    }
  }
  return Object.keys(ml).length > 0 || exprs.length > 0;
}

export function validateContainers(list: unknown, path: string, errs: FieldError[], required: boolean): void {
  if (!Array.isArray(list) || list.length === 0) {
    if (required) errs.push({ type: "Required", field: path });
    return;
  }
  const seen = new Set<string>();
  list.forEach((c, i) => {
    const cp = `${path}[${i}]`;
    const co = asObj(c) ?? {};
    const name = asStr(co.name) ?? "";
    if (!name) errs.push({ type: "Required", field: `${cp}.name` });
    else {
      if (!DNS1123_LABEL.test(name)) errs.push({ type: "Invalid", field: `${cp}.name`, value: name, detail: LABEL_MSG });
      if (seen.has(name)) errs.push({ type: "Duplicate", field: `${cp}.name`, value: name });
      seen.add(name);
    }
    if (!asStr(co.image)) errs.push({ type: "Required", field: `${cp}.image` });
    const res = asObj(co.resources);
    for (const kind of ["limits", "requests"]) {
      const rl = asObj(res?.[kind]);
      if (!rl) continue;
      for (const [k, v] of Object.entries(rl)) {
        if (!isValidQuantity(v)) errs.push({ type: "Invalid", field: `${cp}.resources.${kind}[${k}]`, value: v, detail: "must be a valid quantity" });
      }
    }
    if (Array.isArray(co.ports)) {
      co.ports.forEach((p, j) => {
        const po = asObj(p) ?? {};
        const n = po.containerPort;
        if (typeof n !== "number" || n < 1 || n > 65535) {
          errs.push({ type: "Required", field: `${cp}.ports[${j}].containerPort` });
        }
      });
    }
  });
}

function validatePodTemplate(tpl: unknown, path: string, errs: FieldError[]): void {
  const t = asObj(tpl) ?? {};
  validateLabels(asObj(t.metadata)?.labels, `${path}.metadata.labels`, errs);
  const spec = asObj(t.spec) ?? {};
  validateContainers(spec.containers, `${path}.spec.containers`, errs, true);
  validateContainers(spec.initContainers, `${path}.spec.initContainers`, errs, false);
  const rp = asStr(spec.restartPolicy);
  if (rp && rp !== "Always") errs.push({ type: "NotSupported", field: `${path}.spec.restartPolicy`, value: rp, detail: 'supported values: "Always"' });
}

function validateWorkload(obj: Obj, old: Obj | undefined, errs: FieldError[]): void {
  const spec = asObj(obj.spec) ?? {};
  const tpl = asObj(spec.template) ?? {};
  if (!isObj(spec.selector)) errs.push({ type: "Required", field: "spec.selector" });
  else {
    const s = spec.selector;
    if (Object.keys(asObj(s.matchLabels) ?? {}).length === 0 && !(Array.isArray(s.matchExpressions) && s.matchExpressions.length > 0)) {
      errs.push({ type: "Invalid", field: "spec.selector", value: "", detail: "empty selector is invalid for deployment" });
    } else if (!selectorMatchesLabels(s, asObj(tpl.metadata)?.labels)) {
      errs.push({
        type: "Invalid",
        field: "spec.template.metadata.labels",
        value: goMap(asObj(tpl.metadata)?.labels),
        detail: "`selector` does not match template `labels`",
      });
    }
  }
  const replicas = spec.replicas;
  if (typeof replicas === "number" && replicas < 0) {
    errs.push({ type: "Invalid", field: "spec.replicas", value: replicas, detail: "must be greater than or equal to 0" });
  }
  validatePodTemplate(tpl, "spec.template", errs);
  if (old && !deepEqual(asObj(old.spec)?.selector, spec.selector)) {
    errs.push({ type: "Invalid", field: "spec.selector", value: goSelector(spec.selector), detail: "field is immutable" });
  }
}

function goSelector(sel: unknown): string {
  const s = asObj(sel) ?? {};
  const ml = asObj(s.matchLabels);
  return `v1.LabelSelector{MatchLabels:${goMap(ml)}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}`;
}

function validateService(obj: Obj, old: Obj | undefined, errs: FieldError[]): void {
  const spec = asObj(obj.spec) ?? {};
  const type = asStr(spec.type) ?? "ClusterIP";
  const allowed = ["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"];
  if (!allowed.includes(type)) {
    errs.push({ type: "NotSupported", field: "spec.type", value: type, detail: 'supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"' });
  }
  const ports = Array.isArray(spec.ports) ? spec.ports : [];
  if (type !== "ExternalName" && ports.length === 0 && spec.clusterIP !== "None") errs.push({ type: "Required", field: "spec.ports" });
  const seen = new Set<string>();
  ports.forEach((p, i) => {
    const po = asObj(p) ?? {};
    const port = po.port;
    if (typeof port !== "number" || port < 1 || port > 65535) {
      errs.push({ type: "Invalid", field: `spec.ports[${i}].port`, value: port ?? 0, detail: "must be between 1 and 65535, inclusive" });
    }
    if (ports.length > 1 && !asStr(po.name)) errs.push({ type: "Required", field: `spec.ports[${i}].name` });
    const key = `${String(port)}/${String(po.protocol ?? "TCP")}`;
    if (seen.has(key)) errs.push({ type: "Duplicate", field: `spec.ports[${i}]`, value: { port, protocol: po.protocol } });
    seen.add(key);
  });
  if (old) {
    const oldIP = asStr(asObj(old.spec)?.clusterIP);
    const newIP = asStr(spec.clusterIP);
    if (oldIP && newIP && oldIP !== newIP && type !== "ExternalName") {
      errs.push({ type: "Invalid", field: "spec.clusterIPs[0]", value: newIP, detail: "may not change once set" });
    }
  }
}

function validateConfigData(obj: Obj, field: string, errs: FieldError[]): void {
  const data = asObj(obj[field]);
  if (!data) return;
  for (const k of Object.keys(data)) {
    if (!CONFIG_KEY.test(k) || k.length > 253) {
      errs.push({
        type: "Invalid",
        field: `${field}[${k}]`,
        value: k,
        detail:
          "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
      });
    }
  }
}

function validateImmutableData(obj: Obj, old: Obj | undefined, errs: FieldError[]): void {
  if (!old || old.immutable !== true) return;
  if (obj.immutable !== true) errs.push({ type: "Forbidden", field: "immutable", detail: "field is immutable when `immutable` is set" });
  for (const f of ["data", "binaryData"]) {
    if (!deepEqual(old[f], obj[f])) errs.push({ type: "Forbidden", field: f, detail: "field is immutable when `immutable` is set" });
  }
}

function validateIngress(obj: Obj, errs: FieldError[]): void {
  const spec = asObj(obj.spec) ?? {};
  const rules = Array.isArray(spec.rules) ? spec.rules : [];
  if (rules.length === 0 && !isObj(spec.defaultBackend)) {
    errs.push({ type: "Invalid", field: "spec", value: "", detail: "either `defaultBackend` or `rules` must be specified" });
  }
  rules.forEach((r, i) => {
    const paths = asObj(asObj(r)?.http)?.paths;
    if (!Array.isArray(paths)) return;
    paths.forEach((p, j) => {
      const pt = asStr(asObj(p)?.pathType);
      const fp = `spec.rules[${i}].http.paths[${j}].pathType`;
      if (!pt) errs.push({ type: "Required", field: fp, detail: "pathType must be specified" });
      else if (!["Exact", "Prefix", "ImplementationSpecific"].includes(pt)) {
        errs.push({ type: "NotSupported", field: fp, value: pt, detail: 'supported values: "Exact", "ImplementationSpecific", "Prefix"' });
      }
    });
  });
}

function validateCRD(obj: Obj, errs: FieldError[]): void {
  const spec = asObj(obj.spec) ?? {};
  const names = asObj(spec.names) ?? {};
  const group = asStr(spec.group) ?? "";
  const plural = asStr(names.plural) ?? "";
  const name = asStr(asObj(obj.metadata)?.name) ?? "";
  if (name !== `${plural}.${group}`) errs.push({ type: "Invalid", field: "metadata.name", value: name, detail: 'must be spec.names.plural+"."+spec.group' });
  if (!group) errs.push({ type: "Required", field: "spec.group" });
  else if (!group.includes(".")) errs.push({ type: "Invalid", field: "spec.group", value: group, detail: "should be a domain with at least one dot" });
  if (!plural) errs.push({ type: "Required", field: "spec.names.plural" });
  if (!asStr(names.kind)) errs.push({ type: "Required", field: "spec.names.kind" });
  const scope = asStr(spec.scope);
  if (scope !== "Namespaced" && scope !== "Cluster") {
    errs.push({ type: "NotSupported", field: "spec.scope", value: scope ?? "", detail: 'supported values: "Cluster", "Namespaced"' });
  }
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  if (versions.length === 0) errs.push({ type: "Invalid", field: "spec.versions", value: "null", detail: "must have exactly one version marked as storage version" });
  else {
    const storage = versions.filter((v) => asObj(v)?.storage === true).length;
    if (storage !== 1) errs.push({ type: "Invalid", field: "spec.versions", value: versions.length, detail: "must have exactly one version marked as storage version" });
    versions.forEach((v, i) => {
      const vo = asObj(v) ?? {};
      if (!isObj(asObj(vo.schema)?.openAPIV3Schema)) {
        errs.push({ type: "Required", field: `spec.versions[${i}].schema.openAPIV3Schema`, detail: "schemas are required" });
      }
    });
  }
}

function validateHPA(obj: Obj, errs: FieldError[]): void {
  const spec = asObj(obj.spec) ?? {};
  const ref = asObj(spec.scaleTargetRef) ?? {};
  if (!asStr(ref.kind)) errs.push({ type: "Required", field: "spec.scaleTargetRef.kind" });
  if (!asStr(ref.name)) errs.push({ type: "Required", field: "spec.scaleTargetRef.name" });
  const max = typeof spec.maxReplicas === "number" ? spec.maxReplicas : 0;
  const min = typeof spec.minReplicas === "number" ? spec.minReplicas : 1;
  if (min < 1) errs.push({ type: "Invalid", field: "spec.minReplicas", value: min, detail: "must be greater than or equal to 1" });
  if (max < 1) errs.push({ type: "Invalid", field: "spec.maxReplicas", value: max, detail: "must be greater than or equal to 1" });
  if (max >= 1 && min > max) errs.push({ type: "Invalid", field: "spec.maxReplicas", value: max, detail: "must be greater than or equal to `minReplicas`" });
}

export function validateBuiltin(rt: ResourceType, obj: Obj, old: Obj | undefined): FieldError[] {
  const errs: FieldError[] = [];
  switch (rt.kind) {
    case "Deployment":
    case "StatefulSet":
      validateWorkload(obj, old, errs);
      break;
    case "Service":
      validateService(obj, old, errs);
      break;
    case "ConfigMap":
      validateConfigData(obj, "data", errs);
      validateConfigData(obj, "binaryData", errs);
      validateImmutableData(obj, old, errs);
      break;
    case "Secret":
      validateConfigData(obj, "data", errs);
      validateImmutableData(obj, old, errs);
      if (old && old.type !== obj.type) errs.push({ type: "Invalid", field: "type", value: obj.type, detail: "field is immutable" });
      break;
    case "Ingress":
      validateIngress(obj, errs);
      break;
    case "CustomResourceDefinition":
      validateCRD(obj, errs);
      break;
    case "HorizontalPodAutoscaler":
      validateHPA(obj, errs);
      break;
    default:
      break;
  }
  return errs;
}
