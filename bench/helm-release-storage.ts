// Reading Helm's release storage for 300 releases (Flux HelmReleases), as
// lib/helm reads it: one list of Helm's Secrets (owner=helm) per storage
// namespace, grouped by release, the current revision chosen by Helm's labels
// and decoded (base64, gzip, JSON; values reduced to a keyed digest), its
// manifest parsed into objects. Also measured: one release at a time, with
// Helm's own selector (owner=helm,name=<release>): 300 requests, as 300
// single-HelmRelease environments would make them one after another.
// Baseline, same run: a bare list of the same Secrets (one request per
// namespace, JSON parsed, nothing decoded).
//
//   npx tsx bench/helm-release-storage.ts [--releases N] [--revisions N]
//
// Prints one JSON line; the target is ≤ 2 s for 300 releases.
import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import zlib from "node:zlib";
import { stringify } from "yaml";
import { startKubeSim } from "@driftwatch/kubesim";
import { createClusterClient } from "@/lib/kube/client";
import { HELM_RELEASE_SECRET_TYPE, releaseObjects } from "@/lib/helm/release-storage";
import { readCurrentRelease, readCurrentReleases } from "@/lib/helm/release-desired";

export interface HelmReleaseStorageBenchResult {
  releases: number;
  revisionsPerRelease: number;
  secrets: number;
  namespaces: number;
  /** Mean size of one release Secret's `release` value as the API returns it. */
  meanSecretKiB: number;
  objectsDecoded: number;
  /** All 300 releases, one list per namespace. */
  readMs: number;
  /** One release at a time (300 label-selected lists). */
  perReleaseMs: number;
  baselineMs: number;
  ratio: number;
  loadAverage1m: number;
  target: { maxReadMs: number; met: boolean };
}

const NAMESPACES = 10;
const KEY = Buffer.from("bench-secret-key-0123456789abcdef");

/** A release like a small real chart's (podinfo: Deployment, Service, ConfigMap, ServiceAccount), with values. */
function release(name: string, namespace: string, revision: number, deployed: boolean): Record<string, unknown> {
  const labels = { "app.kubernetes.io/name": name, "helm.sh/chart": "web-1.4.2", "helm.toolkit.fluxcd.io/name": name, "helm.toolkit.fluxcd.io/namespace": namespace };
  const objects = [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, labels } },
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `${name}-config`, labels }, data: { "app.yaml": `replicas: ${revision}\nmode: fast\nfeature-flags: [a, b, c]\n`.repeat(8) } },
    { apiVersion: "v1", kind: "Service", metadata: { name, labels }, spec: { selector: { "app.kubernetes.io/name": name }, ports: [{ name: "http", port: 9898, targetPort: "http" }, { name: "grpc", port: 9999, targetPort: "grpc" }] } },
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name, labels },
      spec: {
        replicas: 2,
        selector: { matchLabels: { "app.kubernetes.io/name": name } },
        template: {
          metadata: { labels, annotations: { "prometheus.io/scrape": "true", "prometheus.io/port": "9797" } },
          spec: {
            serviceAccountName: name,
            containers: [
              {
                name: "web",
                image: `ghcr.io/example/web:1.4.${revision}`,
                command: ["./web", "--port=9898", "--port-metrics=9797", "--grpc-port=9999", "--level=info"],
                env: [{ name: "UI_MESSAGE", value: `release ${revision}` }, { name: "UI_COLOR", value: "#34577c" }],
                ports: [{ name: "http", containerPort: 9898 }, { name: "grpc", containerPort: 9999 }, { name: "metrics", containerPort: 9797 }],
                livenessProbe: { httpGet: { path: "/healthz", port: 9898 }, initialDelaySeconds: 1, timeoutSeconds: 5 },
                readinessProbe: { httpGet: { path: "/readyz", port: 9898 }, initialDelaySeconds: 1, timeoutSeconds: 5 },
                resources: { requests: { cpu: "10m", memory: "32Mi" }, limits: { memory: "256Mi" } },
              },
            ],
          },
        },
      },
    },
  ];
  return {
    name,
    namespace,
    version: revision,
    info: { status: deployed ? "deployed" : "superseded", first_deployed: "2026-11-01T10:00:00Z", last_deployed: `2026-11-0${revision}T10:00:00Z`, description: deployed ? "Upgrade complete" : "Superseded" },
    chart: { metadata: { name: "web", version: "1.4.2", appVersion: "1.4.2" }, templates: [], values: { replicaCount: 1 } },
    config: { replicaCount: 2, ui: { message: `release ${revision}` }, db: { password: `not-a-real-password-${name}` } },
    manifest: objects.map((o) => `---\n# Source: web/templates/${String(o.kind).toLowerCase()}.yaml\n${stringify(o)}`).join(""),
  };
}

