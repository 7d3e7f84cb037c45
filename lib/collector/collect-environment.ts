// One collection of one environment: Git (desired) and cluster (live) in,
// drift out, stored in one transaction. Any failure before the transaction
// leaves the last good state untouched; the run records why.
import { createHash } from "node:crypto";
import type { DriftwatchConfig, EnvironmentConfig, RepositoryConfig } from "@/lib/config";
import type { RunError, RunProgress, RolloutStatus, ControllerStatus } from "@/lib/domain/types";
import { approvedRevision, renderManifests, isAncestor, networkIsolation, GitError, RenderRefusedError, controllerRenderKey, RenderFileError, type RenderOptions, type RenderResult } from "@/lib/git";
import { controllerRenderFor, maskLiveSecretSourced, maskSecretSourced, secretDerivedPaths, SubstituteSourceError } from "./controller-render";
import { compareObject, createCompareContext, hashSecretValues, objectKey, type KubeObject, type CompareOptions, type IgnoreRule } from "@/lib/drift";
import { argoIgnoreRulesOf } from "@/lib/kube/render-settings";
import type { ClusterClient } from "@/lib/kube/client";
import type { ApiResource, Discovery } from "@/lib/kube/discovery";
import { KubeError } from "@/lib/kube/errors";
import { rolloutOf } from "@/lib/kube/rollout";
import { clusterFor, forgetCluster, hashedDesiredSecret, memoDesired, memoGit, memoRender, rememberedKinds, rememberKinds } from "./run-memo";
import { LiveLists } from "./live-lists";
import { sweepKinds, sweepNeeded, sweepOrphans, type SweepOutcome } from "./orphan-sweep";
import { persistRun, readPersistInputs, type CollectedState, type DesiredEntry, type LiveEntry } from "./persist";
import type { Logger } from "@/lib/log";
import { RunFailure, kubeRunError, type CollectorContext, type RunOutcome, type RunRef } from "./run-context";
import { getObject, parseInventoryId, readController } from "./controller-object";
import { remoteBaseSource, syncGit } from "./git-side";
import { inferApplied } from "./infer-applied";
import { helmSourceContext, rendersWithHelm } from "@/lib/helm/source-context";

export type { CollectorContext, LiveSource, RunOutcome, RunRef } from "./run-context";

export function compareOptionsFor(env: EnvironmentConfig, config: DriftwatchConfig, controller: ControllerStatus | null, secretKey: Buffer, controllerIgnore: IgnoreRule[] = []): CompareOptions {
  const controllerManagers =
    env.controller?.type === "flux" ? ["kustomize-controller"] : env.controller?.type === "argocd" ? ["argocd-controller", "argocd-application-controller"] : [];
  const [labelKey, labelValue] = env.trackingLabel ? env.trackingLabel.split("=") : [];
  return {
    controllerManagers: [...controllerManagers, ...(config.managers.controller ?? [])],
    controllerManaged: Boolean(env.controller),
    extraManagers: { human: config.managers.human, system: config.managers.system },
    // What the controller itself leaves out of its comparison (Argo CD's ignoreDifferences) is not drift either.
    ignoreRules: [...env.ignore, ...controllerIgnore],
    secretKey,
    extraTracking: {
      fluxInventory: controller?.type === "flux" ? controller.inventory : undefined,
      argoApp: env.controller?.type === "argocd" ? env.controller.name : undefined,
      argoAppNamespace: env.controller?.type === "argocd" ? env.controller.namespace : undefined,
      argoTrackingId: env.controller?.type === "argocd",
      label: labelKey && labelValue !== undefined ? { key: labelKey, value: labelValue } : undefined,
    },
  };
}

