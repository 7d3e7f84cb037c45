// The kustomize render: every reference the build reaches is checked first
// (kustomize-inputs), then the commit and each allowlisted remote base are
// checked out and kustomize runs in the sandbox, offline.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { isMap, isScalar, isSeq, parseDocument } from "yaml";
import type { RepositoryConfig } from "@/lib/config/schema";
import { GitError } from "./errors";
import { findKustomize, runKustomize } from "./kustomize";
import { KUSTOMIZATION_FILES, normaliseRepoUrl, walkKustomization, type RemoteBase, type Refusal } from "./kustomize-inputs";
import { finaliseObjects, type RenderProblem } from "./manifests";
import type { CachedRender } from "./render-cache";
import { resolveCommit } from "./revisions";
import { blameKustomization, fluxCommonMetadata, fluxPostBuild, RenderFileError, type ControllerRender, type RenderPlan } from "./controller-render";
import { materialise, repoTree, withWrittenFile, type ListedTree } from "./repo-tree";
import type { HelmSourceContext } from "./render";
import { helmKubeVersion, isArgoHook } from "@/lib/helm/argocd-helm";
import { unpackChart } from "@/lib/helm/chart-archive";
import { findHelm, helmEnv, writeKustomizeHelmCommand } from "@/lib/helm/helm-binary";
import type { HelmChartUse, KustomizeWalk } from "./kustomize-inputs";
import type { Obj } from "./shape";

/**
 * The allowlist of remote kustomize bases: configured repositories whose
 * URL a kustomization may name. Driftwatch fetches them into its own
 * mirrors (with their credentials) and the build reads the local copy.
 */
export interface RemoteBaseSource {
  repositories: readonly RepositoryConfig[];
  /** Syncs the repository's mirror; returns its path. */
  fetch(repo: RepositoryConfig): Promise<string>;
}

/**
 * A kustomize render refused before kustomize ran: some reference would
 * leave the repository (remote, file://, absolute, through a link, a
 * plugin, Helm). Each refusal names the file and the reference.
 */
export class RenderRefusedError extends GitError {
  constructor(
    readonly refusals: readonly Refusal[],
    readonly inputs: readonly string[],
  ) {
    super("render", refusals.map((r) => `${r.file}: "${r.reference}" refused: ${r.reason}`).join("; "));
    this.name = "RenderRefusedError";
  }
}

const MAX_REMOTE_DEPTH = 4;

/** Flux's kustomize-controller builds with kustomize's plugins disabled (fluxcd/pkg kustomize generator: DisabledPluginConfig, so no --enable-helm). */
const FLUX_HELM_CHARTS =
  "Flux's kustomize-controller does not inflate helmCharts (it builds without --enable-helm), so this Kustomization fails to build in the cluster too; deploy the chart with a HelmRelease";

/**
 * Checks every reference of the build, then checks the commit (and each
 * allowlisted remote base) out, points the kustomizations at the local
 * copies of their remote bases, and runs kustomize in the sandbox.
 */
