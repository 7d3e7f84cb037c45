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

/** The shop's services: each one its own application in production (a Flux Kustomization) and staging (an Argo CD Application). */
export const SERVICES = ["api", "web", "worker", "redis"] as const;
export type Service = (typeof SERVICES)[number];

const FLUX_KS = "kustomize.toolkit.fluxcd.io/v1";
const doc = (...objs: object[]) => objs.map((o) => stringify(o, { lineWidth: 0 })).join("---\n");
const fluxKustomization = (name: string, path: string, extra: Record<string, unknown> = {}, annotations?: Record<string, string>) => ({
  apiVersion: FLUX_KS,
  kind: "Kustomization",
  metadata: { name, namespace: "flux-system", ...(annotations ? { annotations } : {}) },
  spec: { interval: "10m", path, prune: true, sourceRef: { kind: "GitRepository", name: "flux-system" }, ...extra },
});

/**
 * Production's part of the repository, in the layout Flux documents for a
 * multi-cluster repository: clusters/production (what `flux bootstrap` commits
 * and the Kustomizations it points at), infrastructure/{controllers,configs},
 * and apps/production/<service>, each service its own Kustomization. Every
 * folder is plain manifests (no kustomization.yaml), so neither the demo nor
 * Driftwatch needs a kustomize binary for it. The per-service Kustomizations
 * live in apps/production/flux/ rather than in apps/production itself: Flux's
 * generated kustomization takes sub-folders too, and the apps Kustomization
 * would otherwise apply every service's manifests a second time.
 */
export function productionFiles(release: ShopRelease, repoUrl: string): Record<string, string> {
  const shop = shopFiles(release, "production");
  const files: Record<string, string> = {
    "clusters/production/flux-system/gotk-sync.yaml": doc(
      {
        apiVersion: "source.toolkit.fluxcd.io/v1",
        kind: "GitRepository",
        metadata: { name: "flux-system", namespace: "flux-system" },
        spec: { interval: "1m", url: repoUrl, ref: { branch: "main" }, secretRef: { name: "flux-system" } },
      },
      fluxKustomization("flux-system", "./clusters/production"),
    ),
    "clusters/production/infrastructure.yaml": doc(
      fluxKustomization("infra-controllers", "./infrastructure/controllers", { wait: true }),
      fluxKustomization("infra-configs", "./infrastructure/configs", { dependsOn: [{ name: "infra-controllers" }] }),
    ),
    "clusters/production/apps.yaml": doc(fluxKustomization("apps", "./apps/production/flux", { dependsOn: [{ name: "infra-configs" }] })),
    // ingress-nginx is released by helm-controller from its chart; the HelmRelease is the fifth kind of application production holds.
    "infrastructure/controllers/ingress-nginx.yaml": doc(
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "ingress-nginx" } },
      {
        apiVersion: "source.toolkit.fluxcd.io/v1",
        kind: "HelmRepository",
        metadata: { name: "ingress-nginx", namespace: "flux-system" },
        spec: { interval: "24h", url: "https://kubernetes.github.io/ingress-nginx" },
      },
      {
        apiVersion: "helm.toolkit.fluxcd.io/v2",
        kind: "HelmRelease",
        metadata: { name: "ingress-nginx", namespace: "ingress-nginx" },
        spec: {
          interval: "30m",
          chart: { spec: { chart: "ingress-nginx", version: "4.11.3", sourceRef: { kind: "HelmRepository", name: "ingress-nginx", namespace: "flux-system" } } },
          values: { controller: { replicaCount: 2 } },
        },
      },
    ),
    "infrastructure/configs/shop-namespace.yaml": shop["namespace.yaml"] ?? "",
    "infrastructure/configs/shop-quota.yaml": doc({
      apiVersion: "v1",
      kind: "ResourceQuota",
      metadata: { name: "shop", namespace: "shop" },
      spec: { hard: { "requests.cpu": "16", "requests.memory": "32Gi", pods: "60" } },
    }),
    "apps/production/flux/services.yaml": doc(...SERVICES.map((s) => fluxKustomization(`shop-${s}`, `./apps/production/${s}`, {}, { "driftwatch.io/application": s }))),
  };
  for (const s of SERVICES) files[`apps/production/${s}/${s}.yaml`] = shop[`${s}.yaml`] ?? "";
  return files;
}

/** Staging's part: an Argo CD app-of-apps. The root Application's path holds the namespace and one child Application per service. */
export function stagingFiles(release: ShopRelease, repoUrl: string): Record<string, string> {
  const shop = shopFiles(release, "staging");
  const files: Record<string, string> = { "envs/staging/apps/namespace.yaml": shop["namespace.yaml"] ?? "" };
  for (const s of SERVICES) {
    files[`envs/staging/apps/${s}.yaml`] = doc({
      apiVersion: "argoproj.io/v1alpha1",
      kind: "Application",
      metadata: { name: `staging-${s}`, namespace: "argocd", annotations: { "driftwatch.io/application": s } },
      spec: {
        project: "default",
        source: { repoURL: repoUrl, path: `envs/staging/${s}`, targetRevision: "main" },
        destination: { server: "https://kubernetes.default.svc", namespace: "shop" },
        syncPolicy: { automated: { prune: true, selfHeal: true }, syncOptions: ["ServerSideApply=true"] },
      },
    });
    files[`envs/staging/${s}/${s}.yaml`] = shop[`${s}.yaml`] ?? "";
  }
  return files;
}

/** One environment's files in the repository for a release. */
export function environmentFiles(release: ShopRelease, envName: "test" | "staging" | "production", repoUrl: string): Record<string, string> {
  if (envName === "production") return productionFiles(release, repoUrl);
  if (envName === "staging") return stagingFiles(release, repoUrl);
  const files: Record<string, string> = {};
  for (const [f, text] of Object.entries(shopFiles(release, envName))) files[`envs/${envName}/${f}`] = text;
  return files;
}
