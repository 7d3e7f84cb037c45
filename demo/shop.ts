// The demo's application: a small shop (api, web, worker, redis, config,
// a Secret, an HPA) whose manifests evolve release by release. Each
// environment has its own folder in Git; promotions copy a release forward.
import { stringify } from "yaml";

export interface ShopRelease {
  /** Image tags per component. */
  api: string;
  web: string;
  worker: string;
  /** Feature flags and settings that land in the api ConfigMap. */
  settings: Record<string, string>;
  apiReplicas: number;
  workerReplicas: number;
  apiMemory: string;
  webReplicas: number;
  /** Bumped when the API credentials are rotated (the value itself is demo data). */
  credentialsVersion: number;
  /** Env vars of the api container. */
  apiEnv: Record<string, string>;
  /** Extra env vars of the worker container. */
  workerEnv: Record<string, string>;
}

export const FIRST_RELEASE: ShopRelease = {
  api: "1.4.0",
  web: "2.1.0",
  worker: "1.4.0",
  settings: { CHECKOUT_PROVIDER: "stripe", CART_TTL: "30m", LOG_LEVEL: "info" },
  apiReplicas: 3,
  workerReplicas: 2,
  apiMemory: "512Mi",
  webReplicas: 2,
  credentialsVersion: 1,
  apiEnv: { LOG_FORMAT: "json" },
  workerEnv: {},
};

const NS = "shop";

function labels(app: string) {
  return { "app.kubernetes.io/name": app, "app.kubernetes.io/part-of": "shop" };
}

function deployment(name: string, image: string, replicas: number | null, opts: { port?: number; env?: Record<string, string>; memory?: string; envFrom?: string[] } = {}) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: NS, labels: labels(name) },
    spec: {
      ...(replicas === null ? {} : { replicas }),
      selector: { matchLabels: { "app.kubernetes.io/name": name } },
      template: {
        metadata: { labels: labels(name) },
        spec: {
          containers: [
            {
              name,
              image: `registry.example.com/shop/${name}:${image}`,
              ...(opts.port ? { ports: [{ name: "http", containerPort: opts.port }] } : {}),
              ...(opts.env ? { env: Object.entries(opts.env).map(([k, v]) => ({ name: k, value: v })) } : {}),
              ...(opts.envFrom ? { envFrom: opts.envFrom.map((n) => (n.endsWith("-credentials") ? { secretRef: { name: n } } : { configMapRef: { name: n } })) } : {}),
              resources: { requests: { cpu: "0.25", memory: opts.memory ?? "256Mi" }, limits: { memory: opts.memory ?? "256Mi" } },
            },
          ],
        },
      },
    },
  };
}

function service(name: string, port: number, targetPort?: string | number) {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: NS, labels: labels(name) },
    spec: { selector: { "app.kubernetes.io/name": name }, ports: [{ name: "http", port, ...(targetPort !== undefined ? { targetPort } : {}) }] },
  };
}

/** The files of one environment's folder for a release: path → YAML text. */
export function shopFiles(release: ShopRelease, envName: string): Record<string, string> {
  const doc = (...objs: object[]) => objs.map((o) => stringify(o, { lineWidth: 0 })).join("---\n");
  const host = envName === "production" ? "shop.example.com" : `${envName}.shop.example.com`;
  return {
    "namespace.yaml": doc({ apiVersion: "v1", kind: "Namespace", metadata: { name: NS, labels: { "app.kubernetes.io/part-of": "shop" } } }),
    "api.yaml": doc(
      deployment("api", release.api, null, { port: 8080, env: release.apiEnv, memory: release.apiMemory, envFrom: ["api-config", "api-credentials"] }),
      service("api", 80, "http"),
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "api-config", namespace: NS, labels: labels("api") },
        data: { ...release.settings, ENVIRONMENT: envName },
      },
      // The api's replica count belongs to its HPA, so Git leaves spec.replicas out.
      {
        apiVersion: "autoscaling/v2",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "api", namespace: NS },
        spec: {
          scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "api" },
          minReplicas: release.apiReplicas,
          maxReplicas: 12,
          metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } } }],
        },
      },
      {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "api-credentials", namespace: NS, labels: labels("api") },
        type: "Opaque",
        // Demo data only: a made-up value that shows Driftwatch never reveals Secret contents.
        stringData: { PAYMENT_API_KEY: `demo-${envName}-key-v${release.credentialsVersion}`, DATABASE_PASSWORD: `demo-${envName}-db-v${release.credentialsVersion}` },
      },
    ),
    "web.yaml": doc(
      deployment("web", release.web, release.webReplicas, { port: 3000, env: { API_URL: "http://api.shop.svc" } }),
      service("web", 80, 3000),
      {
        apiVersion: "networking.k8s.io/v1",
        kind: "Ingress",
        metadata: { name: "web", namespace: NS },
        spec: { rules: [{ host, http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "web", port: { number: 80 } } } }] } }] },
      },
    ),
    "worker.yaml": doc(
      deployment("worker", release.worker, release.workerReplicas, { env: { QUEUE: "orders", CONCURRENCY: "4", ...release.workerEnv }, envFrom: ["api-config"] }),
    ),
    "redis.yaml": doc(
      {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        metadata: { name: "redis", namespace: NS, labels: labels("redis") },
        spec: {
          serviceName: "redis",
          replicas: 1,
          selector: { matchLabels: { "app.kubernetes.io/name": "redis" } },
          template: {
            metadata: { labels: labels("redis") },
            spec: { containers: [{ name: "redis", image: "redis:7.2", ports: [{ name: "redis", containerPort: 6379 }], resources: { requests: { cpu: "100m", memory: "128Mi" } } }] },
          },
        },
      },
      service("redis", 6379),
    ),
  };
}
