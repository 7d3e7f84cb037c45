// The applications an environment declares in driftwatch.yaml (its
// `applications:` list, or today's single `source:` as one application named
// "default"; an environment that only discovers declares none), as ApplicationSpecs; and, for any application, declared or
// discovered, the environment as that application's render path sees it
// (its source, controller and tracking label in place of the environment's).
import { DEFAULT_APPLICATION_NAME, type ApplicationEnvironment, type DeclaredApplicationConfig, type EnvironmentConfig, type RepositoryConfig } from "@/lib/config/schema";
import { redactUrl } from "@/lib/collector/sync-config";
import { followedRefOf } from "@/lib/git/followed-ref";
import type { ApplicationKind, ApplicationSpec, ControllerRef } from "./spec";

type ControllerConfig = NonNullable<EnvironmentConfig["controller"]>;

function kindOf(controller: ControllerConfig | undefined): ApplicationKind {
  if (!controller) return "declared";
  return controller.type === "flux" ? "flux-kustomization" : "argocd-application";
}

function controllerRefOf(controller: ControllerConfig | undefined): ControllerRef | undefined {
  if (!controller) return undefined;
  return { type: controller.type, kind: controller.type === "flux" ? "Kustomization" : "Application", namespace: controller.namespace, name: controller.name };
}

/** Today's single `source:` (and `controller:`) as the environment's one application; none without a source (discover only). */
function defaultApplication(env: EnvironmentConfig): DeclaredApplicationConfig[] {
  return env.source ? [{ name: DEFAULT_APPLICATION_NAME, source: env.source, controller: env.controller, promotionKey: DEFAULT_APPLICATION_NAME }] : [];
}

function declaredConfigs(env: EnvironmentConfig): DeclaredApplicationConfig[] {
  return env.applications ?? defaultApplication(env);
}

export function declaredApplications(env: EnvironmentConfig, repositories: readonly RepositoryConfig[]): ApplicationSpec[] {
  return declaredConfigs(env).map((a) => {
    const repo = repositories.find((r) => r.name === a.source.repository);
    const controller = controllerRefOf(a.controller);
    return {
      name: a.name,
      kind: kindOf(a.controller),
      promotionKey: a.promotionKey ?? a.name,
      ...(controller ? { controller } : {}),
      sources: [{ url: repo ? redactUrl(repo.url) : "", repository: a.source.repository, ref: { branch: a.source.branch }, path: a.source.path, render: a.source.render }],
      labels: {},
    };
  });
}

const hasSource = (env: EnvironmentConfig): env is ApplicationEnvironment => env.source !== undefined;

export type ApplicationView = { ok: true; env: ApplicationEnvironment } | { ok: false; reason: string };

/**
 * The environment as one application's collection sees it. Declared
 * applications keep everything driftwatch.yaml says of them (render settings
 * included); a discovered one takes its first source and its controller object.
 * What the render path cannot follow yet is answered with the reason, so the
 * run reports it on that application instead of failing the environment.
 */
/** Where a discovered source is in Git as a collection reads it, or why it cannot be collected yet. */
// Its `branch` is the followed ref (lib/git/follow.ts): a branch name, else a
// full ref the collection points at the tag, range, commit, ref name or default branch's commit each run.
function gitLocation(app: ApplicationSpec, source: ApplicationSpec["sources"][number]): { ok: true; source: ApplicationEnvironment["source"] } | { ok: false; reason: string } {
  if (!source.repository) return { ok: false, reason: `no repository or credential in driftwatch.yaml matches ${source.url}` };
  if (source.ref.digest) return { ok: false, reason: `application ${app.name} follows the OCI artifact ${source.ref.digest}; only Git sources are collected so far` };
  return { ok: true, source: { repository: source.repository, branch: followedRefOf(source.ref), path: source.path, render: source.render } };
}

/**
 * What a view of a chart from a Helm repository or OCI registry names in
 * place of a Git repository: no repository of driftwatch.yaml can be named
 * so (names are lower-case letters, digits and '-').
 */
export const CHART_REPOSITORY = "helm-chart:";

