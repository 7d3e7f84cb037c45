// One application's desired state for one run: its Git revision (approved,
// and the one its controller applied), its controller object, and its render
// at the revision to compare with, keyed by object. Helm releases will supply
// desired state from release storage instead of a render: this is the step
// they replace.
import { createHash } from "node:crypto";
import { controllerKindOf, type ApplicationEnvironment } from "@/lib/config";
import type { ControllerStatus, RunError } from "@/lib/domain/types";
import { approvedRevisionAt, firstParentHistory, isAncestorAt, renderManifests, isAncestor, qualifiedRef, describeFollowedRef, GitError, RenderRefusedError, controllerRenderKey, RenderFileError, type RenderOptions, type RenderResult } from "@/lib/git";
import { compareObject, createCompareContext, objectKey, type CompareContext, type CompareOptions, type KubeObject } from "@/lib/drift";
import { argoIgnoreRulesOf } from "@/lib/kube/render-settings";
import type { ClusterClient } from "@/lib/kube/client";
import type { Discovery } from "@/lib/kube/discovery";
import { controllerRenderFor, maskSecretSourced, mergeSecretValues, secretDerivedPaths, SubstituteSourceError } from "./controller-render";
import { helmReleaseSide, HelmReleaseDecodeError, isHelmReleaseEnvironment, type HelmReleaseSide } from "./helm-release-side";
import { hashedDesiredSecret, memoDesired, memoGit, memoRender, memoRenderAt, rememberedInputs, rememberInputs } from "./run-memo";
import { readsSameTree, renderHoldsAt } from "./render-reuse";
import type { DesiredEntry } from "./persist";
import { RunFailure, kubeRunError, type CollectorContext } from "./run-context";
import { getObject, readController } from "./controller-object";
import { remoteBaseSource, type GitSide, type SourceSide } from "./git-side";
import { helmSourceContext, rendersWithHelm } from "@/lib/helm/source-context";
import { compareOptionsFor } from "./compare-options";
import { argoSyncedRevisions, joinSources, repeatedResourceMessage, sourcesOf } from "@/lib/applications/argocd-application";
import type { ControllerCondition } from "@/lib/kube/controller-status";
import type { ApplicationSpec } from "@/lib/applications/spec";
import { argoSourceRenderOptions } from "@/lib/kube/render-settings";
import { refValueFiles } from "@/lib/helm/argocd-helm";
import { repoTree } from "@/lib/git/repo-tree";
import { readBlobs } from "@/lib/git/blob-reader";
import type { RenderedObject } from "@/lib/git/manifests";
import { fetchChart } from "@/lib/helm/chart-fetch";
import { renderHelmSource, type FetchedChart, type HelmRenderSettings } from "@/lib/helm/render-helm";
import { chartCacheDir } from "@/lib/helm/source-context";
import type { ControllerRender } from "@/lib/git";
import type { Declaration } from "./declared-by";

export interface ApplicationDesired {
  approved: string;
  /** When the approved revision was published, where a commit cannot say (a chart version); else undefined. */
  approvedAt: Date | undefined;
  /** The revision rendered and compared with live (the applied one when the controller reports it on the branch). */
  compareSha: string;
  mirrorPath: string;
  tipSha: string | undefined;
  controller: ControllerStatus | null;
  renderOptions: RenderOptions;
  secretValues: string[];
  /** Where a Secret-sourced value went into a non-Secret object, by key. */
  secretPaths: Map<string, Array<Array<string | number>>>;
  desired: Map<string, DesiredEntry>;
  /** Files that failed to parse or render: their objects keep their last good desired state. */
  failingFiles: Set<string>;
  /** Keys and kinds of those carried objects (their live objects must be read and kept too). */
  carriedKeys: Set<string>;
  carriedKinds: Map<string, { apiVersion: string; kind: string }>;
  /** Files the render reads outside the path (kustomize), for inferring the applied revision. */
  inputsOutside: readonly string[];
  /** Set when the kustomize build was refused or failed: the revision its carried objects were last rendered at. */
  withheldFrom: string | null;
  /** A Flux HelmRelease's release side (its desired state is the installed release), else null. */
  helmSide: HelmReleaseSide | null;
  /**
   * The commits that changed its controller object's manifest where its parent declares it (declared-by.ts), newest first; null when this
   * run could not tell (no parent found this run, git failed): the stored ones stand (persist.ts adds each run's to them).
   */
  declaredChanges: readonly string[] | null;
  /** The parent's files declaring it or patching it (declared-by.ts), with declaredChanges; else empty. */
  declaringFiles: readonly string[];
  /** A multi-source application's approved and applied revision per source (spec.sources order), else null. */
  sourceRevisions: Array<{ approved: string; applied: string | null }> | null;
  /** A multi-source application: whether any source's applied revision lacks its approved one, else null (the application's own revisions decide). */
  sourcesBehind: boolean | null;
  compareOptions: CompareOptions;
  compareContext: CompareContext;
  warnings: RunError[];
}