export async function renderKustomize(
  mirrorPath: string,
  commit: string,
  rel: string,
  defaultNamespace: string,
  kustomizeBin: string | undefined,
  remote: RemoteBaseSource | undefined,
  controlled?: { controller: ControllerRender; plan: Extract<RenderPlan, { kind: "kustomize" }>; listed: ListedTree },
  /** helmCharts are inflated (as Argo CD does with `kustomize.buildOptions: --enable-helm`) only when this is given and the controller is not Flux. */
  helm?: HelmSourceContext,
): Promise<CachedRender & { remoteBases: string[] }> {
  const allowed = new Map((remote?.repositories ?? []).map((r) => [normaliseRepoUrl(r.url), r]));
  const allowRemote = (repository: string) => allowed.has(repository);
  // The controller's own kustomization (Flux's generated or rewritten one, Argo CD's edited one) is what kustomize
  // will read, so the walker checks that text in place of the committed file.
  const write = controlled?.plan.write;
  const listed = controlled?.listed ?? (await repoTree(mirrorPath, commit));
  const tree = withWrittenFile(listed, write);
  const flux = controlled?.controller.type === "flux";
  const walk = await walkKustomization(tree, rel, { allowRemote, helmCharts: flux ? FLUX_HELM_CHARTS : helm ? "inflate" : undefined });
  const kustomization =
    controlled?.plan.kustomizationFile ?? KUSTOMIZATION_FILES.map((f) => (rel ? `${rel}/${f}` : f)).find((f) => tree.node(f)?.type === "file");
  if (!kustomization) {
    throw new GitError("render", `no kustomization.yaml in "${rel || "/"}" at ${commit.slice(0, 12)}; use render: plain for plain manifests`);
  }
  if (walk.refusals.length > 0) throw new RenderRefusedError(walk.refusals, walk.inputs);
  const bin = findKustomize(kustomizeBin);
  const dir = await mkdtemp(path.join(os.tmpdir(), "driftwatch-kustomize-"));
  try {
    const home = path.join(dir, "home");
    await mkdir(home);
    const root = path.join(dir, "tree");
    await materialise(mirrorPath, commit, dir, root, home);
    if (write) await writeFile(path.join(root, write.file), write.text);
    await fetchRemoteBases(walk.remoteBases, root, "", { dir, home, allowed, allowRemote, remote: remote!, depth: 0, count: { n: 0 } });
    const helmRun = walk.helmCharts.length > 0 ? await prepareHelmCharts(walk, root, dir, home, helm!) : undefined;
    const file = kustomization;
    // kustomize-controller builds with LoadRestrictionsNone (confined to the artifact); kustomize's and Argo CD's default is root-only.
    const output = await runKustomize(bin, root, rel || ".", { home, loadAnywhereInRepository: flux, helm: helmRun && { args: helmRun.args, env: helmRun.env } }).catch(async (e: unknown) => {
      if (!(e instanceof GitError) || e instanceof RenderFileError) throw e;
      throw new RenderFileError(blameKustomization(e.message, file, listed.paths), e.message);
    });
    const problems: RenderProblem[] = [];
    let objects = fluxPostBuild(controlled?.controller, output, kustomization, problems);
    // Argo CD leaves helm hooks (and its own hooks) out of the compared objects, whatever the source type.
    if (helmRun) objects = objects.filter((o) => !isArgoHook(o.object as Obj));
    return {
      objects: finaliseObjects(fluxCommonMetadata(controlled?.controller, objects), defaultNamespace, problems),
      problems,
      inputs: walk.inputs,
      remoteBases: [...walk.remoteBases.map((b) => b.reference), ...(helmRun?.moving ?? [])],
      ...(helmRun?.fetched.length ? { fetchedCharts: helmRun.fetched } : {}),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Puts every chart the build inflates where kustomize looks for it: charts
 * committed to the repository are already in the checkout; any other is
 * fetched by Driftwatch's chart fetcher (a configured repository, verified
 * by digest, cached) and unpacked into chartHome, so kustomize finds a
 * folder and never runs `helm pull`. Returns the flags and environment of
 * a build with --enable-helm, helm reached through a guard (no pull, no
 * post-renderer) and given the destination cluster's capabilities.
 */
async function prepareHelmCharts(walk: KustomizeWalk, root: string, dir: string, home: string, helm: HelmSourceContext): Promise<{ args: string[]; env: NodeJS.ProcessEnv; moving: string[]; fetched: string[] }> {
  const refused = (c: HelmChartUse, reason: string) => new RenderRefusedError([{ file: c.file, reference: `helmCharts: ${c.name}${c.version ? ` ${c.version}` : ""} from ${c.repo}`, reason }], walk.inputs);
  const unpacked = new Set<string>();
  const moving: string[] = [];
  const fetchedCharts: string[] = [];
  for (const c of walk.helmCharts) {
    if (c.present || unpacked.has(c.chartPath)) continue;
    if (!helm.fetchChart) throw refused(c, "the chart is not in the repository and cannot be fetched: add its repository to helmRepositories in driftwatch.yaml (charts are fetched by Driftwatch, never by kustomize or helm)");
    const fetched = await helm.fetchChart({ repoURL: c.repo, chart: c.name, targetRevision: c.version }).catch((e: unknown) => {
      throw e instanceof GitError ? refused(c, `the chart cannot be fetched: ${e.message}`) : e;
    });
    await unpackChart(fetched.file, c.name, path.join(root, path.dirname(c.chartPath)));
    unpacked.add(c.chartPath);
    // A range (or no version) may resolve to a newer chart later: like a remote base's branch, the render is not reused.
    if (!EXACT_VERSION.test(c.version)) moving.push(`helm chart ${c.name} ${c.version || "(newest)"} from ${c.repo}`);
    else fetchedCharts.push(`helm chart ${c.name} ${c.version} from ${c.repo}`);
  }
  const args = ["--enable-helm", "--helm-command", await writeKustomizeHelmCommand(dir, findHelm(helm.bin))];
  const kubeVersion = helmKubeVersion(helm.cluster.kubeVersion);
  if (kubeVersion) args.push("--helm-kube-version", kubeVersion);
  for (const v of helm.cluster.apiVersions) args.push("--helm-api-versions", v);
  await mkdir(path.join(home, ".helm", "plugins"), { recursive: true });
  return { args, env: helmEnv(home), moving, fetched: fetchedCharts };
}

const EXACT_VERSION = /^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

interface RemoteContext {
  dir: string;
  home: string;
  allowed: Map<string, RepositoryConfig>;
  allowRemote: (repository: string) => boolean;
  remote: RemoteBaseSource;
  depth: number;
  count: { n: number };
}

/**
 * Fetches each allowlisted remote base through Driftwatch's own mirror,
 * checks its references like the repository's own (a remote base is no
 * more trusted), checks it out beside the tree and rewrites the naming
 * kustomization (at `root`/base.file) to the local copy. `label` prefixes
 * file names in refusals of nested bases.
 */
async function fetchRemoteBases(bases: readonly RemoteBase[], root: string, label: string, ctx: RemoteContext): Promise<void> {
  if (bases.length === 0) return;
  if (ctx.depth >= MAX_REMOTE_DEPTH) {
    throw new RenderRefusedError(bases.map((b) => ({ file: label + b.file, reference: b.reference, reason: `remote bases nest deeper than ${MAX_REMOTE_DEPTH} levels` })), []);
  }
  const rewrites = new Map<string, Map<string, string>>();
  for (const base of bases) {
    const repo = ctx.allowed.get(base.repository)!;
    const mirror = await ctx.remote.fetch(repo);
    let remoteCommit: string;
    try {
      remoteCommit = await resolveCommit(mirror, base.ref!);
    } catch {
      throw new RenderRefusedError([{ file: label + base.file, reference: base.reference, reason: `ref "${base.ref}" not found in repository "${repo.name}"` }], []);
    }
    const remoteTree = await repoTree(mirror, remoteCommit);
    const remoteLabel = `${repo.name}@${base.ref}:`;
    const walk = await walkKustomization(remoteTree, base.subPath, { allowRemote: ctx.allowRemote });
    if (walk.refusals.length > 0) throw new RenderRefusedError(walk.refusals.map((r) => ({ ...r, file: remoteLabel + r.file })), []);
    const checkout = path.join(ctx.dir, "remote", String(ctx.count.n++));
    await materialise(mirror, remoteCommit, ctx.dir, checkout, ctx.home);
    await fetchRemoteBases(walk.remoteBases, checkout, remoteLabel, { ...ctx, depth: ctx.depth + 1 });
    const fromDir = path.dirname(path.join(root, base.file));
    const target = path.relative(fromDir, path.join(checkout, base.subPath)) || ".";
    const forFile = rewrites.get(base.file) ?? new Map<string, string>();
    forFile.set(base.reference, target);
    rewrites.set(base.file, forFile);
  }
  for (const [file, replacements] of rewrites) {
    const full = path.join(root, file);
    const doc = parseDocument(await readFile(full, "utf8"));
    for (const field of ["resources", "bases", "components"]) {
      const seq = isMap(doc.contents) ? doc.contents.get(field, true) : undefined;
      if (!isSeq(seq)) continue;
      seq.items.forEach((item, i) => {
        const local = isScalar(item) && typeof item.value === "string" ? replacements.get(item.value) : undefined;
        if (local) seq.set(i, local);
      });
    }
    await writeFile(full, String(doc));
  }
}