export async function collectEnvironment(ctx: CollectorContext, run: RunRef, onProgress: (p: RunProgress) => void = () => {}): Promise<RunOutcome> {
  const started = Date.now();
  const env = ctx.config.environments.find((e) => e.name === run.environmentName);
  const warnings: RunError[] = [];
  if (!env) {
    return { status: "failed", errors: [{ category: "internal", message: `environment ${run.environmentName} is no longer in the configuration` }], stats: null, approvedSha: null, appliedSha: null };
  }
  const repo = ctx.config.repositories.find((r) => r.name === env.source.repository) as RepositoryConfig;
  const progress: RunProgress = { phase: "git", objectsRead: 0, kindsDone: 0, kindsTotal: 0 };
  const report = () => onProgress({ ...progress });
  report();

  // Lists still running when the run fails stop at their next page; nobody waits for them.
  let lists: LiveLists | undefined;
  try {
    // Git and the cluster do not depend on each other until rendering (which
    // needs the controller's applied revision): both sides start at once, and
    // the kinds this environment listed last time are listed meanwhile. A Git
    // failure still fails the run as git's, whatever the cluster side did.
    const gitSide = syncGit(ctx, env, repo);
    // What the write phase reads first does not depend on what this run finds.
    const persistInputs = readPersistInputs(ctx.db, run.environmentId, ctx.now());
    persistInputs.catch(() => undefined); // awaited by persistRun
    // Speculative lists only where the run lists anyway: a watch cache answers without them.
    const remembered = ctx.liveSource ? [] : rememberedKinds(env.name);
    lists = new LiveLists(progress, report, env.namespaces.length > 0 ? env.namespaces : [undefined]);
    const clusterSide = (async () => {
      const c = await clusterFor(env.name, env.cluster, ctx.clusterTimeoutMs ?? 20_000);
      for (const r of remembered) lists?.start(c.client, r);
      const read = await readController(c.client, c.discovery, env);
      return { ...c, controller: read?.status ?? null, controllerObject: read?.object ?? null, sourceObject: read?.source ?? null };
    })();
    clusterSide.catch(() => undefined); // awaited below, after Git
    const { mirrorPath, approved: approvedByPath, tipSha } = await gitSide;
    let approved = approvedByPath;

    // ── Cluster ───────────────────────────────────────────────────────────
    progress.phase = "discover";
    report();
    let client: ClusterClient;
    let discovery: Discovery;
    let discoveryCached: boolean;
    let controller: ControllerStatus | null;
    let controllerObject: Record<string, unknown> | null;
    let sourceObject: Record<string, unknown> | null;
    try {
      ({ client, discovery, cached: discoveryCached, controller, controllerObject, sourceObject } = await clusterSide);
    } catch (e) {
      throw new RunFailure([kubeRunError(e)]);
    }
    if (env.controller && controller && !controller.found) {
      warnings.push({ category: "unreachable", severity: "warning", message: `controller object ${env.controller.type === "flux" ? "Kustomization" : "Application"} ${env.controller.namespace}/${env.controller.name} not found` });
    }
    // ── Render ────────────────────────────────────────────────────────────
    progress.phase = "render";
    report();
    if (env.source.render !== "plain") warnOnceWithoutNetworkNamespace(ctx.log);
    // The controller's render settings (its object's, else driftwatch.yaml's) and Flux's postBuild variables from the cluster.
    const { render: controllerRender, secretValues, pathMismatch } = await controllerRenderFor(env, controllerObject, (kind, namespace, name) => getObject(client, discovery, "v1", kind, namespace, name), sourceObject).catch((e: unknown) => {
      throw new RunFailure([e instanceof SubstituteSourceError ? { category: "render", message: e.message } : kubeRunError(e)]);
    });
    if (pathMismatch) warnings.push({ category: "render", severity: "warning", message: pathMismatch });
    const renderOptions: RenderOptions = { path: env.source.path, mode: env.source.render, defaultNamespace: env.defaultNamespace, kustomizeBin: ctx.kustomizeBin, remoteBases: remoteBaseSource(ctx), controller: controllerRender };
    if (rendersWithHelm(env.source.render, controllerRender)) renderOptions.helm = await helmSourceContext(client, discovery, ctx.config);
    // A kustomize render reads files outside the path (bases, components, patches,
    // generator files): a commit to any of them is approved too. The inputs are the
    // tip's render's; when it cannot render, the path alone decides, and the run says so.
    // Files the render reads outside the path (at the tip); a revision changing one may render differently.
    let inputsOutside: readonly string[] = [];
    if (env.source.render !== "plain" && tipSha) {
      const tip = tipSha;
      const inputsKey = [JSON.stringify({ ...renderOptions, controller: undefined }), controllerRenderKey(controllerRender)].join("\0");
      const inputs = await memoGit([mirrorPath, "render-inputs", tip, inputsKey], () => renderManifests(mirrorPath, tip, renderOptions).then((r) => r.inputs)).catch((e: unknown) => {
        if (e instanceof GitError && e.category === "render") return null;
        throw e;
      });
      if (inputs) {
        const inputsDigest = createHash("sha256").update(inputs.join("\0")).digest("hex");
        const byInputs = await memoGit([mirrorPath, "approved-inputs", env.source.branch, tip, env.source.path, inputsDigest], () => approvedRevision(mirrorPath, env.source.branch, env.source.path, inputs));
        if (byInputs) approved = byInputs;
        inputsOutside = inputs;
      } else {
        warnings.push({ category: "render", severity: "warning", message: `the kustomize build of ${env.source.path} at the branch tip ${tip.slice(0, 12)} did not run, so the files it reads are unknown; the approved revision is the newest commit touching ${env.source.path} only` });
      }
    }
    // Drift is measured against what the controller applied: the gap between
    // approved and applied is a pending rollout (the stale alert), not a manual change.
    let compareSha = approved;
    if (controller?.appliedRevision && controller.appliedRevision !== approved) {
      const applied = controller.appliedRevision;
      const ancestor = () => isAncestor(mirrorPath, applied, `refs/heads/${env.source.branch}`);
      if (await (tipSha ? memoGit([mirrorPath, "ancestor", applied, tipSha], ancestor) : ancestor()).catch(() => false)) compareSha = applied;
      else warnings.push({ category: "render", severity: "warning", message: `the controller reports revision ${controller.appliedRevision.slice(0, 12)}, which is not on ${env.source.branch}; comparing with the approved revision` });
    }
    // Variables enter the key only through controllerRenderKey's digest.
    const renderKey = [mirrorPath, compareSha, JSON.stringify({ ...renderOptions, controller: undefined }), controllerRenderKey(controllerRender)];
    const failingFiles = new Set<string>();
    let rendered: RenderResult;
    // Set when the kustomize build was refused or failed: the revision its carried objects were last rendered at.
    let withheldFrom: string | null = null;
    try {
      rendered = await memoRender(env.name, renderKey, () => renderManifests(mirrorPath, compareSha, renderOptions), (r) => r.remoteBases.length === 0);
    } catch (e) {
      if (!(e instanceof GitError)) throw e;
      if (e.category !== "render") throw new RunFailure([{ category: e.category === "git-auth" ? "git-auth" : "git-fetch", message: e.message }]);
      const problems: RunError[] =
        e instanceof RenderRefusedError
          ? e.refusals.map((r) => ({ category: "render", severity: "error", path: r.file, message: `"${r.reference}" refused: ${r.reason}` }))
          : [{ category: "render", severity: "error", message: e.message, ...(e instanceof RenderFileError ? { path: e.path } : {}) }];
      // A kustomize build renders all or nothing: when it cannot run, every object it
      // rendered last time keeps that desired state and is still compared with live.
      const previous = env.source.render !== "plain" ? await ctx.db.desiredObject.findMany({ where: { environmentId: run.environmentId }, select: { sourcePath: true, revisionSha: true } }) : [];
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
    for (const p of rendered.problems) {
      warnings.push({ category: p.message.startsWith("YAML") || p.line !== undefined ? "parse" : "render", message: p.message, path: p.path, line: p.line, severity: p.severity });
      if (p.severity === "error") failingFiles.add(p.path);
    }
    if (rendered.objects.length === 0 && rendered.problems.some((p) => p.severity === "error") && env.source.render !== "plain") {
      throw new RunFailure(warnings.filter((w) => w.severity === "error"));
    }
    // Built once per render (reused while the commit is) and never changed after: later runs share it.
    const secretValuesKey = createHash("sha256").update(JSON.stringify(secretValues)).digest("hex");
    const desired = memoDesired(rendered, [compareSha, ctx.secretKey.toString("hex"), secretValuesKey], () => {
      const map = new Map<string, DesiredEntry>();
      for (const r of rendered.objects) {
        const obj = r.object as KubeObject;
        // Rendered objects are frozen and reused while the commit is: hash their secrets once.
        const masked = obj.kind === "Secret" ? null : maskSecretSourced(obj, secretValues, ctx.secretKey);
        const safe = masked ? masked.object : hashedDesiredSecret(obj, ctx.secretKey);
        const key = objectKey(safe);
        map.set(key, { key, object: safe, sourcePath: r.sourcePath, revisionSha: compareSha });
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
      const rows = await ctx.db.desiredObject.findMany({
        where: { environmentId: run.environmentId, sourcePath: { in: [...failingFiles] } },
        select: { key: true, apiVersion: true, kind: true },
      });
      for (const r of rows) {
        if (desired.has(r.key)) continue;
        carriedKeys.add(r.key);
        carriedKinds.set(`${r.apiVersion}\0${r.kind}`, { apiVersion: r.apiVersion, kind: r.kind });
      }
    }

    const compareOptions = compareOptionsFor(env, ctx.config, controller, ctx.secretKey, env.controller?.type === "argocd" && controllerObject ? argoIgnoreRulesOf(controllerObject) : []);
    const compareContext = createCompareContext(compareOptions);

    // Which kinds to read: everything Git declares plus everything the controller says it manages.
    const resources = new Map<string, ApiResource>();
    const unserved = new Set<string>();
    const pickResources = () => {
      resources.clear();
      unserved.clear();
      const seen = new Set<string>();
      for (const d of desired.values()) {
        const gvk = `${d.object.apiVersion}\0${d.object.kind}`;
        if (seen.has(gvk)) continue;
        seen.add(gvk);
        const r = discovery.lookup(d.object.apiVersion, d.object.kind);
        if (r) resources.set(`${r.group}/${r.kind}`, r);
        else unserved.add(`${d.object.apiVersion} ${d.object.kind}`);
      }
      for (const c of carriedKinds.values()) {
        const r = discovery.lookup(c.apiVersion, c.kind);
        if (r) resources.set(`${r.group}/${r.kind}`, r);
      }
      for (const id of controller?.inventory ?? []) {
        const parsed = parseInventoryId(id);
        const r = parsed && discovery.byGroupKind.get(`${parsed.group}/${parsed.kind}`);
        if (r) resources.set(`${r.group}/${r.kind}`, r);
      }
    };
    pickResources();
    if (unserved.size > 0 && discoveryCached) {
      // A kind the remembered discovery lacks may have been installed since (a CRD): ask again.
      try {
        ({ discovery } = await clusterFor(env.name, env.cluster, ctx.clusterTimeoutMs ?? 20_000, { fresh: true }));
      } catch (e) {
        throw new RunFailure([kubeRunError(e)]);
      }
      pickResources();
    }
    for (const u of unserved) warnings.push({ category: "render", severity: "warning", message: `the cluster does not serve ${u}; its objects count as missing` });
    rememberKinds(env.name, [...resources.values()]);

    progress.phase = "list";
    report();
    const live = new Map<string, LiveEntry>();
    const forbiddenKinds = new Set<string>();
    const ingest = (r: ApiResource, items: Iterable<Record<string, unknown>>, seen?: string[]) => {
      for (const item of items) {
        const obj = (r.kind === "Secret" ? hashSecretValues(item as KubeObject, ctx.secretKey) : maskLiveSecretSourced(item, secretValues, secretPaths.get(objectKey(item as KubeObject)) ?? [], ctx.secretKey)) as KubeObject;
        const key = objectKey(obj);
        if (!desired.has(key) && !carriedKeys.has(key)) {
          // Only objects the environment's controller or label tracks can be Extra; the rest are not ours.
          const verdict = compareObject(null, obj, compareContext);
          if (verdict.type !== "Extra") continue;
        }
        live.set(key, { key, object: obj, resourceVersion: (obj.metadata.resourceVersion as string | undefined) ?? null });
        seen?.push(key);
      }
    };
    const cached = ctx.liveSource
      ? await ctx.liveSource({ environment: env.name, trigger: run.trigger, resources: [...resources.values()], namespaces: lists.scopes }).catch((e: unknown) => {
          ctx.log.warn({ err: e instanceof Error ? e.message : String(e) }, "watch cache unavailable; listing instead");
          return null;
        })
      : null;
    const wanted: ApiResource[] = [];
    for (const r of resources.values()) {
      const fromCache = cached?.get(`${r.group}/${r.kind}`);
      if (fromCache) {
        const items = [...fromCache];
        progress.objectsRead += items.length;
        ingest(r, items);
        progress.kindsDone++;
      } else wanted.push(r);
    }
    // Tracked objects of kinds that neither Git nor a controller record names (Extra of any kind): looked
    // for while the lists run, taken in after them.
    const unsweptKinds = new Set<string>();
    let sweeping: Promise<SweepOutcome> | null = null;
    if (sweepNeeded(env, controller)) {
      const { kinds, unserved: notListable } = sweepKinds(env, discovery, new Set(resources.keys()));
      for (const k of notListable) warnings.push({ category: "render", severity: "warning", message: `extraKinds: the cluster does not serve ${k}, or not for listing` });
      const byAnnotation = env.controller?.type === "argocd" && (controller?.inventory.length ?? 0) === 0;
      sweeping = sweepOrphans(client, kinds, lists.scopes, {
        // A label narrows the lists on the server; an Argo CD tracking id is an annotation, which cannot.
        labelSelector: byAnnotation ? undefined : env.trackingLabel,
        timeoutMs: ctx.clusterTimeoutMs,
        // Kinds listed whole are not looked through, so nothing found here is in `live` already.
        candidate: (item) => {
          const key = objectKey(item as KubeObject);
          return !desired.has(key) && !carriedKeys.has(key) && compareObject(null, item as KubeObject, compareContext).type === "Extra";
        },
      });
      sweeping.catch(() => undefined); // awaited below, unless the lists fail the run first
    }
    // From here on pages go straight to `ingest`; what the speculative lists buffered goes first.
    const listed = await lists.settle(client, wanted, { ingest, forget: (keys) => keys.forEach((k) => live.delete(k)) }, resources.size);
    const resourceName = (r: ApiResource) => `${r.resource}${r.group ? "." + r.group : ""}`;
    if (listed.failure) throw new RunFailure([kubeRunError(listed.failure.error, resourceName(listed.failure.resource))]);
    for (const f of listed.forbidden) {
      forbiddenKinds.add(`${f.resource.group}/${f.resource.kind}`);
      warnings.push({ category: "forbidden", message: f.error.message, resource: resourceName(f.resource) });
    }
    if (cached) ctx.log.debug({ kinds: resources.size, objects: progress.objectsRead }, "live objects read from the watch cache");
    if (sweeping) {
      const swept = await sweeping;
      for (const found of swept.found) ingest(found.resource, [found.object]);
      for (const u of swept.unread) {
        // Like a forbidden kind: what was seen of it before is kept, not resolved for want of a list.
        unsweptKinds.add(`${u.resource.group}/${u.resource.kind}`);
        const forbiddenToList = u.error instanceof KubeError && u.error.category === "forbidden";
        // Kinds the credential may not list are outside "every kind it can list": nothing to say.
        if (!forbiddenToList) warnings.push({ ...kubeRunError(u.error, resourceName(u.resource)), severity: "warning", message: `looking for tracked objects: ${kubeRunError(u.error).message}` });
      }
      ctx.log.debug({ found: swept.found.length, unread: swept.unread.length }, "looked for tracked objects of other kinds");
    }
    // ── Compare ───────────────────────────────────────────────────────────
    progress.phase = "compare";
    report();
    const state: CollectedState = {
      environmentId: run.environmentId,
      runId: run.id,
      approvedSha: approved,
      compareSha,
      desired,
      live,
      failingFiles,
      forbiddenKinds: unsweptKinds.size > 0 ? new Set([...forbiddenKinds, ...unsweptKinds]) : forbiddenKinds,
      controller,
      compareOptions,
      compareContext,
      rollout: [],
      appliedSha: null,
      appliedSource: null,
      inputs: persistInputs,
    };
    const rollout: RolloutStatus[] = [];
    for (const l of live.values()) {
      const r = rolloutOf(l.key, l.object);
      if (r) rollout.push(r);
    }
    // A stable order (lists may interleave kinds), so an unchanged summary is recognised and not rewritten.
    state.rollout = rollout.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

    progress.phase = "store";
    report();
    const result = await persistRun(ctx, state, async (results) => {
      // Applied revision: the controller's word, else inferred from live state.
      if (controller?.appliedRevision) return { sha: controller.appliedRevision, source: "controller" as const };
      // A withheld render shows the last rendered revision, not the approved one: that is what was compared.
      return inferApplied(ctx, env, renderOptions, secretValues, mirrorPath, tipSha, withheldFrom ?? (approved as string), results, live, compareContext, inputsOutside);
    });
    progress.phase = "done";
    report();
    const errors = warnings;
    const partial = forbiddenKinds.size > 0 || failingFiles.size > 0;
    return {
      status: partial ? "partial" : "succeeded",
      errors,
      stats: { ...result.stats, durationMs: Date.now() - started },
      approvedSha: approved,
      appliedSha: result.appliedSha,
    };
  } catch (e) {
    lists?.abandon();
    forgetCluster(env.name);
    if (e instanceof RunFailure) return { status: "failed", errors: [...e.errors, ...warnings], stats: null, approvedSha: null, appliedSha: null };
    ctx.log.error({ err: e instanceof Error ? e.message : String(e) }, "collection failed");
    return { status: "failed", errors: [{ category: "internal", message: e instanceof Error ? e.message : String(e) }, ...warnings], stats: null, approvedSha: null, appliedSha: null };
  }
}

let warnedNetworkNamespace = false;

/** Operators should know when the renderer's network namespace layer is missing (e.g. a container's seccomp profile). */
function warnOnceWithoutNetworkNamespace(log: Logger): void {
  if (warnedNetworkNamespace) return;
  warnedNetworkNamespace = true;
  const isolation = networkIsolation();
  if (isolation.prefix.length === 0) {
    log.warn({ reason: isolation.reason }, "kustomize renders run without their own network namespace; the reference check and the sandboxed environment still apply");
  }
}