export interface DesiredStep {
  ctx: CollectorContext;
  /** The environment as this application sees it (applicationView). */
  view: ApplicationEnvironment;
  /** Which of the environment's stored desired rows are this application's. */
  previousRows: { environmentId: string; applicationId?: string };
  /** Keys renders are remembered under across runs (one entry each). */
  memoName: string;
  git: GitSide;
  client: ClusterClient;
  discovery: Discovery;
  /** Where the controller object lives when not in the environment's cluster (an Argo CD hub). */
  controllerCluster?: { client: ClusterClient; discovery: Discovery };
  /** The pauses Driftwatch holds (readPersistInputs). */
  ownPauseIds: string[];
  /** Where another application of the environment declares this one's controller object in Git (declared-by.ts). */
  declaredBy?: Declaration;
}

/** Whether a live object Git lacks is one this application's controller or label tracks. */
export function tracks(context: CompareContext, obj: KubeObject): boolean {
  return compareObject(null, obj, context).type === "Extra";
}

export async function desiredStateOf(step: DesiredStep): Promise<ApplicationDesired> {
  const { ctx, view: env, git, client, discovery } = step;
  const warnings: RunError[] = [];
  const { mirrorPath, tipSha } = git;
  let approved = git.approved;
  const read = await readController(step.controllerCluster?.client ?? client, step.controllerCluster?.discovery ?? discovery, env).catch((e: unknown) => {
    throw new RunFailure([kubeRunError(e)]);
  });
  let controller = read?.status ?? null;
  const controllerObject = read?.object ?? null;
  if (env.controller && controller && !controller.found) {
    warnings.push({ category: "unreachable", severity: "warning", message: `controller object ${controllerKindOf(env.controller)} ${env.controller.namespace}/${env.controller.name} not found` });
  }
  // The controller's render settings (its object's, else driftwatch.yaml's) and Flux's postBuild variables from the cluster.
  const { render: controllerRender, secretValues: substituteSecretValues, pathMismatch } = await controllerRenderFor(env, isHelmReleaseEnvironment(env) ? null : controllerObject, (kind, namespace, name) => getObject(client, discovery, "v1", kind, namespace, name), read?.source ?? null).catch((e: unknown) => {
    throw new RunFailure([e instanceof SubstituteSourceError ? { category: "render", message: e.message } : kubeRunError(e)]);
  });
  if (pathMismatch) warnings.push({ category: "render", severity: "warning", message: pathMismatch });
  let secretValues = substituteSecretValues;
  const renderOptions: RenderOptions = { path: env.source.path, mode: env.source.render, defaultNamespace: env.defaultNamespace, kustomizeBin: ctx.kustomizeBin, remoteBases: remoteBaseSource(ctx), controller: controllerRender };
  if (rendersWithHelm(env.source.render, controllerRender) || git.sources?.some((s) => s.source.render === "helm")) renderOptions.helm = await helmSourceContext(client, discovery, ctx.config);
  let inputsOutside: readonly string[] = [];
  let compareSha: string;
  const failingFiles = new Set<string>();
  let rendered: RenderResult;
  let withheldFrom: string | null = null;
  const previousWhere = step.previousRows;
  let multi: MultiSourceRender | null = null;
  let declaredChanges: readonly string[] | null = null;
  let declaringFiles: readonly string[] = [];
  if (git.sources) {
    // Argo CD multi-source: each source rendered at its own revision, joined in source order (the last of a repeated object wins).
    multi = await multiSourceRender(step, git.sources, controllerObject, renderOptions);
    ({ compareSha, rendered } = multi);
    if (controller) controller = { ...controller, appliedRevision: multi.applied, conditions: [...controller.conditions, ...multi.conditions] };
    warnings.push(...multi.warnings);
  } else if (git.chart) {
    // A chart from a Helm repository or OCI registry: versions in place of commits, the archive in place of a checkout.
    const chart = await repositoryChartRender(step, git.chart, controllerObject, controllerRender, renderOptions);
    ({ compareSha, rendered } = chart);
    if (controller) controller = { ...controller, appliedRevision: chart.applied };
    warnings.push(...chart.warnings);
  } else {
    // A kustomize render reads files outside the path (bases, components, patches,
    // generator files): a commit to any of them is approved too. The inputs are the
    // tip's render's; when it cannot render, the path alone decides, and the run says so.
    if (env.source.render !== "plain" && tipSha) {
      const tip = tipSha;
      // The inputs depend on whether helm runs (helmCharts list their chart's files), not on the cluster's long API list.
      const inputsKey = [JSON.stringify({ ...renderOptions, controller: undefined, helm: renderOptions.helm ? { bin: renderOptions.helm.bin ?? null } : undefined }), controllerRenderKey(controllerRender)].join("\0");
      const renderAtTip = () => renderManifests(mirrorPath, tip, renderOptions).then((r) => r.inputs);
      const inputs = await memoGit([mirrorPath, "render-inputs", tip, inputsKey], () => inputsAtTip(mirrorPath, env.source.branch, tip, env.source.path, inputsKey, renderAtTip)).catch((e: unknown) => {
        if (e instanceof GitError && e.category === "render") return null;
        throw e;
      });
      if (inputs) {
        const inputsDigest = createHash("sha256").update(inputs.join("\0")).digest("hex");
        const byInputs = await memoGit([mirrorPath, "approved-inputs", env.source.branch, tip, env.source.path, inputsDigest], () => approvedRevisionAt(mirrorPath, env.source.branch, tip, env.source.path, inputs));
        if (byInputs) approved = byInputs;
        inputsOutside = inputs;
      } else {
        warnings.push({ category: "render", severity: "warning", message: `the kustomize build of ${env.source.path} at the branch tip ${tip.slice(0, 12)} did not run, so the files it reads are unknown; the approved revision is the newest commit touching ${env.source.path} only` });
      }
    }
    // The controller object's manifest in its parent's folder is an input too (the controller renders with its
    // spec): a newer change to it is the approved revision.
    const declaration = step.declaredBy;
    const declaredLast = declaration && tipSha ? await declaration.changedLast(env.source.branch, tipSha) : null;
    if (declaration && tipSha) {
      declaredChanges = await declaration.changes(env.source.branch, tipSha);
      declaringFiles = declaration.files;
    }
    if (declaredLast && (await appliedBehind(mirrorPath, declaredLast, approved, { ref: env.source.branch, tip: tipSha }))) approved = declaredLast;
    // Drift is measured against what the controller applied: the gap between
    // approved and applied is a pending rollout (the stale alert), not a manual change.
    compareSha = approved;
    if (controller?.appliedRevision && controller.appliedRevision !== approved) {
      const applied = controller.appliedRevision;
      const tip = tipSha;
      const ancestor = () => (tip ? isAncestorAt(mirrorPath, env.source.branch, tip, applied, tip) : isAncestor(mirrorPath, applied, qualifiedRef(env.source.branch)));
      if (await (tip ? memoGit([mirrorPath, "ancestor", applied, tip], ancestor) : ancestor()).catch(() => false)) compareSha = applied;
      else warnings.push({ category: "render", severity: "warning", message: `the controller reports revision ${controller.appliedRevision.slice(0, 12)}, which is not on ${describeFollowedRef(env.source.branch)}; comparing with the approved revision` });
    }
    // The live controller object already has its parent's newest spec, which its controller has not applied
    // when its applied revision predates that change: the revision it applied renders with the spec declared then.
    let compareRender = controllerRender;
    if (declaration && declaredLast && compareSha !== approved && controllerObject && !isHelmReleaseEnvironment(env)) {
      const applied = compareSha;
      const declared = (await appliedBehind(mirrorPath, declaredLast, applied, { ref: env.source.branch, tip: tipSha })) ? await declaration.objectAt(applied) : null;
      if (declared) {
        const then = await controllerRenderFor(env, { ...controllerObject, spec: declared.spec }, (kind, namespace, name) => getObject(client, discovery, "v1", kind, namespace, name), read?.source ?? null).catch((e: unknown) => {
          throw new RunFailure([e instanceof SubstituteSourceError ? { category: "render", message: e.message } : kubeRunError(e)]);
        });
        compareRender = then.render;
        secretValues = [...new Set([...secretValues, ...then.secretValues])];
      }
    }
    // Variables enter the key only through controllerRenderKey's digest.
    const renderSettings = [mirrorPath, JSON.stringify({ ...renderOptions, controller: undefined }), controllerRenderKey(compareRender)];
    const appliedRenderOptions: RenderOptions = { ...renderOptions, controller: compareRender };
    const at = compareSha;
    // A moved revision (Flux reports every push's head for every Kustomization) keeps the last render when nothing it read changed.
    const holds = async (last: { sha: string; value: RenderResult }) =>
      renderHoldsAt({
        last: { sha: last.sha, inputs: last.value.inputs, remoteBases: last.value.remoteBases, fetchedCharts: last.value.fetchedCharts },
        next: at,
        path: env.source.path,
        mode: env.source.render,
        controller: compareRender,
        history: tipSha ? await firstParentHistory(mirrorPath, env.source.branch, tipSha).catch(() => null) : null,
      });
    try {
      ({ value: rendered } = await memoRenderAt(step.memoName, renderSettings, at, () => renderManifests(mirrorPath, at, appliedRenderOptions), (r) => r.remoteBases.length === 0, holds));
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      if (e.category !== "render") throw new RunFailure([{ category: e.category === "git-auth" ? "git-auth" : "git-fetch", message: e.message }]);
      const problems: RunError[] =
        e instanceof RenderRefusedError
          ? e.refusals.map((r) => ({ category: "render", severity: "error", path: r.file, message: `"${r.reference}" refused: ${r.reason}` }))
          : [{ category: "render", severity: "error", message: e.message, ...(e instanceof RenderFileError ? { path: e.path } : {}) }];
      // A kustomize build renders all or nothing: when it cannot run, every object it
      // rendered last time keeps that desired state and is still compared with live.
      const previous = env.source.render !== "plain" ? await ctx.db.desiredObject.findMany({ where: previousWhere, select: { sourcePath: true, revisionSha: true } }) : [];
      if (previous.length === 0) throw new RunFailure(problems);
      for (const p of previous) if (p.sourcePath) failingFiles.add(p.sourcePath);
      withheldFrom = previous[0]?.revisionSha ?? null;
      warnings.push(...problems, {
        category: "render",
        severity: "warning",
        message: `the kustomize build of ${env.source.path} at ${compareSha.slice(0, 12)} did not run; its ${previous.length} objects keep their desired state from ${withheldFrom?.slice(0, 12) ?? "the last good run"} and were compared with live`,
      });
      rendered = { objects: [], problems: [], inputs: [], remoteBases: [], treeHash: null, cached: false };
    }
  }
  for (const p of rendered.problems) {
    warnings.push({ category: p.message.startsWith("YAML") || p.line !== undefined ? "parse" : "render", message: p.message, path: p.path, line: p.line, severity: p.severity });
    if (p.severity === "error") failingFiles.add(p.path);
  }
  if (rendered.objects.length === 0 && rendered.problems.some((p) => p.severity === "error") && env.source.render !== "plain") {
    throw new RunFailure(warnings.filter((w) => w.severity === "error"));
  }
  // A HelmRelease's desired state is the release Helm installed; Git's HelmRelease says only whether it is released yet.
  let helmSide: HelmReleaseSide | null = null;
  if (isHelmReleaseEnvironment(env)) {
    const optionsKey = [JSON.stringify({ ...renderOptions, controller: undefined }), controllerRenderKey(controllerRender)];
    helmSide = await helmReleaseSide({
      env,
      client,
      discovery,
      live: controllerObject,
      rendered,
      compared: compareSha,
      secretKey: ctx.secretKey,
      mirrorPath,
      renderAt: (sha) => memoGit([mirrorPath, "render-at", sha, ...optionsKey], () => renderManifests(mirrorPath, sha, renderOptions)),
    }).catch((e: unknown) => {
      throw new RunFailure([e instanceof HelmReleaseDecodeError ? { category: "render", message: e.message } : kubeRunError(e)]);
    });
    rendered = helmSide.rendered;
    if (controller) controller = { ...controller, helm: helmSide.helm.summary };
    secretValues = mergeSecretValues(secretValues, helmSide.helm.secretValues);
    if (helmSide.helm.message) warnings.push({ category: "render", severity: "warning", message: helmSide.helm.message });
    if (!helmSide.helm.release) {
      warnings.push({ category: "render", severity: "warning", message: `no Helm release ${helmSide.helm.ref.releaseName} in namespace ${helmSide.helm.ref.storageNamespace}: nothing installed yet` });
    }
  }
  // Built once per render (reused while the commit is) and never changed after: later runs share it.
  const secretValuesKey = createHash("sha256").update(JSON.stringify(secretValues)).digest("hex");
  const desired = memoDesired(rendered, [multi?.revisionsKey ?? compareSha, ctx.secretKey.toString("hex"), secretValuesKey], () => {
    const map = new Map<string, DesiredEntry>();
    for (const r of rendered.objects) {
      const obj = r.object as KubeObject;
      // Rendered objects are frozen and reused while the commit is: hash their secrets once.
      const masked = obj.kind === "Secret" ? null : maskSecretSourced(obj, secretValues, ctx.secretKey);
      const safe = masked ? masked.object : hashedDesiredSecret(obj, ctx.secretKey);
      const key = objectKey(safe);
      map.set(key, { key, object: safe, sourcePath: r.sourcePath, revisionSha: multi?.revisionOf.get(r) ?? compareSha });
    }
    return map;
  });
  // Where Flux put a Secret-sourced value into a non-Secret object (an env var, an annotation): the live strings there are masked too.
  const secretPaths = secretValues.length > 0 ? secretDerivedPaths(desired.values()) : new Map<string, Array<Array<string | number>>>();
  // Objects of a file that no longer parses keep their last good desired state
  // (persist carries them over); their live objects must be read and kept too.
  const carriedKinds = new Map<string, { apiVersion: string; kind: string }>();
  const carriedKeys = new Set<string>();
  if (failingFiles.size > 0) {
    const rows = await ctx.db.desiredObject.findMany({ where: { ...previousWhere, sourcePath: { in: [...failingFiles] } }, select: { key: true, apiVersion: true, kind: true } });
    for (const r of rows) {
      if (desired.has(r.key)) continue;
      carriedKeys.add(r.key);
      carriedKinds.set(`${r.apiVersion}\0${r.kind}`, { apiVersion: r.apiVersion, kind: r.kind });
    }
  }
  const compareOptions = compareOptionsFor(env, ctx.config, controller, ctx.secretKey, env.controller?.type === "argocd" && controllerObject ? argoIgnoreRulesOf(controllerObject) : [], step.ownPauseIds);
  return {
    approved,
    approvedAt: approved === git.approved ? git.approvedAt : undefined,
    compareSha,
    mirrorPath,
    tipSha,
    controller,
    renderOptions,
    secretValues,
    secretPaths,
    desired,
    failingFiles,
    carriedKeys,
    carriedKinds,
    inputsOutside,
    withheldFrom,
    helmSide,
    declaredChanges,
    declaringFiles,
    sourceRevisions: multi?.sourceRevisions ?? null,
    sourcesBehind: multi?.behind ?? null,
    compareOptions,
    compareContext: createCompareContext(compareOptions),
    warnings,
  };
}

