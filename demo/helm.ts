// A demo helm-controller: what Flux's helm-controller leaves in a cluster,
// through the API only, for the one chart the demo releases (ingress-nginx).
// For every HelmRelease whose chart version or values differ from the release
// it last made (status.history[0]), it renders the chart from the values,
// applies the objects under its field manager, stores the release the way
// Helm does (a `helm.sh/release.v1` Secret per revision, base64 of gzipped
// JSON) and records the revision, chart and config digest in status.history.
// Driftwatch reads exactly those: the release storage is the desired state,
// status.history says whether Git's values have been released.
import zlib from "node:zlib";
import { helmConfigDigest } from "@/lib/helm/config-digest";
import { HELM_RELEASE_SECRET_TYPE } from "@/lib/helm/release-storage";
import { stringify } from "yaml";
import { getObj, listObjs, patchStatus, serverSideApply, setCondition, type DemoKube } from "./kube-writer";

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});

const HELM_API = "helm.toolkit.fluxcd.io/v2";

/** The demo's chart: ingress-nginx's controller Deployment, Service and ServiceAccount, from `controller.replicaCount` and `controller.image.tag`. */
export const INGRESS_NGINX_CHART = { name: "ingress-nginx", version: "4.11.3", appVersion: "1.11.3" } as const;

function renderIngressNginx(release: { name: string; namespace: string }, values: Obj): Obj[] {
  const controller = rec(values.controller);
  const replicas = typeof controller.replicaCount === "number" ? controller.replicaCount : 1;
  const tag = typeof rec(controller.image).tag === "string" ? String(rec(controller.image).tag) : `v${INGRESS_NGINX_CHART.appVersion}`;
  const name = `${release.name}-controller`;
  const selector = { "app.kubernetes.io/name": "ingress-nginx", "app.kubernetes.io/instance": release.name, "app.kubernetes.io/component": "controller" };
  const labels = {
    ...selector,
    "helm.sh/chart": `${INGRESS_NGINX_CHART.name}-${INGRESS_NGINX_CHART.version}`,
    "app.kubernetes.io/version": INGRESS_NGINX_CHART.appVersion,
    "app.kubernetes.io/managed-by": "Helm",
    // helm-controller's post-renderer labels everything it releases with the HelmRelease.
    "helm.toolkit.fluxcd.io/name": release.name,
    "helm.toolkit.fluxcd.io/namespace": release.namespace,
  };
  return [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: release.name, namespace: release.namespace, labels } },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, namespace: release.namespace, labels },
      spec: { type: "ClusterIP", selector, ports: [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }] },
    },
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name, namespace: release.namespace, labels },
      spec: {
        replicas,
        selector: { matchLabels: selector },
        template: {
          metadata: { labels: selector },
          spec: {
            serviceAccountName: release.name,
            containers: [{ name: "controller", image: `registry.k8s.io/ingress-nginx/controller:${tag}`, ports: [{ name: "http", containerPort: 80 }], resources: { requests: { cpu: "100m", memory: "90Mi" } } }],
          },
        },
      },
    },
  ];
}

/** Helm's storage encoding: base64(gzip(JSON)); the API base64-encodes Secret data once more. */
function encodeRelease(release: Obj): string {
  return Buffer.from(zlib.gzipSync(Buffer.from(JSON.stringify(release), "utf8")).toString("base64"), "utf8").toString("base64");
}

function decodeRelease(apiValue: string): Obj {
  return JSON.parse(zlib.gunzipSync(Buffer.from(Buffer.from(apiValue, "base64").toString("latin1"), "base64")).toString("utf8")) as Obj;
}

const secretName = (release: string, version: number) => `sh.helm.release.v1.${release}.v${version}`;

function releaseSecret(release: Obj, namespace: string, status: string, now: string): Obj {
  const name = String(release.name);
  const version = Number(release.version);
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: secretName(name, version), namespace, labels: { name, owner: "helm", status, version: String(version), modifiedAt: String(Math.floor(Date.parse(now) / 1000)) } },
    type: HELM_RELEASE_SECRET_TYPE,
    data: { release: encodeRelease(release) },
  };
}

