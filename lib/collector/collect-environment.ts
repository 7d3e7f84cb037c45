// One collection of one environment and all its applications: Git (desired,
// per application) and cluster (live, listed once for all of them) in, drift
// out per application, stored in one transaction. Any failure before the
// transaction leaves the last good state untouched; the run records why.
import { createHash } from "node:crypto";
import { controllerKindOf, type ApplicationEnvironment } from "@/lib/config";
import { DEFAULT_APPLICATION_NAME } from "@/lib/config/schema";
import type { RunError, RunProgress, RolloutStatus } from "@/lib/domain/types";
import { networkIsolation } from "@/lib/git";
import { maskLiveSecretSourced } from "./controller-render";
import { hashSecretValues, objectKey, type KubeObject } from "@/lib/drift";
import type { ApiResource, Discovery } from "@/lib/kube/discovery";
import { KubeError } from "@/lib/kube/errors";
import { clusterFor, forgetCluster, rememberedKinds, rememberKinds } from "./run-memo";
import { LiveLists } from "./live-lists";
import { ingestedOnce, keyOnce } from "./watch-ingest";
import { sameInventories, takeChanges } from "./live-delta";
import { sweepKinds, sweepNeeded, sweepOrphans, type SweepOutcome } from "./orphan-sweep";
import { persistNoApplications } from "./persist-none";
import { applicationIds, isDesiredAsStored, persistRun, readPersistInputs, readPrevious, sameComparison, type ApplicationState, type CollectedState, type DesiredEntry, type LiveEntry, type SkippedApplication } from "./persist";
import { liveEntry, liveObjectsOf, type IntakePlan } from "./live-intake";
import { RunOwners } from "./run-owners";
import { readBlobs, type StoredRow } from "./store";
import type { Logger } from "@/lib/log";
import { RunFailure, RunSuperseded, WATCH_TRIGGER, kubeRunError, type CollectorContext, type RunOutcome, type RunRef } from "./run-context";
import { parseInventoryId } from "./controller-object";
import { declaredApplicationKey, withDeclaredApplication, type ControllerStatus } from "@/lib/kube/controller-status";
import { ApplicationGitFailure, newRunFetches, syncSource, type GitSide } from "./git-side";
import { inferApplied } from "./infer-applied";
import { appliedBehind, desiredStateOf, specWithRevisions, tracks, type ApplicationDesired } from "./application-desired";
import { applicationView } from "@/lib/applications/declared";
import { applicationsOfRun, hubClusterFor } from "./run-applications";
import type { ApplicationSpec } from "@/lib/applications/spec";
import { declarationIn, declaringFile, declaringParent, parentsFirst, rememberParents, type Declaration, type DeclaringCandidate } from "./declared-by";

export type { CollectorContext, LiveSource, RunOutcome, RunRef } from "./run-context";
export { compareOptionsFor } from "./compare-options";

interface CollectableApplication {
  id: string;
  spec: ApplicationSpec;
  view: ApplicationEnvironment;
}

interface CollectedApplication extends CollectableApplication {
  desired: ApplicationDesired;
}

