// An environment that only says `discover:`: the Flux fleet's production
// cluster (test/fixtures/estates/flux-fleet) committed into a real Git
// repository, its Flux objects applied with kubectl, and what Flux would have
// applied of each Kustomization applied too. One run finds the applications in
// the cluster and collects each from one fetch of the repository; drift,
// removal and a source nobody allowed show on the application they concern.
// On the imitation and on a real kube-apiserver, with the same assertions.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { forEachCluster } from "../support/clusters";
import { applyFleetAsFlux, kubectlFor } from "../support/estate-kube";
import { applicationsByName, runCollection } from "../support/collector-env";
import { FLEET_URL, eachFleetCase } from "../support/fleet-case";
import { startGitHttpServer } from "@/lib/git/test-support/git-http-server";
import { setProcessEnv } from "../support/process-env";
import { parseConfig } from "@/lib/config";
import { getPrisma } from "@/lib/db";
import { NO_APPLICATIONS, getEnvironmentDetail, listEnvironments } from "@/lib/dashboard/environments";
import { getApplication, listApplications } from "@/lib/dashboard/applications";
import { getTimeline } from "@/lib/dashboard/timeline";
import { getMetrics } from "@/lib/dashboard/metrics";
import { listDrift } from "@/lib/dashboard/drift";
import { driftQuerySchema } from "@/lib/api/contract/drift";
import { createPause, resumePause } from "@/lib/pauses";
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { EnvironmentCard } from "@/components/environment-card";
import { createTestSession } from "@/lib/auth/testing";
import { binaryPath } from "@/tools/realkube/binaries";
import { helmConfigDigest } from "@/lib/helm/config-digest";
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const UNKNOWN_URL = "https://git.unknown.example/other/manifests.git";

const db = getPrisma();
const applications = () => applicationsByName(db);

const SERVICES = ["flux-system/shop-api", "flux-system/shop-cart", "flux-system/shop-web", "flux-system/shop-worker"];
const COLLECTED = ["flux-system/apps", "flux-system/flux-system", "flux-system/infra-configs", "flux-system/infra-controllers", ...SERVICES];

