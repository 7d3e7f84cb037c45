// Without a controller to ask, which revision is live: inferred by rendering
// recent revisions and comparing them with live the way drift is computed.
import { posix } from "node:path";
import type { ApplicationEnvironment } from "@/lib/config";
import { firstParentHistory, listRevisions, renderManifests, controllerRenderKey, GitError, type RenderOptions } from "@/lib/git";
import { compareObject, hashSecretValues, objectKey, type CompareContext, type KubeObject, type ObjectDrift } from "@/lib/drift";
import { contentHash } from "./canonical";
import { maskSecretSourced } from "./controller-render";
import { memoGit } from "./run-memo";
import type { CollectorContext } from "./run-context";

/**
 * With no controller to ask, the applied revision is the newest recent
 * revision whose rendered manifests match live exactly. "Exactly" uses the
 * same comparison as drift, so ignore rules and defaults count the same way.
 * When live matches the approved revision, the branch tip is the newest such
 * revision whenever it renders the same (nothing it changed is read by the
 * render) — as a controller would report the tip it applied.
 */
export async function inferApplied(
  ctx: CollectorContext,
  env: ApplicationEnvironment,
  renderOptions: RenderOptions,
  secretValues: readonly string[],
  mirrorPath: string,
  tipSha: string | undefined,
  approved: string,
  results: Map<string, ObjectDrift>,
  /** Live objects by key (stored forms), read only when a candidate is rendered. */
  liveObjects: (keys: string[]) => Promise<Map<string, KubeObject>>,
  options: CompareContext,
  inputs: readonly string[] = [],
): Promise<{ sha: string | null; source: "inferred" }> {
  // A chart from a Helm repository (no Git mirror) has no recent revisions to try: what is applied is unknown.
  if (!mirrorPath) return { sha: null, source: "inferred" };
  const clean = [...results.values()].every((r) => r.type === "InSync" || r.type === "Extra");
  if (clean) {
    if (!tipSha || tipSha === approved) return { sha: approved, source: "inferred" };
    // When no commit since the approved one touched what the render reads, the tip renders the same: nothing to render.
    // An input counts with its whole directory: a file deleted or added beside it changes what a build reads.
    if (rendersFromPathAndInputs(renderOptions, inputs)) {
      const history = await firstParentHistory(mirrorPath, env.source.branch, tipSha).catch(() => null);
      const directories = [...new Set(inputs.map((f) => posix.dirname(f)))];
      if (history?.touchedAfter(approved, env.source.path, directories) === false) return { sha: tipSha, source: "inferred" };
    }
    const sameRender = () => sameManifests(mirrorPath, approved, tipSha, renderOptions);
    const optionsKey = [JSON.stringify({ ...renderOptions, controller: undefined }), controllerRenderKey(renderOptions.controller)].join("\0");
    const tipRendersApproved = await memoGit([mirrorPath, "same-render", approved, tipSha, optionsKey], sameRender).catch(() => false);
    return { sha: tipRendersApproved ? tipSha : approved, source: "inferred" };
  }
  const depth = ctx.inferDepth ?? 5;
  let touching: string[];
  if (tipSha) {
    // The recent commits of the ref's first-parent line (what a controller applies) that touch the path or its inputs.
    touching = (await firstParentHistory(mirrorPath, env.source.branch, tipSha)).recentTouching(env.source.path, inputs, { window: RECENT_WINDOW, depth, except: approved });
  } else {
    const candidates = await listRevisions(mirrorPath, env.source.branch, { limit: RECENT_WINDOW });
    const inputSet = new Set(inputs);
    touching = candidates
      .filter((c) => c.sha !== approved && c.changedPaths.some((p) => env.source.path === "." || p === env.source.path || p.startsWith(env.source.path.replace(/\/$/, "") + "/") || inputSet.has(p)))
      .slice(0, depth)
      .map((c) => c.sha);
  }
  for (const sha of touching) {
    const rendered = await renderManifests(mirrorPath, sha, renderOptions).catch((e: unknown) => {
      // A candidate that cannot be rendered is not the applied one.
      if (e instanceof GitError && e.category === "render") return null;
      throw e;
    });
    if (!rendered) continue;
    const safe = rendered.objects.map((r) => {
      const obj = r.object as KubeObject;
      return obj.kind === "Secret" ? hashSecretValues(obj, ctx.secretKey) : maskSecretSourced(obj, secretValues, ctx.secretKey).object;
    });
    const live = await liveObjects(safe.map((o) => objectKey(o)));
    const matches = safe.every((o) => {
      const l = live.get(objectKey(o));
      return l !== undefined && compareObject(o, l, options).type === "InSync";
    });
    if (matches && rendered.objects.length > 0) return { sha, source: "inferred" };
  }
  return { sha: null, source: "inferred" };
}

/** How many of the newest commits are searched for the applied revision. */
const RECENT_WINDOW = 200;

/**
 * Whether a render reads nothing but the path and the listed inputs at its
 * commit: a plain render reads its path only; a kustomize build reads the
 * inputs it listed (none listed: unknown). A controller's render may read more
 * (.sourceignore files, the commit id itself), so it is never assumed.
 */
function rendersFromPathAndInputs(options: RenderOptions, inputs: readonly string[]): boolean {
  if (options.controller) return false;
  return options.mode === "plain" || inputs.length > 0;
}

/** Whether two revisions render to the same objects (a render that fails is never the same). */
async function sameManifests(mirrorPath: string, a: string, b: string, options: Parameters<typeof renderManifests>[2]): Promise<boolean> {
  const [ra, rb] = await Promise.all([renderManifests(mirrorPath, a, options), renderManifests(mirrorPath, b, options)]);
  if (ra.problems.some((p) => p.severity === "error") || rb.problems.some((p) => p.severity === "error")) return false;
  const hashes = (r: typeof ra) => new Map(r.objects.map((o) => [objectKey(o.object as KubeObject), contentHash(o.object).hash]));
  const ha = hashes(ra);
  const hb = hashes(rb);
  if (ha.size !== hb.size) return false;
  for (const [k, h] of ha) if (hb.get(k) !== h) return false;
  return true;
}
