// Zero false drift on real public GitOps repositories (test/fixtures/real-repos):
// each application is rendered the way its controller renders it — written out
// here by hand, independently of Driftwatch's renderer — and applied to a real
// kube-apiserver with real kubectl the way the controller applies it (Flux:
// server-side apply as kustomize-controller, with its labels, commonMetadata,
// inventory and status; Argo CD: client-side `kubectl apply` as argocd-controller
// with its tracking annotation, or server-side where the Application says so).
// The collector then finds no drift at all; real kubectl edits are found and
// attributed to the manager the server recorded.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProcess } from "@/test/support/run-process";
import { parseAllDocuments, stringify } from "yaml";
import { startRealKube, type RealKube } from "@/tools/realkube/cluster";
import { TestRepo } from "@/lib/git/test-support/repo-fixture";
import { parseConfig, type DriftwatchConfig } from "@/lib/config";
import { getPrisma } from "@/lib/db";
import type { PrismaClient } from "@/lib/db/generated/client";
import { resetDatabase } from "@/lib/db/testing";
import { syncConfigToDatabase } from "@/lib/collector";
import { ARGO_APPLICATION_CRD, collectOnce, openDriftOf } from "../support/argo-collect";
import { requiredKubectl } from "../support/required-tools";

type Obj = Record<string, unknown>;
const kubectlBin = requiredKubectl();
const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/real-repos");
const FLUX_CRDS = path.resolve(import.meta.dirname, "../fixtures/flux-crds");

interface FluxApp {
  controller: "flux";
  name: string;
  repo: string;
  path: string;
  namespaces: string[];
  /** The Kustomization's render options (also written into its spec in the cluster). */
  spec?: Obj;
  /** Not in Git: the Kustomization object is made by hand in the cluster (otherwise another app applies it). */
  createKustomization?: boolean;
  /** The kustomization.yaml kustomize-controller builds from, when it generates or rewrites one. */
  kustomization?: string;
  commonLabels?: Record<string, string>;
}

interface ArgoApp {
  controller: "argocd";
  name: string;
  repo: string;
  path: string;
  destination: string;
  source: Obj;
  serverSide?: boolean;
  /** Directory sources: the files Argo CD reads, in its order. */
  files?: string[];
  /** Kustomize sources with options: the kustomization after Argo CD's `kustomize edit` commands (at HEAD). */
  kustomization?: string | (() => string);
  /** `.argocd-source-<app>.yaml` as Argo CD Image Updater commits it. */
  imageUpdaterOverride?: string;
  /** Where the Application lives when not in Argo CD's own namespace (apps in any namespace): tracking ids then name it `<namespace>_<name>`. */
  appNamespace?: string;
  /** The Application's spec.ignoreDifferences. */
  ignoreDifferences?: Obj[];
  /** Argo CD's `application.resourceTrackingMethod: label` (its 2.x default): the instance label instead of the annotation. */
  labelTracking?: boolean;
}

type App = FluxApp | ArgoApp;

const argoNamespace = (app: ArgoApp) => app.appNamespace ?? "argocd";
/** Argo CD's instance name: the app's name, prefixed with its namespace outside the control-plane namespace. */
const argoInstance = (app: ArgoApp) => (app.appNamespace ? `${app.appNamespace}_${app.name}` : app.name);
const argoAppOf = (name: string) => APPS.find((a): a is ArgoApp => a.controller === "argocd" && a.name === name)!;