/** A chart source as the collection reads it: its repository, chart and version (or range) where a Git source has its repository, ref and path. */
function chartLocation(source: ApplicationSpec["sources"][number], chart: string): ApplicationEnvironment["source"] {
  const targetRevision = source.ref.tag ?? (source.ref.semver && source.ref.semver !== "*" ? source.ref.semver : "");
  return { repository: CHART_REPOSITORY, branch: targetRevision || "*", path: ".", render: "helm", argocd: { chart: { repoURL: source.url, chart, targetRevision } } };
}

/** Where one source of an application is read from: its Git location, or its chart's (chartOfView). */
export function sourceLocation(app: ApplicationSpec, source: ApplicationSpec["sources"][number]): { ok: true; source: ApplicationEnvironment["source"] } | { ok: false; reason: string } {
  return source.render === "helm" && source.chart ? { ok: true, source: chartLocation(source, source.chart) } : gitLocation(app, source);
}

/** The chart a view follows when it is one from a Helm repository or OCI registry (CHART_REPOSITORY), else null. */
export function chartOfView(view: ApplicationEnvironment): { repoURL: string; chart: string; targetRevision: string } | null {
  return view.source.repository === CHART_REPOSITORY ? (view.source.argocd?.chart ?? null) : null;
}

/**
 * A discovered Flux HelmRelease is collected as a HelmRelease environment is:
 * its desired state is the release in Helm's storage, and its Git side the
 * file declaring it, in the Kustomization that applies it.
 */
function helmReleaseView(env: EnvironmentConfig, app: ApplicationSpec, controller: NonNullable<ApplicationSpec["controller"]>): ApplicationView {
  const git = app.declaredIn;
  if (!git) {
    return { ok: false, reason: `application ${app.name} has no Git side: no Kustomization is known to apply its HelmRelease (no kustomize.toolkit.fluxcd.io/name label naming one it can read), so the Git file declaring it is unknown` };
  }
  const where = gitLocation(app, git);
  if (!where.ok) return where;
  return { ok: true, env: { ...env, source: where.source, controller: { type: "flux", kind: "HelmRelease", namespace: controller.namespace, name: controller.name } } };
}

export function applicationView(env: EnvironmentConfig, app: ApplicationSpec): ApplicationView {
  if (!env.applications && hasSource(env) && app.name === DEFAULT_APPLICATION_NAME) return { ok: true, env };
  const declared = env.applications?.find((a) => a.name === app.name);
  if (declared) {
    return { ok: true, env: { ...env, source: declared.source, controller: declared.controller, trackingLabel: declared.trackingLabel ?? env.trackingLabel } };
  }
  if (app.controller?.kind === "HelmRelease") return helmReleaseView(env, app, app.controller);
  if (app.sources.length === 0) return { ok: false, reason: `application ${app.name} has no source` };
  // Of several sources (Argo CD `spec.sources`) every one must be readable; the first that renders stands for the application
  // where one revision is shown (its approved and applied revision), each source keeps its own.
  const source = app.sources.find((s) => !s.refOnly);
  if (!source) return { ok: false, reason: `application ${app.name} has only ref sources: nothing renders` };
  for (const other of app.sources.length > 1 ? app.sources : []) {
    if (other === source || (other.render === "helm" && other.chart)) continue;
    const readable = gitLocation(app, other);
    if (!readable.ok) return readable;
  }
  // A chart in a Git folder renders as a declared Argo CD Helm source does (its settings read from the Application);
  // a chart from a Helm repository or OCI registry is fetched by Driftwatch, its versions in place of commits.
  const where = sourceLocation(app, source);
  if (!where.ok) return where;
  let controller: ControllerConfig | undefined;
  if (app.controller?.kind === "Kustomization") controller = { type: "flux", kind: "Kustomization", namespace: app.controller.namespace, name: app.controller.name };
  else if (app.controller?.kind === "Application") controller = { type: "argocd", namespace: app.controller.namespace, name: app.controller.name };
  else if (app.controller) return { ok: false, reason: `application ${app.name} is a ${app.controller.kind}; not collected here yet` };
  // Argo CD puts a namespaced object that names no namespace in the Application's destination namespace.
  const defaultNamespace = app.controller?.kind === "Application" ? (app.destination?.namespace ?? env.defaultNamespace) : env.defaultNamespace;
  return {
    ok: true,
    env: { ...env, source: where.source, controller, defaultNamespace },
  };
}
