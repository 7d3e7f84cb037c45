// A Flux Kustomization or HelmRelease (kustomize.toolkit.fluxcd.io/v1,
// helm.toolkit.fluxcd.io/v2) and the source objects it refers to
// (source.toolkit.fluxcd.io/v1) → an ApplicationSpec. Pure: objects in, spec
// and problems out.
import { rec, str, strMap, type Obj } from "@/lib/git";
import { applicationSpecSchema, type ApplicationSource, type ApplicationSpec, type ControllerRef } from "./spec";
import { chartVersionRef, fluxGitRef, fluxOciRef, normalisePath, promotionKeyOf } from "./refs";

export type FluxSourceKind = "GitRepository" | "OCIRepository" | "HelmRepository" | "HelmChart" | "Bucket" | "ExternalArtifact";

/** The source objects discovery read, and where it could not read them. */
export interface SourceLookup {
  /** The object, "missing" (read, not there) or "unreadable" (the kind or namespace could not be listed). */
  find(kind: string, namespace: string, name: string): Obj | "missing" | "unreadable";
}

export interface TransformOptions {
  /** driftwatch.yaml's repository a URL resolves to, when any (see resolveRepository). */
  repositoryFor(url: string): string | undefined;
  promotionKeys: Record<string, string>;
}

/** Something a user should be told about an application: its source cannot be found or read, or it uses what Driftwatch does not follow. */
export interface TransformProblem {
  code: "source" | "unsupported";
  message: string;
}

export interface TransformResult {
  spec: ApplicationSpec;
  problems: TransformProblem[];
}

const sourceProblem = (message: string): TransformProblem => ({ code: "source", message });
const unsupported = (message: string): TransformProblem => ({ code: "unsupported", message });

export function refOf(obj: Obj): { namespace: string; name: string } {
  const meta = rec(obj.metadata) ?? {};
  return { namespace: str(meta.namespace) ?? "", name: str(meta.name) ?? "" };
}

function describe(kind: string, ref: { namespace: string; name: string }): string {
  return `${kind} ${ref.namespace}/${ref.name}`;
}

/** Resolves a `sourceRef`/`chartRef` (its namespace defaults to the referring object's). */
function lookup(sources: SourceLookup, from: { namespace: string }, ref: Obj | undefined): { kind: string; namespace: string; name: string; found: Obj | "missing" | "unreadable" } | undefined {
  const kind = str(ref?.kind);
  const name = str(ref?.name);
  if (!kind || !name) return undefined;
  const namespace = str(ref?.namespace) || from.namespace;
  return { kind, namespace, name, found: sources.find(kind, namespace, name) };
}

function notFound(owner: string, target: { kind: string; namespace: string; name: string; found: unknown }): TransformProblem {
  return sourceProblem(target.found === "unreadable"
    ? `${owner}: its source ${describe(target.kind, target)} could not be read (the credential may not list ${target.kind} there)`
    : `${owner}: its source ${describe(target.kind, target)} does not exist`);
}

function withRepository(source: Omit<ApplicationSource, "repository">, opts: TransformOptions): ApplicationSource {
  const repository = opts.repositoryFor(source.url);
  return repository ? { ...source, repository } : source;
}

function finish(obj: Obj, kind: "flux-kustomization" | "flux-helmrelease", controller: ControllerRef, sources: ApplicationSource[], opts: TransformOptions): ApplicationSpec {
  const meta = rec(obj.metadata) ?? {};
  return applicationSpecSchema.parse({
    name: `${controller.namespace}/${controller.name}`,
    kind,
    promotionKey: promotionKeyOf(obj, opts.promotionKeys),
    controller,
    sources,
    labels: strMap(meta.labels) ?? {},
  });
}

function remoteClusterProblem(owner: string, spec: Obj): TransformProblem[] {
  // spec.kubeConfig: the controller applies to another cluster than the one it runs in.
  return rec(spec.kubeConfig) ? [unsupported(`${owner} applies to a remote cluster (spec.kubeConfig); its live objects are not in this environment's cluster`)] : [];
}

