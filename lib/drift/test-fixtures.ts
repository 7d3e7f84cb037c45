// Realistic objects for tests and the benchmark: desired as rendered from
// Git, live as a real API server returns it after kustomize-controller's
// server-side apply (every default filled in, status, managedFields, the
// deployment revision annotation).

import type { KubeObject, ManagedFieldsEntry } from "./types";

export interface DeploymentSpecInput {
  name?: string;
  namespace?: string;
  image?: string;
  replicas?: number;
  /** Desired spelling of the quantities; live always uses the server's. */
  cpuRequest?: string | number;
  memoryRequest?: string | number;
  memoryLimit?: string | number;
  withSidecar?: boolean;
  applyTime?: string;
}

type Obj = Record<string, unknown>;

export function clone<T>(v: T): T {
  return structuredClone(v);
}

export function desiredDeployment(o: DeploymentSpecInput = {}): KubeObject {
  const name = o.name ?? "api";
  const containers: Obj[] = [
    {
      name: "api",
      image: o.image ?? "registry.example.com/shop/api:1.4.2",
      ports: [{ name: "http", containerPort: 8080 }],
      env: [
        { name: "LOG_LEVEL", value: "info" },
        { name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
      ],
      resources: {
        requests: { cpu: o.cpuRequest ?? "250m", memory: o.memoryRequest ?? "256Mi" },
        limits: { memory: o.memoryLimit ?? "512Mi" },
      },
      readinessProbe: { httpGet: { path: "/healthz", port: "http" } },
      volumeMounts: [{ name: "config", mountPath: "/etc/api" }],
    },
  ];
  if (o.withSidecar !== false) containers.push({ name: "log-shipper", image: "fluent/fluent-bit:latest", args: ["-c", "/fluent-bit/etc/fluent-bit.conf"] });
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: o.namespace ?? "shop", labels: { app: name, "app.kubernetes.io/part-of": "shop" } },
    spec: {
      replicas: o.replicas ?? 3,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          serviceAccountName: name,
          containers,
          volumes: [{ name: "config", configMap: { name: `${name}-config` } }],
        },
      },
    },
  };
}

/** kustomize-controller's Apply entry: exactly the fields of the desired manifest (plus its own labels). */
function kustomizeApplyFields(withSidecar: boolean): Obj {
  const containers: Obj = {
    'k:{"name":"api"}': {
      ".": {},
      "f:env": {
        'k:{"name":"LOG_LEVEL"}': { ".": {}, "f:name": {}, "f:value": {} },
        'k:{"name":"POD_IP"}': { ".": {}, "f:name": {}, "f:valueFrom": { "f:fieldRef": { "f:fieldPath": {} } } },
      },
      "f:image": {},
      "f:name": {},
      "f:ports": { 'k:{"containerPort":8080,"protocol":"TCP"}': { ".": {}, "f:containerPort": {}, "f:name": {} } },
      "f:readinessProbe": { "f:httpGet": { "f:path": {}, "f:port": {} } },
      "f:resources": { "f:limits": { "f:memory": {} }, "f:requests": { "f:cpu": {}, "f:memory": {} } },
      "f:volumeMounts": { 'k:{"mountPath":"/etc/api"}': { ".": {}, "f:mountPath": {}, "f:name": {} } },
    },
  };
  if (withSidecar) containers['k:{"name":"log-shipper"}'] = { ".": {}, "f:args": {}, "f:image": {}, "f:name": {} };
  return {
    "f:metadata": {
      "f:labels": {
        "f:app": {},
        "f:app.kubernetes.io/part-of": {},
        "f:kustomize.toolkit.fluxcd.io/name": {},
        "f:kustomize.toolkit.fluxcd.io/namespace": {},
      },
    },
    "f:spec": {
      "f:replicas": {},
      "f:selector": {},
      "f:template": {
        "f:metadata": { "f:labels": { "f:app": {} } },
        "f:spec": {
          "f:containers": containers,
          "f:serviceAccountName": {},
          "f:volumes": { 'k:{"name":"config"}': { ".": {}, "f:configMap": { "f:name": {} }, "f:name": {} } },
        },
      },
    },
  };
}

