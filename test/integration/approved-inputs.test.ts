// The approved revision of a kustomize environment is the newest commit that
// changed anything its render reads: a release that only bumps the shared base
// is approved for every overlay over it, and where the controller has not
// applied it yet the environment is stale. A commit elsewhere approves nothing.
// On the imitation and on a real kube-apiserver, with the same assertions.
import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createCollectorFixture, deploymentYaml, type CollectorFixture } from "../support/collector-env";
import { forEachCluster, type ClusterServer } from "../support/clusters";
import { requiredKustomize } from "../support/required-tools";
import { FLUX_GITREPOSITORY_CRD, FLUX_KUSTOMIZATION_CRD } from "@driftwatch/kubesim";
import { patchStatus, serverSideApply } from "@/demo/kube-writer";
import { evaluateAlerts, loadAlertSnapshot } from "@/lib/alerts";
import { lookupCommit } from "@/lib/dashboard/commits";

async function badge(fixture: CollectorFixture, sha: string, environment: string) {
  const found = await lookupCommit(fixture.db, sha);
  if (found.match !== "exact") throw new Error(`${sha} is ambiguous`);
  return found.commit.environments.find((b) => b.environment === environment);
}

// Rendered through the real kustomize: without one this file fails, saying what to install.
requiredKustomize();