const APPS: App[] = [
  {
    // A Flux bootstrap folder: no kustomization.yaml, so Flux generates one listing flux-system (a nested
    // kustomization whose patches change the controllers' args and the Kustomization) and the two files.
    controller: "flux",
    name: "flux-system",
    repo: "flux2-multi-tenancy",
    path: "clusters/staging",
    namespaces: ["flux-system"],
    kustomization: "resources:\n- ./flux-system\n- ./infrastructure.yaml\n- ./tenants.yaml\n",
  },
  {
    // An overlay over a base, with a strategic-merge patch file and a namespace.
    controller: "flux",
    name: "tenants",
    repo: "flux2-multi-tenancy",
    path: "tenants/staging",
    namespaces: ["apps"],
  },
  {
    // An overlay over four bases with configMapGenerators (hashed and unhashed names), a LabelTransformer,
    // a StatefulSet, a PVC, CronJobs and HPAs; the Kustomization sets an image tag and common metadata.
    controller: "flux",
    name: "podinfo-dev",
    repo: "podinfo",
    path: "deploy/overlays/dev",
    namespaces: ["dev"],
    createKustomization: true,
    spec: { images: [{ name: "ghcr.io/stefanprodan/podinfo", newTag: "6.14.0" }], commonMetadata: { labels: { "owner.example.com/team": "web" }, annotations: { "example.com/on-call": "#web-oncall" } } },
    kustomization: [
      "apiVersion: kustomize.config.k8s.io/v1beta1",
      "kind: Kustomization",
      "namespace: dev",
      "resources:\n- ../../bases/backend\n- ../../bases/frontend\n- ../../bases/cache\n- ../../bases/database\n- namespace.yaml",
      "transformers:\n- labels.yaml",
      "images:\n- name: ghcr.io/stefanprodan/podinfo\n  newTag: 6.14.0",
      "",
    ].join("\n"),
    commonLabels: { "owner.example.com/team": "web" },
  },
  {
    // A plain folder of folders, no kustomization.yaml: Flux lists every manifest in walk order; the
    // Kustomization patches the HPAs.
    controller: "flux",
    name: "webapp",
    repo: "podinfo",
    path: "deploy/webapp",
    namespaces: ["webapp"],
    createKustomization: true,
    spec: { targetNamespace: "webapp", patches: [{ patch: "- op: replace\n  path: /spec/minReplicas\n  value: 2\n", target: { kind: "HorizontalPodAutoscaler" } }] },
    kustomization: [
      "namespace: webapp",
      "resources:",
      ...["backend/deployment.yaml", "backend/hpa.yaml", "backend/service.yaml", "common/namespace.yaml", "common/reconciler-rbac.yaml", "common/service-account.yaml", "frontend/deployment.yaml", "frontend/hpa.yaml", "frontend/service.yaml"].map((f) => `- ./${f}`),
      "patches:",
      "- patch: |\n    - op: replace\n      path: /spec/minReplicas\n      value: 2\n  target:\n    kind: HorizontalPodAutoscaler",
      "",
    ].join("\n"),
  },
  {
    // kustomize-controller's own test kustomization: every transformer field, a configMap and a secret
    // generator feeding a replacement, and a ResourceQuota of quantities; the Kustomization adds postBuild.
    controller: "flux",
    name: "transformers",
    repo: "kustomize-controller",
    path: "internal/controller/testdata/transformers",
    namespaces: ["transformers-inline"],
    createKustomization: true,
    spec: { postBuild: { substitute: { NAMESPACE: "transformers-inline" } } },
  },
  {
    // The same as builtin generator and transformer files, synced by Argo CD with client-side apply
    // (so the generated Secret's values also sit in the last-applied annotation).
    controller: "argocd",
    name: "file-transformer",
    repo: "kustomize-controller",
    path: "internal/controller/testdata/file-transformer",
    destination: "transformer-files",
    source: {},
  },
  {
    // An Argo CD directory source over one folder per environment: recurse, and exclude the other environment.
    controller: "argocd",
    name: "guestbook-dev",
    repo: "argo-cd",
    path: "applicationset/examples/applications-sync-policies/guestbook",
    destination: "guestbook-dev",
    source: { directory: { recurse: true, exclude: "engineering-prod/*" } },
    appNamespace: "team-guestbook",
    files: ["engineering-dev/guestbook-ui-deployment.yaml", "engineering-dev/guestbook-ui-svc.yaml"],
  },
  {
    controller: "argocd",
    name: "guestbook-prod",
    repo: "argo-cd",
    path: "applicationset/examples/applications-sync-policies/guestbook",
    destination: "guestbook-prod",
    source: { directory: { recurse: true, include: "{engineering-prod/*.yaml,README.md}" } },
    files: ["engineering-prod/guestbook-ui-deployment.yaml", "engineering-prod/guestbook-ui-svc.yaml"],
    labelTracking: true,
  },
  {
    // podinfo's kustomize folder with Argo CD's kustomize options (prefix, image, labels, namespace).
    controller: "argocd",
    name: "podinfo-argo",
    repo: "podinfo",
    path: "kustomize",
    destination: "podinfo-argo",
    source: {
      kustomize: {
        namePrefix: "argo-",
        images: ["ghcr.io/stefanprodan/podinfo:6.13.0"],
        replicas: [{ name: "podinfo", count: "2" }],
        // Labels end up in selectors, which cannot change: the revision goes into an annotation.
        commonLabels: { "app.kubernetes.io/part-of": "demo", "example.com/argo-app": "${ARGOCD_APP_NAME}" },
        commonAnnotations: { "example.com/source": "${ARGOCD_APP_SOURCE_PATH}@${ARGOCD_APP_REVISION_SHORT}" },
        commonAnnotationsEnvsubst: true,
        namespace: "podinfo-argo",
        patches: [{ target: { kind: "Service" }, patch: "- op: add\n  path: /spec/sessionAffinity\n  value: ClientIP\n" }],
      },
    },
    // The HPA owns the replica count once running: Argo CD is told not to compare it.
    ignoreDifferences: [{ group: "apps", kind: "Deployment", jsonPointers: ["/spec/replicas"] }],
    // Argo CD Image Updater's write-back (committed in beforeAll) replaces the Application's image list.
    imageUpdaterOverride: "kustomize:\n  images:\n  - ghcr.io/stefanprodan/podinfo:6.13.1\n",
    kustomization: () =>
      [
        "apiVersion: kustomize.config.k8s.io/v1beta1",
        "kind: Kustomization",
        "resources:\n- hpa.yaml\n- deployment.yaml\n- service.yaml",
        "namePrefix: argo-",
        "images:\n- name: ghcr.io/stefanprodan/podinfo\n  newTag: 6.13.1",
        "replicas:\n- name: podinfo\n  count: 2",
        "commonLabels:\n  app.kubernetes.io/part-of: demo\n  example.com/argo-app: podinfo-argo",
        `commonAnnotations:\n  example.com/source: "kustomize@${repos.get("podinfo")!.head().slice(0, 7)}"`,
        "namespace: podinfo-argo",
        "patches:\n- target:\n    kind: Service\n  patch: |\n    - op: add\n      path: /spec/sessionAffinity\n      value: ClientIP",
        "",
      ].join("\n"),
  },
  {
    // A kustomization made only of a component, synced with ServerSideApply=true.
    controller: "argocd",
    name: "components",
    repo: "argo-cd",
    path: "util/kustomize/testdata/kustomization_yaml_components",
    destination: "components",
    source: {},
    serverSide: true,
  },
];