export async function collectEnvironment(ctx: CollectorContext, run: RunRef, onProgress: (p: RunProgress) => void = () => {}): Promise<RunOutcome> {
  const started = Date.now();
  const env = ctx.config.environments.find((e) => e.name === run.environmentName);
  const warnings: RunError[] = [];
  if (!env) {
    return { status: "failed", errors: [{ category: "internal", message: `environment ${run.environmentName} is no longer in the configuration` }], stats: null, approvedSha: null, appliedSha: null };
  }
  const progress: RunProgress = { phase: "git", objectsRead: 0, kindsDone: 0, kindsTotal: 0 };
  const report = () => onProgress({ ...progress });
  report();

  // Lists still running when the run fails stop at their next page; nobody waits for them.
  let lists: LiveLists | undefined;
  /** A run taking only the cache's changes into the last good run's entries: what puts them back should it fail. */
  let undoChanges: (() => void) | null = null;
  let delta: Set<string> | null = null;
  try {
    // What the write phase reads first does not depend on what this run finds.
    const persistInputs = readPersistInputs(ctx.db, run.environmentId, ctx.now());
    persistInputs.catch(() => undefined); // awaited below
    // Speculative lists only where the run lists anyway: a watch cache answers without them.
    const remembered = ctx.liveSource ? [] : rememberedKinds(env.name);
    lists = new LiveLists(progress, report, env.namespaces.length > 0 ? env.namespaces : [undefined]);
    // Git and the cluster do not depend on each other until rendering (which
    // needs each controller's applied revision): both sides start at once, and
    // the kinds this environment listed last time are listed meanwhile.
    const clusterSide = (async () => {
      const c = await clusterFor(env.name, env.cluster, ctx.clusterTimeoutMs ?? 20_000);
      for (const r of remembered) lists?.start(c.client, r);
      return c;
    })();
    clusterSide.catch(() => undefined); // awaited below, after Git
    const cluster = () =>
      clusterSide.catch((e: unknown) => {
        throw new RunFailure([kubeRunError(e)]);
      });

    // ── Applications ──────────────────────────────────────────────────────
    // Declared ones are known without the cluster; discovered ones are read from it.
    const ofRun = await applicationsOfRun(ctx, env, cluster, async () => (await persistInputs).applicationRows);
    const specs = ofRun.specs;
    warnings.push(...ofRun.warnings);
    const several = specs.length + ofRun.keptForUnlistedKinds.length > 1;
    // A reason that names its application already (applicationView's) is not named twice.
    const named = (spec: ApplicationSpec, e: RunError): RunError => (several && !e.message.startsWith(`application ${spec.name} `) ? { ...e, message: `application ${spec.name}: ${e.message}` } : e);
    const collectable: Array<Omit<CollectableApplication, "id">> = [];
    const notCollectable: Array<Omit<SkippedApplication, "id">> = [];
    const names = new Set<string>();
    for (const spec of specs) {
      if (names.has(spec.name)) {
        warnings.push({ category: "internal", severity: "warning", message: `two applications are named ${spec.name}; the second is left out` });
        continue;
      }
      names.add(spec.name);
      // A source nothing in driftwatch.yaml allows is not fetched: that is this application's failure, the others go on.
      const unfetchable = ofRun.unfetchable.get(spec.name);
      const view = applicationView(env, spec);
      if (unfetchable) notCollectable.push({ spec, error: { category: "git-fetch", severity: "warning", message: unfetchable } });
      else if (!view.ok) notCollectable.push({ spec, error: { category: "render", severity: "warning", message: view.reason } });
      else collectable.push({ spec, view: view.env });
    }
    for (const kept of ofRun.keptForUnlistedKinds) if (!names.has(kept.spec.name)) notCollectable.push(kept);
    for (const s of notCollectable) warnings.push(named(s.spec, s.error));
    // Discovery read the cluster and found nothing it selects: the environment now holds no applications.
    if (specs.length === 0 && env.discover && !ctx.applicationsFor) {
      lists.abandon();
      rememberKinds(env.name, []);
      const keptIds = applicationIds(await persistInputs, notCollectable.map((s) => s.spec));
      const kept = notCollectable.map((s) => ({ ...s, id: keptIds.get(s.spec.name) as string }));
      const stats = await persistNoApplications(ctx, { environmentId: run.environmentId, runId: run.id, kept, staleAfterMs: env.staleAfter, inputs: persistInputs });
      return { status: kept.length > 0 ? "partial" : "succeeded", errors: warnings, stats: { ...stats, durationMs: Date.now() - started, repositoriesFetched: 0 }, approvedSha: null, appliedSha: null };
    }
    if (collectable.length === 0) throw new RunFailure([{ category: "render", message: specs.length === 0 ? `environment ${env.name} has no applications` : `none of the ${specs.length} applications of ${env.name} can be collected` }, ...warnings]);

    // ── Git: each repository fetched once, whatever number of applications follow it ──
    // One after another: applications of one repository share its fetch, and its branch rows.
    // A watch-triggered run takes Git as the environment's last fetch left it, while that is younger than its interval.
    const fetches = newRunFetches(run.trigger === WATCH_TRIGGER ? env.interval : 0);
    // An application whose followed ref does not resolve is left out like one that cannot be rendered (its last
    // state kept, the run partial); a repository that cannot be fetched fails the run.
    const gitSides = (async () => {
      const out: Array<GitSide | ApplicationGitFailure> = [];
      for (const a of collectable) {
        out.push(
          await syncSource(ctx, a.view, ofRun.repositories, fetches, a.spec).catch((e: unknown) => {
            if (e instanceof ApplicationGitFailure) return e;
            throw e instanceof RunFailure ? new RunFailure(e.errors.map((x) => named(a.spec, x))) : e;
          }),
        );
      }
      return out;
    })();
    gitSides.catch(() => undefined); // awaited below
    // Stored applications keep their ids (and history); new ones get theirs now.
    const ids = applicationIds(await persistInputs, [...specs, ...notCollectable.map((s) => s.spec)]);
    const idOf = (spec: ApplicationSpec) => ids.get(spec.name) as string;
    // A Git failure fails the run as git's, whatever the cluster side did.
    const gitOutcomes = await gitSides;
    const refFailures = collectable.flatMap((a, i) => {
      const outcome = gitOutcomes[i];
      return outcome instanceof ApplicationGitFailure ? [{ spec: a.spec, own: outcome.errors, errors: outcome.errors.map((x) => named(a.spec, x)) }] : [];
    });
    if (refFailures.length === collectable.length) throw new RunFailure([...refFailures.flatMap((f) => f.errors), ...warnings]);
    const gits = gitOutcomes.filter((g): g is GitSide => !(g instanceof ApplicationGitFailure));
    collectable.splice(0, collectable.length, ...collectable.filter((_, i) => !(gitOutcomes[i] instanceof ApplicationGitFailure)));
    for (const f of refFailures) {
      notCollectable.push({ spec: f.spec, error: { ...f.own[0]!, severity: "warning" } });
      warnings.push(...f.errors.map((e) => ({ ...e, severity: "warning" as const })));
    }
    const skipped: SkippedApplication[] = notCollectable.map((s) => ({ ...s, id: idOf(s.spec) }));

    // ── Cluster ───────────────────────────────────────────────────────────
    progress.phase = "discover";
    report();
    const c = await cluster();
    const client = c.client;
    let discovery: Discovery = c.discovery;
    const discoveryCached = c.cached;

    // ── Render, per application ───────────────────────────────────────────
    progress.phase = "render";
    report();
    if (collectable.some((a) => a.view.source.render !== "plain")) warnOnceWithoutNetworkNamespace(ctx.log);
    const onlyDefault = collectable.length === 1 && skipped.length === 0 && collectable[0]!.spec.name === DEFAULT_APPLICATION_NAME;
    const memoNameOf = (spec: ApplicationSpec) => (onlyDefault ? env.name : `${env.name}\0${spec.name}`);
    const desiredOf = async (i: number, declaredBy: Declaration | undefined) => {
      const a = { ...collectable[i]!, id: idOf(collectable[i]!.spec) };
      return desiredStateOf({
        ctx,
        view: a.view,
        // Before applications an environment's rows were all its one application's.
        previousRows: onlyDefault ? { environmentId: run.environmentId } : { environmentId: run.environmentId, applicationId: a.id },
        memoName: memoNameOf(a.spec),
        git: gits[i]!,
        client,
        discovery,
        // An Argo CD hub's Application is read in the hub; what it deploys, here.
        controllerCluster: a.spec.controller?.hub ? ((await hubClusterFor(ctx, env)) ?? undefined) : undefined,
        ownPauseIds: (await persistInputs).ownPauseIds,
        declaredBy,
      });
    };
    // An application whose controller object another one declares in Git has that manifest as an input
    // (declared-by.ts): its parent's render says where, so parents go first. Applications keep their order.
    const done = new Map<number, { desired: ApplicationDesired; parent: string | null }>();
    const candidateOf = (i: number): DeclaringCandidate => {
      const { spec, view } = collectable[i]!;
      const git = gits[i]!;
      const desired = done.get(i)?.desired;
      return {
        id: spec.name,
        controller: view.controller && { kind: controllerKindOf(view.controller), namespace: view.controller.namespace, name: view.controller.name },
        mirrorPath: git.mirrorPath,
        branch: view.source.branch,
        singleGitSource: !git.sources && !git.chart && !desired?.helmSide,
        desired: desired?.desired ?? new Map(),
        renderInputs: desired?.inputsOutside ?? [],
      };
    };
    const declarationOf = async (i: number): Promise<{ declaration: Declaration; parent: string } | undefined> => {
      const child = candidateOf(i);
      const found = declaringParent(child, [...done.keys()].map(candidateOf));
      if (!found) return undefined;
      const parent = collectable.find((c) => c.spec.name === found.parent.id)!;
      const parentDesired = done.get(collectable.indexOf(parent))!.desired;
      const files = await declaringFile(child.mirrorPath, gits[i]!.tipSha, found);
      return { declaration: declarationIn({ memoName: memoNameOf(parent.spec), mirrorPath: parentDesired.mirrorPath, renderOptions: parentDesired.renderOptions }, files, found.key), parent: parent.spec.name };
    };
    // An application whose render fails (a kustomize build that cannot run, a file refused) with nothing of its own
    // to keep is left out like one whose ref is gone: its last state kept, its reason on it, the run partial. Only
    // when every application fails does the run. One new Kustomization pointing at a broken folder used to fail the
    // run of every application of its cluster.
    const renderFailures = new Map<number, RunFailure>();
    const ownRenderFailure = (e: unknown): e is RunFailure => several && e instanceof RunFailure && e.errors.length > 0 && e.errors.every((x) => x.category === "render" || x.category === "parse");
    const render = async (i: number, declared: { declaration: Declaration; parent: string } | undefined) => {
      try {
        done.set(i, { desired: await desiredOf(i, declared?.declaration), parent: declared?.parent ?? null });
        renderFailures.delete(i);
      } catch (e) {
        if (!ownRenderFailure(e)) throw e instanceof RunFailure ? new RunFailure(e.errors.map((x) => named(collectable[i]!.spec, x))) : e;
        done.delete(i);
        renderFailures.set(i, e);
      }
    };
    for (const i of parentsFirst(env.name, collectable.map((c) => c.spec.name))) await render(i, await declarationOf(i));
    // A child computed before its parent (a first run, a new parent): once more, now that its parent's render is there.
    for (const [i, d] of [...done]) {
      if (d.parent) continue;
      const declared = await declarationOf(i);
      if (declared) await render(i, declared);
    }
    const failed = [...renderFailures].map(([i, f]) => ({ spec: collectable[i]!.spec, own: f.errors }));
    if (failed.length === collectable.length) throw new RunFailure([...failed.flatMap((f) => f.own.map((x) => named(f.spec, x))), ...warnings]);
    for (const f of failed) {
      skipped.push({ spec: f.spec, id: idOf(f.spec), error: { ...f.own[0]!, severity: "warning" } });
      warnings.push(...f.own.map((x) => ({ ...named(f.spec, x), severity: "warning" as const })));
    }
    rememberParents(env.name, new Map([...done].map(([i, d]) => [collectable[i]!.spec.name, d.parent])));
    const apps: CollectedApplication[] = collectable.flatMap((c, i) => {
      const d = done.get(i);
      return d ? [{ ...c, id: idOf(c.spec), desired: d.desired }] : [];
    });
    for (const a of apps) warnings.push(...a.desired.warnings.map((w) => named(a.spec, w)));

    // Which application each object is: the one whose Git has it (the first, when two render it).
    const merged = mergeDesired(apps);
    const desired = merged.desired;
    const carriedKeys = merged.carriedKeys;
    // This run adds the owners of tracked live objects; the merged owners stay as they are for the next run.
    let ownerOf = new RunOwners(merged.owners);
    const byId = new Map(apps.map((a) => [a.id, a]));
    for (const [i, a] of apps.entries()) {
      const shared = merged.shared[i] ?? 0;
      if (shared > 0) warnings.push(named(a.spec, { category: "render", severity: "warning", message: `${shared} of its objects are rendered by another application too; they are compared as the first application's` }));
    }

    // Which kinds to read, once for all applications: everything Git declares plus everything their controllers say they manage.
    const resources = new Map<string, ApiResource>();
    const unserved = new Set<string>();
    const pickResources = () => {
      resources.clear();
      unserved.clear();
      for (const d of (merged.kinds ??= kindsOf(desired))) {
        const r = discovery.lookup(d.apiVersion, d.kind);
        if (r) resources.set(`${r.group}/${r.kind}`, r);
        else unserved.add(`${d.apiVersion} ${d.kind}`);
      }
      for (const a of apps) {
        for (const k of a.desired.carriedKinds.values()) {
          const r = discovery.lookup(k.apiVersion, k.kind);
          if (r) resources.set(`${r.group}/${r.kind}`, r);
        }
        for (const id of a.desired.controller?.inventory ?? []) {
          const parsed = parseInventoryId(id);
          const r = parsed && discovery.byGroupKind.get(`${parsed.group}/${parsed.kind}`);
          if (r) resources.set(`${r.group}/${r.kind}`, r);
        }
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

    // The last good run's rows first: each live object is hashed and compared as its page arrives, and only a compact entry kept.
    const previous = await readPrevious(ctx.db, run.environmentId, await persistInputs, apps.map((a) => ({ spec: a.spec, compareOptions: a.desired.compareOptions })));
    const intake: IntakePlan = {
      prevLive: previous.prevLive,
      prevDesired: previous.prevDesired,
      sameComparison: (key) => sameComparison(previous, key),
      desired,
      desiredAsStored: isDesiredAsStored(previous, desired),
      carriedKeys,
      compareContextOf: (key) => (byId.get(ownerOf.get(key) ?? "") ?? apps[0]!).desired.compareContext,
    };
    progress.phase = "list";
    report();
    let live = new Map<string, LiveEntry>();
    const forbiddenKinds = new Set<string>();
    // Secret-sourced values are masked as the owning application's render put them; an object no render has, with any of them.
    const allSecretValues = apps.length === 1 ? apps[0]!.desired.secretValues : [...new Set(apps.flatMap((a) => a.desired.secretValues))];
    /** The application tracking a live object Git lacks (its controller's inventory, tracking id or label), if any. */
    const trackerOf = (obj: KubeObject) => apps.find((a) => tracks(a.desired.compareContext, obj));
    // What masking depended on, for objects a watch cache hands out again and again (watch-ingest.ts).
    const maskInputs = new Map<readonly string[], string>();
    const maskInputsOf = (values: readonly string[]) => {
      let named = maskInputs.get(values);
      if (named === undefined) maskInputs.set(values, (named = createHash("sha256").update(ctx.secretKey).update(JSON.stringify(values)).digest("hex")));
      return named;
    };
    const takeIn = (r: ApiResource, item: Record<string, unknown>, secretValues: readonly string[], paths: ReadonlyArray<Array<string | number>>) =>
      (r.kind === "Secret" ? hashSecretValues(item as KubeObject, ctx.secretKey) : maskLiveSecretSourced(item, secretValues, paths, ctx.secretKey)) as KubeObject;
    const ingest = (r: ApiResource, items: Iterable<Record<string, unknown>>, seen?: string[], cachedObjects = false, into = live) => {
      for (const item of items) {
        const ownerKey = cachedObjects ? keyOnce(item as KubeObject) : objectKey(item as KubeObject);
        const owner = byId.get(ownerOf.get(ownerKey) ?? "");
        const secretValues = owner ? owner.desired.secretValues : allSecretValues;
        const paths = owner?.desired.secretPaths.get(ownerKey) ?? [];
        // With nothing to mask, taking an object in is itself.
        const nothingToDo = r.kind !== "Secret" && secretValues.length === 0 && paths.length === 0;
        const obj = nothingToDo
          ? (item as KubeObject)
          : cachedObjects
            ? ingestedOnce(item, r.kind === "Secret" ? maskInputsOf(NO_VALUES) : `${maskInputsOf(secretValues)}\0${JSON.stringify(paths)}`, () => takeIn(r, item, secretValues, paths))
            : takeIn(r, item, secretValues, paths);
        const key = obj === item ? ownerKey : objectKey(obj);
        if (!desired.has(key) && !carriedKeys.has(key)) {
          // Only objects an application's controller or label tracks can be Extra; the rest are not ours.
          const tracker = trackerOf(obj);
          if (!tracker) continue;
          ownerOf.set(key, tracker.id);
        }
        into.set(key, liveEntry(intake, key, obj));
        seen?.push(key);
      }
    };
    const cached = ctx.liveSource
      ? await ctx.liveSource({ environment: env.name, trigger: run.trigger, resources: [...resources.values()], namespaces: lists.scopes }).catch((e: unknown) => {
          ctx.log.warn({ err: e instanceof Error ? e.message : String(e) }, "watch cache unavailable; listing instead");
          return null;
        })
      : null;
    const sweepers = apps.filter((a) => sweepNeeded(a.view, a.desired.controller));
    // What taking an object in depends on besides the object and the desired set (live-delta.ts).
    const intakeInputs = cached
      ? JSON.stringify([apps.map((a) => [a.id, maskInputsOf(a.desired.secretValues)]), maskInputsOf(allSecretValues), [...resources.keys()].sort(), lists.scopes])
      : "";
    const inventories = apps.map((a) => a.desired.controller?.inventory ?? null);
    // Only the changes since the last good run, when it read this cache and nothing else its entries depend on moved.
    const kept = previous.remembered?.intake;
    const changes =
      cached && kept && kept.epoch === cached.epoch && kept.desired === desired && kept.owners === merged.owners && intake.desiredAsStored && carriedKeys.size === 0 && skipped.length === 0 && sweepers.length === 0 && previous.sameOptions && previous.samePauses && kept.inputs === intakeInputs && sameInventories(kept.inventories, inventories)
        ? cached.changesSince(kept.cursor)
        : null;
    const wanted: ApiResource[] = [];
    if (kept && changes) {
      live = kept.live;
      ownerOf = new RunOwners(merged.owners, kept.tracked);
      for (const c of changes) ownerOf.forget(c.key);
      undoChanges = takeChanges(live, changes, (c, into) => ingest(c.resource, [c.object!], undefined, true, into));
      delta = new Set(changes.map((c) => c.key));
      progress.objectsRead = delta.size;
      progress.kindsDone = resources.size;
      ctx.log.debug({ changes: delta.size, objects: live.size }, "took in the watch cache's changes since the last good run");
    } else {
      const objects = cached?.objects();
      for (const r of resources.values()) {
        const fromCache = objects?.get(`${r.group}/${r.kind}`);
        if (fromCache) {
          const items = Array.isArray(fromCache) ? (fromCache as Array<Record<string, unknown>>) : [...fromCache];
          progress.objectsRead += items.length;
          ingest(r, items, undefined, true);
          progress.kindsDone++;
        } else wanted.push(r);
      }
    }
    // Tracked objects of kinds that neither Git nor a controller record names (Extra of any kind): looked
    // for while the lists run, taken in after them.
    const unsweptKinds = new Set<string>();
    let sweeping: Promise<SweepOutcome> | null = null;
    if (sweepers.length > 0) {
      const { kinds, unserved: notListable } = sweepKinds(env, discovery, new Set(resources.keys()));
      for (const k of notListable) warnings.push({ category: "render", severity: "warning", message: `extraKinds: the cluster does not serve ${k}, or not for listing` });
      const byAnnotation = (a: CollectedApplication) => a.view.controller?.type === "argocd" && (a.desired.controller?.inventory.length ?? 0) === 0;
      // A label narrows the lists on the server; an Argo CD tracking id is an annotation, which cannot. Several labels cannot either.
      const labels = new Set(sweepers.map((a) => (byAnnotation(a) ? undefined : a.view.trackingLabel)));
      sweeping = sweepOrphans(client, kinds, lists.scopes, {
        labelSelector: labels.size === 1 ? [...labels][0] : undefined,
        timeoutMs: ctx.clusterTimeoutMs,
        // Kinds listed whole are not looked through, so nothing found here is in `live` already.
        candidate: (item) => {
          const key = objectKey(item as KubeObject);
          return !desired.has(key) && !carriedKeys.has(key) && sweepers.some((a) => tracks(a.desired.compareContext, item as KubeObject));
        },
      });
      sweeping.catch(() => undefined); // awaited below, unless the lists fail the run first
    }
    // From here on pages go straight to `ingest`; what the speculative lists buffered goes first.
    const forget = (keys: readonly string[]) =>
      keys.forEach((k) => {
        live.delete(k);
        ownerOf.forget(k);
      });
    const listed = await lists.settle(client, wanted, { ingest, forget }, resources.size);
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
    const rollout: RolloutStatus[] = [];
    const rolloutByApp = new Map<string, RolloutStatus[]>();
    for (const l of live.values()) {
      const r = l.rollout;
      if (!r) continue;
      rollout.push(r);
      const owner = ownerOf.get(l.key);
      if (owner) (rolloutByApp.get(owner) ?? rolloutByApp.set(owner, []).get(owner)!).push(r);
    }
    // A stable order (lists may interleave kinds), so an unchanged summary is recognised and not rewritten.
    const byKey = (a: RolloutStatus, b: RolloutStatus) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
    const declaredApplication = await declaredApplications(ctx.db, apps, desired, carriedKeys, previous.prevDesired, skipped);
    const applications: ApplicationState[] = apps.map((a) => {
      const d = a.desired;
      return {
        id: a.id,
        spec: specWithRevisions(a.spec, d),
        approvedSha: d.approved,
        approvedAt: d.approvedAt ?? null,
        compareSha: d.compareSha,
        // An Argo CD Application without automated sync is paused only when Git declares the policy: here, an app-of-apps parent's render.
        controller: d.controller && withDeclaredApplication(d.controller, declaredApplication(d.controller)),
        compareOptions: d.compareOptions,
        compareContext: d.compareContext,
        failingFiles: d.failingFiles,
        rollout: (rolloutByApp.get(a.id) ?? []).sort(byKey),
        declaredChanges: d.declaredChanges,
        declaringFiles: d.declaringFiles,
        // Applied revision: the controller's word, else inferred from live state.
        // A withheld render shows the last rendered revision, not the approved one: that is what was compared.
        resolveApplied: async (results) => {
          const applied = d.helmSide
            ? { sha: await d.helmSide.applied(), source: "controller" as const }
            : d.controller?.appliedRevision
              ? { sha: d.controller.appliedRevision, source: "controller" as const }
              : await inferApplied(ctx, a.view, d.renderOptions, d.secretValues, d.mirrorPath, d.tipSha, d.withheldFrom ?? d.approved, results, (keys) => liveObjectsOf(ctx.db, live, previous.prevLive, keys), d.compareContext, d.inputsOutside);
          return { ...applied, behind: d.sourcesBehind ?? (await appliedBehind(d.mirrorPath, d.approved, applied.sha, { ref: a.view.source.branch, tip: d.tipSha })) };
        },
      };
    });
    const state: CollectedState = {
      environmentId: run.environmentId,
      runId: run.id,
      applications,
      skipped,
      ownerOf,
      desired,
      live,
      previous,
      forbiddenKinds: unsweptKinds.size > 0 ? new Set([...forbiddenKinds, ...unsweptKinds]) : forbiddenKinds,
      rollout: rollout.sort(byKey),
      staleAfterMs: env.staleAfter,
      inputs: persistInputs,
      delta,
      // Kept for the next run when every entry came from the cache and nothing was left unread.
      intake:
        cached && wanted.length === 0 && forbiddenKinds.size === 0 && unsweptKinds.size === 0 && carriedKeys.size === 0 && skipped.length === 0 && sweepers.length === 0
          ? { epoch: cached.epoch, cursor: cached.cursor, desired, owners: merged.owners, inputs: intakeInputs, inventories, live, tracked: ownerOf.additions() }
          : null,
    };

    progress.phase = "store";
    report();
    const result = await persistRun(ctx, state);
    // Written: the kept entries are this run's now, and the cache's log up to its read is not asked for again.
    undoChanges = null;
    cached?.release(cached.cursor);
    progress.phase = "done";
    report();
    const partial = forbiddenKinds.size > 0 || apps.some((a) => a.desired.failingFiles.size > 0) || skipped.length > 0;
    const primary = applications[0]!;
    return {
      status: partial ? "partial" : "succeeded",
      errors: warnings,
      stats: { ...result.stats, durationMs: Date.now() - started, applications: apps.length + skipped.length, repositoriesFetched: fetches.mirrors.size - fetches.reused.size, liveTakenIn: delta ? delta.size : progress.objectsRead },
      approvedSha: primary.approvedSha,
      appliedSha: result.appliedSha,
    };
  } catch (e) {
    undoChanges?.();
    lists?.abandon();
    forgetCluster(env.name);
    if (e instanceof RunSuperseded) return { status: "failed", superseded: true, errors: e.errors, stats: null, approvedSha: null, appliedSha: null };
    if (e instanceof RunFailure) return { status: "failed", errors: [...e.errors, ...warnings], stats: null, approvedSha: null, appliedSha: null };
    ctx.log.error({ err: e instanceof Error ? e.message : String(e) }, "collection failed");
    return { status: "failed", errors: [{ category: "internal", message: e instanceof Error ? e.message : String(e) }, ...warnings], stats: null, approvedSha: null, appliedSha: null };
  }
}

/**
 * What Git declares for each collected Argo CD Application, by its controller status: the object this run's renders
 * have under its key, else — when the application that declared it last is left out of this run (skipped), or its
 * render of the declaring file is withheld (a file that does not parse, a kustomize build that fails: the key is
 * carried) — the one the last good run stored, which persist keeps for both. Its parent's render did not say, so
 * Git's word is unknown, not gone: read as undeclared, a child whose automated policy was removed by hand would
 * sync "by hand by design" for one run, its detected pause ending and starting again once the parent renders.
 */
async function declaredApplications(
  db: CollectorContext["db"],
  apps: readonly CollectedApplication[],
  desired: ReadonlyMap<string, DesiredEntry>,
  carriedKeys: ReadonlySet<string>,
  prevDesired: ReadonlyMap<string, StoredRow>,
  skipped: readonly SkippedApplication[],
): Promise<(status: ControllerStatus) => Record<string, unknown> | undefined> {
  const skippedIds = new Set(skipped.map((s) => s.id));
  const kept = new Map<string, string>(); // key → blob hash of its stored desired row
  for (const a of skippedIds.size > 0 || carriedKeys.size > 0 ? apps : []) {
    const c = a.desired.controller;
    if (c?.type !== "argocd") continue;
    const key = declaredApplicationKey(c);
    const row = prevDesired.get(key);
    const unsaid = carriedKeys.has(key) || (!!row?.applicationId && skippedIds.has(row.applicationId));
    if (!desired.has(key) && row && unsaid) kept.set(key, row.blobHash);
  }
  const bodies = kept.size > 0 ? await readBlobs(db, [...kept.values()]) : new Map<string, Record<string, unknown>>();
  return (status) => {
    const key = declaredApplicationKey(status);
    const hash = kept.get(key);
    return desired.get(key)?.object ?? (hash === undefined ? undefined : bodies.get(hash));
  };
}

interface MergedDesired {
  parts: Array<{ id: string; desired: ReadonlyMap<string, DesiredEntry>; carriedKeys: ReadonlySet<string> }>;
  desired: Map<string, DesiredEntry>;
  /** The application of every desired and carried key. */
  owners: Map<string, string>;
  carriedKeys: Set<string>;
  /** Per application, how many of its objects an earlier one renders too. */
  shared: number[];
  /** The kinds of the desired objects, once asked for. */
  kinds?: Array<{ apiVersion: string; kind: string }>;
}

function kindsOf(desired: ReadonlyMap<string, DesiredEntry>): Array<{ apiVersion: string; kind: string }> {
  const kinds = new Map<string, { apiVersion: string; kind: string }>();
  for (const d of desired.values()) {
    const gvk = `${d.object.apiVersion}\0${d.object.kind}`;
    if (!kinds.has(gvk)) kinds.set(gvk, { apiVersion: d.object.apiVersion, kind: d.object.kind });
  }
  return [...kinds.values()];
}

/** Kept with the first application's desired set (memoised per render, run-memo.ts), so it goes when that does. */
const mergedDesired = new WeakMap<object, MergedDesired>();

/**
 * The applications' desired objects as one set, each key the first
 * application's that renders it. While no application's render moves (nearly
 * every watch-triggered run) this is the previous run's set itself, so it is
 * neither rebuilt nor, in persist, gone through again. Callers must not change it.
 */
function mergeDesired(apps: readonly CollectedApplication[]): MergedDesired {
  const first = apps[0]?.desired.desired;
  const hit = first ? mergedDesired.get(first) : undefined;
  const same = (a: ReadonlySet<string>, b: ReadonlySet<string>) => a === b || (a.size === b.size && [...a].every((k) => b.has(k)));
  if (hit && hit.parts.length === apps.length && hit.parts.every((p, i) => p.id === apps[i]!.id && p.desired === apps[i]!.desired.desired && same(p.carriedKeys, apps[i]!.desired.carriedKeys))) return hit;
  const desired = new Map<string, DesiredEntry>();
  const owners = new Map<string, string>();
  const shared: number[] = [];
  for (const a of apps) {
    let n = 0;
    for (const [key, entry] of a.desired.desired) {
      if (desired.has(key)) {
        n++;
        continue;
      }
      desired.set(key, entry);
      owners.set(key, a.id);
    }
    shared.push(n);
  }
  const carriedKeys = new Set<string>();
  for (const a of apps) {
    for (const key of a.desired.carriedKeys) {
      if (desired.has(key) || carriedKeys.has(key)) continue;
      carriedKeys.add(key);
      owners.set(key, a.id);
    }
  }
  const merged = { parts: apps.map((a) => ({ id: a.id, desired: a.desired.desired, carriedKeys: new Set(a.desired.carriedKeys) })), desired, owners, carriedKeys, shared };
  if (first) mergedDesired.set(first, merged);
  return merged;
}

/** A Secret's hashing depends on the instance key alone. */
const NO_VALUES: readonly string[] = [];

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