/**
 * A chart from a Helm repository or OCI registry, rendered as Argo CD renders
 * it: at the version Argo CD synced (`status.sync.revision`), else at the
 * approved one, with the Application's Helm options (value files from the
 * chart, values, parameters, release name, namespace).
 */
async function repositoryChartRender(
  step: DesiredStep,
  chart: NonNullable<GitSide["chart"]>,
  app: Record<string, unknown> | null,
  controllerRender: ControllerRender | undefined,
  renderOptions: RenderOptions,
  synced?: string | null,
): Promise<{ compareSha: string; applied: string | null; rendered: RenderResult; fetched: FetchedChart; warnings: RunError[] }> {
  const { ctx, view: env } = step;
  const warnings: RunError[] = [];
  const applied = synced !== undefined ? synced : app ? (argoSyncedRevisions(app)[0] ?? null) : null;
  const fetched = await chartToCompare(ctx, chart, applied, warnings);
  const argo = controllerRender?.type === "argocd" ? controllerRender : undefined;
  const appName = argo?.env?.appName ?? env.controller?.name;
  if (!appName) throw new RunFailure([{ category: "render", message: `chart ${chart.ref.chart} needs its Application's name (the release name)` }]);
  const settings: HelmRenderSettings = {
    appName,
    namespace: argo?.env?.appNamespace || env.defaultNamespace,
    options: argo?.helm ?? {},
    cluster: renderOptions.helm?.cluster ?? { apiVersions: [] },
    chart: fetched,
  };
  const key = ["chart", fetched.digest, JSON.stringify({ ...settings, chart: undefined }), renderOptions.helm?.bin ?? ""];
  const rendered = await memoRender(step.memoName, key, async (): Promise<RenderResult> => {
    const r = await renderHelmSource("", fetched.version, "", settings, renderOptions.helm?.bin);
    return { objects: [...r.objects], problems: [...r.problems], inputs: [...r.inputs], remoteBases: [], treeHash: null, cached: false };
  }).catch((e: unknown) => {
    throw e instanceof GitError ? new RunFailure([{ category: "render", message: e.message }]) : e;
  });
  return { compareSha: fetched.version, applied, rendered, fetched, warnings };
}

