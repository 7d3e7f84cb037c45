// The collector's hook for an environment whose controller is a Flux
// HelmRelease: the render of Git is replaced by the manifest of the release
// Helm installed (lib/helm), and the applied revision is the newest commit
// whose HelmRelease helm-controller has released. The logic is lib/helm's;
// this file only hands it the cluster and Git.
import { createHash } from "node:crypto";
import type { ApplicationEnvironment, EnvironmentConfig } from "@/lib/config";
import type { RenderResult } from "@/lib/git";
import { listRevisions } from "@/lib/git";
import type { ClusterClient } from "@/lib/kube/client";
import type { Discovery } from "@/lib/kube/discovery";
import { composeValues, declaredRelease, releaseVerdict } from "@/lib/helm/helm-release";
import { helmReleaseDesired, type HelmReleaseDesired } from "@/lib/helm/release-desired";
import { HelmReleaseDecodeError } from "@/lib/helm/release-storage";
import { getObject } from "./controller-object";
import { memoGit } from "./run-memo";

type Obj = Record<string, unknown>;

export const isHelmReleaseEnvironment = (env: EnvironmentConfig) => env.controller?.type === "flux" && env.controller.kind === "HelmRelease";

/** How many commits back the applied revision is looked for. */
const APPLIED_SEARCH_LIMIT = 25;

/** Git's HelmRelease among a render's objects: the one the environment names (a manifest without a namespace puts it in the controller's). */
export function declaredHelmRelease(rendered: Pick<RenderResult, "objects">, ref: { namespace: string; name: string }): { object: Obj; sourcePath: string } | null {
  for (const r of rendered.objects) {
    const o = r.object as Obj;
    const metadata = (o.metadata ?? {}) as Obj;
    if (o.kind !== "HelmRelease" || !String(o.apiVersion ?? "").startsWith("helm.toolkit.fluxcd.io/")) continue;
    if (metadata.name === ref.name && (metadata.namespace ?? ref.namespace) === ref.namespace) return { object: o, sourcePath: r.sourcePath };
  }
  return null;
}

export interface HelmReleaseSide {
  helm: HelmReleaseDesired;
  /** The render, its objects replaced by the release's (under the path of Git's HelmRelease file). */
  rendered: RenderResult;
  /** Finds the applied revision: `compared` when released, else the newest earlier commit whose HelmRelease was. */
  applied(): Promise<string | null>;
}

export async function helmReleaseSide(input: {
  env: ApplicationEnvironment;
  client: ClusterClient;
  discovery: Discovery;
  live: Obj | null;
  rendered: RenderResult;
  /** The revision `rendered` was rendered at. */
  compared: string;
  secretKey: Buffer;
  mirrorPath: string;
  /** Git's HelmRelease at an earlier revision (rendered like `rendered`). */
  renderAt: (sha: string) => Promise<RenderResult>;
}): Promise<HelmReleaseSide> {
  const c = input.env.controller as { namespace: string; name: string };
  const readValues = (kind: "ConfigMap" | "Secret", namespace: string, name: string) => getObject(input.client, input.discovery, "v1", kind, namespace, name);
  const declared = declaredHelmRelease(input.rendered, c);
  const helm = await helmReleaseDesired({
    live: input.live,
    declared: declared?.object ?? null,
    listSecrets: async (namespace, labelSelector) =>
      (
        await input.client.requestJson<{ items?: Obj[] }>("GET", `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`, { query: { labelSelector } })
      ).items ?? [],
    readValues,
    isNamespaced: (apiVersion, kind) => input.discovery.lookup(apiVersion, kind)?.namespaced ?? true,
    digestKey: input.secretKey,
  });
  const sourcePath = declared?.sourcePath ?? `helm-release:${helm.ref.storageNamespace}/${helm.ref.releaseName}`;
  const rendered: RenderResult = { ...input.rendered, objects: helm.objects.map((object) => Object.freeze({ object, sourcePath })) as RenderResult["objects"] };
  const applied = async (): Promise<string | null> => {
    if (!declared) return null;
    if (helm.verdict?.state === "released") return input.compared;
    if (!input.live) return null;
    const revisions = await listRevisions(input.mirrorPath, input.env.source.branch, { limit: APPLIED_SEARCH_LIMIT });
    const from = revisions.findIndex((r) => r.sha === input.compared);
    for (const r of from === -1 ? [] : revisions.slice(from + 1)) {
      const earlier = declaredHelmRelease(await input.renderAt(r.sha).catch(() => ({ objects: [] })), c);
      if (!earlier) continue;
      // Digested: Git values do not sit in the memo as they are.
      const key = [input.mirrorPath, "helmrelease-released", r.sha, createHash("sha256").update(JSON.stringify(earlier.object)).digest("hex"), String((input.live.metadata as Obj | undefined)?.resourceVersion ?? "")];
      const verdict = await memoGit(key, async () => releaseVerdict(declaredRelease(earlier.object, await composeValues(earlier.object, readValues), input.secretKey), input.live));
      if (verdict.state === "released") return r.sha;
    }
    return null;
  };
  return { helm, rendered, applied };
}

export { HelmReleaseDecodeError };
