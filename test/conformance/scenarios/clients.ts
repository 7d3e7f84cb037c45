// @kubernetes/client-node's typed and generic clients, the raw wire format
// under them (Status bodies, codes), list pagination and watches.
import { AppsV1Api, CoreV1Api, KubernetesObjectApi, PatchStrategy, setHeaderOptions, type KubernetesObject, type V1ConfigMap, type V1Deployment } from "@kubernetes/client-node";
import type { Scenario } from "../harness";
import { createNamespace, sleep } from "./support";

function deployment(name: string): V1Deployment {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, labels: { app: name } },
    spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "app", image: "nginx:1.25" }] } } },
  };
}

export const clientScenarios: Scenario[] = [
  {
    name: "client-node typed clients",
    async run(t, rec) {
      await createNamespace(t, "typed");
      const kc = t.kubeConfig();
      const core = kc.makeApiClient(CoreV1Api);
      const apps = kc.makeApiClient(AppsV1Api);
      const namespace = "typed";
      const cm = (await rec.client("create ConfigMap", core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "meta" }, data: { a: "1" } } }))) as V1ConfigMap;
      await rec.client("read ConfigMap", core.readNamespacedConfigMap({ name: "meta", namespace }));
      const updated = (await rec.client("replace with another manager", core.replaceNamespacedConfigMap({ name: "meta", namespace, body: { ...cm, data: { a: "2" } }, fieldManager: "my-tool" }))) as V1ConfigMap;
      await rec.client("replace from a stale copy", core.replaceNamespacedConfigMap({ name: "meta", namespace, body: { ...cm, data: { a: "3" } } }));
      const noop = (await rec.client("replace without change", core.replaceNamespacedConfigMap({ name: "meta", namespace, body: updated }))) as V1ConfigMap;
      rec.json("no-op keeps the resourceVersion", noop?.metadata?.resourceVersion === updated?.metadata?.resourceVersion);
      await rec.client("read missing", core.readNamespacedConfigMap({ name: "nope", namespace }));
      await rec.client("read missing Deployment", apps.readNamespacedDeployment({ name: "nope", namespace }));
      await rec.client("create duplicate", core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "meta" } } }));
      await rec.client("create invalid name", core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "Bad_Name" } } }));
      await rec.client("create in a missing namespace", core.createNamespacedConfigMap({ namespace: "missing", body: { metadata: { name: "x" } } }));
      rec.http("wrong type", await t.http("POST", `/api/v1/namespaces/${namespace}/configmaps`, { body: { metadata: { name: "typed", labels: { version: 2 } } } }));
      rec.http("unknown field selector", await t.http("GET", `/api/v1/namespaces/${namespace}/configmaps?fieldSelector=data.x%3Dy`));
      rec.http("unsupported patch type", await t.http("PATCH", `/api/v1/namespaces/${namespace}/configmaps/meta`, { body: "{}", contentType: "text/plain" }));
      rec.http("dry-run create", await t.http("POST", `/api/v1/namespaces/${namespace}/configmaps?dryRun=All`, { body: { metadata: { name: "dry" }, data: { a: "b" } } }));
      rec.http("dry-run left nothing", await t.http("GET", `/api/v1/namespaces/${namespace}/configmaps/dry`));
      rec.http("delete returns a Status", await t.http("DELETE", `/api/v1/namespaces/${namespace}/configmaps/meta`));

      await rec.client("create Deployment", apps.createNamespacedDeployment({ namespace, body: deployment("web") }));
      const scale = await rec.client("read scale", apps.readNamespacedDeploymentScale({ name: "web", namespace }));
      await rec.client("replace scale", apps.replaceNamespacedDeploymentScale({ name: "web", namespace, body: { ...(scale as object), spec: { replicas: 4 } } }));
      await rec.client("replace scale from a stale copy", apps.replaceNamespacedDeploymentScale({ name: "web", namespace, body: { ...(scale as object), spec: { replicas: 5 } } }));
      const patch = (body: object) => apps.patchNamespacedDeployment({ name: "web", namespace, body }, setHeaderOptions("Content-Type", PatchStrategy.MergePatch));
      await rec.client("label patch keeps the generation", patch({ metadata: { labels: { tier: "web" } } }));
      await rec.client("annotation patch", patch({ metadata: { annotations: { note: "x" } } }));
      await rec.client("template patch bumps the generation", patch({ spec: { template: { spec: { containers: [{ name: "app", image: "nginx:1.26" }] } } } }));
      await rec.client("status update ignores spec", apps.replaceNamespacedDeploymentStatus({ name: "web", namespace, body: { ...deployment("web"), metadata: { name: "web", labels: { app: "web" } }, status: { replicas: 1, observedGeneration: 1 } } }));
      await rec.client("list by label", apps.listNamespacedDeployment({ namespace, labelSelector: "tier=web" }));
      await rec.client("list by another label", apps.listNamespacedDeployment({ namespace, labelSelector: "tier notin (web)" }));
      await rec.client("delete orphaning", apps.deleteNamespacedDeployment({ name: "web", namespace, propagationPolicy: "Orphan" }));
    },
  },
  {
    name: "client-node generic client",
    async run(t, rec) {
      await createNamespace(t, "generic");
      const objects = KubernetesObjectApi.makeApiClient(t.kubeConfig());
      const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "g", namespace: "generic", labels: { a: "1" } }, data: { k: "v" } };
      await rec.client("create", objects.create(cm));
      await rec.client("read", objects.read({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "g", namespace: "generic" } }));
      await rec.client("patch (strategic merge by default)", objects.patch({ ...cm, data: { k2: "v2" } } as KubernetesObject));
      await rec.client("patch (merge)", objects.patch({ ...cm, data: { k: null } } as unknown as KubernetesObject, undefined, undefined, "other-manager", undefined, PatchStrategy.MergePatch));
      await rec.client("server-side apply", objects.patch({ ...cm, data: { applied: "yes" } } as KubernetesObject, undefined, undefined, "applier", true, PatchStrategy.ServerSideApply));
      await rec.client("list", objects.list("v1", "ConfigMap", "generic"));
      const d = { ...deployment("gd"), metadata: { name: "gd", namespace: "generic", labels: { app: "gd" } } };
      const created = (await rec.client("create Deployment", objects.create(d))) as V1Deployment;
      await rec.client("replace Deployment", objects.replace({ ...created, spec: { ...created?.spec, replicas: 2 } } as KubernetesObject));
      await rec.client("read unknown kind", objects.read({ apiVersion: "example.com/v1", kind: "Nothing", metadata: { name: "x", namespace: "generic" } }));
      await rec.client("delete", objects.delete({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "g", namespace: "generic" } }));
      await rec.client("read deleted", objects.read({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "g", namespace: "generic" } }));
    },
  },
  {
    name: "list pagination, continue and 410",
    async run(t, rec) {
      await createNamespace(t, "paging");
      for (let i = 0; i < 12; i++) {
        await t.http("POST", "/api/v1/namespaces/paging/configmaps", { body: { metadata: { name: `item-${String(i).padStart(2, "0")}`, labels: { tier: i % 2 ? "odd" : "even" } }, data: { i: String(i) } } });
      }
      const first = await t.http("GET", "/api/v1/namespaces/paging/configmaps?limit=5");
      rec.http("first page", first);
      const firstMeta = (first.json as { metadata: { resourceVersion: string; continue?: string } }).metadata;
      // Changes after the first page must not show in later pages.
      await t.http("POST", "/api/v1/namespaces/paging/configmaps", { body: { metadata: { name: "item-99" } } });
      await t.http("DELETE", "/api/v1/namespaces/paging/configmaps/item-07");
      let token = firstMeta.continue;
      for (let page = 2; token; page++) {
        const r = await t.http("GET", `/api/v1/namespaces/paging/configmaps?limit=5&continue=${encodeURIComponent(token)}`);
        rec.http(`page ${page}`, r);
        const meta = (r.json as { metadata: { resourceVersion: string; continue?: string } }).metadata;
        rec.json(`page ${page} has the first page's resourceVersion`, meta.resourceVersion === firstMeta.resourceVersion);
        token = meta.continue;
      }
      rec.http("selector with limit", await t.http("GET", "/api/v1/namespaces/paging/configmaps?limit=3&labelSelector=tier%3Dodd"));
      rec.http("limit with resourceVersion=0", await t.http("GET", "/api/v1/namespaces/paging/configmaps?limit=3&resourceVersion=0"));
      rec.http("metadata-only list", await t.http("GET", "/api/v1/namespaces/paging/configmaps?limit=2", { accept: "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json" }));
      rec.http("table list", await t.http("GET", "/api/v1/namespaces/paging/configmaps?limit=2", { accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json" }));
      const again = await t.http("GET", "/api/v1/namespaces/paging/configmaps?limit=5");
      await t.forgetHistory();
      const expired = await t.http("GET", `/api/v1/namespaces/paging/configmaps?limit=5&continue=${encodeURIComponent((again.json as { metadata: { continue: string } }).metadata.continue)}`);
      rec.http("continue after the history is gone", expired);
      rec.http("a fresh list still works", await t.http("GET", "/api/v1/namespaces/paging/configmaps?limit=20"));
      rec.http("malformed continue", await t.http("GET", "/api/v1/namespaces/paging/configmaps?limit=5&continue=garbage"));
    },
  },
  {
    name: "watch, bookmarks and 410",
    async run(t, rec) {
      await createNamespace(t, "watching");
      const list = (await t.http("GET", "/api/v1/namespaces/watching/configmaps")).json as { metadata: { resourceVersion: string } };
      const changes = await t.watch(`/api/v1/namespaces/watching/configmaps?watch=true&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=4&allowWatchBookmarks=true`, async () => {
        await sleep(200);
        await t.http("POST", "/api/v1/namespaces/watching/configmaps", { body: { metadata: { name: "a", labels: { team: "x" } } } });
        await t.http("PATCH", "/api/v1/namespaces/watching/configmaps/a", { contentType: "application/json-patch+json", body: [{ op: "add", path: "/data", value: { k: "v" } }] });
        await t.http("DELETE", "/api/v1/namespaces/watching/configmaps/a");
      });
      rec.json("changes from a resourceVersion", { status: changes.status, events: changes.events.filter((e) => e.type !== "BOOKMARK") });
      const bookmarks = changes.events.filter((e) => e.type === "BOOKMARK");
      // How many arrive depends on timing (the real watch cache sends one from 2 s before the deadline on); at least one must.
      rec.json("bookmarks before the timeout", { some: bookmarks.length > 0, first: bookmarks[0] ?? null });

      await t.http("POST", "/api/v1/namespaces/watching/configmaps", { body: { metadata: { name: "sel-1", labels: { team: "x" } } } });
      await t.http("POST", "/api/v1/namespaces/watching/configmaps", { body: { metadata: { name: "sel-2", labels: { team: "y" } } } });
      const selected = await t.watch("/api/v1/namespaces/watching/configmaps?watch=true&labelSelector=team%3Dx&timeoutSeconds=2", async () => {
        await sleep(300);
        await t.http("PATCH", "/api/v1/namespaces/watching/configmaps/sel-1", { contentType: "application/merge-patch+json", body: { metadata: { labels: { team: "y" } } } });
        await t.http("PATCH", "/api/v1/namespaces/watching/configmaps/sel-2", { contentType: "application/merge-patch+json", body: { metadata: { labels: { team: "x" } } } });
      });
      rec.json("selector transitions", selected);

      const initial = await t.watch("/api/v1/namespaces/watching/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1");
      rec.json("watch list: initial events, then the initial-events-end bookmark", { status: initial.status, events: initial.events.map((e) => ({ type: e.type, name: (e.object.metadata as { name?: string }).name ?? null, annotations: (e.object.metadata as { annotations?: unknown }).annotations ?? null })) });
      rec.http("sendInitialEvents without a match rule", await t.http("GET", "/api/v1/namespaces/watching/configmaps?watch=true&sendInitialEvents=true&timeoutSeconds=1"));

      // A kind served from now on has no history before now: an older resourceVersion is gone.
      const crd = await t.http("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
        body: {
          apiVersion: "apiextensions.k8s.io/v1",
          kind: "CustomResourceDefinition",
          metadata: { name: "widgets.conformance.example.com" },
          spec: {
            group: "conformance.example.com",
            names: { kind: "Widget", listKind: "WidgetList", plural: "widgets", singular: "widget" },
            scope: "Namespaced",
            versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
          },
        },
      });
      rec.json("CRD created", crd.status);
      let served = 0;
      for (let i = 0; i < 100 && served !== 200; i++) {
        served = (await t.http("GET", "/apis/conformance.example.com/v1/namespaces/watching/widgets")).status;
        if (served !== 200) await sleep(100);
      }
      const expired = await t.watch("/apis/conformance.example.com/v1/namespaces/watching/widgets?watch=true&resourceVersion=1&timeoutSeconds=2");
      rec.json("watch from a resourceVersion older than the kind", expired);
    },
  },
];
