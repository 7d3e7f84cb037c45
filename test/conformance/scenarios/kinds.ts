// Secrets, Service address and port allocation, and the defaults the server
// adds to every built-in kind GitOps repositories commonly carry: what the
// collector reads back and must not report as drift.
import { tlsMaterial } from "@driftwatch/kubesim";
import type { Scenario } from "../harness";
import type { Target } from "../target";
import { createNamespace } from "./support";

const NS = "kinds";

async function post(t: Target, collection: string, body: Record<string, unknown>) {
  return t.http("POST", collection, { body });
}

const podSpec = {
  containers: [
    {
      name: "app",
      image: "registry.example.com/app:1.0",
      ports: [{ containerPort: 8080, name: "http" }],
      env: [{ name: "A", value: "1" }, { name: "FROM_FIELD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
      resources: { limits: { cpu: "0.5", memory: "1024Mi" }, requests: { cpu: "250m", memory: "0.5Gi" } },
      readinessProbe: { httpGet: { path: "/ready", port: "http" } },
      livenessProbe: { tcpSocket: { port: 8080 }, initialDelaySeconds: 5 },
      volumeMounts: [{ name: "cfg", mountPath: "/etc/app" }, { name: "secret", mountPath: "/etc/secret" }, { name: "scratch", mountPath: "/tmp" }],
      securityContext: { runAsNonRoot: true },
    },
    { name: "sidecar", image: "busybox", command: ["sleep", "infinity"] },
  ],
  initContainers: [{ name: "init", image: "busybox:1.36", command: ["true"] }],
  volumes: [
    { name: "cfg", configMap: { name: "settings" } },
    { name: "secret", secret: { secretName: "creds" } },
    { name: "scratch", emptyDir: {} },
  ],
};

const template = (app: string) => ({ metadata: { labels: { app } }, spec: podSpec });

/** One minimal manifest per kind, as a repository would carry it: [resource collection, body]. */
const KINDS: Array<[string, string, Record<string, unknown>]> = [
  ["Deployment", `/apis/apps/v1/namespaces/${NS}/deployments`, { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { selector: { matchLabels: { app: "web" } }, template: template("web") } }],
  [
    "StatefulSet",
    `/apis/apps/v1/namespaces/${NS}/statefulsets`,
    {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "db" },
      spec: {
        serviceName: "db",
        selector: { matchLabels: { app: "db" } },
        template: template("db"),
        volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1024Mi" } } } }],
      },
    },
  ],
  ["DaemonSet", `/apis/apps/v1/namespaces/${NS}/daemonsets`, { apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name: "agent" }, spec: { selector: { matchLabels: { app: "agent" } }, template: template("agent") } }],
  ["Job", `/apis/batch/v1/namespaces/${NS}/jobs`, { apiVersion: "batch/v1", kind: "Job", metadata: { name: "migrate" }, spec: { template: { spec: { ...podSpec, restartPolicy: "Never" } } } }],
  ["CronJob", `/apis/batch/v1/namespaces/${NS}/cronjobs`, { apiVersion: "batch/v1", kind: "CronJob", metadata: { name: "nightly" }, spec: { schedule: "0 3 * * *", jobTemplate: { spec: { template: { spec: { ...podSpec, restartPolicy: "OnFailure" } } } } } }],
  ["Service", `/api/v1/namespaces/${NS}/services`, { apiVersion: "v1", kind: "Service", metadata: { name: "web" }, spec: { selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: "http" }] } }],
  [
    "Ingress",
    `/apis/networking.k8s.io/v1/namespaces/${NS}/ingresses`,
    {
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      metadata: { name: "web" },
      spec: { ingressClassName: "nginx", tls: [{ hosts: ["web.example.com"], secretName: "web-tls" }], rules: [{ host: "web.example.com", http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "web", port: { number: 80 } } } }] } }] },
    },
  ],
  ["ConfigMap", `/api/v1/namespaces/${NS}/configmaps`, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings" }, data: { mode: "live" }, binaryData: { blob: "AAEC" } }],
  ["Secret", `/api/v1/namespaces/${NS}/secrets`, { apiVersion: "v1", kind: "Secret", metadata: { name: "creds" }, stringData: { password: "hunter2" } }],
  ["PersistentVolumeClaim", `/api/v1/namespaces/${NS}/persistentvolumeclaims`, { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }],
  ["ServiceAccount", `/api/v1/namespaces/${NS}/serviceaccounts`, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "deployer" } }],
  ["Role", `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`, { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: "reader" }, rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }] }],
  [
    "RoleBinding",
    `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`,
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding", metadata: { name: "reader" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "reader" }, subjects: [{ kind: "ServiceAccount", name: "deployer", namespace: NS }] },
  ],
  ["ClusterRole", "/apis/rbac.authorization.k8s.io/v1/clusterroles", { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "conformance-reader" }, rules: [{ apiGroups: ["apps"], resources: ["deployments"], verbs: ["get"] }] }],
  [
    "ClusterRoleBinding",
    "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding", metadata: { name: "conformance-reader" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "conformance-reader" }, subjects: [{ kind: "User", name: "alice", apiGroup: "rbac.authorization.k8s.io" }] },
  ],
  [
    "NetworkPolicy",
    `/apis/networking.k8s.io/v1/namespaces/${NS}/networkpolicies`,
    { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: { name: "web" }, spec: { podSelector: { matchLabels: { app: "web" } }, ingress: [{ from: [{ podSelector: {} }], ports: [{ port: 8080 }] }] } },
  ],
  ["PodDisruptionBudget", `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`, { apiVersion: "policy/v1", kind: "PodDisruptionBudget", metadata: { name: "web" }, spec: { minAvailable: 1, selector: { matchLabels: { app: "web" } } } }],
  [
    "HorizontalPodAutoscaler",
    `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`,
    { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", metadata: { name: "web" }, spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, minReplicas: 2, maxReplicas: 5 } },
  ],
  ["ResourceQuota", `/api/v1/namespaces/${NS}/resourcequotas`, { apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "compute" }, spec: { hard: { "requests.cpu": "4", "limits.memory": "8192Mi", pods: "10" } } }],
  ["LimitRange", `/api/v1/namespaces/${NS}/limitranges`, { apiVersion: "v1", kind: "LimitRange", metadata: { name: "defaults" }, spec: { limits: [{ type: "Container", default: { cpu: "500m" }, defaultRequest: { cpu: "0.1" } }] } }],
];

