import type { ClusterClient } from "./client";
import { resourcePath, type ApiResource } from "./discovery";

export interface KubeListPage {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: Array<Record<string, unknown>>;
}

/**
 * Lists one resource page by page (limit/continue), handing each page to
 * `onPage` so a caller can process and drop it: a whole cluster's JSON is
 * never held at once. Items come back with their apiVersion and kind filled
 * in (the API omits them inside lists).
 */
export async function listPaged(
  client: ClusterClient,
  resource: ApiResource,
  opts: { namespace?: string; pageSize?: number; labelSelector?: string; timeoutMs?: number },
  onPage: (items: Array<Record<string, unknown>>) => void | Promise<void>,
): Promise<{ resourceVersion: string | undefined; count: number }> {
  const apiVersion = resource.group ? `${resource.group}/${resource.version}` : resource.version;
  let cont: string | undefined;
  let count = 0;
  let resourceVersion: string | undefined;
  do {
    const page = await client.requestJson<KubeListPage>("GET", resourcePath(resource, opts.namespace), {
      query: { limit: opts.pageSize ?? 500, continue: cont, labelSelector: opts.labelSelector },
      timeoutMs: opts.timeoutMs,
    });
    for (const item of page.items) {
      item.apiVersion = apiVersion;
      item.kind = resource.kind;
    }
    count += page.items.length;
    resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
    await onPage(page.items);
    cont = page.metadata?.continue || undefined;
  } while (cont);
  return { resourceVersion, count };
}