export const KCM_STATUS_ENTRY: ManagedFieldsEntry = {
  manager: "kube-controller-manager",
  operation: "Update",
  apiVersion: "apps/v1",
  time: "2024-05-01T10:00:41Z",
  fieldsType: "FieldsV1",
  subresource: "status",
  fieldsV1: {
    "f:status": {
      "f:availableReplicas": {},
      "f:conditions": {
        ".": {},
        'k:{"type":"Available"}': { ".": {}, "f:lastTransitionTime": {}, "f:lastUpdateTime": {}, "f:message": {}, "f:reason": {}, "f:status": {}, "f:type": {} },
        'k:{"type":"Progressing"}': { ".": {}, "f:lastTransitionTime": {}, "f:lastUpdateTime": {}, "f:message": {}, "f:reason": {}, "f:status": {}, "f:type": {} },
      },
      "f:observedGeneration": {},
      "f:readyReplicas": {},
      "f:replicas": {},
      "f:updatedReplicas": {},
    },
  },
};

export const KCM_REVISION_ENTRY: ManagedFieldsEntry = {
  manager: "kube-controller-manager",
  operation: "Update",
  apiVersion: "apps/v1",
  time: "2024-05-01T10:00:40Z",
  fieldsType: "FieldsV1",
  fieldsV1: { "f:metadata": { "f:annotations": { ".": {}, "f:deployment.kubernetes.io/revision": {} } } },
};

/** The same Deployment as the API server returns it after kustomize-controller applied `desiredDeployment(o)`. */
export function liveDeployment(o: DeploymentSpecInput = {}, serial = 1): KubeObject {
  const d = desiredDeployment(o);
  const name = d.metadata.name;
  const withSidecar = o.withSidecar !== false;
  const spec = d.spec as Obj;
  const replicas = spec.replicas as number;
  const containers: Obj[] = [
    {
      name: "api",
      image: o.image ?? "registry.example.com/shop/api:1.4.2",
      imagePullPolicy: "IfNotPresent",
      ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
      env: [
        { name: "LOG_LEVEL", value: "info" },
        { name: "POD_IP", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "status.podIP" } } },
      ],
      // The server returns its own spelling of every quantity.
      resources: { limits: { memory: "512Mi" }, requests: { cpu: "250m", memory: "256Mi" } },
      readinessProbe: {
        failureThreshold: 3,
        httpGet: { path: "/healthz", port: "http", scheme: "HTTP" },
        periodSeconds: 10,
        successThreshold: 1,
        timeoutSeconds: 1,
      },
      terminationMessagePath: "/dev/termination-log",
      terminationMessagePolicy: "File",
      volumeMounts: [{ mountPath: "/etc/api", name: "config" }],
    },
  ];
  if (withSidecar)
    containers.push({
      args: ["-c", "/fluent-bit/etc/fluent-bit.conf"],
      image: "fluent/fluent-bit:latest",
      imagePullPolicy: "Always",
      name: "log-shipper",
      resources: {},
      terminationMessagePath: "/dev/termination-log",
      terminationMessagePolicy: "File",
    });
  const applyTime = o.applyTime ?? "2024-05-01T10:00:00Z";
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      annotations: { "deployment.kubernetes.io/revision": "3" },
      creationTimestamp: "2024-04-02T08:15:00Z",
      generation: 7,
      labels: {
        app: name,
        "app.kubernetes.io/part-of": "shop",
        "kustomize.toolkit.fluxcd.io/name": "shop",
        "kustomize.toolkit.fluxcd.io/namespace": "flux-system",
      },
      managedFields: [
        { manager: "kustomize-controller", operation: "Apply", apiVersion: "apps/v1", time: applyTime, fieldsType: "FieldsV1", fieldsV1: kustomizeApplyFields(withSidecar) },
        clone(KCM_REVISION_ENTRY),
        clone(KCM_STATUS_ENTRY),
      ],
      name,
      namespace: d.metadata.namespace,
      resourceVersion: String(1_000_000 + serial),
      uid: `5f0c${String(serial).padStart(4, "0")}-8c1e-4b1a-9d7e-2b5f3c9a${String(serial % 10000).padStart(4, "0")}`,
    },
    spec: {
      progressDeadlineSeconds: 600,
      replicas,
      revisionHistoryLimit: 10,
      selector: { matchLabels: { app: name } },
      strategy: { rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" }, type: "RollingUpdate" },
      template: {
        metadata: { creationTimestamp: null, labels: { app: name } },
        spec: {
          containers,
          dnsPolicy: "ClusterFirst",
          restartPolicy: "Always",
          schedulerName: "default-scheduler",
          securityContext: {},
          serviceAccount: name,
          serviceAccountName: name,
          terminationGracePeriodSeconds: 30,
          volumes: [{ configMap: { defaultMode: 420, name: `${name}-config` }, name: "config" }],
        },
      },
    },
    status: {
      availableReplicas: replicas,
      conditions: [
        {
          lastTransitionTime: "2024-04-02T08:15:30Z",
          lastUpdateTime: "2024-04-02T08:15:30Z",
          message: "Deployment has minimum availability.",
          reason: "MinimumReplicasAvailable",
          status: "True",
          type: "Available",
        },
        {
          lastTransitionTime: "2024-04-02T08:15:00Z",
          lastUpdateTime: "2024-05-01T10:00:41Z",
          message: `ReplicaSet "${name}-7d9c8b6f5" has successfully progressed.`,
          reason: "NewReplicaSetAvailable",
          status: "True",
          type: "Progressing",
        },
      ],
      observedGeneration: 7,
      readyReplicas: replicas,
      replicas,
      updatedReplicas: replicas,
    },
  };
}