/**
 * The chart version to compare with live: the one Argo CD synced (a newer
 * approved version is a pending sync, stale, not drift), else the approved one.
 */
async function chartToCompare(ctx: CollectorContext, chart: NonNullable<GitSide["chart"]>, applied: string | null, warnings: RunError[]): Promise<FetchedChart> {
  if (!applied || applied === chart.approved.version) return chart.approved;
  const at = await fetchChart({ ...chart.ref, targetRevision: applied }, { repositories: ctx.config.helmRepositories, cacheDir: chartCacheDir(), timeoutMs: ctx.gitTimeoutMs }).catch((e: unknown) => {
    if (!(e instanceof GitError)) throw e;
    warnings.push({ category: "render", severity: "warning", message: `Argo CD synced ${chart.ref.chart} ${applied}, which could not be fetched (${e.message}); comparing with the approved version ${chart.approved.version}` });
    return null;
  });
  return at ?? chart.approved;
}

interface MultiSourceRender {
  rendered: RenderResult;
  /** The first rendering source's revision compared with live, and the one Argo CD synced of it. */
  compareSha: string;
  applied: string | null;
  /** Which source's revision each object was rendered at. */
  revisionOf: Map<RenderedObject, string>;
  /** Every source's compared revision, for keys. */
  revisionsKey: string;
  sourceRevisions: Array<{ approved: string; applied: string | null }>;
  behind: boolean;
  conditions: ControllerCondition[];
  warnings: RunError[];
}

