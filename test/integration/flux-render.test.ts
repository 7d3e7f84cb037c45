// The real collector over a repository in `flux bootstrap`'s layout, against
// the Kubernetes API imitation holding what Flux would have applied: the
// generated kustomization for clusters/prod, the nested flux-system patches,
// and postBuild variables from a ConfigMap and a Secret in the cluster.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createCollectorFixture, type CollectorFixture } from "../support/collector-env";
import { forEachCluster } from "../support/clusters";
import { requiredKustomize } from "../support/required-tools";
import { FLUX_GITREPOSITORY_CRD, FLUX_KUSTOMIZATION_CRD } from "@driftwatch/kubesim";
import { patchStatus, serverSideApply } from "@/demo/kube-writer";

// Rendered through the real kustomize: without one this file fails, saying what to install.
requiredKustomize();

type Obj = Record<string, unknown>;
const SECRET_VALUE = "pg-canary-5b1e9d73";
const FLUX_LABELS = { "kustomize.toolkit.fluxcd.io/name": "flux-system", "kustomize.toolkit.fluxcd.io/namespace": "flux-system" };

// The imitation's Kustomization CRD is trimmed to what the demo uses; Flux's own schema has the render fields too.
const kustomizationCrd = structuredClone(FLUX_KUSTOMIZATION_CRD) as Obj;
{
  const version = (kustomizationCrd.spec as { versions: Array<{ schema: { openAPIV3Schema: { properties: { spec: { properties: Obj } } } } }> }).versions[0]!;
  Object.assign(version.schema.openAPIV3Schema.properties.spec.properties, {
    patches: { type: "array", items: { type: "object", properties: { patch: { type: "string" }, target: { type: "object", properties: { kind: { type: "string" }, name: { type: "string" } } } } } },
    postBuild: {
      type: "object",
      properties: {
        substitute: { type: "object", additionalProperties: { type: "string" } },
        substituteFrom: { type: "array", items: { type: "object", properties: { kind: { type: "string" }, name: { type: "string" }, optional: { type: "boolean" } } } },
      },
    },
    commonMetadata: { type: "object", properties: { labels: { type: "object", additionalProperties: { type: "string" } }, annotations: { type: "object", additionalProperties: { type: "string" } } } },
  });
}

function controllerDeployment(name: string, args: string[]): Obj {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: "flux-system", labels: { "app.kubernetes.io/part-of": "flux", app: name } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: "manager", image: `ghcr.io/fluxcd/${name}:v1.4.0`, args }] },
      },
    },
  };
}

const baseArgs = ["--events-addr=http://notification-controller.flux-system.svc.cluster.local./", "--watch-all-namespaces=true", "--log-level=info"];

function gitRepository(): Obj {
  return {
    apiVersion: "source.toolkit.fluxcd.io/v1",
    kind: "GitRepository",
    metadata: { name: "flux-system", namespace: "flux-system" },
    spec: { interval: "1m0s", ref: { branch: "main" }, url: "ssh://git@github.com/acme/fleet" },
  };
}

function fluxKustomization(extra: Obj = {}): Obj {
  return {
    apiVersion: "kustomize.toolkit.fluxcd.io/v1",
    kind: "Kustomization",
    metadata: { name: "flux-system", namespace: "flux-system" },
    spec: {
      interval: "10m0s",
      path: "./clusters/prod",
      prune: true,
      sourceRef: { kind: "GitRepository", name: "flux-system" },
      postBuild: { substitute: { cluster_name: "prod-eu" }, substituteFrom: [{ kind: "ConfigMap", name: "cluster-vars" }, { kind: "Secret", name: "cluster-secrets" }, { kind: "ConfigMap", name: "not-there", optional: true }] },
      ...extra,
    },
  };
}

// Git, as `flux bootstrap` lays it out: clusters/prod has no kustomization.yaml, flux-system has one with patches.
const flux = {
  "clusters/prod/flux-system/gotk-components.yaml": [controllerDeployment("source-controller", baseArgs), controllerDeployment("kustomize-controller", baseArgs)],
  "clusters/prod/flux-system/gotk-sync.yaml": [gitRepository(), fluxKustomization()],
  "clusters/prod/flux-system/kustomization.yaml": [
    {
      apiVersion: "kustomize.config.k8s.io/v1beta1",
      kind: "Kustomization",
      resources: ["gotk-components.yaml", "gotk-sync.yaml"],
      patches: [{ target: { kind: "Deployment", name: "(kustomize-controller|source-controller)" }, patch: "- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: --concurrent=20\n" }],
    },
  ],
  "clusters/prod/apps/podinfo.yaml": [
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "podinfo", namespace: "shop", labels: { app: "podinfo", cluster: "${cluster_name}" } },
      spec: {
        replicas: "${replicas:=2}",
        selector: { matchLabels: { app: "podinfo" } },
        template: {
          metadata: { labels: { app: "podinfo" } },
          spec: { containers: [{ name: "podinfo", image: "ghcr.io/stefanprodan/podinfo:${podinfo_version}", env: [{ name: "REGION", value: "${region}" }, { name: "DB_URL", value: "postgres://app:${db_password}@db:5432/app" }] }] },
        },
      },
    },
    { apiVersion: "v1", kind: "Secret", metadata: { name: "db-credentials", namespace: "shop" }, type: "Opaque", stringData: { password: "${db_password}" } },
  ],
  // Not a resource for Flux: .json is not listed by the generator.
  "clusters/prod/apps/dashboard.json": [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "never-applied", namespace: "shop" }, data: { a: "b" } }],
};

