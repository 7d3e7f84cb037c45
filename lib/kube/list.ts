import type { ClusterClient } from "./client";
import { resourcePath, type ApiResource } from "./discovery";
import { KubeError } from "./errors";

export interface KubeListPage {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: Array<Record<string, unknown>>;
}

// What client-go sends for metadata-only lists, whole objects as the fallback.
const METADATA_ONLY = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";

/**
 * Lists one resource page by page (limit/continue), handing each page to
 * `onPage` so a caller can process and drop it: a whole cluster's JSON is
 * never held at once. Items come back with their apiVersion and kind filled
 * in (the API omits them inside lists).
 */
export async function listPaged(
  client: ClusterClient,
  resource: ApiResource,
  opts: {
    namespace?: string;
    pageSize?: number;
    labelSelector?: string;
    timeoutMs?: number;
    /** Called before the pages are delivered again from the start (see below); drop what the earlier pages gave. */
    onRestart?: () => void;
    /** Only metadata of each item (PartialObjectMetadataList); a server that cannot answers whole objects. */
    metadataOnly?: boolean;
  },
  onPage: (items: Array<Record<string, unknown>>) => void | Promise<void>,
): Promise<{ resourceVersion: string | undefined; count: number }> {
  const apiVersion = resource.group ? `${resource.group}/${resource.version}` : resource.version;
  let cont: string | undefined;
  let count = 0;
  let resourceVersion: string | undefined;
  let unpaged = false;
  for (;;) {
    let page: KubeListPage;
    try {
      page = await client.requestJson<KubeListPage>("GET", resourcePath(resource, opts.namespace), {
        query: unpaged ? { labelSelector: opts.labelSelector } : { limit: opts.pageSize ?? 500, continue: cont, labelSelector: opts.labelSelector },
        timeoutMs: opts.timeoutMs,
        accept: opts.metadataOnly ? METADATA_ONLY : undefined,
      });
    } catch (e) {
      // A continue token outlived the API's history (heavy churn between pages: 410 Expired).
      // Like client-go's pager, fall back once to one consistent list without pages.
      if (cont && !unpaged && e instanceof KubeError && e.status === 410) {
        unpaged = true;
        cont = undefined;
        count = 0;
        opts.onRestart?.();
        continue;
      }
      throw e;
    }
    for (const item of page.items) {
      item.apiVersion = apiVersion;
      item.kind = resource.kind;
    }
    count += page.items.length;
    resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
    await onPage(page.items);
    cont = unpaged ? undefined : page.metadata?.continue || undefined;
    if (!cont) break;
  }
  return { resourceVersion, count };
}