/** A file of a repository at a commit (a `ref:` source's value file); null when it is not a plain file there. */
async function fileAt(mirrorPath: string, commit: string, file: string): Promise<string | null> {
  const tree = await repoTree(mirrorPath, commit);
  const oid = tree.node(file)?.type === "file" ? tree.oid(file) : undefined;
  if (!oid) return null;
  for await (const blob of readBlobs(mirrorPath, [oid])) return blob.content?.toString("utf8") ?? null;
  return null;
}

/**
 * A multi-source Argo CD Application (`spec.sources`): each source rendered
 * at the revision Argo CD synced of it (`status.sync.revisions[i]`, when it is
 * on what the source follows), else at its approved one; `$ref/…` value files
 * read from the `ref:` source's repository at that source's revision; a
 * ref-only source renders nothing. Stale when any source's applied revision
 * lacks its approved one.
 */
async function multiSourceRender(step: DesiredStep, sides: readonly SourceSide[], app: Record<string, unknown> | null, renderOptions: RenderOptions): Promise<MultiSourceRender> {
  const { ctx, view: env } = step;
  const warnings: RunError[] = [];
  const synced = app ? argoSyncedRevisions(app) : sides.map(() => null);
  const liveSources = app ? sourcesOf((app.spec ?? {}) as Record<string, unknown>) : [];
  // Which revision each source is compared at, and whether Argo CD's is behind what is approved.
  const compared: Array<{ sha: string; chart?: FetchedChart }> = [];
  const sourceRevisions: Array<{ approved: string; applied: string | null }> = [];
  let behind = false;
  for (const [i, { view, side }] of sides.entries()) {
    const applied = synced[i] ?? null;
    sourceRevisions.push({ approved: side.approved, applied });
    if (side.chart) {
      const chart = await chartToCompare(ctx, side.chart, applied, warnings);
      compared.push({ sha: chart.version, chart });
      behind ||= applied !== null && applied !== side.approved;
      continue;
    }
    let sha = side.approved;
    if (applied && applied !== side.approved) {
      const mirror = side.mirrorPath;
      const tip = side.tipSha;
      const onRef = await memoGit([mirror, "ancestor", applied, tip ?? view.source.branch], () => (tip ? isAncestorAt(mirror, view.source.branch, tip, applied, tip) : isAncestor(mirror, applied, qualifiedRef(view.source.branch)))).catch(() => false);
      if (onRef) sha = applied;
      else warnings.push({ category: "render", severity: "warning", message: `Argo CD reports revision ${applied.slice(0, 12)} for source ${i + 1} (${view.source.path} of ${view.source.repository}), which is not on ${describeFollowedRef(view.source.branch)}; comparing with the approved revision` });
    }
    compared.push({ sha });
    behind ||= await appliedBehind(side.mirrorPath, side.approved, applied, { ref: view.source.branch, tip: side.tipSha });
  }
  const refs = new Map<string, { mirrorPath: string; sha: string }>();
  for (const [i, { source, side }] of sides.entries()) if (source.refName && !side.chart) refs.set(source.refName, { mirrorPath: side.mirrorPath, sha: compared[i]!.sha });
  const cluster = renderOptions.helm?.cluster ?? { apiVersions: [] };
  const perSource: RenderedObject[][] = [];
  const problems: RenderResult["problems"] = [];
  const revisionOf = new Map<RenderedObject, string>();
  for (const [i, { source, view, side }] of sides.entries()) {
    if (source.refOnly) continue;
    const sha = compared[i]!.sha;
    const settings = app ? argoSourceRenderOptions(app, liveSources[i] ?? {}) : { env: { appName: env.controller?.name } };
    const appName = settings.env.appName ?? env.controller?.name ?? "";
    const namespace = settings.env.appNamespace || env.defaultNamespace;
    const refFiles: Record<string, string> = {};
    for (const r of refValueFiles(settings.helm?.valueFiles ?? [])) {
      const from = refs.get(r.refName);
      const text = from ? await fileAt(from.mirrorPath, from.sha, r.file) : null;
      if (text !== null) refFiles[r.entry] = text;
    }
    const helmSettings: HelmRenderSettings = { appName, namespace, options: settings.helm ?? {}, cluster, refFiles, ...(compared[i]!.chart ? { chart: compared[i]!.chart } : {}) };
    const helmKey = ["multi-helm", side.mirrorPath, sha, view.source.path, JSON.stringify({ ...helmSettings, chart: compared[i]!.chart?.digest ?? null }), renderOptions.helm?.bin ?? ""];
    let result: { objects: readonly RenderedObject[]; problems: readonly RenderResult["problems"][number][] };
    try {
      if (compared[i]!.chart || view.source.render === "helm" || settings.helm) {
        result = await memoRender(`${step.memoName}\0source ${i}`, helmKey, () => renderHelmSource(side.mirrorPath, sha, compared[i]!.chart ? "" : view.source.path === "." ? "" : view.source.path, helmSettings, renderOptions.helm?.bin));
      } else {
        const options: RenderOptions = { ...renderOptions, path: view.source.path, mode: view.source.render, controller: { type: "argocd", ...settings } };
        result = await memoRender(`${step.memoName}\0source ${i}`, [side.mirrorPath, sha, JSON.stringify({ ...options, controller: undefined }), controllerRenderKey(options.controller)], () => renderManifests(side.mirrorPath, sha, options));
      }
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      throw new RunFailure([{ category: e.category === "render" ? "render" : e.category === "git-auth" ? "git-auth" : "git-fetch", message: `source ${i + 1} (${source.chart ?? view.source.path} of ${source.url}): ${e.message}`, ...(e instanceof RenderFileError ? { path: e.path } : {}) }]);
    }
    for (const o of result.objects) revisionOf.set(o, sha);
    perSource.push([...result.objects]);
    problems.push(...result.problems);
  }
  const joined = joinSources(perSource, (r) => objectKey(r.object as KubeObject));
  const label = env.controller ? `Application/${env.controller.namespace}/${env.controller.name}` : "Application";
  const conditions: ControllerCondition[] = joined.repeated.map((r) => ({ object: label, type: "RepeatedResourceWarning", status: "True", reason: null, message: repeatedResourceMessage(r), lastTransitionTime: null }));
  for (const c of conditions) warnings.push({ category: "render", severity: "warning", message: `${c.message} The last source's is compared, as Argo CD applies it` });
  const primary = sides.findIndex((s) => !s.source.refOnly);
  return {
    rendered: { objects: joined.items, problems, inputs: [], remoteBases: [], treeHash: null, cached: false },
    compareSha: compared[primary]!.sha,
    applied: synced[primary] ?? null,
    revisionOf,
    revisionsKey: compared.map((c) => c.sha).join(","),
    sourceRevisions,
    behind,
    conditions,
    warnings,
  };
}

