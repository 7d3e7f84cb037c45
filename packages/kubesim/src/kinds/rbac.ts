// rbac.authorization.k8s.io/v1: Role, ClusterRole, RoleBinding, ClusterRoleBinding.
// Stored and validated as the real server does; kubesim does not authorize
// with them (its bearer tokens carry their own scopes).
import { closed, LABEL_SELECTOR, topLevel } from "../builtin-schemas";
import type { FieldError } from "../errors";
import { asObj, asStr, deepEqual, isObj, type Obj } from "../json";
import { atomicList, STR } from "../schema";
import { AGE_DESC, ageCol, col, nameCol, type Column } from "../table-columns";
import type { KindSupport } from "./index";

const GROUP = "rbac.authorization.k8s.io";

const POLICY_RULE = closed("v1.PolicyRule", {
  verbs: atomicList(STR),
  apiGroups: atomicList(STR),
  resources: atomicList(STR),
  resourceNames: atomicList(STR),
  nonResourceURLs: atomicList(STR),
});
const SUBJECT = closed("v1.Subject", { kind: STR, apiGroup: STR, name: STR, namespace: STR });
const ROLE_REF = closed("v1.RoleRef", { apiGroup: STR, kind: STR, name: STR }, { atomic: true });

const ROLE = topLevel("v1.Role", { rules: atomicList(POLICY_RULE) });
const CLUSTER_ROLE = topLevel("v1.ClusterRole", {
  rules: atomicList(POLICY_RULE),
  aggregationRule: closed("v1.AggregationRule", { clusterRoleSelectors: atomicList(LABEL_SELECTOR) }),
});
const ROLE_BINDING = topLevel("v1.RoleBinding", { subjects: atomicList(SUBJECT), roleRef: ROLE_REF });
const CLUSTER_ROLE_BINDING = topLevel("v1.ClusterRoleBinding", { subjects: atomicList(SUBJECT), roleRef: ROLE_REF });

/** SetDefaults_RoleBinding / SetDefaults_Subject. */
function defaultBinding(obj: Obj): void {
  const ref = asObj(obj.roleRef);
  if (ref && !ref.apiGroup) ref.apiGroup = GROUP;
  for (const s of Array.isArray(obj.subjects) ? obj.subjects : []) {
    if (!isObj(s) || s.apiGroup) continue;
    if (s.kind === "User" || s.kind === "Group") s.apiGroup = GROUP;
  }
}

function validateRules(obj: Obj, namespaced: boolean, errs: FieldError[]): void {
  const rules = Array.isArray(obj.rules) ? obj.rules : [];
  rules.forEach((r, i) => {
    const rule = asObj(r) ?? {};
    const path = `rules[${i}]`;
    const list = (k: string) => (Array.isArray(rule[k]) ? (rule[k] as unknown[]) : []);
    if (list("verbs").length === 0) errs.push({ type: "Required", field: `${path}.verbs`, detail: "verbs must contain at least one value" });
    if (namespaced && list("nonResourceURLs").length > 0) {
      errs.push({ type: "Invalid", field: `${path}.nonResourceURLs`, value: list("nonResourceURLs"), detail: "namespaced rules cannot apply to non-resource URLs" });
    }
    if (list("nonResourceURLs").length > 0 && (list("resources").length > 0 || list("apiGroups").length > 0 || list("resourceNames").length > 0)) {
      errs.push({ type: "Invalid", field: `${path}.nonResourceURLs`, value: list("nonResourceURLs"), detail: "rules cannot apply to both regular resources and non-resource URLs" });
    } else if (list("nonResourceURLs").length === 0) {
      if (list("resources").length === 0) errs.push({ type: "Required", field: `${path}.resources`, detail: "resource rules must supply at least one resource" });
      if (list("apiGroups").length === 0) errs.push({ type: "Required", field: `${path}.apiGroups`, detail: "resource rules must supply at least one api group" });
    }
  });
}