/** A Kustomization: its source's URL and ref, its `spec.path`, rendered as kustomize-controller builds it. */
export function fluxKustomizationSpec(ks: Obj, sources: SourceLookup, opts: TransformOptions): TransformResult {
  const ref = refOf(ks);
  const owner = describe("Kustomization", ref);
  const spec = rec(ks.spec) ?? {};
  const problems = remoteClusterProblem(owner, spec);
  const controller: ControllerRef = { type: "flux", kind: "Kustomization", ...ref };
  const path = normalisePath(str(spec.path));
  const target = lookup(sources, ref, rec(spec.sourceRef));
  const out: ApplicationSource[] = [];
  if (!target) problems.push(sourceProblem(`${owner} has no spec.sourceRef`));
  else if (typeof target.found === "string") problems.push(notFound(owner, target));
  else if (target.kind === "GitRepository" || target.kind === "OCIRepository") {
    const url = str(rec(target.found.spec)?.url);
    if (!url) problems.push(sourceProblem(`${owner}: its source ${describe(target.kind, target)} has no spec.url`));
    else out.push(withRepository({ url, ref: target.kind === "GitRepository" ? fluxGitRef(target.found) : fluxOciRef(target.found), path, render: "kustomize" }, opts));
  } else problems.push(unsupported(`${owner} follows a ${target.kind}; Driftwatch reads Git repositories, OCI artifacts and Helm charts`));
  return { spec: finish(ks, "flux-kustomization", controller, out, opts), problems };
}

/** The chart a HelmChart object (or a HelmRelease's `chart.spec` template) names, from its source. */
function chartSource(owner: string, chart: Obj, from: { namespace: string }, sources: SourceLookup, opts: TransformOptions, problems: TransformProblem[]): ApplicationSource | undefined {
  const name = str(chart.chart);
  if (!name) {
    problems.push(sourceProblem(`${owner} names no chart`));
    return undefined;
  }
  const target = lookup(sources, from, rec(chart.sourceRef));
  if (!target) {
    problems.push(sourceProblem(`${owner} has no chart sourceRef`));
    return undefined;
  }
  if (typeof target.found === "string") {
    problems.push(notFound(owner, target));
    return undefined;
  }
  const url = str(rec(target.found.spec)?.url);
  if (!url && target.kind !== "Bucket") {
    problems.push(sourceProblem(`${owner}: its source ${describe(target.kind, target)} has no spec.url`));
    return undefined;
  }
  if (target.kind === "HelmRepository" && url) return withRepository({ url, ref: chartVersionRef(str(chart.version)), path: ".", render: "helm", chart: name }, opts);
  // From Git the chart is a folder of the repository, at the GitRepository's ref.
  if (target.kind === "GitRepository" && url) return withRepository({ url, ref: fluxGitRef(target.found), path: normalisePath(name), render: "helm" }, opts);
  problems.push(unsupported(`${owner} takes its chart from a ${target.kind}; Driftwatch reads charts from Helm repositories, Git and OCI`));
  return undefined;
}

/** A HelmRelease: the chart it installs (`spec.chart` template or `spec.chartRef`), where from and which version. */
export function fluxHelmReleaseSpec(hr: Obj, sources: SourceLookup, opts: TransformOptions): TransformResult {
  const ref = refOf(hr);
  const owner = describe("HelmRelease", ref);
  const spec = rec(hr.spec) ?? {};
  const problems = remoteClusterProblem(owner, spec);
  const controller: ControllerRef = { type: "flux", kind: "HelmRelease", ...ref };
  const out: ApplicationSource[] = [];
  const template = rec(rec(spec.chart)?.spec);
  const chartRef = lookup(sources, ref, rec(spec.chartRef));
  if (template) {
    const source = chartSource(owner, template, ref, sources, opts, problems);
    if (source) out.push(source);
  } else if (!chartRef) problems.push(sourceProblem(`${owner} has neither spec.chart nor spec.chartRef`));
  else if (typeof chartRef.found === "string") problems.push(notFound(owner, chartRef));
  else if (chartRef.kind === "OCIRepository") {
    const url = str(rec(chartRef.found.spec)?.url);
    if (url) out.push(withRepository({ url, ref: fluxOciRef(chartRef.found), path: ".", render: "helm" }, opts));
    else problems.push(sourceProblem(`${owner}: its chart ${describe("OCIRepository", chartRef)} has no spec.url`));
  } else if (chartRef.kind === "HelmChart") {
    const source = chartSource(owner, rec(chartRef.found.spec) ?? {}, { namespace: chartRef.namespace }, sources, opts, problems);
    if (source) out.push(source);
  } else problems.push(unsupported(`${owner} refers to a ${chartRef.kind} for its chart; Flux takes an OCIRepository or a HelmChart there`));
  return { spec: finish(hr, "flux-helmrelease", controller, out, opts), problems };
}