const kustomization = (extra: Record<string, unknown>) => ({ apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization", ...extra });
const base = (image: string) => [deploymentYaml("api", image, 2)];
/** The base's Deployment as an overlay's nameSuffix renders it (labels and selector keep the base's name). */
function rendered(name: string, image: string): Record<string, unknown> {
  const d = deploymentYaml("api", image, 2);
  return { ...d, metadata: { ...(d.metadata as Record<string, unknown>), name } };
}

/** One overlay over the base, with no controller: the environment "test" renders overlays/staging. */
function stagingOnly(cluster: ClusterServer): Promise<CollectorFixture> {
  return createCollectorFixture(
    {
      "bases/api/deployment.yaml": base("shop/api:1.4.0"),
      "bases/api/kustomization.yaml": [kustomization({ resources: ["deployment.yaml"] })],
      "overlays/staging/kustomization.yaml": [kustomization({ resources: ["../../bases/api"], nameSuffix: "-staging" })],
    },
    { envYaml: { source: { repository: "shop", branch: "main", path: "overlays/staging", render: "kustomize" } }, cluster },
  );
}

let f: CollectorFixture | undefined;
afterEach(async () => {
  await f?.cleanup();
  f = undefined;
});

forEachCluster((server) => {
  describe("approved revision from the render's inputs", () => {
    it("a base-only commit is approved for both overlays and makes the Flux-managed one stale; a commit elsewhere is not", async () => {
      f = await createCollectorFixture(
        {
          "bases/api/deployment.yaml": base("shop/api:1.4.0"),
          "bases/api/kustomization.yaml": [kustomization({ resources: ["deployment.yaml"] })],
          "overlays/staging/kustomization.yaml": [kustomization({ resources: ["../../bases/api"], nameSuffix: "-staging" })],
          "overlays/prod/kustomization.yaml": [kustomization({ resources: ["../../bases/api"], nameSuffix: "-prod" })],
          "docs/notes.yaml": [{ note: "not a manifest anyone renders" }],
        },
        {
          envYaml: {
            namespaces: ["shop"],
            source: { repository: "shop", branch: "main", path: "overlays/prod", render: "kustomize" },
            controller: { type: "flux", namespace: "flux-system", name: "prod" },
          },
          moreEnvironments: [{ name: "staging", source: { repository: "shop", branch: "main", path: "overlays/staging", render: "kustomize" } }],
          cluster: server(),
        },
      );
      const fx = f;
      const initial = fx.repo.head();
      await fx.installCrds([FLUX_GITREPOSITORY_CRD, FLUX_KUSTOMIZATION_CRD]);
      await serverSideApply(fx.admin, { apiVersion: "v1", kind: "Namespace", metadata: { name: "flux-system" } }, "kubectl");
      await serverSideApply(
        fx.admin,
        { apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", metadata: { name: "prod", namespace: "flux-system" }, spec: { interval: "10m0s", path: "./overlays/prod", prune: true, sourceRef: { kind: "GitRepository", name: "flux-system" } } },
        "kubectl",
      );

      // The release: only the base changes.
      fx.repo.write("bases/api/deployment.yaml", stringify(base("shop/api:1.5.0")[0]));
      const release = fx.repo.commit("api 1.5.0");
      // Flux has not applied it: prod still runs what the initial commit rendered.
      await fx.applyAsController([rendered("api-prod", "shop/api:1.4.0"), rendered("api-staging", "shop/api:1.5.0")]);
      await patchStatus(fx.admin, "kustomize.toolkit.fluxcd.io/v1", "Kustomization", "flux-system", "prod", { lastAppliedRevision: `main@sha1:${initial}`, lastAttemptedRevision: `main@sha1:${initial}`, conditions: [] }, "kustomize-controller");

      const prod = await fx.run("test");
      expect(prod.errors.filter((e) => e.severity !== "warning")).toEqual([]);
      expect(prod.status).toBe("succeeded");
      const staging = await fx.run("staging");
      expect(staging.status).toBe("succeeded");

      const prodEnv = await fx.db.environment.findUniqueOrThrow({ where: { name: "test" } });
      const stagingEnv = await fx.db.environment.findUniqueOrThrow({ where: { name: "staging" } });
      expect(prodEnv.approvedSha).toBe(release);
      expect(prodEnv.appliedSha).toBe(initial);
      expect(stagingEnv.approvedSha).toBe(release);
      // Prod is compared with what Flux applied (the old base): no false drift from the release.
      expect(prod.stats?.drift).toMatchObject({ Modified: 0, Missing: 0 });
      // Staging renders the release's base, which is what runs there.
      expect(staging.stats?.drift).toMatchObject({ Modified: 0, Missing: 0 });

      const alertsAt = new Date((prodEnv.approvedAt?.getTime() ?? 0) + 3_600_000);
      const stale = evaluateAlerts(await loadAlertSnapshot(fx.db), alertsAt).filter((a) => a.type === "environment_stale");
      expect(stale.map((a) => a.title)).toEqual([expect.stringMatching(/^test is stale: .*approved.*still applied/)]);
      expect(stale[0]?.title).toContain(release.slice(0, 7));

      // Lineage: the base-only release is pending in prod (Flux runs the initial commit) and live in staging.
      expect((await badge(fx, release, "test"))?.state).toBe("pending");
      expect((await badge(fx, initial, "test"))?.state).toBe("live");
      expect((await badge(fx, release, "staging"))?.state).toBe("live");

      // A commit to a folder no render reads approves nothing.
      fx.repo.write("docs/notes.yaml", stringify({ note: "changed" }));
      const unrelated = fx.repo.commit("docs: notes");
      await fx.run("test");
      await fx.run("staging");
      expect((await fx.db.environment.findUniqueOrThrow({ where: { name: "test" } })).approvedSha).toBe(release);
      expect((await fx.db.environment.findUniqueOrThrow({ where: { name: "staging" } })).approvedSha).toBe(release);
      expect(unrelated).not.toBe(release);
    });

    it("when the tip does not render, the path alone decides and the run says so", async () => {
      f = await stagingOnly(server());
      const fx = f;
      const initial = fx.repo.head();
      fx.repo.write("bases/api/kustomization.yaml", stringify(kustomization({ resources: ["deployment.yaml", "missing.yaml"] })));
      fx.repo.commit("base: lists a file nobody added");
      await fx.applyAsController([rendered("api-staging", "shop/api:1.4.0")]);

      const out = await fx.run();
      expect(out.status).toBe("succeeded");
      expect((await fx.db.environment.findUniqueOrThrow({ where: { name: "test" } })).approvedSha).toBe(initial);
      expect(out.errors).toContainEqual(expect.objectContaining({ category: "render", severity: "warning", message: expect.stringMatching(/at the branch tip .* did not run.*touching overlays\/staging only/) }));
    });

    it("without a controller, a base-only release is a candidate for the inferred applied revision", async () => {
      f = await stagingOnly(server());
      const fx = f;
      fx.repo.write("bases/api/deployment.yaml", stringify(base("shop/api:1.5.0")[0]));
      const running = fx.repo.commit("api 1.5.0");
      fx.repo.write("bases/api/deployment.yaml", stringify(base("shop/api:1.6.0")[0]));
      const release = fx.repo.commit("api 1.6.0");
      // Live still runs 1.5.0, which only a base-only commit ever rendered.
      await fx.applyAsController([rendered("api-staging", "shop/api:1.5.0")]);

      await fx.run();
      const env = await fx.db.environment.findUniqueOrThrow({ where: { name: "test" } });
      expect(env.approvedSha).toBe(release);
      expect(env.appliedSha).toBe(running);
      expect(env.appliedSource).toBe("inferred");
    });
  });
});