function validateBinding(obj: Obj, old: Obj | undefined, errs: FieldError[], namespaced: boolean): void {
  const ref = asObj(obj.roleRef) ?? {};
  if (ref.apiGroup !== GROUP) errs.push({ type: "NotSupported", field: "roleRef.apiGroup", value: ref.apiGroup ?? "", detail: `supported values: "${GROUP}"` });
  const kinds = namespaced ? ["Role", "ClusterRole"] : ["ClusterRole"];
  if (!kinds.includes(asStr(ref.kind) ?? "")) {
    errs.push({ type: "NotSupported", field: "roleRef.kind", value: ref.kind ?? "", detail: `supported values: ${kinds.map((k) => JSON.stringify(k)).join(", ")}` });
  }
  if (!asStr(ref.name)) errs.push({ type: "Required", field: "roleRef.name" });
  (Array.isArray(obj.subjects) ? obj.subjects : []).forEach((s, i) => {
    const sub = asObj(s) ?? {};
    const path = `subjects[${i}]`;
    if (!asStr(sub.name)) errs.push({ type: "Required", field: `${path}.name` });
    switch (sub.kind) {
      case "ServiceAccount":
        if (sub.apiGroup) errs.push({ type: "NotSupported", field: `${path}.apiGroup`, value: sub.apiGroup, detail: 'supported values: ""' });
        if (!namespaced && !asStr(sub.namespace)) errs.push({ type: "Required", field: `${path}.namespace` });
        break;
      case "User":
      case "Group":
        if (sub.apiGroup !== GROUP) errs.push({ type: "NotSupported", field: `${path}.apiGroup`, value: sub.apiGroup ?? "", detail: `supported values: "${GROUP}"` });
        break;
      default:
        errs.push({ type: "NotSupported", field: `${path}.kind`, value: sub.kind ?? "", detail: 'supported values: "ServiceAccount", "User", "Group"' });
    }
  });
  if (old && !deepEqual(old.roleRef, obj.roleRef)) errs.push({ type: "Invalid", field: "roleRef", value: obj.roleRef, detail: "cannot change roleRef" });
}

const createdAtColumns = (): Column[] => [nameCol, { name: "Created At", type: "date", description: AGE_DESC, priority: 0, cell: (o) => asStr(asObj(o.metadata)?.creationTimestamp) ?? "" }];

function subjectsOf(o: Obj, kind: string): string {
  const out = (Array.isArray(o.subjects) ? o.subjects : [])
    .map(asObj)
    .filter((s): s is Obj => s?.kind === kind)
    .map((s) => (kind === "ServiceAccount" ? `${String(s.namespace ?? "")}/${String(s.name)}` : String(s.name)));
  return out.join(", ");
}

const bindingColumns = (): Column[] => [
  nameCol,
  col("Role", "string", "RoleRef is the reference to the role that this binding is bound to.", (o) => `${String(asObj(o.roleRef)?.kind ?? "")}/${String(asObj(o.roleRef)?.name ?? "")}`),
  ageCol,
  col("Users", "string", "Users in the binding", (o) => subjectsOf(o, "User"), 1),
  col("Groups", "string", "Groups in the binding", (o) => subjectsOf(o, "Group"), 1),
  col("ServiceAccounts", "string", "ServiceAccounts in the binding", (o) => subjectsOf(o, "ServiceAccount"), 1),
];

export const RBAC_KINDS: KindSupport[] = [
  {
    type: { group: GROUP, version: "v1", resource: "roles", kind: "Role", namespaced: true, schema: ROLE },
    validate: (obj, _old, errs) => validateRules(obj, true, errs),
    columns: createdAtColumns,
  },
  {
    type: { group: GROUP, version: "v1", resource: "clusterroles", kind: "ClusterRole", namespaced: false, schema: CLUSTER_ROLE },
    validate: (obj, _old, errs) => validateRules(obj, false, errs),
    columns: createdAtColumns,
  },
  {
    type: { group: GROUP, version: "v1", resource: "rolebindings", kind: "RoleBinding", namespaced: true, schema: ROLE_BINDING },
    defaults: defaultBinding,
    emptyShape: () => ({ metadata: { creationTimestamp: null }, roleRef: { apiGroup: "", kind: "", name: "" } }),
    validate: (obj, old, errs) => validateBinding(obj, old, errs, true),
    columns: bindingColumns,
  },
  {
    type: { group: GROUP, version: "v1", resource: "clusterrolebindings", kind: "ClusterRoleBinding", namespaced: false, schema: CLUSTER_ROLE_BINDING },
    defaults: defaultBinding,
    emptyShape: () => ({ metadata: { creationTimestamp: null }, roleRef: { apiGroup: "", kind: "", name: "" } }),
    validate: (obj, old, errs) => validateBinding(obj, old, errs, false),
    columns: bindingColumns,
  },
];
