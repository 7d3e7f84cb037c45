// meta.k8s.io/v1 Table output (server-side printing) for `kubectl get`.
import { builtinKindSupport } from "./kinds";
import { jsonPathResults } from "./jsonpath";
import { asNum, asObj, asStr, getIn, isObj, now as clockNow, type Obj } from "./json";
import type { ResourceType } from "./registry";
import { AGE_DESC, ageCol, col, humanDuration, nameCol, type Column } from "./table-columns";

export { humanDuration };

function containers(o: Obj): Obj[] {
  const c = getIn(o, ["spec", "template", "spec", "containers"]);
  return Array.isArray(c) ? c.filter(isObj) : [];
}

function selectorText(sel: unknown): string {
  const ml = asObj(asObj(sel)?.matchLabels) ?? {};
  const parts = Object.keys(ml)
    .sort()
    .map((k) => `${k}=${String(ml[k])}`);
  return parts.length > 0 ? parts.join(",") : "<none>";
}

function servicePorts(o: Obj): string {
  const ports = getIn(o, ["spec", "ports"]);
  if (!Array.isArray(ports) || ports.length === 0) return "<none>";
  return ports
    .filter(isObj)
    .map((p) => `${String(p.port)}${p.nodePort ? `:${String(p.nodePort)}` : ""}/${String(p.protocol ?? "TCP")}`)
    .join(",");
}

function builtinColumns(kind: string): Column[] {
  switch (kind) {
    case "ConfigMap":
      return [nameCol, col("Data", "integer", "Number of data entries", (o) => Object.keys(asObj(o.data) ?? {}).length + Object.keys(asObj(o.binaryData) ?? {}).length), ageCol];
    case "Secret":
      return [
        nameCol,
        col("Type", "string", "The type of the secret", (o) => asStr(o.type) ?? ""),
        col("Data", "string", "The number of entries in the secret", (o) => Object.keys(asObj(o.data) ?? {}).length),
        ageCol,
      ];
    case "Namespace":
      return [nameCol, col("Status", "string", "The status of the namespace", (o) => asStr(getIn(o, ["status", "phase"])) ?? ""), ageCol];
    case "ServiceAccount":
      return [nameCol, col("Secrets", "string", "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.", (o) => (Array.isArray(o.secrets) ? o.secrets.length : 0)), ageCol];
    case "Service":
      return [
        nameCol,
        col("Type", "string", "The type of the service.", (o) => asStr(getIn(o, ["spec", "type"])) ?? ""),
        col("Cluster-IP", "string", "The cluster IP of the service.", (o) => asStr(getIn(o, ["spec", "clusterIP"])) ?? "<none>"),
        col("External-IP", "string", "The external IP of the service.", (o) => {
          const ext = getIn(o, ["spec", "externalIPs"]);
          if (Array.isArray(ext) && ext.length > 0) return ext.join(",");
          if (getIn(o, ["spec", "type"]) === "LoadBalancer") return "<pending>";
          if (getIn(o, ["spec", "type"]) === "ExternalName") return asStr(getIn(o, ["spec", "externalName"])) ?? "<none>";
          return "<none>";
        }),
        col("Port(s)", "string", "The ports of the service.", servicePorts),
        ageCol,
        col("Selector", "string", "The selector of the service.", (o) => {
          const s = asObj(getIn(o, ["spec", "selector"]));
          return s ? Object.keys(s).sort().map((k) => `${k}=${String(s[k])}`).join(",") : "<none>";
        }, 1),
      ];
    case "Deployment":
      return [
        nameCol,
        col("Ready", "string", "Number of the pod with ready state", (o) => `${asNum(getIn(o, ["status", "readyReplicas"])) ?? 0}/${asNum(getIn(o, ["spec", "replicas"])) ?? 0}`),
        col("Up-to-date", "integer", "Total number of non-terminated pods targeted by this deployment that have the desired template spec.", (o) => asNum(getIn(o, ["status", "updatedReplicas"])) ?? 0),
        col("Available", "integer", "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.", (o) => asNum(getIn(o, ["status", "availableReplicas"])) ?? 0),
        ageCol,
        col("Containers", "string", "Names of each container in the template.", (o) => containers(o).map((c) => String(c.name)).join(","), 1),
        col("Images", "string", "Images referenced by each container in the template.", (o) => containers(o).map((c) => String(c.image)).join(","), 1),
        col("Selector", "string", "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.", (o) => selectorText(getIn(o, ["spec", "selector"])), 1),
      ];
    case "StatefulSet":
      return [
        nameCol,
        col("Ready", "string", "Number of the pod with ready state", (o) => `${asNum(getIn(o, ["status", "readyReplicas"])) ?? 0}/${asNum(getIn(o, ["spec", "replicas"])) ?? 0}`),
        ageCol,
        col("Containers", "string", "Names of each container in the template.", (o) => containers(o).map((c) => String(c.name)).join(","), 1),
        col("Images", "string", "Images referenced by each container in the template.", (o) => containers(o).map((c) => String(c.image)).join(","), 1),
      ];
    case "Ingress":
      return [
        nameCol,
        col("Class", "string", "The name of the IngressClass resource that should be used", (o) => asStr(getIn(o, ["spec", "ingressClassName"])) ?? "<none>"),
        col("Hosts", "string", "Hosts that incoming requests are matched against before the ingress rule", (o) => {
          const rules = getIn(o, ["spec", "rules"]);
          const hosts = Array.isArray(rules) ? rules.map((r) => asStr(asObj(r)?.host)).filter(Boolean) : [];
          return hosts.length > 0 ? hosts.join(",") : "*";
        }),
        col("Address", "string", "Address is a list containing ingress points for the load-balancer", () => ""),
        col("Ports", "string", "Ports of TLS configurations that open", (o) => (Array.isArray(getIn(o, ["spec", "tls"])) ? "80, 443" : "80")),
        ageCol,
      ];
    case "HorizontalPodAutoscaler":
      return [
        nameCol,
        col("Reference", "string", "reference to target resource", (o) => {
          const ref = asObj(getIn(o, ["spec", "scaleTargetRef"])) ?? {};
          return `${String(ref.kind ?? "")}/${String(ref.name ?? "")}`;
        }),
        col("Targets", "string", "current and target resource utilization", (o) => {
          const metrics = getIn(o, ["spec", "metrics"]);
          const parts = (Array.isArray(metrics) ? metrics : []).map((m) => {
            const r = asObj(asObj(m)?.resource);
            const t = asObj(r?.target);
            if (r && t?.type === "Utilization") return `${String(r.name)}: <unknown>/${String(t.averageUtilization)}%`;
            if (r && t) return `${String(r.name)}: <unknown>/${String(t.averageValue ?? t.value ?? "")}`;
            return "<unknown>";
          });
          return parts.length > 0 ? parts.join(", ") : "<none>";
        }),
        col("MinPods", "string", "lower limit for the number of pods that can be set by the autoscaler", (o) => String(asNum(getIn(o, ["spec", "minReplicas"])) ?? 1)),
        col("MaxPods", "integer", "upper limit for the number of pods that can be set by the autoscaler", (o) => asNum(getIn(o, ["spec", "maxReplicas"])) ?? 0),
        col("Replicas", "integer", "current number of replicas of pods managed by this autoscaler", (o) => asNum(getIn(o, ["status", "currentReplicas"])) ?? 0),
        ageCol,
      ];
    default:
      return [
        nameCol,
        { name: "Created At", type: "date", description: AGE_DESC, priority: 0, cell: (o) => asStr(asObj(o.metadata)?.creationTimestamp) ?? "" },
      ];
  }
}