let kube: RealKube;
let workDir: string;
const repos = new Map<string, TestRepo>();
let db: PrismaClient;
let config: DriftwatchConfig;

const run = runProcess;

async function kubectl(args: string[], input = ""): Promise<string> {
  const r = await run(kubectlBin, ["--kubeconfig", kube.kubeconfigPath, ...args], input);
  if (r.status !== 0) throw new Error(`kubectl ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout;
}

function filesUnder(dir: string, rel = ""): string[] {
  return fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const p = rel ? `${rel}/${e.name}` : e.name;
    return e.isDirectory() ? filesUnder(dir, p) : [p];
  });
}

/** A real repository holding the fixture's files at their original paths (its attribution README left out). */
function repoFromFixture(name: string): TestRepo {
  const repo = TestRepo.create(`real-${name}`);
  const from = path.join(FIXTURES, name);
  for (const file of filesUnder(from)) if (file !== "README.md") repo.write(file, fs.readFileSync(path.join(from, file)));
  repo.commit(`${name}: manifests as published`);
  return repo;
}

function docs(text: string): Obj[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Obj | null)
    .filter((d): d is Obj => !!d && typeof d === "object");
}

function meta(o: Obj): { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> } {
  return o.metadata as never;
}

function groupOf(apiVersion: unknown): string {
  const v = String(apiVersion);
  return v.includes("/") ? v.slice(0, v.indexOf("/")) : "";
}

const CLUSTER_SCOPED = new Set(["Namespace", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition"]);

/** `kustomize build` of the app's folder in a scratch copy of its repository, with the controller's kustomization written first. */
async function kustomizeBuild(app: App): Promise<Obj[]> {
  const scratch = fs.mkdtempSync(path.join(workDir, `build-${app.name}-`));
  fs.cpSync(repos.get(app.repo)!.dir, scratch, { recursive: true, filter: (src) => !src.endsWith("/.git") });
  if (app.kustomization) fs.writeFileSync(path.join(scratch, app.path, "kustomization.yaml"), typeof app.kustomization === "function" ? app.kustomization() : app.kustomization);
  const r = await run(kubectlBin, ["kustomize", path.join(scratch, app.path)]);
  if (r.status !== 0) throw new Error(`kustomize build of ${app.name} failed: ${r.stderr}`);
  return docs(r.stdout);
}

/** What the controller applies for the app at HEAD. */
async function rendered(app: App): Promise<Obj[]> {
  if (app.controller === "argocd" && app.files) {
    const dir = path.join(repos.get(app.repo)!.dir, app.path);
    return app.files.flatMap((f) => docs(fs.readFileSync(path.join(dir, f), "utf8")));
  }
  return kustomizeBuild(app);
}

/** The pod spec of a workload kind, where Flux's normaliser looks for one. */
function podSpecOf(o: Obj): Obj | undefined {
  const spec = o.spec as Obj | undefined;
  if (o.kind === "Pod") return spec;
  if (o.kind === "CronJob") return ((((spec?.jobTemplate as Obj | undefined)?.spec as Obj | undefined)?.template as Obj | undefined)?.spec as Obj | undefined) ?? undefined;
  if (["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"].includes(String(o.kind))) return (spec?.template as Obj | undefined)?.spec as Obj | undefined;
  return undefined;
}

/**
 * fluxcd/pkg ssa/normalize before applying: protocol TCP on the ports of
 * containers (not init containers) and Services, and a Secret's stringData
 * moved into data.
 */
function fluxNormalised(o: Obj): Obj {
  const copy = structuredClone(o);
  const withProtocol = (ports: unknown) => {
    for (const p of Array.isArray(ports) ? (ports as Obj[]) : []) p.protocol ??= "TCP";
  };
  for (const c of ((podSpecOf(copy)?.containers as Obj[] | undefined) ?? [])) withProtocol(c.ports);
  if (copy.kind === "Service") withProtocol((copy.spec as Obj | undefined)?.ports);
  if (copy.kind === "Secret" && copy.stringData) {
    const data = { ...((copy.data as Record<string, string> | undefined) ?? {}) };
    for (const [k, v] of Object.entries(copy.stringData as Record<string, string>)) data[k] = Buffer.from(v).toString("base64");
    copy.data = data;
    delete copy.stringData;
  }
  return copy;
}

/** As kustomize-controller does after the build: its owner labels and spec.commonMetadata on every object, then its normaliser. */
function asFluxApplies(app: FluxApp, objects: Obj[]): Obj[] {
  const common = (app.spec?.commonMetadata ?? {}) as { labels?: Record<string, string>; annotations?: Record<string, string> };
  return objects.map(fluxNormalised).map((o) => {
    const m = meta(o);
    return {
      ...o,
      metadata: {
        ...m,
        labels: { ...m.labels, ...common.labels, "kustomize.toolkit.fluxcd.io/name": app.name, "kustomize.toolkit.fluxcd.io/namespace": "flux-system" },
        ...(common.annotations || m.annotations ? { annotations: { ...m.annotations, ...common.annotations } } : {}),
      },
    };
  });
}

/** As Argo CD does before applying: the destination namespace on namespaced objects without one, and its tracking annotation. */
function asArgoApplies(app: ArgoApp, objects: Obj[]): Obj[] {
  return objects.map((o) => {
    const m = meta(o);
    const namespace = CLUSTER_SCOPED.has(String(o.kind)) ? undefined : (m.namespace ?? app.destination);
    if (app.labelTracking) return { ...o, metadata: { ...m, ...(namespace ? { namespace } : {}), labels: { ...m.labels, "app.kubernetes.io/instance": argoInstance(app) } } };
    const trackingId = `${argoInstance(app)}:${groupOf(o.apiVersion)}/${String(o.kind)}:${namespace ?? ""}/${m.name}`;
    return { ...o, metadata: { ...m, ...(namespace ? { namespace } : {}), annotations: { ...m.annotations, "argocd.argoproj.io/tracking-id": trackingId } } };
  });
}

/**
 * What kube-controller-manager writes after an apply (this cluster runs only the API server): the
 * deployment controller's revision annotation, a PVC bound by the volume controller, and for each
 * Service the Endpoints (its labels copied, no owner) and EndpointSlice (labels copied, owned by the
 * Service) the endpoint controllers make.
 */
async function asControllerManagerWould(objects: Obj[]): Promise<void> {
  const asKcm = ["--field-manager=kube-controller-manager"];
  for (const o of objects) {
    const { name, namespace, labels } = meta(o);
    const ns = ["-n", namespace!];
    if (o.kind === "Deployment") {
      await kubectl([...ns, "patch", "deployment", name, ...asKcm, "--type=merge", "-p", JSON.stringify({ metadata: { annotations: { "deployment.kubernetes.io/revision": "1" } } })]);
    } else if (o.kind === "PersistentVolumeClaim") {
      const live = JSON.parse(await kubectl([...ns, "get", "pvc", name, "-o", "json"])) as { metadata: { uid: string }; spec: { volumeName?: string } };
      if (live.spec.volumeName) continue;
      const bound = {
        metadata: { annotations: { "pv.kubernetes.io/bind-completed": "yes", "pv.kubernetes.io/bound-by-controller": "yes", "volume.beta.kubernetes.io/storage-provisioner": "rancher.io/local-path", "volume.kubernetes.io/storage-provisioner": "rancher.io/local-path" } },
        spec: { volumeName: `pvc-${live.metadata.uid}` },
      };
      await kubectl([...ns, "patch", "pvc", name, ...asKcm, "--type=merge", "-p", JSON.stringify(bound)]);
    } else if (o.kind === "Service") {
      const svc = JSON.parse(await kubectl([...ns, "get", "service", name, "-o", "json"])) as { metadata: { uid: string; labels?: Record<string, string> }; spec: { ports: Array<{ name?: string; port: number; protocol: string }> } };
      const copied = svc.metadata.labels ?? labels ?? {};
      const endpoints = { apiVersion: "v1", kind: "Endpoints", metadata: { name, namespace, labels: { ...copied, "endpoints.kubernetes.io/managed-by": "endpoint-controller" } } };
      const slice = {
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        metadata: {
          name: `${name}-x7k2q`,
          namespace,
          labels: { ...copied, "kubernetes.io/service-name": name, "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io" },
          ownerReferences: [{ apiVersion: "v1", kind: "Service", name, uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true }],
        },
        addressType: "IPv4",
        endpoints: [],
        ports: svc.spec.ports.map((p) => ({ name: p.name ?? "", port: p.port, protocol: p.protocol })),
      };
      await kubectl(["apply", "--server-side", ...asKcm, "--force-conflicts", "-f", "-"], yamlOf([endpoints, slice]));
    }
  }
}

const yamlOf = (objects: Obj[]) => objects.map((o) => stringify(o)).join("---\n");

/** What each app applied last, for pruning (both controllers here prune what a new revision no longer renders). */
const appliedBefore = new Map<string, Obj[]>();

async function prune(app: App, objects: Obj[]): Promise<void> {
  const id = (o: Obj) => `${String(o.apiVersion)}/${String(o.kind)}/${meta(o).namespace ?? ""}/${meta(o).name}`;
  const now = new Set(objects.map(id));
  for (const gone of (appliedBefore.get(app.name) ?? []).filter((o) => !now.has(id(o)))) {
    await kubectl(["delete", `${String(gone.kind).toLowerCase()}.${groupOf(gone.apiVersion) || ""}`.replace(/\.$/, ""), meta(gone).name, ...(meta(gone).namespace ? ["-n", meta(gone).namespace!] : [])]);
  }
  appliedBefore.set(app.name, objects);
}

async function applyApp(app: App): Promise<void> {
  const sha = repos.get(app.repo)!.head();
  if (app.controller === "flux") {
    const objects = asFluxApplies(app, await rendered(app));
    await prune(app, objects);
    // kustomize-controller applies Namespaces and CRDs first, then the rest, in one server-side apply each.
    const first = objects.filter((o) => o.kind === "Namespace" || o.kind === "CustomResourceDefinition");
    const rest = objects.filter((o) => !first.includes(o));
    for (const batch of [first, rest]) {
      if (batch.length) await kubectl(["apply", "--server-side", "--field-manager=kustomize-controller", "--force-conflicts", "-f", "-"], yamlOf(batch));
    }
    await asControllerManagerWould(objects);
    // The Flux objects it applied are reconciled in turn: each controller adds its finalizer first.
    for (const o of objects.filter((x) => x.kind === "GitRepository" || x.kind === "Kustomization")) {
      const manager = o.kind === "GitRepository" ? "gotk-source-controller" : "gotk-kustomize-controller";
      const resource = o.kind === "GitRepository" ? "gitrepositories.source.toolkit.fluxcd.io" : "kustomizations.kustomize.toolkit.fluxcd.io";
      await kubectl(["-n", meta(o).namespace!, "patch", resource, meta(o).name, `--field-manager=${manager}`, "--type=merge", "-p", JSON.stringify({ metadata: { finalizers: ["finalizers.fluxcd.io"] } })]);
    }
    const inventory = objects.map((o) => ({ id: `${meta(o).namespace ?? ""}_${meta(o).name}_${groupOf(o.apiVersion)}_${String(o.kind)}`, v: String(o.apiVersion).split("/").pop() }));
    const status = {
      lastAppliedRevision: `main@sha1:${sha}`,
      lastAttemptedRevision: `main@sha1:${sha}`,
      observedGeneration: 1,
      inventory: { entries: inventory },
      conditions: [{ type: "Ready", status: "True", reason: "ReconciliationSucceeded", message: `Applied revision: main@sha1:${sha}`, lastTransitionTime: new Date().toISOString(), observedGeneration: 1 }],
    };
    // kustomize-controller writes its finalizer and status as gotk-kustomize-controller.
    const patch = ["-n", "flux-system", "patch", "kustomizations.kustomize.toolkit.fluxcd.io", app.name, "--field-manager=gotk-kustomize-controller", "--type=merge"];
    await kubectl([...patch, "-p", JSON.stringify({ metadata: { finalizers: ["finalizers.fluxcd.io"] } })]);
    await kubectl([...patch, "--subresource=status", "-p", JSON.stringify({ status })]);
    return;
  }
  const objects = asArgoApplies(app, await rendered(app));
  await prune(app, objects);
  const args = app.serverSide ? ["apply", "--server-side", "--force-conflicts"] : ["apply"];
  await kubectl([...args, "--field-manager=argocd-controller", "-f", "-"], yamlOf(objects));
  await asControllerManagerWould(objects);
  const status = {
    sync: { status: "Synced", revision: sha },
    health: { status: "Healthy" },
    resources: objects.map((o) => ({ group: groupOf(o.apiVersion), version: String(o.apiVersion).split("/").pop(), kind: o.kind, namespace: meta(o).namespace ?? "", name: meta(o).name, status: "Synced" })),
  };
  await kubectl(["-n", argoNamespace(app), "patch", "applications.argoproj.io", app.name, "--field-manager=argocd-application-controller", "--type=merge", "-p", JSON.stringify({ status })]);
}

function controllerObject(app: App): Obj {
  if (app.controller === "flux") {
    return {
      apiVersion: "kustomize.toolkit.fluxcd.io/v1",
      kind: "Kustomization",
      metadata: { name: app.name, namespace: "flux-system" },
      spec: { interval: "10m", path: `./${app.path}`, prune: true, sourceRef: { kind: "GitRepository", name: "flux-system" }, ...app.spec },
    };
  }
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name: app.name, namespace: argoNamespace(app) },
    spec: {
      project: "default",
      source: { repoURL: `https://github.com/example/${app.repo}`, targetRevision: "HEAD", path: app.path, ...app.source },
      destination: { server: "https://kubernetes.default.svc", namespace: app.destination },
      syncPolicy: { automated: { prune: true }, syncOptions: app.serverSide ? ["ServerSideApply=true"] : [] },
      ...(app.ignoreDifferences ? { ignoreDifferences: app.ignoreDifferences } : {}),
    },
  };
}