forEachCluster((server) => {
  const c = eachFleetCase(server, "driftwatch-discovered-");
  const kubectl = kubectlFor(() => c.cluster);
  const run = () => runCollection(db, c.config!, path.join(c.dir!, "mirrors"), "production");

  describe("an environment that only discovers its applications", () => {
    it("is stored without a source of its own, and one run collects every discovered application from one fetch", async () => {
      const first = await run();
      const env = await db.environment.findUniqueOrThrow({ where: { name: "production" } });
      expect(env).toMatchObject({ repositoryId: null, branch: "", path: "" });
      // The HelmRelease is found but not collected (its desired state is the release Helm installed): the run says why.
      expect(first.status).toBe("partial");
      expect(first.errors.filter((e) => e.severity !== "warning")).toEqual([]);
      expect(first.errors.map((e) => e.message)).toEqual([
        "application ingress-nginx/ingress-nginx has no Git side: no Kustomization is known to apply its HelmRelease (no kustomize.toolkit.fluxcd.io/name label naming one it can read), so the Git file declaring it is unknown",
      ]);
      expect(first.stats).toMatchObject({ applications: 9, repositoriesFetched: 1, drift: { Modified: 0, Missing: 0, Extra: 0 } });
      // One mirror, of the declared repository (the GitRepository's URL is its alias): nothing made up, nothing anonymous.
      expect(fs.readdirSync(path.join(c.dir!, "mirrors")).filter((f) => f.endsWith(".git"))).toEqual(["fleet.git"]);
      expect((await db.repository.findMany()).map((r) => r.name)).toEqual(["fleet"]);

      const apps = await applications();
      expect([...apps.keys()]).toEqual([...COLLECTED, "ingress-nginx/ingress-nginx"].sort());
      for (const name of COLLECTED) {
        expect(apps.get(name), name).toMatchObject({ kind: "flux-kustomization", approvedSha: c.fleet!.head(), driftCount: 0, lastError: null, removedAt: null });
        expect(apps.get(name)?.objectCount, name).toBeGreaterThan(0);
      }
      expect(apps.get("flux-system/shop-api")).toMatchObject({ promotionKey: "api", controllerRef: { type: "flux", kind: "Kustomization", namespace: "flux-system", name: "shop-api" }, objectCount: 2 });
      expect(apps.get("ingress-nginx/ingress-nginx")?.lastError).toMatchObject({ message: expect.stringContaining("no Kustomization is known to apply its HelmRelease") });
      // Each object is its own application's.
      const nameOf = new Map([...apps.values()].map((a) => [a.id, a.name]));
      const owners = new Map((await db.liveObject.findMany({ select: { key: true, applicationId: true } })).map((o) => [o.key, nameOf.get(o.applicationId ?? "")]));
      expect(owners.get("apps/Deployment/shop/api")).toBe("flux-system/shop-api");
      expect(owners.get("/ConfigMap/flux-system/cluster-settings")).toBe("flux-system/infra-configs");
      expect(owners.get("kustomize.toolkit.fluxcd.io/Kustomization/flux-system/shop-cart")).toBe("flux-system/apps");

      // What the dashboard shows: no source of the environment's own, nine applications, eight in sync, the HelmRelease failing with its reason.
      expect((await getEnvironmentDetail(db, "production")).source).toMatchObject({ repository: null, branch: "", path: "" });
      const listed = await listApplications(db, "production", { removed: "exclude" });
      expect(listed.rollup).toMatchObject({ total: 9, inSync: 8, failing: 1 });
      const api = await getApplication(db, "production", "flux-system/shop-api");
      expect(api.application.sources).toEqual([expect.objectContaining({ url: FLEET_URL, repository: "fleet", path: "apps/production/api", render: "kustomize" })]);
    }, 120_000);

    it("a kubectl scale of a discovered application's Deployment is Modified drift of that application only", async () => {
      await run();
      await kubectl(["-n", "shop", "scale", "deployment", "api", "--replicas=5"]);
      const second = await run();
      expect(second.stats).toMatchObject({ repositoriesFetched: 1, drift: { Modified: 1, Missing: 0, Extra: 0 } });
      const apps = await applications();
      const items = await db.driftItem.findMany({ where: { resolvedAt: null }, select: { key: true, type: true, applicationId: true, attributionManager: true } });
      expect(items).toEqual([{ key: "apps/Deployment/shop/api", type: "Modified", applicationId: apps.get("flux-system/shop-api")?.id, attributionManager: "kubectl" }]);
      // The timeline narrowed to one application shows its drift, and another application's shows none.
      const driftOf = async (application: string) => (await getTimeline(db, { environment: "production", application, type: ["drift"], limit: 100 })).events.map((e) => e.action);
      expect(await driftOf("flux-system/shop-api")).toEqual(["drift.opened"]);
      expect(await driftOf("flux-system/shop-web")).toEqual([]);
      // The environment's drift list names the application of each item, and narrows to one application.
      const drift = (application?: string) => listDrift(db, "production", driftQuerySchema.parse(application ? { application } : {}));
      expect((await drift()).items.map((i) => [i.key, i.application])).toEqual([["apps/Deployment/shop/api", "flux-system/shop-api"]]);
      expect((await drift("flux-system/shop-web")).items).toEqual([]);
      expect((await drift("flux-system/shop-web,flux-system/shop-api")).total).toBe(1);
      expect((await getEnvironmentDetail(db, "production")).facets.applications).toEqual(["flux-system/shop-api"]);
      // So do the metrics narrowed to one application (by promotion key).
      expect((await getMetrics(db, 7, new Date(), "api")).driftLifetime).toMatchObject({ open: 1, resolved: 0 });
      expect((await getMetrics(db, 7, new Date(), "web")).driftLifetime).toMatchObject({ open: 0, resolved: 0 });
      expect((await getMetrics(db, 7)).applications).toEqual(expect.arrayContaining(["api", "cart", "web", "worker"]));
      expect([...apps.values()].filter((a) => a.driftCount > 0).map((a) => [a.name, a.driftCount])).toEqual([["flux-system/shop-api", 1]]);
      expect(await db.environment.findUniqueOrThrow({ where: { name: "production" } })).toMatchObject({ applicationsDrifted: 1 });

      // The api's Service edited by hand, then put back: no workload moves and Flux reports the same revision, so the
      // application's summary is as the last run wrote it; its drift count follows all the same.
      const driftCountOfApi = async () => (await applications()).get("flux-system/shop-api")?.driftCount;
      await kubectl(["-n", "shop", "patch", "service", "api", "--type=merge", "-p", '{"spec":{"selector":{"app.kubernetes.io/name":"api-canary"}}}']);
      expect((await run()).stats).toMatchObject({ drift: { Modified: 2, Missing: 0, Extra: 0 } });
      expect(await driftCountOfApi()).toBe(2);
      await kubectl(["-n", "shop", "patch", "service", "api", "--type=merge", "-p", '{"spec":{"selector":{"app.kubernetes.io/name":"api"}}}']);
      expect((await run()).stats).toMatchObject({ drift: { Modified: 1, Missing: 0, Extra: 0 } });
      expect(await driftCountOfApi()).toBe(1);
    }, 120_000);

    it("Flux applying a newer branch head is not stale for applications that commit did not touch; one whose Kustomization still reports an older revision is", async () => {
      const hourAgo = new Date(Date.now() - 3_600_000);
      const estate = c.fleet!.head();
      c.fleet!.write("apps/production/api/README.md", "# shop-api\n");
      c.fleet!.write("apps/production/worker/README.md", "# shop-worker\n");
      const first = c.fleet!.commit("api, worker: a readme", { date: hourAgo });
      await run();
      // A commit to the cart's files only; Flux reconciles every Kustomization of the repository to the new head,
      // except shop-worker's, which still reports the estate's commit (its reconciliation is stuck before `first`).
      c.fleet!.write("apps/production/cart/README.md", "# shop-cart\n");
      const head = c.fleet!.commit("cart: a readme", { date: hourAgo });
      const status = (sha: string) => JSON.stringify({ status: { lastAppliedRevision: `main@sha1:${sha}` } });
      for (const name of ["flux-system", "infra-controllers", "infra-configs", "apps", "shop-api", "shop-cart", "shop-web"]) {
        await kubectl(["-n", "flux-system", "patch", "kustomization", name, "--subresource=status", "--type=merge", "-p", status(head)]);
      }
      await kubectl(["-n", "flux-system", "patch", "kustomization", "shop-worker", "--subresource=status", "--type=merge", "-p", status(estate)]);
      await run();

      const apps = await applications();
      // shop-api's files last changed in `first`; the cluster runs `head`, which contains it.
      expect(apps.get("flux-system/shop-api")).toMatchObject({ approvedSha: first, appliedSha: head, appliedBehind: false });
      expect(apps.get("flux-system/shop-cart")).toMatchObject({ approvedSha: head, appliedSha: head, appliedBehind: false });
      expect(apps.get("flux-system/shop-worker")).toMatchObject({ approvedSha: first, appliedSha: estate, appliedBehind: true });
      const listed = await listApplications(db, "production", { removed: "exclude" });
      const status_ = new Map(listed.applications.map((a) => [a.name, a.status]));
      expect(status_.get("flux-system/shop-api")).toBe("In sync");
      expect(status_.get("flux-system/shop-web")).toBe("In sync");
      expect(status_.get("flux-system/shop-worker")).toBe("Stale");
      expect(listed.rollup).toMatchObject({ stale: 1 });
      // The timeline shows the repository's commits for a discovered estate, and narrowed to one application only the
      // commits that changed its files.
      const commitsOf = async (application?: string) =>
        (await getTimeline(db, { environment: "production", application, type: ["commit"], limit: 100 })).events.map((e) => e.title.replace(/^Commit \w+: /, ""));
      expect(await commitsOf()).toEqual(expect.arrayContaining(["api, worker: a readme", "cart: a readme"]));
      // (Oldest first: the two readmes were committed an hour ago, the estate itself just now.)
      expect(await commitsOf("flux-system/shop-cart")).toEqual(["cart: a readme", "flux-fleet"]);
      expect(await commitsOf("flux-system/shop-api")).toEqual(["api, worker: a readme", "flux-fleet"]);
      // Lead time of the cart's changes only: the estate's commit and the cart's readme, the latter an hour before it went live.
      const cart = await getMetrics(db, 7, new Date(), "cart");
      expect(cart.leadTime).toEqual([expect.objectContaining({ from: null, to: "production", samples: 2 })]);
      expect(cart.leadTime[0]?.maxMs).toBeGreaterThan(50 * 60_000);
      const timeline = await getTimeline(db, { environment: "production", limit: 10 });
      expect(timeline.applications).toEqual(expect.arrayContaining(["flux-system/shop-api", "flux-system/shop-cart"]));
      // The environments page: stale because of that one application, its revisions named with their commits.
      const [card] = (await listEnvironments(db, { path: "driftwatch.yaml", exists: true, declared: 1 })).environments;
      expect(card).toMatchObject({ status: "Stale", applications: { total: 9, stale: 1 }, behind: null });
      expect(card?.statusReason).toMatch(/^1 application has not applied the approved revision, the oldest for 1h/);
      // No revision is the environment's own (the one it stores is its first application's): each application has its own.
      expect(card).toMatchObject({ approved: null, applied: null });
      // The card reads as the environment's applications, not as its first one's revisions and controller.
      const shown = renderToString(createElement(EnvironmentCard, { env: card!, now: Date.now() })).replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
      expect(shown).toMatch(/Applications 9 applications/);
      expect(shown).toContain("flux-system/shop-worker Stale");
      expect(shown).not.toMatch(/Approved|Applied|Controller Kustomization/);
      // No rollback guidance for the environment as a whole: its applications revert on their own sources, and
      // revisions of several applications in one list would read as history rewritten (no revert command).
      expect((await getEnvironmentDetail(db, "production")).rollback).toEqual({ current: null, targets: [] });
    }, 120_000);

    it("a Kustomization suspended by hand is a detected pause of its own application, and ends when it reconciles again", async () => {
      await run();
      await kubectl(["-n", "flux-system", "patch", "kustomization", "shop-web", "--type=merge", "--field-manager=kubectl-patch", "-p", '{"spec":{"suspend":true}}']);
      await run();
      const apps = await applications();
      const pauses = await db.pause.findMany({ where: { endedAt: null }, select: { origin: true, controllerRef: true, applicationId: true, detectedManager: true } });
      expect(pauses).toEqual([{ origin: "detected", controllerRef: "Kustomization/flux-system/shop-web", applicationId: apps.get("flux-system/shop-web")?.id, detectedManager: "kubectl-patch" }]);
      const listed = await listApplications(db, "production", { removed: "exclude" });
      expect(listed.applications.filter((a) => a.status === "Paused").map((a) => a.name)).toEqual(["flux-system/shop-web"]);
      const [card] = (await listEnvironments(db, { path: "driftwatch.yaml", exists: true, declared: 1 })).environments;
      expect(card?.status).toBe("Paused");

      await kubectl(["-n", "flux-system", "patch", "kustomization", "shop-web", "--type=merge", "--field-manager=kubectl-patch", "-p", '{"spec":{"suspend":false}}']);
      await run();
      expect(await db.pause.count({ where: { endedAt: null } })).toBe(0);
      expect(await db.auditEvent.findMany({ where: { action: { startsWith: "pause." } }, select: { action: true }, orderBy: { id: "asc" } })).toEqual([{ action: "pause.detected" }, { action: "pause.ended" }]);
    }, 120_000);

    it("a pause Driftwatch holds on a Kustomization another application declares is not drift of that parent; the same suspend by hand is", async () => {
      // The write credential pauses go through (context t may write); the collector still reads with t-readonly.
      c.config = parseConfig(
        stringify({
          repositories: [{ name: "fleet", url: c.fleet!.dir, aliases: [FLEET_URL] }],
          environments: [
            { name: "production", cluster: { kubeconfig: c.cluster?.kubeconfigPath, context: "t-readonly" }, write: { kubeconfig: c.cluster?.kubeconfigPath, context: "t" }, extraKinds: [], discover: { flux: {} } },
          ],
        }),
      );
      await run();
      const olivia = await createTestSession(db, "operator", "olivia");
      const actor = { type: "user" as const, id: olivia.user.id, name: "olivia" };
      const pause = await createPause(db, "production", { reason: "INC-9: cart hotfix by hand", duration: "1h", application: "flux-system/shop-cart" }, actor);
      expect(pause).toMatchObject({ executed: true, controllerRef: "Kustomization/flux-system/shop-cart" });
      const child = "kustomize.toolkit.fluxcd.io/Kustomization/flux-system/shop-cart";
      const openOn = (key: string) => db.driftItem.count({ where: { key, resolvedAt: null } });

      await run();
      // The parent (flux-system/apps declares shop-cart) shows the pause as a pause, not as its own drift.
      expect(await openOn(child)).toBe(0);
      expect((await listApplications(db, "production", { removed: "exclude" })).applications.find((a) => a.name === "flux-system/apps")).toMatchObject({ driftCount: 0 });
      expect((await db.pause.findMany({ where: { endedAt: null }, select: { origin: true } })).map((p) => p.origin)).toEqual(["dashboard"]);

      await resumePause(db, pause.id, actor, { reason: "hotfix is in Git" });
      await run();
      expect(await openOn(child)).toBe(0);

      // A suspend nobody audited is drift of the parent, named with who wrote it.
      await kubectl(["-n", "flux-system", "patch", "kustomization", "shop-cart", "--type=merge", "--field-manager=kubectl-patch", "-p", '{"spec":{"suspend":true}}']);
      await run();
      const items = await db.driftItem.findMany({ where: { key: child, resolvedAt: null }, select: { type: true, attributionManager: true, applicationId: true } });
      expect(items).toEqual([{ type: "Modified", attributionManager: "kubectl-patch", applicationId: (await applications()).get("flux-system/apps")?.id }]);
    }, 120_000);

    it("an application whose Kustomization is deleted is marked removed, its history kept", async () => {
      await run();
      await kubectl(["-n", "shop", "scale", "deployment", "cart", "--replicas=7"]);
      await run();
      const cart = (await applications()).get("flux-system/shop-cart");
      if (!cart) throw new Error("shop-cart was not discovered");
      const drift = await db.driftItem.findFirstOrThrow({ where: { applicationId: cart.id, resolvedAt: null } });

      await kubectl(["-n", "flux-system", "delete", "kustomization", "shop-cart"]);
      const after = await run();
      expect(after.stats).toMatchObject({ applications: 8, repositoriesFetched: 1 });
      const apps = await applications();
      expect(apps.get("flux-system/shop-cart")).toMatchObject({ id: cart.id, removedAt: expect.any(Date) });
      expect(apps.get("flux-system/shop-api")?.removedAt).toBeNull();
      // Its history stays: its drift (ended, no application has the object any more) and its lineage.
      expect(await db.driftItem.findUniqueOrThrow({ where: { id: drift.id } })).toMatchObject({ applicationId: cart.id, type: "Modified" });
      // Its end is recorded under its own name, so the application's timeline tells the whole story.
      const ended = await db.auditEvent.findFirstOrThrow({ where: { action: "drift.resolved", targetId: drift.id } });
      expect(ended.after).toMatchObject({ application: "flux-system/shop-cart" });
      expect(await db.appliedRevision.count({ where: { applicationId: cart.id } })).toBeGreaterThan(0);
      // Git still has the Kustomization (apps renders it): Missing, on the application that applies it.
      const missing = await db.driftItem.findMany({ where: { resolvedAt: null, type: "Missing" }, select: { key: true, applicationId: true } });
      expect(missing).toEqual([{ key: "kustomize.toolkit.fluxcd.io/Kustomization/flux-system/shop-cart", applicationId: apps.get("flux-system/apps")?.id }]);
      expect(await db.environment.findUniqueOrThrow({ where: { name: "production" } })).toMatchObject({ applicationsTotal: 8 });
    }, 120_000);

    it("applications of a kind the collector may no longer list are kept as they were known, not removed", async () => {
      await run();
      const before = (await applications()).get("ingress-nginx/ingress-nginx");
      await c.cluster?.faults.forbid("helmreleases", "helm.toolkit.fluxcd.io");
      const out = await run();
      expect(out.status).toBe("partial");
      expect(out.errors).toContainEqual(expect.objectContaining({ category: "forbidden", message: expect.stringMatching(/^cannot list helmreleases\.helm\.toolkit\.fluxcd\.io in any namespace/) }));
      expect(out.stats).toMatchObject({ applications: 9, repositoriesFetched: 1 });
      const apps = await applications();
      expect(apps.get("ingress-nginx/ingress-nginx")).toMatchObject({ id: before?.id, removedAt: null, lastError: { category: "forbidden", message: "its HelmRelease could not be listed in any namespace this run; its last known state is kept" } });
      expect(await db.environment.findUniqueOrThrow({ where: { name: "production" } })).toMatchObject({ applicationsTotal: 9 });
    }, 120_000);

    it("a discovered HelmRelease is collected from Helm's release storage, its Git side the file its Kustomization applies", async () => {
      // What kustomize-controller and helm-controller would have done: the HelmRelease labelled with the Kustomization that
      // applied it, the chart installed by the real helm binary, and the release recorded in the HelmRelease's status.history.
      await kubectl(["-n", "ingress-nginx", "label", "helmrelease", "ingress-nginx", "kustomize.toolkit.fluxcd.io/name=infra-controllers", "kustomize.toolkit.fluxcd.io/namespace=flux-system"]);
      const chart = path.join(c.dir!, "ingress-nginx");
      const helmHome = { HOME: c.dir!, HELM_CACHE_HOME: path.join(c.dir!, "helm-cache"), HELM_CONFIG_HOME: path.join(c.dir!, "helm-config"), HELM_DATA_HOME: path.join(c.dir!, "helm-data") };
      // Asynchronously: kubesim answers from this process.
      const helm = (args: string[]) => promisify(execFile)(binaryPath("helm"), [...args, "--kubeconfig", c.cluster?.kubeconfigPath ?? "", "--kube-context", "t"], { env: { ...process.env, ...helmHome } });
      await helm(["create", chart]);
      fs.writeFileSync(path.join(chart, "Chart.yaml"), fs.readFileSync(path.join(chart, "Chart.yaml"), "utf8").replace(/^version: .*$/m, "version: 4.11.3"));
      await helm(["install", "ingress-nginx", chart, "-n", "ingress-nginx", "--set", "replicaCount=2", "--disable-openapi-validation"]);
      const values = { controller: { replicaCount: 2, service: { type: "ClusterIP" } } };
      const history = [{ version: 1, name: "ingress-nginx", namespace: "ingress-nginx", chartName: "ingress-nginx", chartVersion: "4.11.3", configDigest: helmConfigDigest(values), digest: "sha256:0", status: "deployed", firstDeployed: "2026-12-01T10:00:00Z", lastDeployed: "2026-12-01T10:00:00Z" }];
      await kubectl(["-n", "ingress-nginx", "patch", "helmrelease", "ingress-nginx", "--subresource=status", "--type=merge", "-p", JSON.stringify({ status: { history } })]);

      const out = await run();
      expect(out.errors).toEqual([]);
      expect(out).toMatchObject({ status: "succeeded", stats: { applications: 9, repositoriesFetched: 1, drift: { Modified: 0, Missing: 0, Extra: 0 } } });
      let release = (await applications()).get("ingress-nginx/ingress-nginx");
      // Desired is what Helm released (a Deployment, Service and ServiceAccount), released at the commit Git declares it in.
      expect(release).toMatchObject({ lastError: null, driftCount: 0, objectCount: 3, approvedSha: c.fleet!.head(), appliedSha: c.fleet!.head() });
      const nameOf = new Map([...(await applications()).values()].map((a) => [a.id, a.name]));
      const owned = (await db.desiredObject.findMany({ select: { key: true, applicationId: true } })).filter((o) => nameOf.get(o.applicationId ?? "") === "ingress-nginx/ingress-nginx").map((o) => o.key);
      expect(owned.sort()).toEqual(["/Service/ingress-nginx/ingress-nginx", "/ServiceAccount/ingress-nginx/ingress-nginx", "apps/Deployment/ingress-nginx/ingress-nginx"]);

      // A hand change to what Helm applied is that application's drift.
      await kubectl(["-n", "ingress-nginx", "scale", "deployment", "ingress-nginx", "--replicas=5"]);
      expect((await run()).stats).toMatchObject({ drift: { Modified: 1, Missing: 0, Extra: 0 } });
      release = (await applications()).get("ingress-nginx/ingress-nginx");
      expect(await db.driftItem.findMany({ where: { resolvedAt: null }, select: { key: true, applicationId: true } })).toEqual([{ key: "apps/Deployment/ingress-nginx/ingress-nginx", applicationId: release?.id }]);

      // New values in Git, not released yet (status.history still has the old digest): approved moves, applied stays where it was released.
      const released = c.fleet!.head();
      const file = "infrastructure/controllers/ingress-nginx.yaml";
      c.fleet!.write(file, fs.readFileSync(path.join(c.fleet!.dir, file), "utf8").replace("replicaCount: 2", "replicaCount: 3"));
      c.fleet!.commit("ingress-nginx: three replicas");
      await run();
      expect((await applications()).get("ingress-nginx/ingress-nginx")).toMatchObject({ approvedSha: c.fleet!.head(), appliedSha: released });
    }, 180_000);

    it("a discovery that finds nothing any more is a good run: the environment holds no applications, the ones it held are removed with their history", async () => {
      await run();
      await kubectl(["-n", "shop", "scale", "deployment", "api", "--replicas=4"]);
      await run();
      const before = await applications();
      const drift = await db.driftItem.findFirstOrThrow({ where: { resolvedAt: null, applicationId: before.get("flux-system/shop-api")?.id } });

      await kubectl(["delete", "kustomizations.kustomize.toolkit.fluxcd.io", "--all", "--all-namespaces"]);
      await kubectl(["delete", "helmreleases.helm.toolkit.fluxcd.io", "--all", "--all-namespaces"]);
      const out = await run();
      expect(out).toMatchObject({ status: "succeeded", errors: [], approvedSha: null, appliedSha: null });
      expect(out.stats).toMatchObject({ applications: 0, live: 0, desired: 0, repositoriesFetched: 0 });

      const apps = await applications();
      expect(apps.size).toBe(9);
      for (const [name, a] of apps) expect(a, name).toMatchObject({ id: before.get(name)?.id, removedAt: expect.any(Date) });
      // History kept: the drift ended (its application is gone, and with it the object from the environment), the lineage stays.
      expect(await db.driftItem.findUniqueOrThrow({ where: { id: drift.id } })).toMatchObject({ applicationId: before.get("flux-system/shop-api")?.id, resolution: "deleted", resolvedAt: expect.any(Date) });
      expect(await db.appliedRevision.count({ where: { applicationId: before.get("flux-system/shop-api")?.id } })).toBeGreaterThan(0);
      expect(await db.liveObject.count()).toBe(0);
      expect(await db.objectVersion.count({ where: { side: "live", key: "apps/Deployment/shop/api", blobHash: null } })).toBe(1);
      expect(await db.environment.findUniqueOrThrow({ where: { name: "production" } })).toMatchObject({ applicationsTotal: 0, objectCount: 0, approvedSha: null, lastError: null });

      // What a user reads: no applications, in words, on the environment and its applications list; the old ones under "removed".
      const detail = await getEnvironmentDetail(db, "production");
      expect(detail).toMatchObject({ status: "In sync", statusReason: NO_APPLICATIONS, applications: { total: 0 }, drift: { total: 0 } });
      const listed = await listApplications(db, "production", { removed: "exclude" });
      expect(listed).toMatchObject({ total: 0, rollup: { total: 0 }, collectedAt: expect.any(String), applications: [] });
      expect((await listApplications(db, "production", { removed: "only" })).total).toBe(9);

      // And back: a Kustomization that reappears is the same application again, under its old id.
      await applyFleetAsFlux(kubectl, "apps/production");
      const back = await run();
      expect(back.status).toBe("succeeded");
      expect((await applications()).get("flux-system/shop-api")).toMatchObject({ id: before.get("flux-system/shop-api")?.id, removedAt: null });
    }, 180_000);

    it("no Kustomization left while HelmReleases may not be listed: the Kustomizations' applications are removed, the HelmRelease's kept as known", async () => {
      await run();
      const release = (await applications()).get("ingress-nginx/ingress-nginx");
      await kubectl(["delete", "kustomizations.kustomize.toolkit.fluxcd.io", "--all", "--all-namespaces"]);
      await c.cluster?.faults.forbid("helmreleases", "helm.toolkit.fluxcd.io");
      const out = await run();
      expect(out.status).toBe("partial");
      expect(out.errors.map((e) => e.message)).toEqual([
        expect.stringMatching(/^cannot list helmreleases\.helm\.toolkit\.fluxcd\.io in any namespace/),
        "its HelmRelease could not be listed in any namespace this run; its last known state is kept",
      ]);
      expect(out.stats).toMatchObject({ applications: 1 });
      const apps = await applications();
      expect(apps.get("ingress-nginx/ingress-nginx")).toMatchObject({ id: release?.id, removedAt: null, lastError: { category: "forbidden" } });
      for (const name of COLLECTED) expect(apps.get(name)?.removedAt, name).toEqual(expect.any(Date));
      expect(await db.environment.findUniqueOrThrow({ where: { name: "production" } })).toMatchObject({ applicationsTotal: 1, applicationsFailing: 1 });
    }, 120_000);

    it("a discovery that cannot read the cluster fails the run and keeps every application as it was", async () => {
      await run();
      const good = await db.environment.findUniqueOrThrow({ where: { name: "production" } });
      await kubectl(["delete", "kustomizations.kustomize.toolkit.fluxcd.io", "--all", "--all-namespaces"]);
      await c.cluster?.faults.unavailable("refuse");
      const out = await run();
      await c.cluster?.faults.unavailable(false);
      expect(out.status).toBe("failed");
      const apps = await applications();
      expect([...apps.values()].filter((a) => a.removedAt !== null)).toEqual([]);
      expect(await db.environment.findUniqueOrThrow({ where: { name: "production" } })).toMatchObject({ lastGoodRunId: good.lastGoodRunId, applicationsTotal: 9, objectCount: good.objectCount });
      expect(await db.liveObject.count()).toBe(good.objectCount);
    }, 120_000);

    it("a repository nobody declared is fetched once with the credential whose URL prefix covers it, and gets its own row", async () => {
      const token = "fleet-token-3f9a1c";
      const git = await startGitHttpServer({ projectRoot: c.fleet!.dir, username: "x-access-token", token });
      const restore = setProcessEnv({ DW_TEST_FLEET_TOKEN: token });
      try {
        const served = `${git.origin}/.git`;
        await kubectl(["-n", "flux-system", "patch", "gitrepository", "flux-system", "--type=merge", "-p", JSON.stringify({ spec: { url: served } })]);
        c.config = parseConfig(
          stringify({
            credentials: [{ urlPrefix: git.origin, auth: { type: "token", tokenEnv: "DW_TEST_FLEET_TOKEN" } }],
            environments: [{ name: "production", cluster: { kubeconfig: c.cluster?.kubeconfigPath, context: "t-readonly" }, extraKinds: [], discover: { flux: {} } }],
          }),
        );
        const out = await run();
        expect(out.stats).toMatchObject({ applications: 9, repositoriesFetched: 1 });
        const repositories = await db.repository.findMany();
        expect(repositories.map((r) => [r.name, r.url, r.lastError])).toEqual([[expect.stringMatching(/^auto-127-0-0-1-\d+$/), served, null]]);
        const apps = await applications();
        for (const name of COLLECTED) expect(apps.get(name), name).toMatchObject({ approvedSha: c.fleet!.head(), lastError: null });
        // The token went over the wire as the credential says, and only there: not into the database.
        expect(git.authorizations).toContain(`Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`);
        const stored = await db.$queryRawUnsafe<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM "Application" WHERE sources::text LIKE $1 OR spec::text LIKE $1`, `%${token}%`);
        expect(stored[0]?.n).toBe(0);
      } finally {
        restore();
        await git.close();
      }
    }, 120_000);

    it("an application whose GitRepository names a URL driftwatch.yaml does not allow fails with that reason; the others collect", async () => {
      await kubectl(["apply", "-f", "-"], stringify({ apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", metadata: { name: "elsewhere", namespace: "flux-system" }, spec: { interval: "1m", url: UNKNOWN_URL, ref: { branch: "main" } } }));
      await kubectl(["apply", "-f", "-"], stringify({ apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", metadata: { name: "elsewhere", namespace: "flux-system" }, spec: { interval: "10m", prune: true, path: "./deploy", sourceRef: { kind: "GitRepository", name: "elsewhere" } } }));
      const out = await run();
      expect(out.status).toBe("partial");
      const reason = `no repository or credential in driftwatch.yaml matches ${UNKNOWN_URL}`;
      expect(out.errors).toContainEqual({ category: "git-fetch", severity: "warning", message: `application flux-system/elsewhere: ${reason}` });
      expect(out.stats).toMatchObject({ applications: 10, repositoriesFetched: 1 });
      const apps = await applications();
      expect(apps.get("flux-system/elsewhere")?.lastError).toMatchObject({ category: "git-fetch", message: reason });
      expect((await getApplication(db, "production", "flux-system/elsewhere")).application.lastError?.message).toBe(reason);
      for (const name of COLLECTED) expect(apps.get(name), name).toMatchObject({ approvedSha: c.fleet!.head(), lastError: null });
      // Nothing was fetched from the unknown URL, and no repository was made up for it.
      expect((await db.repository.findMany()).map((r) => r.name)).toEqual(["fleet"]);
      expect(await db.environment.findUniqueOrThrow({ where: { name: "production" } })).toMatchObject({ applicationsTotal: 10, applicationsFailing: 2 });
    }, 120_000);
  });
});
