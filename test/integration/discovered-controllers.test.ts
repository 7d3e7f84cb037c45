// The Controller and Revisions panels of an environment that only discovers
// its applications (issue 19), on the Flux fleet estate
// (test/fixtures/estates/flux-fleet) committed into a real Git repository:
// its production cluster as Flux leaves it while the shared GitRepository's
// credential is refused, one Kustomization suspended by hand, and the
// HelmRelease released from its chart repository. No one application's
// controller is the environment's: the API rolls them all up, and the
// HelmRelease runs a chart version, not a commit. On the imitation and on a
// real kube-apiserver, with the same assertions.
import fs from "node:fs";
import path from "node:path";
import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { forEachCluster } from "../support/clusters";
import { FLUX_FLEET, kubectlFor } from "../support/estate-kube";
import { runCollection } from "../support/collector-env";
import { eachFleetCase } from "../support/fleet-case";
import { pageText } from "../support/page-text";
import { getPrisma } from "@/lib/db";
import { createClusterClient } from "@/lib/kube/client";
import { discover } from "@/lib/kube/discovery";
import { getEnvironmentDetail } from "@/lib/dashboard/environments";
import { listDrift } from "@/lib/dashboard/drift";
import { driftQuerySchema, EnvironmentDetailDto } from "@/lib/api/contract";
import { EnvironmentClient } from "@/app/environments/[env]/environment-client";
import { reconcileHelmReleases } from "@/demo/helm";

const KUSTOMIZATIONS = ["flux-system", "infra-controllers", "infra-configs", "apps", "shop-api", "shop-cart", "shop-web", "shop-worker"];
const INGRESS_NGINX = "infrastructure/controllers/ingress-nginx.yaml";
const AUTH_MESSAGE = "failed to checkout and determine revision: unable to clone 'https://git.example.com/acme/flux-fleet.git': authentication required";

const db = getPrisma();
const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString().replace(/\.\d+Z$/, "Z");