/** What kustomize-controller applies for that commit: written out by hand, independently of Driftwatch's renderer. */
function appliedByFlux(): Obj[] {
  const withFlux = (o: Obj): Obj => {
    const m = o.metadata as Obj;
    return { ...o, metadata: { ...m, labels: { ...((m.labels as Obj) ?? {}), ...FLUX_LABELS } } };
  };
  return [
    controllerDeployment("source-controller", [...baseArgs, "--concurrent=20"]),
    controllerDeployment("kustomize-controller", [...baseArgs, "--concurrent=20"]),
    gitRepository(),
    fluxKustomization(),
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "podinfo", namespace: "shop", labels: { app: "podinfo", cluster: "prod-eu" } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: "podinfo" } },
        template: {
          metadata: { labels: { app: "podinfo" } },
          spec: { containers: [{ name: "podinfo", image: "ghcr.io/stefanprodan/podinfo:6.7.1", env: [{ name: "REGION", value: "eu-west-1" }, { name: "DB_URL", value: `postgres://app:${SECRET_VALUE}@db:5432/app` }] }] },
        },
      },
    },
    { apiVersion: "v1", kind: "Secret", metadata: { name: "db-credentials", namespace: "shop" }, type: "Opaque", stringData: { password: SECRET_VALUE } },
  ].map(withFlux);
}

let f: CollectorFixture;