/** The application as stored: a multi-source one's sources each with the revision approved and applied of it this run. */
export function specWithRevisions(spec: ApplicationSpec, d: Pick<ApplicationDesired, "sourceRevisions">): ApplicationSpec {
  const revisions = d.sourceRevisions;
  return revisions ? { ...spec, sources: spec.sources.map((s, i) => ({ ...s, ...revisions[i] })) } : spec;
}

/**
 * The files a kustomize render reads at the branch tip. When the tip moved
 * forward and the render reads the same tree as at the last tip
 * (`readsSameTree`: nothing it read, beside it or in a `.sourceignore`
 * changed), it reads the same files: no render at the new tip (for hundreds of
 * applications of a busy repository, hundreds of kustomize builds a run).
 */
async function inputsAtTip(mirrorPath: string, ref: string, tip: string, path: string, settingsKey: string, render: () => Promise<string[]>): Promise<readonly string[]> {
  const key = [mirrorPath, ref, path, settingsKey];
  const last = rememberedInputs(key);
  if (last && last.tip !== tip) {
    const history = await firstParentHistory(mirrorPath, ref, tip).catch(() => null);
    if (history && readsSameTree(history, { from: last.tip, to: tip, path, inputs: last.inputs })) {
      rememberInputs(key, { tip, inputs: last.inputs });
      return last.inputs;
    }
  }
  const inputs = await render();
  rememberInputs(key, { tip, inputs });
  return inputs;
}

/**
 * Whether an application's applied revision lacks its approved one. The
 * approved revision is the newest commit that changed the application's
 * files, while a controller reports the branch head it applied: a later
 * commit elsewhere in the repository leaves the application up to date.
 * Ancestry that cannot be read (a revision the mirror lacks) counts as behind,
 * so a stuck rollout is never hidden.
 */
export async function appliedBehind(mirrorPath: string, approved: string, applied: string | null, at?: { ref: string; tip: string | undefined }): Promise<boolean> {
  if (!applied || applied === approved) return false;
  // A chart from a Helm repository (no mirror): any other version than the approved one is behind it.
  if (!mirrorPath) return true;
  // Both are on the ref's first-parent line as a rule: the ref's history index answers without a git process.
  const tip = at?.tip;
  const contains = await memoGit([mirrorPath, "ancestor", approved, applied], () => (tip && at ? isAncestorAt(mirrorPath, at.ref, tip, approved, applied) : isAncestor(mirrorPath, approved, applied))).catch(() => false);
  return !contains;
}