function releaseSecret(r: Record<string, unknown>, deployed: boolean): Record<string, unknown> {
  // Helm's own encoding (base64 of gzip of JSON); the API adds the second base64 of Secret data.
  const helmEncoded = zlib.gzipSync(Buffer.from(JSON.stringify(r))).toString("base64");
  return {
    apiVersion: "v1",
    kind: "Secret",
    type: HELM_RELEASE_SECRET_TYPE,
    metadata: { name: `sh.helm.release.v1.${String(r.name)}.v${String(r.version)}`, namespace: r.namespace, labels: { owner: "helm", name: r.name, status: deployed ? "deployed" : "superseded", version: String(r.version) } },
    data: { release: Buffer.from(helmEncoded).toString("base64") },
  };
}

export async function main(opts: { releases?: number; revisions?: number } = {}): Promise<HelmReleaseStorageBenchResult> {
  const releases = opts.releases ?? 300;
  const revisions = opts.revisions ?? 3;
  const sim = await startKubeSim({ adminPort: false, controllers: false });
  try {
    const secrets: Array<Record<string, unknown>> = [];
    sim.seed(Array.from({ length: NAMESPACES }, (_, i) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name: `team-${i}` } })));
    const refs: Array<{ releaseName: string; storageNamespace: string }> = [];
    for (let i = 0; i < releases; i++) {
      const name = `web-${String(i).padStart(3, "0")}`;
      const namespace = `team-${i % NAMESPACES}`;
      refs.push({ releaseName: name, storageNamespace: namespace });
      for (let v = 1; v <= revisions; v++) secrets.push(releaseSecret(release(name, namespace, v, v === revisions), v === revisions));
    }
    sim.seed(secrets, { manager: "helm-controller" });
    const meanSecretKiB = secrets.reduce((sum, s) => sum + String((s.data as { release: string }).release).length, 0) / secrets.length / 1024;

    const client = createClusterClient({ kubeconfig: sim.kubeconfigPath }, { timeoutMs: 30_000 });
    const list = async (namespace: string, labelSelector?: string) =>
      (await client.requestJson<{ items?: Array<Record<string, unknown>> }>("GET", `/api/v1/namespaces/${namespace}/secrets`, { query: { labelSelector } })).items ?? [];
    await list("team-0", "owner=helm,name=none"); // connection set up outside both timings

    // Interleaved, best of three each: the machine is shared, the ratio matters.
    const readTimes: number[] = [];
    const perReleaseTimes: number[] = [];
    const baselineTimes: number[] = [];
    let objectsDecoded = 0;
    for (let round = 0; round < 3; round++) {
      let start = performance.now();
      let listed = 0;
      for (let n = 0; n < NAMESPACES; n++) listed += (await list(`team-${n}`)).filter((s) => s.type === HELM_RELEASE_SECRET_TYPE).length;
      baselineTimes.push(performance.now() - start);
      if (listed !== releases * revisions) throw new Error(`listed ${listed} release Secrets, expected ${releases * revisions}`);

      start = performance.now();
      objectsDecoded = 0;
      const all = await readCurrentReleases((ns, selector) => list(ns, selector), refs, KEY);
      for (const ref of refs) {
        const current = all.get(`${ref.storageNamespace}/${ref.releaseName}`)?.current;
        if (!current || current.revision !== revisions) throw new Error(`${ref.releaseName}: wrong current release`);
        objectsDecoded += releaseObjects(current, (_apiVersion, kind) => kind !== "Namespace").length;
      }
      readTimes.push(performance.now() - start);

      start = performance.now();
      for (const ref of refs) {
        const { current } = await readCurrentRelease((ns, selector) => list(ns, selector), ref, KEY);
        if (!current || current.revision !== revisions) throw new Error(`${ref.releaseName}: wrong current release`);
        releaseObjects(current, (_apiVersion, kind) => kind !== "Namespace");
      }
      perReleaseTimes.push(performance.now() - start);
    }
    const readMs = Math.round(Math.min(...readTimes));
    const baselineMs = Math.round(Math.min(...baselineTimes));
    return {
      releases,
      revisionsPerRelease: revisions,
      secrets: secrets.length,
      namespaces: NAMESPACES,
      meanSecretKiB: Math.round(meanSecretKiB * 10) / 10,
      objectsDecoded,
      readMs,
      perReleaseMs: Math.round(Math.min(...perReleaseTimes)),
      baselineMs,
      ratio: Math.round((readMs / Math.max(1, baselineMs)) * 10) / 10,
      loadAverage1m: Number(loadavg()[0]?.toFixed(2) ?? 0),
      target: { maxReadMs: 2000, met: readMs <= 2000 },
    };
  } finally {
    await sim.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({ options: { releases: { type: "string" }, revisions: { type: "string" } } });
  main({ releases: values.releases ? Number(values.releases) : undefined, revisions: values.revisions ? Number(values.revisions) : undefined }).then(
    (r) => {
      console.log(JSON.stringify(r));
      if (!r.target.met) process.exitCode = 1;
    },
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