function jsonPathValue(o: Obj, path: string): unknown {
  try {
    return jsonPathResults(o, path)[0];
  } catch {
    return undefined;
  }
}

function customColumns(rt: ResourceType): Column[] {
  const cols: Column[] = [nameCol];
  for (const pc of rt.printerColumns ?? []) {
    cols.push({
      name: pc.name,
      type: pc.type,
      format: pc.format,
      description: pc.description ?? `Custom resource definition column (in JSONPath format): ${pc.jsonPath}`,
      priority: pc.priority ?? 0,
      cell: (o, now) => {
        const v = jsonPathValue(o, pc.jsonPath);
        if (v === undefined || v === null) return null;
        if (pc.type === "date") return typeof v === "string" ? humanDuration(now - Date.parse(v)) : null;
        if (pc.type === "string") return typeof v === "string" ? v : JSON.stringify(v);
        return v;
      },
    });
  }
  return cols;
}

function partialMeta(o: Obj): Obj {
  return { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: asObj(o.metadata) ?? {} };
}

export interface TableOptions {
  noHeaders?: boolean;
  includeObject?: "None" | "Object" | "Metadata";
  tableVersion?: "v1" | "v1beta1";
}

export function toTable(rt: ResourceType, objs: Obj[], listMeta: Obj, opts: TableOptions): Obj {
  const now = clockNow().getTime();
  const cols = rt.builtin ? (builtinKindSupport(rt.kind)?.columns?.() ?? builtinColumns(rt.kind)) : customColumns(rt);
  const table: Obj = { kind: "Table", apiVersion: `meta.k8s.io/${opts.tableVersion ?? "v1"}`, metadata: listMeta };
  if (!opts.noHeaders) {
    table.columnDefinitions = cols.map((c) => {
      const d: Obj = { name: c.name, type: c.type, format: c.format ?? "", description: c.description, priority: c.priority };
      return d;
    });
  } else {
    table.columnDefinitions = null;
  }
  table.rows = objs.map((o) => {
    const row: Obj = { cells: cols.map((c) => c.cell(o, now)) };
    const inc = opts.includeObject ?? "Metadata";
    if (inc === "Object") row.object = o;
    else if (inc === "Metadata") row.object = partialMeta(o);
    return row;
  });
  return table;
}