/** One pass of helm-controller over every HelmRelease in the cluster: install or upgrade what Git changed. */
export async function reconcileHelmReleases(k: DemoKube, now: Date): Promise<void> {
  const nowIso = now.toISOString();
  for (const hr of await listObjs(k, HELM_API, "HelmRelease")) {
    const namespace = String(rec(hr.metadata).namespace);
    const spec = rec(hr.spec);
    const chartSpec = rec(rec(spec.chart).spec);
    const name = String(rec(hr.metadata).name);
    if (spec.suspend === true || chartSpec.chart !== INGRESS_NGINX_CHART.name) continue;
    const values = rec(spec.values);
    const configDigest = helmConfigDigest(values);
    const chartVersion = typeof chartSpec.version === "string" ? chartSpec.version : INGRESS_NGINX_CHART.version;
    const status = rec(hr.status);
    const history = (status.history as Obj[] | undefined) ?? [];
    const last = history[0];
    if (last && last.configDigest === configDigest && last.chartVersion === chartVersion && last.status === "deployed") continue;

    const version = (typeof last?.version === "number" ? last.version : 0) + 1;
    const objects = renderIngressNginx({ name, namespace }, values);
    const manifest = objects.map((o) => `---\n# Source: ingress-nginx/templates/${String(o.kind).toLowerCase()}.yaml\n${stringify(o, { lineWidth: 0 })}`).join("");
    for (const o of objects) {
      const meta = rec(o.metadata);
      // Helm marks what it owns with the release; the stored manifest does not carry these.
      const owned = { ...o, metadata: { ...meta, annotations: { "meta.helm.sh/release-name": name, "meta.helm.sh/release-namespace": namespace } } };
      await serverSideApply(k, owned, "helm-controller");
    }
    if (last) {
      const previous = await getObj(k, "v1", "Secret", namespace, secretName(name, Number(last.version)));
      const encoded = rec(rec(previous).data).release;
      if (typeof encoded === "string") {
        const old = decodeRelease(encoded);
        await serverSideApply(k, releaseSecret({ ...old, info: { ...rec(old.info), status: "superseded" } }, namespace, "superseded", nowIso), "helm-controller");
      }
    }
    const firstDeployed = typeof history[history.length - 1]?.firstDeployed === "string" ? String(history[history.length - 1]?.firstDeployed) : nowIso;
    const action = last ? "Upgrade" : "Install";
    const release = {
      name,
      namespace,
      version,
      info: { status: "deployed", first_deployed: firstDeployed, last_deployed: nowIso, description: `${action} complete` },
      chart: { metadata: { name: INGRESS_NGINX_CHART.name, version: chartVersion, appVersion: INGRESS_NGINX_CHART.appVersion } },
      config: values,
      manifest,
    };
    await serverSideApply(k, releaseSecret(release, namespace, "deployed", nowIso), "helm-controller");

    const snapshot = {
      version,
      name,
      namespace,
      chartName: INGRESS_NGINX_CHART.name,
      chartVersion,
      appVersion: INGRESS_NGINX_CHART.appVersion,
      configDigest,
      digest: `sha256:${configDigest.slice(7, 71)}`,
      status: "deployed",
      firstDeployed,
      lastDeployed: nowIso,
    };
    const message = `Helm ${action.toLowerCase()} succeeded for release ${namespace}/${name}.v${version} with chart ${INGRESS_NGINX_CHART.name}@${chartVersion}`;
    let conditions = (status.conditions as Obj[] | undefined) ?? [];
    conditions = setCondition(conditions, { type: "Ready", status: "True", reason: `${action}Succeeded`, message }, nowIso);
    conditions = setCondition(conditions, { type: "Released", status: "True", reason: `${action}Succeeded`, message }, nowIso);
    await patchStatus(
      k,
      HELM_API,
      "HelmRelease",
      namespace,
      name,
      { observedGeneration: 1, history: [snapshot, ...history.map((h) => ({ ...h, status: "superseded" }))].slice(0, 5), lastAttemptedRevision: chartVersion, lastAttemptedConfigDigest: configDigest, conditions },
      "helm-controller",
    );
  }
}