/** Every table column holding the value, raw, base64 or hex. */
async function columnsContaining(value: string): Promise<string[]> {
  const needles = [value, Buffer.from(value).toString("base64").replace(/=+$/, ""), Buffer.from(value).toString("hex")];
  const columns = await f.db.$queryRaw<Array<{ table: string; column: string }>>`
    SELECT table_name AS table, column_name AS column FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name <> '_prisma_migrations'`;
  const hits: string[] = [];
  for (const { table, column } of columns) {
    for (const needle of needles) {
      const rows = await f.db.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM "${table}" WHERE "${column}"::text ILIKE $1`, `%${needle}%`);
      if ((rows[0]?.n ?? 0) > 0) hits.push(`${table}.${column} contains ${needle}`);
    }
  }
  return hits;
}

forEachCluster((server) => {
  describe("Flux bootstrap layout rendered as kustomize-controller renders it", () => {
    beforeEach(async () => {
      f = await createCollectorFixture(flux, {
        envYaml: {
          namespaces: ["flux-system", "shop"],
          source: { repository: "shop", branch: "main", path: "clusters/prod" },
          controller: { type: "flux", namespace: "flux-system", name: "flux-system" },
        },
        cluster: server(),
      });
      await f.installCrds([FLUX_GITREPOSITORY_CRD, kustomizationCrd]);
      await serverSideApply(f.admin, { apiVersion: "v1", kind: "Namespace", metadata: { name: "flux-system" } }, "kubectl");
      // The postBuild sources, made by hand in the cluster (as a platform team does), never in Git.
      await serverSideApply(f.admin, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cluster-vars", namespace: "flux-system" }, data: { podinfo_version: "6.7.1", region: "eu-west-1" } }, "kubectl");
      await serverSideApply(f.admin, { apiVersion: "v1", kind: "Secret", metadata: { name: "cluster-secrets", namespace: "flux-system" }, type: "Opaque", stringData: { db_password: SECRET_VALUE } }, "kubectl");
      await f.applyAsController(appliedByFlux());
      const head = f.repo.head();
      await patchStatus(f.admin, "kustomize.toolkit.fluxcd.io/v1", "Kustomization", "flux-system", "flux-system", { lastAppliedRevision: `main@sha1:${head}`, lastAttemptedRevision: `main@sha1:${head}`, conditions: [] }, "kustomize-controller");
    });
    afterEach(async () => {
      await f.cleanup();
    });

    it("finds no drift: the flux-system patches and the postBuild variables are in the desired state", async () => {
      const out = await f.run();
      expect(out.errors.filter((e) => e.severity !== "warning")).toEqual([]);
      expect(out.status).toBe("succeeded");
      expect(out.stats?.drift).toMatchObject({ Modified: 0, Missing: 0 });
      expect(out.stats?.desired).toBe(6);
      const desired = await f.db.desiredObject.findMany({ select: { key: true } });
      expect(desired.map((d) => d.key).sort()).toEqual([
        "/Secret/shop/db-credentials",
        "apps/Deployment/flux-system/kustomize-controller",
        "apps/Deployment/flux-system/source-controller",
        "apps/Deployment/shop/podinfo",
        "kustomize.toolkit.fluxcd.io/Kustomization/flux-system/flux-system",
        "source.toolkit.fluxcd.io/GitRepository/flux-system/flux-system",
      ]);
      expect(await f.db.driftItem.count({ where: { resolvedAt: null } })).toBe(0);

      // The Secret-sourced value is in no column of any table: neither raw, nor base64, nor hex.
      expect(await columnsContaining(SECRET_VALUE)).toEqual([]);
    }, 120_000);

    it("sees a change of the Secret's value as a change of the desired Secret (masked), and a hand edit of a patched flag as drift", async () => {
      await f.run();
      // Someone removes the patched flag from one controller by hand: the comparison is against the patched form.
      await serverSideApply(f.admin, controllerDeployment("kustomize-controller", baseArgs), "kubectl-edit-sim");
      // Flux has not re-applied since the Secret value was rotated: desired (new value) ≠ live (old value).
      await serverSideApply(f.admin, { apiVersion: "v1", kind: "Secret", metadata: { name: "cluster-secrets", namespace: "flux-system" }, type: "Opaque", stringData: { db_password: "rotated-9c2f" } }, "kubectl");
      const out = await f.run();
      expect(out.status).toBe("succeeded");
      const open = await f.db.driftItem.findMany({ where: { resolvedAt: null }, select: { key: true, changes: true } });
      expect(open.map((o) => o.key).sort()).toEqual(["/Secret/shop/db-credentials", "apps/Deployment/flux-system/kustomize-controller", "apps/Deployment/shop/podinfo"]);
      const secretChanges = JSON.stringify(open.find((o) => o.key === "/Secret/shop/db-credentials")?.changes);
      expect(secretChanges).toContain("(changed)");
      // A Secret-sourced value inside a Deployment's env is masked on both sides: the change shows, the values do not.
      const podinfoChanges = JSON.stringify(open.find((o) => o.key === "apps/Deployment/shop/podinfo")?.changes);
      expect(podinfoChanges).toMatch(/\(secret-derived [0-9a-f]{16}\)/);
      for (const text of [secretChanges, podinfoChanges]) {
        expect(text).not.toContain("rotated-9c2f");
        expect(text).not.toContain(SECRET_VALUE);
      }
      expect(JSON.stringify(open.find((o) => o.key.endsWith("kustomize-controller"))?.changes)).toContain("--concurrent=20");
      // Neither the value live still holds nor the new one is stored anywhere.
      expect([...(await columnsContaining(SECRET_VALUE)), ...(await columnsContaining("rotated-9c2f"))]).toEqual([]);
    }, 120_000);

    it("a required postBuild source that is missing fails the run as a render failure naming it; an optional one does not", async () => {
      await f.admin.client.requestJson("DELETE", "/api/v1/namespaces/flux-system/configmaps/cluster-vars");
      const out = await f.run();
      expect(out.status).toBe("failed");
      expect(out.errors[0]).toMatchObject({ category: "render", message: expect.stringContaining("substitute from 'ConfigMap/cluster-vars'") });
    }, 120_000);

    it("a kustomize failure is category render with the file and kustomize's message", async () => {
      f.repo.write("clusters/prod/flux-system/kustomization.yaml", stringify({ resources: ["gotk-components.yaml", "gotk-sync.yaml", "missing.yaml"] }));
      const sha = f.repo.commit("flux-system: reference a file that is not there");
      await patchStatus(f.admin, "kustomize.toolkit.fluxcd.io/v1", "Kustomization", "flux-system", "flux-system", { lastAppliedRevision: `main@sha1:${sha}` }, "kustomize-controller");
      const out = await f.run();
      expect(out.status).toBe("failed");
      // The nested kustomization that kustomize failed in, not the one Flux generated (which is in no commit).
      expect(out.errors[0]).toMatchObject({ category: "render", path: "clusters/prod/flux-system/kustomization.yaml", message: expect.stringContaining("missing.yaml") });
    }, 120_000);
  });
});
