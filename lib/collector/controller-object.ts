// Reading the environment's controller object (Flux Kustomization and its
// source, or Argo CD Application) and single objects it names, for one run.
import type { EnvironmentConfig } from "@/lib/config";
import type { ControllerStatus } from "@/lib/domain/types";
import type { ClusterClient } from "@/lib/kube/client";
import { resourcePath, type Discovery } from "@/lib/kube/discovery";
import { KubeError } from "@/lib/kube/errors";
import { fluxStatus, argoStatus, helmReleaseStatus } from "@/lib/kube/controller-status";
import { HELM_RELEASE_API_VERSION } from "@/lib/helm/helm-release";

/** Flux inventory ids are `namespace_name_group_kind` (group empty for core). */
export function parseInventoryId(id: string): { namespace: string; name: string; group: string; kind: string } | null {
  const parts = id.split("_");
  if (parts.length !== 4) return null;
  const [namespace = "", name = "", group = "", kind = ""] = parts;
  return { namespace, name, group, kind };
}

export async function getObject(client: ClusterClient, discovery: Discovery, apiVersion: string, kind: string, namespace: string, name: string): Promise<Record<string, unknown> | null> {
  const r = discovery.lookup(apiVersion, kind);
  if (!r) return null;
  try {
    return await client.requestJson<Record<string, unknown>>("GET", resourcePath(r, namespace, name));
  } catch (e) {
    if (e instanceof KubeError && e.category === "not-found") return null;
    throw e;
  }
}

export async function readController(
  client: ClusterClient,
  discovery: Discovery,
  env: EnvironmentConfig,
): Promise<{ status: ControllerStatus; object: Record<string, unknown> | null; source?: Record<string, unknown> | null } | null> {
  const c = env.controller;
  if (!c) return null;
  if (c.type === "flux" && c.kind === "HelmRelease") {
    const hr = await getObject(client, discovery, HELM_RELEASE_API_VERSION, "HelmRelease", c.namespace, c.name);
    return { status: helmReleaseStatus(c, hr), object: hr };
  }
  if (c.type === "flux") {
    const k = await getObject(client, discovery, "kustomize.toolkit.fluxcd.io/v1", "Kustomization", c.namespace, c.name);
    const sourceRef = (k?.spec as { sourceRef?: { kind?: string; name?: string; namespace?: string } } | undefined)?.sourceRef;
    const source = sourceRef?.name
      ? await getObject(client, discovery, "source.toolkit.fluxcd.io/v1", sourceRef.kind ?? "GitRepository", sourceRef.namespace ?? c.namespace, sourceRef.name)
      : null;
    return { status: fluxStatus(c, k, source), object: k, source };
  }
  const app = await getObject(client, discovery, "argoproj.io/v1alpha1", "Application", c.namespace, c.name);
  return { status: argoStatus(c, app), object: app };
}