function environmentOf(app: App): Obj {
  const cluster = { kubeconfig: kube.kubeconfigPath, context: "realkube" };
  if (app.controller === "flux") {
    return {
      name: app.name,
      cluster,
      namespaces: app.namespaces,
      defaultNamespace: app.namespaces[0],
      source: { repository: app.repo, branch: "main", path: app.path },
      controller: { type: "flux", namespace: "flux-system", name: app.name },
    };
  }
  return {
    name: app.name,
    cluster,
    namespaces: [app.destination],
    defaultNamespace: app.destination,
    source: { repository: app.repo, branch: "main", path: app.path },
    controller: { type: "argocd", namespace: argoNamespace(app), name: app.name },
    ...(app.labelTracking ? { trackingLabel: `app.kubernetes.io/instance=${app.name}` } : {}),
  };
}

const collect = (envName: string) => collectOnce(db, config, envName, workDir);
const openDrift = (envName: string) => openDriftOf(db, envName);

beforeAll(async () => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-real-repos-"));
  for (const name of ["podinfo", "flux2-multi-tenancy", "argo-cd", "kustomize-controller"]) repos.set(name, repoFromFixture(name));
  for (const app of APPS) {
    if (app.controller !== "argocd" || !app.imageUpdaterOverride) continue;
    repos.get(app.repo)!.write(`${app.path}/.argocd-source-${app.name}.yaml`, app.imageUpdaterOverride).commit(`build: automatic update of ${app.name}`);
  }
  kube = await startRealKube();

  for (const file of fs.readdirSync(FLUX_CRDS).filter((f) => f.endsWith(".yaml"))) await kubectl(["apply", "--server-side", "-f", path.join(FLUX_CRDS, file)]);
  await kubectl(["apply", "--server-side", "-f", "-"], stringify(ARGO_APPLICATION_CRD));
  await kubectl(["wait", "--for=condition=Established", "crd", "--all", "--timeout=60s"]);
  const namespaces = ["flux-system", "argocd", "transformers-inline", ...APPS.flatMap((a) => (a.controller === "argocd" ? [a.destination, argoNamespace(a)] : []))];
  for (const ns of new Set(namespaces)) await kubectl(["create", "namespace", ns]);

  // A default StorageClass, as every real cluster has: the admission plugin writes it into each PVC.
  await kubectl(["apply", "--server-side", "-f", "-"], stringify({ apiVersion: "storage.k8s.io/v1", kind: "StorageClass", metadata: { name: "local-path", annotations: { "storageclass.kubernetes.io/is-default-class": "true" } }, provisioner: "rancher.io/local-path", volumeBindingMode: "WaitForFirstConsumer" }));
  // The bootstrap applies flux-system (which holds the tenants Kustomization); the other controller objects are made by hand.
  for (const app of APPS.filter((a) => a.controller === "argocd" || a.createKustomization)) await kubectl(["apply", "--server-side", "-f", "-"], stringify(controllerObject(app)));
  for (const app of APPS) await applyApp(app);

  config = parseConfig(
    stringify({
      repositories: [...repos].map(([name, repo]) => ({ name, url: repo.dir })),
      environments: APPS.map(environmentOf),
    }),
  );
  db = getPrisma();
  await resetDatabase(db);
  await syncConfigToDatabase(db, config);
}, 180_000);

