// The demo controllers talk to the API like real controllers do: server-side
// apply under their own field manager, status through the status subresource.
import type { ClusterClient } from "@/lib/kube/client";
import { resourcePath, type Discovery } from "@/lib/kube/discovery";
import { KubeError } from "@/lib/kube/errors";

type Obj = Record<string, unknown>;

export interface DemoKube {
  client: ClusterClient;
  discovery: Discovery;
}

function pathFor(k: DemoKube, apiVersion: string, kind: string, namespace: string | undefined, name?: string, sub?: string): string {
  const r = k.discovery.lookup(apiVersion, kind);
  if (!r) throw new Error(`the cluster does not serve ${apiVersion} ${kind}`);
  return resourcePath(r, namespace, name) + (sub ? `/${sub}` : "");
}

export async function getObj(k: DemoKube, apiVersion: string, kind: string, namespace: string | undefined, name: string): Promise<Obj | null> {
  try {
    return await k.client.requestJson<Obj>("GET", pathFor(k, apiVersion, kind, namespace, name));
  } catch (e) {
    if (e instanceof KubeError && e.category === "not-found") return null;
    throw e;
  }
}

export async function serverSideApply(k: DemoKube, obj: Obj, manager: string, userAgent?: string): Promise<Obj> {
  const meta = obj.metadata as { name: string; namespace?: string };
  return k.client.requestJson<Obj>("PATCH", pathFor(k, String(obj.apiVersion), String(obj.kind), meta.namespace, meta.name), {
    query: { fieldManager: manager, force: true },
    body: JSON.stringify(obj),
    contentType: "application/apply-patch+yaml",
    ...(userAgent ? { userAgent } : {}),
  });
}

/**
 * Writes status as the controller does: through the status subresource when
 * the kind has one (Flux), else on the object itself (Argo CD's Application
 * CRD has no status subresource; its controller patches the whole object).
 */
export async function patchStatus(k: DemoKube, apiVersion: string, kind: string, namespace: string, name: string, status: Obj, manager: string, subresource = true): Promise<void> {
  await k.client.requestJson("PATCH", pathFor(k, apiVersion, kind, namespace, name, subresource ? "status" : undefined), {
    query: { fieldManager: manager },
    body: { status },
    contentType: "application/merge-patch+json",
  });
}

export async function deleteObj(k: DemoKube, apiVersion: string, kind: string, namespace: string | undefined, name: string): Promise<void> {
  try {
    await k.client.requestJson("DELETE", pathFor(k, apiVersion, kind, namespace, name));
  } catch (e) {
    if (!(e instanceof KubeError && e.category === "not-found")) throw e;
  }
}

export function setCondition(conditions: Obj[], c: { type: string; status: string; reason: string; message: string }, now: string): Obj[] {
  const prev = conditions.find((x) => x.type === c.type);
  const next = { ...c, lastTransitionTime: prev && prev.status === c.status ? prev.lastTransitionTime : now, observedGeneration: 1 };
  return [...conditions.filter((x) => x.type !== c.type), next];
}

/** Apply order as kustomize and the controllers use it: namespaces and CRDs before what lives in them. */
export function applyOrder(objs: Obj[]): Obj[] {
  const rank = (o: Obj) => (o.kind === "Namespace" ? 0 : o.kind === "CustomResourceDefinition" ? 1 : 2);
  return [...objs].sort((a, b) => rank(a) - rank(b));
}

/** The objects of one kind in a namespace (all namespaces without one), as a controller's informer would list them. */
export async function listObjs(k: DemoKube, apiVersion: string, kind: string, namespace?: string): Promise<Obj[]> {
  const r = k.discovery.lookup(apiVersion, kind);
  if (!r) return [];
  const list = await k.client.requestJson<{ items?: Obj[] }>("GET", resourcePath(r, namespace));
  return (list.items ?? []).map((o) => ({ apiVersion, kind, ...o }));
}