forEachCluster((server) => {
  const fleetCase = eachFleetCase(server, "driftwatch-discovered-controllers-");
  const kubectl = kubectlFor(() => fleetCase.cluster);
  const run = () => runCollection(db, fleetCase.config!, path.join(fleetCase.dir!, "mirrors"), "production");

  /** What kustomize-controller reports once it has applied `sha`: the revision, and Ready. */
  async function fluxApplies(sha: string): Promise<void> {
    const status = { lastAppliedRevision: `main@sha1:${sha}`, conditions: [{ type: "Ready", status: "True", reason: "ReconciliationSucceeded", message: `Applied revision: main@sha1:${sha}`, lastTransitionTime: hoursAgo(3) }] };
    for (const name of KUSTOMIZATIONS) await kubectl(["-n", "flux-system", "patch", "kustomization", name, "--subresource=status", "--type=merge", "-p", JSON.stringify({ status })]);
  }

  /** What source-controller reports when the repository refuses its credential: the Kustomizations keep their last artifact. */
  async function sourceRefusesCredential(since: string): Promise<void> {
    const failed = { status: "False", reason: "AuthenticationFailed", message: AUTH_MESSAGE, lastTransitionTime: since };
    const status = { conditions: [{ type: "Ready", ...failed }, { type: "FetchFailed", ...failed, status: "True" }] };
    await kubectl(["-n", "flux-system", "patch", "gitrepository", "flux-system", "--subresource=status", "--type=merge", "-p", JSON.stringify({ status })]);
  }

  /** The fleet's HelmRelease asking for `version` in Git (and, with `inCluster`, in the cluster too). */
  async function askForChartVersion(version: string, opts: { inCluster: boolean }): Promise<string> {
    const fleet = fleetCase.fleet!;
    fleet.write(INGRESS_NGINX, fs.readFileSync(path.join(FLUX_FLEET, INGRESS_NGINX), "utf8").replace('version: "4.11.x"', `version: "${version}"`));
    const sha = fleet.commit(`ingress-nginx: chart ${version}`);
    if (opts.inCluster) await kubectl(["-n", "ingress-nginx", "patch", "helmrelease", "ingress-nginx", "--type=merge", "-p", JSON.stringify({ spec: { chart: { spec: { version } } } })]);
    return sha;
  }

  describe("the environment page of an environment that discovers its applications", () => {
    it("rolls its applications' controllers up (the shared GitRepository failing once, holding up eight; one Kustomization suspended) and shows the HelmRelease's chart version, not a commit", async () => {
      // ingress-nginx pinned to 4.11.3 in Git and in the cluster, applied by infra-controllers and released by helm-controller.
      const pinned = await askForChartVersion("4.11.3", { inCluster: true });
      await kubectl(["-n", "ingress-nginx", "label", "helmrelease", "ingress-nginx", "kustomize.toolkit.fluxcd.io/name=infra-controllers", "kustomize.toolkit.fluxcd.io/namespace=flux-system"]);
      const client = createClusterClient({ kubeconfig: fleetCase.cluster!.kubeconfigPath, context: "t" });
      await reconcileHelmReleases({ client, discovery: await discover(client) }, new Date());
      await fluxApplies(pinned);
      const failingSince = hoursAgo(2);
      await sourceRefusesCredential(failingSince);
      await kubectl(["-n", "flux-system", "patch", "kustomization", "shop-web", "--type=merge", "--field-manager=kubectl-patch", "-p", '{"spec":{"suspend":true}}']);
      await run();

      const detail = EnvironmentDetailDto.parse(await getEnvironmentDetail(db, "production"));
      const held = KUSTOMIZATIONS.map((k) => `flux-system/${k}`).sort();
      // Eight Kustomizations, the HelmRelease and the one GitRepository they share: seven Kustomizations and the
      // HelmRelease still report Ready (on their last artifact), shop-web is suspended, the GitRepository fails.
      expect(detail.controllerRollup).toMatchObject({ objects: 10, ready: 8, failing: 1, suspended: 1, notReady: 0 });
      expect(detail.controllerRollup?.attention).toEqual([
        {
          object: "GitRepository/flux-system/flux-system",
          kind: "GitRepository",
          namespace: "flux-system",
          name: "flux-system",
          state: "failing",
          condition: { object: "GitRepository/flux-system/flux-system", type: "Ready", status: "False", reason: "AuthenticationFailed", message: AUTH_MESSAGE, lastTransitionTime: failingSince },
          suspendedBy: null,
          applications: held.map((name) => ({ name, href: `/environments/production/applications/${encodeURIComponent(name)}` })),
          applicationCount: 8,
        },
        {
          object: "Kustomization/flux-system/shop-web",
          kind: "Kustomization",
          namespace: "flux-system",
          name: "shop-web",
          state: "suspended",
          condition: null,
          suspendedBy: { manager: "kubectl-patch", time: expect.any(String) },
          applications: [{ name: "flux-system/shop-web", href: "/environments/production/applications/flux-system%2Fshop-web" }],
          applicationCount: 1,
        },
      ]);

      // The HelmRelease's revision is its chart's: the commit that declares it is not what it runs.
      const revisions = new Map(detail.applicationRevisions?.map((a) => [a.name, a]));
      expect(revisions.get("ingress-nginx/ingress-nginx")?.chart).toEqual({ name: "ingress-nginx", applied: { version: "4.11.3", appVersion: "1.11.3" }, approved: null });
      expect(revisions.get("flux-system/shop-api")?.chart).toBeNull();

      // What the page says: the roll-up, the GitRepository once with the applications it holds up, the chart version.
      const page = await pageText(createElement(EnvironmentClient, { initial: detail, initialDrift: await listDrift(db, "production", driftQuerySchema.parse({})), initialFilters: "" }), "/environments/production");
      // Tags dropped leave a space before punctuation that sat beside an element: read as a user does.
      const panel = page.slice(page.indexOf("Controller 10 controller objects")).replace(/&#x27;/g, "'").replace(/ (?=[:,])/g, "").replace(/ = /g, "=");
      expect(panel).toMatch(/^Controller 10 controller objects: 1 failing 1 suspended 8 ready GitRepository\/flux-system\/flux-system failing Ready=False · AuthenticationFailed · since /);
      expect(panel).toContain(`${AUTH_MESSAGE} Holds up 8 applications: flux-system/apps, flux-system/flux-system, flux-system/infra-configs,`);
      expect(panel).toContain("Kustomization/flux-system/shop-web suspended by kubectl-patch Application: flux-system/shop-web");
      expect(page.match(/GitRepository\/flux-system\/flux-system failing/g)).toHaveLength(1);
      // The old panel's single object (one Kustomization's conditions, as if the environment's) is gone.
      expect(page).not.toContain("Kustomization/flux-system/apps (Flux)");
      expect(page).toMatch(/ingress-nginx\/ingress-nginx ingress-nginx 4\.11\.3 \(app 1\.11\.3 ?\)/);
      expect(page).not.toMatch(/ingress-nginx\/ingress-nginx [0-9a-f]{7} commit not fetched yet/);

      // Git asks for a newer chart that is not released yet: the approved version is named beside the applied one.
      await askForChartVersion("4.12.0", { inCluster: false });
      await run();
      const after = EnvironmentDetailDto.parse(await getEnvironmentDetail(db, "production"));
      expect(after.applicationRevisions?.find((a) => a.name === "ingress-nginx/ingress-nginx")?.chart).toEqual({ name: "ingress-nginx", applied: { version: "4.11.3", appVersion: "1.11.3" }, approved: "4.12.0" });
    }, 240_000);
  });
});