afterAll(async () => {
  await kube?.stop();
  for (const repo of repos.values()) repo.cleanup();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

describe("real public repositories applied as their controllers apply them", () => {
  it.each(APPS.map((a) => [a.name, a] as const))("%s: the collector finds no drift", async (name, app) => {
    const out = await collect(name);
    expect(out.errors.filter((e) => e.severity !== "warning"), JSON.stringify(out.errors)).toEqual([]);
    expect(out.status).toBe("succeeded");
    const drift = (await openDrift(name)).map((d) => ({ key: d.key, type: d.type, changes: d.changes }));
    expect(drift).toEqual([]);
    // Everything the controller applied was compared, not skipped.
    expect(out.stats?.desired).toBe((await rendered(app)).length);
  }, 120_000);
});

describe("a release: a new commit changes bases and drops fields, and the controllers apply it", () => {
  it("finds no drift once applied, with the new commit as applied revision and pruned objects gone", async () => {
    const podinfo = repos.get("podinfo")!;
    const edit = (file: string, change: (text: string) => string) => {
      const text = fs.readFileSync(path.join(podinfo.dir, file), "utf8");
      const changed = change(text);
      expect(changed).not.toBe(text);
      podinfo.write(file, changed);
    };
    // Every pod annotation dropped from a shared base, a flag changed, a generator input changed (new hashed name).
    edit("deploy/bases/backend/deployment.yaml", (t) => t.replace(/ {6}annotations:\n {8}prometheus\.io\/scrape: "true"\n {8}prometheus\.io\/port: "9797"\n/, "").replace("--level=info", "--level=debug"));
    edit("deploy/bases/cache/redis.conf", (t) => `${t}maxmemory-policy allkeys-lru\n`);
    // The env list and the rolling-update settings dropped from the folder Argo CD syncs client-side.
    edit("kustomize/deployment.yaml", (t) => t.replace(/ {8}env:\n {8}- name: PODINFO_UI_COLOR\n {10}value: "#34577c"\n/, "").replace(/ {4}rollingUpdate:\n {6}maxUnavailable: 0\n/, ""));
    const sha = podinfo.commit("release: debug logging, redis eviction policy, default rollout");
    const apps = APPS.filter((a) => a.name === "podinfo-dev" || a.name === "podinfo-argo");
    for (const app of apps) await applyApp(app);

    for (const app of apps) {
      const out = await collect(app.name);
      expect(out.status, JSON.stringify(out.errors)).toBe("succeeded");
      expect((await openDrift(app.name)).map((d) => ({ key: d.key, type: d.type, changes: d.changes }))).toEqual([]);
      const env = await db.environment.findUniqueOrThrow({ where: { name: app.name } });
      const applied = await db.appliedRevision.findFirst({ where: { environmentId: env.id, endedAt: null } });
      expect(applied?.sha).toBe(sha);
    }
    // What changed really reached the cluster (the release is not a no-op).
    const backend = JSON.parse(await kubectl(["-n", "dev", "get", "deployment", "backend", "-o", "json"])) as { spec: { template: { metadata: { annotations?: unknown } } } };
    expect(backend.spec.template.metadata.annotations).toBeUndefined();
    const configMaps = await kubectl(["-n", "dev", "get", "configmaps", "-o", "name"]);
    expect(configMaps.match(/redis-config-/g)).toHaveLength(1);
  }, 120_000);
});

describe("hand edits with real kubectl on the same cluster", () => {
  // What someone does by hand, per application, and the drift it must leave: [key, type, path shown, manager].
  const edits: Array<{ app: string; edit: string[][]; expect: Array<[string, string, string?, string?]> }> = [
    {
      app: "podinfo-dev",
      edit: [
        ["-n", "dev", "scale", "statefulset", "database-primary", "--replicas=3"],
        // Git leaves the Deployment's replicas to its HPA: scaling it by hand is not a difference from Git.
        ["-n", "dev", "scale", "deployment", "backend", "--replicas=5"],
      ],
      expect: [["apps/StatefulSet/dev/database-primary", "Modified", "spec.replicas", "kubectl"]],
    },
    {
      app: "webapp",
      edit: [["-n", "webapp", "set", "env", "deployment/frontend", "PODINFO_UI_COLOR=#ff0000"]],
      expect: [["apps/Deployment/webapp/frontend", "Modified", "spec.template.spec.containers[name=frontend].env", "kubectl-set"]],
    },
    {
      app: "flux-system",
      // Drops the flag the nested flux-system kustomization patched in.
      edit: [["-n", "flux-system", "patch", "deployment", "kustomize-controller", "--type=json", "-p", '[{"op":"remove","path":"/spec/template/spec/containers/0/args/6"}]']],
      expect: [["apps/Deployment/flux-system/kustomize-controller", "Modified", "spec.template.spec.containers[name=manager].args", "kubectl-patch"]],
    },
    { app: "tenants", edit: [["-n", "apps", "delete", "serviceaccount", "dev-team"]], expect: [["/ServiceAccount/apps/dev-team", "Missing"]] },
    {
      app: "podinfo-argo",
      edit: [
        // The Application ignores /spec/replicas of Deployments (its HPA's business): not drift.
        ["-n", "podinfo-argo", "scale", "deployment", "argo-podinfo", "--replicas=5"],
        ["-n", "podinfo-argo", "patch", "horizontalpodautoscaler", "argo-podinfo", "--type=merge", "-p", '{"spec":{"maxReplicas":9}}'],
      ],
      expect: [["autoscaling/HorizontalPodAutoscaler/podinfo-argo/argo-podinfo", "Modified", "spec.maxReplicas", "kubectl-patch"]],
    },
    {
      app: "components",
      edit: [["-n", "components", "set", "image", "deployment/nginx-deployment", "nginx=nginx:1.16.0"]],
      expect: [["apps/Deployment/components/nginx-deployment", "Modified", "spec.template.spec.containers[name=nginx].image", "kubectl-set"]],
    },
  ];

  it.each(edits.map((e) => [e.app, e] as const))("%s: the edit is drift, attributed to the manager the server recorded", async (name, e) => {
    for (const args of e.edit) await kubectl(args);
    const out = await collect(name);
    expect(out.status, JSON.stringify(out.errors)).toBe("succeeded");
    const drift = await openDrift(name);
    expect(drift.map((d) => [d.key, d.type])).toEqual(e.expect.map(([key, type]) => [key, type]));
    for (const [key, , display, manager] of e.expect) {
      if (!display) continue;
      const changes = (drift.find((d) => d.key === key)?.changes ?? []) as Array<{ display: string; attribution: { manager: string | null } }>;
      expect(changes.map((c) => [c.display, c.attribution.manager])).toContainEqual([expect.stringContaining(display), manager]);
    }
  }, 120_000);

  it.each([
    // guestbook-dev's Application lives in team-guestbook: its tracking ids name it team-guestbook_guestbook-dev.
    ["guestbook-dev", "its tracking annotation", ["annotate", "argocd.argoproj.io/tracking-id=team-guestbook_guestbook-dev:/ConfigMap:guestbook-dev/guestbook-ui-flags"]],
    ["guestbook-prod", "its instance label", ["label", "app.kubernetes.io/instance=guestbook-prod"]],
  ])("%s: a leftover object carrying %s of the Application is Extra, of a kind Git does not declare", async (name, _, mark) => {
    await kubectl(["-n", name, "create", "configmap", "guestbook-ui-flags", "--from-literal=theme=dark"]);
    await kubectl(["-n", name, mark[0]!, "configmap", "guestbook-ui-flags", mark[1]!]);
    // Someone else's ConfigMap in the same namespace is not the environment's business.
    await kubectl(["-n", name, "create", "configmap", "unrelated", "--from-literal=a=b"]);
    // Argo CD's refresh lists the tracked orphan among the Application's resources, as requiring pruning.
    const appNs = argoNamespace(argoAppOf(name));
    const app = JSON.parse(await kubectl(["-n", appNs, "get", "applications.argoproj.io", name, "-o", "json"])) as { status: { resources: Obj[]; sync: Obj } };
    const resources = [...app.status.resources, { version: "v1", kind: "ConfigMap", namespace: name, name: "guestbook-ui-flags", status: "OutOfSync", requiresPruning: true }];
    await kubectl(["-n", appNs, "patch", "applications.argoproj.io", name, "--field-manager=argocd-application-controller", "--type=merge", "-p", JSON.stringify({ status: { resources, sync: { ...app.status.sync, status: "OutOfSync" } } })]);
    const out = await collect(name);
    expect(out.status, JSON.stringify(out.errors)).toBe("succeeded");
    expect((await openDrift(name)).map((d) => [d.key, d.type])).toEqual([[`/ConfigMap/${name}/guestbook-ui-flags`, "Extra"]]);
  }, 120_000);
});