export const kindScenarios: Scenario[] = [
  {
    name: "Secrets",
    async run(t, rec) {
      const ns = "secrets";
      await createNamespace(t, ns);
      const base = `/api/v1/namespaces/${ns}/secrets`;
      rec.http("stringData becomes data", await post(t, base, { metadata: { name: "plain" }, stringData: { password: "hunter2" }, data: { user: Buffer.from("admin").toString("base64") } }));
      rec.http("TLS Secret without its keys", await post(t, base, { metadata: { name: "tls" }, type: "kubernetes.io/tls", data: {} }));
      const pem = tlsMaterial();
      const b64 = (s: string) => Buffer.from(s).toString("base64");
      rec.http("TLS Secret", await post(t, base, { metadata: { name: "tls" }, type: "kubernetes.io/tls", data: { "tls.crt": b64(pem.certPem), "tls.key": b64(pem.keyPem) } }));
      rec.http("docker config Secret with bad JSON", await post(t, base, { metadata: { name: "pull" }, type: "kubernetes.io/dockerconfigjson", data: { ".dockerconfigjson": Buffer.from("{").toString("base64") } }));
      rec.http("data that is not base64", await post(t, base, { metadata: { name: "bad64" }, data: { k: "not base64!" } }));
      rec.http("bad data key", await post(t, base, { metadata: { name: "badkey" }, stringData: { "bad key": "x" } }));
      rec.http("immutable Secret", await post(t, base, { metadata: { name: "frozen" }, immutable: true, stringData: { k: "v" } }));
      rec.http("changing an immutable Secret", await t.http("PATCH", `${base}/frozen`, { contentType: "application/merge-patch+json", body: { stringData: { k: "changed" } } }));
      rec.http("changing a Secret's type", await t.http("PATCH", `${base}/plain`, { contentType: "application/merge-patch+json", body: { type: "kubernetes.io/basic-auth" } }));
      rec.http("list by type", await t.http("GET", `${base}?fieldSelector=type%3Dkubernetes.io%2Ftls`));
      rec.kubectl("kubectl create secret generic", await t.kubectl(["-n", ns, "create", "secret", "generic", "made", "--from-literal=token=abc"]));
      rec.kubectl("kubectl get secret", await t.kubectl(["-n", ns, "get", "secret", "made", "-o", "json", "--show-managed-fields"]), "json");
      rec.kubectl("kubectl get secrets", await t.kubectl(["-n", ns, "get", "secrets"]));
    },
  },
  {
    name: "Service allocation",
    async run(t, rec) {
      const ns = "services";
      await createNamespace(t, ns);
      const base = `/api/v1/namespaces/${ns}/services`;
      const svc = (name: string, spec: Record<string, unknown>) => post(t, base, { metadata: { name }, spec });
      rec.http("ClusterIP", await svc("cluster-ip", { selector: { app: "a" }, ports: [{ port: 80 }, { name: "metrics", port: 9090, targetPort: "metrics", protocol: "TCP" }] }));
      rec.http("unnamed ports", await svc("unnamed", { ports: [{ port: 80 }, { port: 81 }] }));
      rec.http("headless", await svc("headless", { clusterIP: "None", selector: { app: "a" }, ports: [{ port: 5432 }] }));
      rec.http("NodePort", await svc("node-port", { type: "NodePort", selector: { app: "a" }, ports: [{ port: 80 }] }));
      rec.http("NodePort at a chosen port", await svc("node-port-fixed", { type: "NodePort", selector: { app: "a" }, ports: [{ port: 80, nodePort: 30080 }] }));
      rec.http("NodePort already taken", await svc("node-port-taken", { type: "NodePort", selector: { app: "a" }, ports: [{ port: 80, nodePort: 30080 }] }));
      rec.http("NodePort out of range", await svc("node-port-range", { type: "NodePort", ports: [{ port: 80, nodePort: 80 }] }));
      rec.http("LoadBalancer", await svc("load-balancer", { type: "LoadBalancer", selector: { app: "a" }, ports: [{ port: 443, targetPort: 8443 }] }));
      rec.http("ExternalName", await svc("external", { type: "ExternalName", externalName: "db.example.com" }));
      rec.http("no ports", await svc("no-ports", { selector: { app: "a" } }));
      rec.http("change of type to ClusterIP keeps the address", await t.http("PATCH", `${base}/node-port`, { contentType: "application/merge-patch+json", body: { spec: { type: "ClusterIP" } } }));
      rec.kubectl("kubectl get services", await t.kubectl(["-n", ns, "get", "services"]));
      rec.kubectl("kubectl create service", await t.kubectl(["-n", ns, "create", "service", "clusterip", "made", "--tcp=80:8080"]));
      rec.kubectl("created service", await t.kubectl(["-n", ns, "get", "service", "made", "-o", "json"]), "json");
      const ips = await t.http("GET", base);
      const items = (ips.json as { items: Array<{ spec: { clusterIP?: string; clusterIPs?: string[] } }> }).items;
      // Addresses are normalised away; what must hold is that each is distinct and matches clusterIPs.
      rec.json("allocated addresses are distinct", new Set(items.map((i) => i.spec.clusterIP).filter((ip) => ip && ip !== "None")).size === items.filter((i) => i.spec.clusterIP && i.spec.clusterIP !== "None").length);
      rec.json("clusterIPs start with clusterIP", items.every((i) => !i.spec.clusterIP || i.spec.clusterIPs?.[0] === i.spec.clusterIP));
    },
  },
  {
    name: "defaults of built-in kinds",
    async run(t, rec) {
      await createNamespace(t, NS);
      for (const [kind, collection, body] of KINDS) {
        const created = await post(t, collection, body);
        rec.http(kind, created);
        const name = (body.metadata as { name: string }).name;
        // What a later read shows (the collector reads, it does not create).
        rec.http(`${kind} read back`, await t.http("GET", `${collection}/${name}`));
      }
    },
  },
];
