// What the server says before and around a write: version and discovery,
// authentication and authorization, Status reasons and messages, strategic
// merge patch directives, server-side apply over HTTP, namespace termination.
import type { Scenario } from "../harness";
import type { Target } from "../target";
import { createNamespace } from "./support";

/** The resource entries kubesim serves in a group-version document, in the server's order. */
async function servedEntries(t: Target, path: string, names: string[]): Promise<unknown> {
  const r = await t.http("GET", path);
  const resources = ((r.json as { resources?: Array<{ name: string }> } | undefined)?.resources ?? []).filter((x) => names.includes(x.name));
  return { status: r.status, resources };
}

const deployment = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, labels: { app: name } },
  spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "app", image: "nginx:1.25" }] } }, ...extra },
});

export const serverScenarios: Scenario[] = [
  {
    name: "discovery, authentication and errors",
    async run(t, rec) {
      rec.http("version", await t.http("GET", "/version"));
      rec.json("apps/v1 resources", await servedEntries(t, "/apis/apps/v1", ["deployments", "deployments/scale", "deployments/status", "statefulsets", "statefulsets/scale", "statefulsets/status"]));
      rec.json("core/v1 resources", await servedEntries(t, "/api/v1", ["configmaps", "namespaces", "namespaces/status", "namespaces/finalize", "secrets", "services", "services/status", "serviceaccounts"]));
      const agg = await t.http("GET", "/apis", { accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json" });
      const apps = (agg.json as { items?: Array<{ metadata: { name?: string }; versions: Array<{ version: string; resources: Array<{ resource: string }> }> }> }).items?.find((i) => i.metadata.name === "apps");
      rec.json("aggregated discovery", {
        status: agg.status,
        contentType: agg.headers["content-type"],
        apps: apps?.versions.map((v) => ({ version: v.version, deployments: v.resources.find((r) => r.resource === "deployments") })),
      });
      const openapi = (await t.http("GET", "/openapi/v3")).json as { paths?: Record<string, { serverRelativeURL?: string }> };
      rec.json("OpenAPI v3 lists apps/v1", typeof openapi.paths?.["apis/apps/v1"]?.serverRelativeURL === "string");

      rec.http("no token", await t.http("GET", "/api/v1/namespaces/default/configmaps", { as: "anonymous" }));
      rec.http("read-only token reads", await t.http("GET", "/api/v1/namespaces", { as: "read-only" }).then((r) => ({ ...r, json: { kind: (r.json as { kind?: string }).kind } })));
      rec.http("read-only token cannot write", await t.http("POST", "/api/v1/namespaces/default/configmaps", { as: "read-only", body: { metadata: { name: "ro" } } }));
      rec.http("read-only token cannot scale", await t.http("PATCH", "/apis/apps/v1/namespaces/default/deployments/x/scale", { as: "read-only", contentType: "application/merge-patch+json", body: { spec: { replicas: 2 } } }));
      rec.http("unknown resource in a served group", await t.http("GET", "/apis/apps/v1/namespaces/default/gadgets"));
      rec.http("cluster-scoped kind under a namespace", await t.http("GET", "/api/v1/namespaces/default/namespaces/x"));
      rec.http("unknown group", await t.http("GET", "/apis/nothing.example.com/v1"));
      rec.http("wrong kind in the body", await t.http("POST", "/api/v1/namespaces/default/configmaps", { body: { apiVersion: "v1", kind: "Secret", metadata: { name: "k" } } }));
      rec.http("namespace mismatch", await t.http("POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "m", namespace: "other" } } }));
      rec.http("name mismatch on PUT", await t.http("PUT", "/api/v1/namespaces/default/configmaps/a", { body: { metadata: { name: "b" } } }));
      rec.http("PUT of a missing object", await t.http("PUT", "/api/v1/namespaces/default/configmaps/absent", { body: { metadata: { name: "absent" }, data: { a: "b" } } }));
      rec.http("name too long", await t.http("POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "x".repeat(254) } } }));
      rec.http("bad label value", await t.http("POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "lbl", labels: { team: "a b" } } } }));
      rec.http("string replicas", await t.http("POST", "/apis/apps/v1/namespaces/default/deployments", { body: deployment("qty", { replicas: "3" }) }));
      rec.http("selector not matching the template", await t.http("POST", "/apis/apps/v1/namespaces/default/deployments", { body: { ...deployment("sel"), spec: { ...deployment("sel").spec, selector: { matchLabels: { app: "other" } } } } }));
      rec.http("strict unknown field", await t.http("POST", "/apis/apps/v1/namespaces/default/deployments?fieldValidation=Strict", { body: { ...deployment("typo"), spec: { ...deployment("typo").spec, replicaz: 2 } } }));
      rec.http("warned unknown field", await t.http("POST", "/apis/apps/v1/namespaces/default/deployments?fieldValidation=Warn", { body: { ...deployment("typo"), spec: { ...deployment("typo").spec, replicaz: 2 } } }));
      rec.http("method not allowed", await t.http("POST", "/apis/apps/v1/namespaces/default/deployments/typo", { body: deployment("typo") }));
    },
  },
  {
    name: "patches and server-side apply over HTTP",
    async run(t, rec) {
      await createNamespace(t, "patching");
      const base = "/apis/apps/v1/namespaces/patching/deployments";
      await t.http("POST", base, {
        body: {
          ...deployment("smp"),
          spec: {
            ...deployment("smp").spec,
            template: {
              metadata: { labels: { app: "smp" } },
              spec: {
                volumes: [{ name: "cfg", configMap: { name: "cfg" } }],
                containers: [
                  { name: "app", image: "app:1", ports: [{ containerPort: 80, name: "http" }], env: [{ name: "A", value: "1" }, { name: "B", value: "2" }], volumeMounts: [{ name: "cfg", mountPath: "/etc/cfg" }] },
                  { name: "sidecar", image: "side:1" },
                ],
              },
            },
          },
        },
      });
      rec.http("strategic merge with merge keys and $patch: delete", await t.http("PATCH", `${base}/smp?fieldManager=smp-test`, {
        contentType: "application/strategic-merge-patch+json",
        body: {
          spec: {
            template: {
              spec: {
                volumes: [{ name: "data", emptyDir: {} }],
                containers: [{ name: "app", image: "app:2", ports: [{ containerPort: 80, name: "web" }, { containerPort: 443 }], env: [{ name: "B", value: "3" }, { name: "A", $patch: "delete" }], volumeMounts: [{ name: "data", mountPath: "/data" }] }],
              },
            },
          },
        },
      }));
      rec.http("$setElementOrder", await t.http("PATCH", `${base}/smp`, {
        contentType: "application/strategic-merge-patch+json",
        body: { spec: { template: { spec: { "$setElementOrder/containers": [{ name: "sidecar" }, { name: "app" }], containers: [{ name: "app", image: "app:3" }] } } } },
      }));
      rec.http("$retainKeys on the strategy", await t.http("PATCH", `${base}/smp`, {
        contentType: "application/strategic-merge-patch+json",
        body: { spec: { strategy: { $retainKeys: ["type"], type: "Recreate" } } },
      }));
      rec.http("merge patch replaces lists", await t.http("PATCH", `${base}/smp`, { contentType: "application/merge-patch+json", body: { spec: { template: { spec: { containers: [{ name: "only", image: "x:1" }] } } } } }));
      rec.http("JSON patch", await t.http("PATCH", `${base}/smp`, { contentType: "application/json-patch+json", body: [{ op: "replace", path: "/spec/replicas", value: 4 }, { op: "add", path: "/metadata/labels/extra", value: "y" }] }));
      rec.http("JSON patch with a failing test", await t.http("PATCH", `${base}/smp`, { contentType: "application/json-patch+json", body: [{ op: "test", path: "/spec/replicas", value: 9 }] }));
      rec.http("JSON patch on a missing path", await t.http("PATCH", `${base}/smp`, { contentType: "application/json-patch+json", body: [{ op: "replace", path: "/spec/nothing/here", value: 1 }] }));
      rec.http("patch with a stale resourceVersion", await t.http("PATCH", `${base}/smp`, { contentType: "application/merge-patch+json", body: { metadata: { resourceVersion: "1" }, spec: { replicas: 2 } } }));
      rec.http("patch of a missing object", await t.http("PATCH", `${base}/absent`, { contentType: "application/merge-patch+json", body: { spec: { replicas: 2 } } }));

      const apply = (q: string, replicas: number) =>
        t.http("PATCH", `${base}/ssa?${q}`, { contentType: "application/apply-patch+yaml", body: JSON.stringify({ ...deployment("ssa"), spec: { ...deployment("ssa").spec, replicas } }) });
      rec.http("apply without a fieldManager", await apply("", 1));
      rec.http("apply creates", await apply("fieldManager=team-a", 2));
      await t.http("PATCH", `${base}/ssa/scale`, { contentType: "application/merge-patch+json", body: { spec: { replicas: 5 } }, userAgent: "kubectl/v1.32.4 (linux/amd64) kubernetes/59526cd" });
      rec.http("apply conflicts with the scale", await apply("fieldManager=team-a", 2));
      rec.http("apply with force", await apply("fieldManager=team-a&force=true", 2));
      rec.http("apply of an undeclared field", await t.http("PATCH", "/api/v1/namespaces/patching/configmaps/typo?fieldManager=x", { contentType: "application/apply-patch+yaml", body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "typo" }, dta: { a: "b" } } }));
      await t.http("PATCH", "/api/v1/namespaces/patching/configmaps/prune?fieldManager=a", { contentType: "application/apply-patch+yaml", body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: prune\ndata:\n  keep: '1'\n  drop: '2'\n" });
      rec.http("apply prunes what it stopped specifying", await t.http("PATCH", "/api/v1/namespaces/patching/configmaps/prune?fieldManager=a", { contentType: "application/apply-patch+yaml", body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: prune\ndata:\n  keep: '1'\n" }));
      rec.http("status write through the main resource is ignored", await t.http("PATCH", `${base}/ssa`, { contentType: "application/merge-patch+json", body: { status: { replicas: 7 } } }));
    },
  },
  {
    name: "namespace termination and finalizers",
    async run(t, rec) {
      await createNamespace(t, "doomed");
      await t.http("POST", "/api/v1/namespaces/doomed/configmaps", { body: { metadata: { name: "held", finalizers: ["example.com/hold"] } } });
      rec.http("delete an object with a finalizer", await t.http("DELETE", "/api/v1/namespaces/doomed/configmaps/held"));
      rec.http("it waits for its finalizer", await t.http("GET", "/api/v1/namespaces/doomed/configmaps/held"));
      rec.http("delete the namespace", await t.http("DELETE", "/api/v1/namespaces/doomed"));
      rec.http("no new content in a terminating namespace", await t.http("POST", "/api/v1/namespaces/doomed/configmaps", { body: { metadata: { name: "late" } } }));
      rec.http("release the finalizer", await t.http("PATCH", "/api/v1/namespaces/doomed/configmaps/held", { contentType: "application/merge-patch+json", body: { metadata: { finalizers: null } } }));
      rec.http("precondition on uid", await t.http("DELETE", "/api/v1/namespaces/default/configmaps/nothing", { body: { kind: "DeleteOptions", apiVersion: "v1", preconditions: { uid: "00000000-0000-0000-0000-000000000000" } } }));
    },
  },
];