export function managedFieldsOf(obj: KubeObject): ManagedFieldsEntry[] {
  return (obj.metadata.managedFields ??= []);
}

/** Removes `f:` paths from one manager's FieldsV1 (a server transferring ownership on a forced write). */
export function dropOwnership(obj: KubeObject, manager: string, path: string[]): void {
  for (const e of managedFieldsOf(obj)) {
    if (e.manager !== manager) continue;
    let node = e.fieldsV1 as Obj | undefined;
    for (let i = 0; i < path.length - 1; i++) node = node?.[path[i] as string] as Obj | undefined;
    if (node) delete node[path[path.length - 1] as string];
  }
}

export function desiredService(): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "api", namespace: "shop", labels: { app: "api" } },
    spec: {
      selector: { app: "api" },
      ports: [
        { name: "http", port: 80, targetPort: "http" },
        { name: "metrics", port: 9090 },
      ],
    },
  };
}

export function liveService(): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      creationTimestamp: "2024-04-02T08:15:00Z",
      labels: { app: "api", "kustomize.toolkit.fluxcd.io/name": "shop", "kustomize.toolkit.fluxcd.io/namespace": "flux-system" },
      managedFields: [
        {
          manager: "kustomize-controller",
          operation: "Apply",
          apiVersion: "v1",
          time: "2024-05-01T10:00:00Z",
          fieldsType: "FieldsV1",
          fieldsV1: {
            "f:metadata": { "f:labels": { "f:app": {}, "f:kustomize.toolkit.fluxcd.io/name": {}, "f:kustomize.toolkit.fluxcd.io/namespace": {} } },
            "f:spec": {
              "f:ports": {
                'k:{"port":80,"protocol":"TCP"}': { ".": {}, "f:name": {}, "f:port": {}, "f:targetPort": {} },
                'k:{"port":9090,"protocol":"TCP"}': { ".": {}, "f:name": {}, "f:port": {} },
              },
              "f:selector": {},
            },
          },
        },
      ],
      name: "api",
      namespace: "shop",
      resourceVersion: "884211",
      uid: "0b7f3c1e-2d4a-4f7e-9a51-6c2d8e1f0a93",
    },
    spec: {
      clusterIP: "10.96.12.34",
      clusterIPs: ["10.96.12.34"],
      internalTrafficPolicy: "Cluster",
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      ports: [
        { name: "http", port: 80, protocol: "TCP", targetPort: "http" },
        { name: "metrics", port: 9090, protocol: "TCP", targetPort: 9090 },
      ],
      selector: { app: "api" },
      sessionAffinity: "None",
      type: "ClusterIP",
    },
    status: { loadBalancer: {} },
  };
}

export function b64(s: string): string {
  return Buffer.from(s, "utf8").toString("base64");
}

export function secret(data: Record<string, string> | undefined, stringData?: Record<string, string>, managedFields?: ManagedFieldsEntry[]): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "db-credentials", namespace: "shop", ...(managedFields ? { managedFields } : {}) },
    type: "Opaque",
    ...(data ? { data } : {}),
    ...(stringData ? { stringData } : {}),
  };
}
