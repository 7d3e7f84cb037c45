// Alerts and the incident report of an Argo CD app-of-apps environment
// (issue 19): the estate of test/fixtures/estates/argocd-app-of-apps committed
// into a real Git repository, its Applications synced as Argo CD would have
// (test/support/app-of-apps-case.ts). Git moves on; one Application stays on
// the old revision, two are paused the Argo CD way (automated sync turned off,
// reconcile skipped), one syncs by hand by design (no automated policy in Git:
// stale when it lags, never a pause), one reports a failing condition of its
// own; the repository they all read fails for all of them at once (one alert,
// not five). Every run is followed by what a worker runs after it (detected
// pauses, then alerts), so the alerts are the product's own.
// On the imitation and on a real kube-apiserver, with the same assertions.
import { describe, expect, it } from "vitest";
import { forEachCluster } from "../support/clusters";
import { openAlertsNamed } from "../support/collector-env";
import { APP_OF_APPS_APPLICATIONS, APP_OF_APPS_URL, eachAppOfAppsCase, reportApplication, type AppOfAppsApplication } from "../support/app-of-apps-case";
import { getPrisma } from "@/lib/db";
import { loadIncidentReport } from "@/lib/reports/load-incident";
import { getEnvironmentDetail } from "@/lib/dashboard/environments";
import { EnvironmentDetailDto } from "@/lib/api/contract";
import { getApplication } from "@/lib/dashboard/applications";

const db = getPrisma();
const HOUR = 3_600_000;
const openAlerts = () => openAlertsNamed(db);
const short = (sha: string) => sha.slice(0, 12);

forEachCluster((server) => {
  const appOfApps = eachAppOfAppsCase(server, "driftwatch-argocd-alerts-");
  const { kubectl, run, sync, outOfSync } = appOfApps;

  /** Argo CD reads the Application's target state again: its condition goes and it syncs the head. */
  const recover = async (...names: AppOfAppsApplication[]) => {
    for (const name of names) {
      await reportApplication(kubectl, name, { conditions: null });
      await sync(name);
    }
  };

  /** A commit approved `ago` milliseconds ago, changing `files`. */
  function commitAgo(message: string, files: Record<string, string>, ago: number): string {
    for (const [file, content] of Object.entries(files)) appOfApps.repo.write(file, content);
    return appOfApps.repo.commit(message, { date: new Date(Date.now() - ago) });
  }

  /** The fixture's file with `from` replaced by `to` (a change to what the Application renders). */
  function edited(file: string, from: string, to: string): string {
    const text = appOfApps.repo.git("show", `HEAD:${file}`);
    if (!text.includes(from)) throw new Error(`${file} has no "${from}"`);
    return text.replace(from, to);
  }

  describe("alerts of an Argo CD app-of-apps environment", () => {
    it("one Application left on an old revision opens its own stale alert, which resolves when it catches up; paused ones (automated sync off, reconcile skipped) raise none", async () => {
      const estate = appOfApps.repo.head();
      await run();
      const env = await db.environment.findUniqueOrThrow({ where: { name: "production" } });
      expect(env.repositoryId).toBeNull();
      expect((await db.application.findMany({ orderBy: { name: "asc" } })).map((a) => [a.name, a.appliedSha])).toEqual(
        ["root", "shop-api", "shop-cart", "shop-web", "shop-worker"].map((n) => [`argocd/${n}`, estate]),
      );
      expect(await openAlerts()).toEqual([]);

      // A new worker image, two web replicas and a longer cart session, approved an hour ago. Argo CD syncs the
      // root and the api; the worker's sync is stuck (OutOfSync, its last sync still the old revision). The
      // web's automated sync was turned off by hand, and the cart's reconciliation skipped (Argo CD leaves its
      // status as it was: Synced at the old revision), so both are behind on purpose.
      await kubectl(["-n", "argocd", "patch", "applications.argoproj.io", "shop-web", "--type=merge", "--field-manager=kubectl-patch", "-p", '{"spec":{"syncPolicy":{"automated":{"enabled":false}}}}']);
      await kubectl(["-n", "argocd", "annotate", "applications.argoproj.io", "shop-cart", "argocd.argoproj.io/skip-reconcile=true"]);
      const moved = commitAgo(
        "worker 1.9.0, web at two replicas, cart sessions of an hour",
        {
          "services/worker/staging/deployment.yaml": edited("services/worker/staging/deployment.yaml", "shop-worker:1.8.0", "shop-worker:1.9.0"),
          "services/web/staging/kustomization.yaml": edited("services/web/staging/kustomization.yaml", "count: 1", "count: 2"),
          "services/cart/staging/settings.yaml": edited("services/cart/staging/settings.yaml", "session-ttl: 30m", "session-ttl: 60m"),
        },
        HOUR,
      );
      await sync("root", "shop-api");
      await outOfSync("shop-worker");
      await outOfSync("shop-web");
      await run();

      const apps = new Map((await db.application.findMany()).map((a) => [a.name, a]));
      expect(apps.get("argocd/shop-worker")).toMatchObject({ approvedSha: moved, appliedSha: estate, appliedBehind: true });
      expect(apps.get("argocd/shop-web")).toMatchObject({ approvedSha: moved, appliedSha: estate, appliedBehind: true });
      expect(apps.get("argocd/shop-cart")).toMatchObject({ approvedSha: moved, appliedSha: estate, appliedBehind: true });
      // The api synced a head that holds no change of its own: up to date, not behind.
      expect(apps.get("argocd/shop-api")).toMatchObject({ appliedSha: moved, appliedBehind: false });
      const open = await openAlerts();
      expect(open.filter((a) => a.type === "environment_stale")).toEqual([
        { type: "environment_stale", title: expect.stringMatching(new RegExp(`^production/argocd/shop-worker is stale: ${short(moved)} approved (59|60|61) min ago, ${short(estate)} still applied$`)), application: "argocd/shop-worker" },
      ]);
      // The paused ones are pauses (their own alerts, naming them and who paused them), not stale.
      expect(open.filter((a) => a.type !== "environment_stale").sort((a, b) => a.title.localeCompare(b.title))).toEqual([
        { type: "pause_unattributed", title: "production/argocd/shop-cart: reconciliation paused outside Driftwatch (by kubectl-annotate)", application: "argocd/shop-cart" },
        { type: "pause_unattributed", title: "production/argocd/shop-web: reconciliation paused outside Driftwatch (by kubectl-patch)", application: "argocd/shop-web" },
      ]);
      const stale = await db.alert.findFirstOrThrow({ where: { type: "environment_stale", resolvedAt: null } });
      expect(stale).toMatchObject({ environmentId: env.id, fingerprint: `environment_stale:${env.id}:${apps.get("argocd/shop-worker")!.id}` });

      // Another run with nothing changed keeps the same alert open (no churn).
      await run();
      expect((await db.alert.findMany({ where: { type: "environment_stale", resolvedAt: null } })).map((a) => a.id)).toEqual([stale.id]);

      // Argo CD syncs the worker: its alert resolves.
      await sync("shop-worker");
      await run();
      expect((await openAlerts()).filter((a) => a.type === "environment_stale")).toEqual([]);
      expect(await db.alert.findUniqueOrThrow({ where: { id: stale.id } })).toMatchObject({ resolvedAt: expect.any(Date) });
      const audit = await db.auditEvent.findMany({ where: { targetId: stale.id }, select: { action: true }, orderBy: { id: "asc" } });
      expect(audit.map((a) => a.action)).toEqual(["alert.opened", "alert.resolved"]);
    }, 180_000);

    it("an Application that syncs by hand by design (no automated policy in Git) is no pause and goes stale when it lags; one whose Git declares automated sync but someone removed it live is a detected pause", async () => {
      const estate = appOfApps.repo.head();
      // The cart's team syncs it by hand on purpose: its declaration in Git loses the automated policy, and the root's sync applies that.
      commitAgo("cart: synced by hand", { "apps/shop-cart.yaml": edited("apps/shop-cart.yaml", "    automated:\n      prune: true\n      selfHeal: true\n", "") }, 2 * HOUR);
      await sync("root");
      await run();
      const cartApplication = JSON.parse(await kubectl(["-n", "argocd", "get", "applications.argoproj.io", "shop-cart", "-o", "json"])) as { spec: { syncPolicy: Record<string, unknown> } };
      expect(cartApplication.spec.syncPolicy).toEqual({ syncOptions: ["CreateNamespace=true"] });
      expect(await db.pause.findMany()).toEqual([]);
      expect(await openAlerts()).toEqual([]);
      expect((await db.application.findFirstOrThrow({ where: { name: "argocd/shop-cart" } })).controller).toMatchObject({ argoSync: "manual", suspended: false, automatedSync: false });
      // Its page says so; the others sync automatically.
      expect((await getApplication(db, "production", "argocd/shop-cart")).manualSync).toBe(true);
      expect((await getApplication(db, "production", "argocd/shop-api")).manualSync).toBe(false);

      // Someone removes the web's automated policy by hand, though Git declares it. A longer cart session and two web
      // replicas are approved an hour ago; Argo CD has compared both with the new head and synced neither.
      await kubectl(["-n", "argocd", "patch", "applications.argoproj.io", "shop-web", "--type=merge", "--field-manager=kubectl-patch", "-p", '{"spec":{"syncPolicy":{"automated":null}}}']);
      const moved = commitAgo(
        "cart sessions of an hour, web at two replicas",
        {
          "services/cart/staging/settings.yaml": edited("services/cart/staging/settings.yaml", "session-ttl: 30m", "session-ttl: 60m"),
          "services/web/staging/kustomization.yaml": edited("services/web/staging/kustomization.yaml", "count: 1", "count: 2"),
        },
        HOUR,
      );
      await outOfSync("shop-cart");
      await outOfSync("shop-web");
      await run();

      const apps = new Map((await db.application.findMany()).map((a) => [a.name, a]));
      expect(apps.get("argocd/shop-cart")).toMatchObject({ approvedSha: moved, appliedSha: estate, appliedBehind: true });
      expect(apps.get("argocd/shop-web")).toMatchObject({ approvedSha: moved, appliedSha: estate, appliedBehind: true });
      expect(apps.get("argocd/shop-web")!.controller).toMatchObject({ argoSync: "automated-removed", suspended: true, suspendedBy: null });
      expect((await getApplication(db, "production", "argocd/shop-web")).manualSync).toBe(false);
      // The cart is stale (an approved commit nobody synced); the web is a pause, not stale. A removed field keeps no
      // owner in managedFields, so the pause names no writer rather than guess one.
      expect((await openAlerts()).sort((a, b) => a.type.localeCompare(b.type))).toEqual([
        { type: "environment_stale", title: expect.stringMatching(new RegExp(`^production/argocd/shop-cart is stale: ${short(moved)} approved (59|60|61) min ago, ${short(estate)} still applied$`)), application: "argocd/shop-cart" },
        { type: "pause_unattributed", title: "production/argocd/shop-web: reconciliation paused outside Driftwatch", application: "argocd/shop-web" },
      ]);
      const pauses = await db.pause.findMany();
      expect(pauses).toEqual([expect.objectContaining({ origin: "detected", controllerRef: "Application/argocd/shop-web", applicationId: apps.get("argocd/shop-web")!.id, detectedManager: null, endedAt: null })]);
      const detected = await db.auditEvent.findFirstOrThrow({ where: { action: "pause.detected" } });
      expect(detected.reason).toBe("Application/argocd/shop-web suspended outside Driftwatch (automated sync removed, though Git declares it)");

      // A commit breaks the YAML of the web's declaration, and the next one mends it: the pause stays as it was (not
      // ended as "by design" and detected again), and neither commit counts as a change of the web's declaration.
      const declaration = appOfApps.repo.git("show", "HEAD:apps/shop-web.yaml");
      commitAgo("web: a broken edit", { "apps/shop-web.yaml": declaration + "\n  broken: [unclosed\n" }, HOUR / 2);
      await run();
      expect(await db.pause.findMany({ select: { id: true, endedAt: true } })).toEqual([{ id: pauses[0]!.id, endedAt: null }]);
      commitAgo("web: the edit mended", { "apps/shop-web.yaml": declaration }, HOUR / 2);
      await run();
      expect(await db.pause.findMany({ select: { id: true, endedAt: true } })).toEqual([{ id: pauses[0]!.id, endedAt: null }]);

      // The web's team makes it manual in Git too: the root applies that, and the pause ends, saying why; the web is
      // now simply behind, and stale. The cart's team syncs the cart: its alert resolves.
      commitAgo("web: synced by hand", { "apps/shop-web.yaml": edited("apps/shop-web.yaml", "    automated:\n      prune: true\n      selfHeal: true\n", "") }, HOUR / 2);
      await sync("root", "shop-cart");
      await run();
      expect(await db.pause.findUniqueOrThrow({ where: { id: pauses[0]!.id } })).toMatchObject({ endedAt: expect.any(Date), endReason: "syncs by hand by design: no automated sync policy live nor declared in Git" });
      expect(await openAlerts()).toEqual([
        { type: "environment_stale", title: expect.stringMatching(new RegExp(`^production/argocd/shop-web is stale: ${short(moved)} approved (59|60|61) min ago, ${short(estate)} still applied$`)), application: "argocd/shop-web" },
      ]);
    }, 180_000);

    it("an Application whose status reports a failing condition of its own raises the convergence alert naming it, which resolves when the condition clears", async () => {
      await run();
      expect(await openAlerts()).toEqual([]);
      // Argo CD cannot build the cart's target state any more (its path is gone from the repository), for ten minutes now.
      const since = new Date(Date.now() - 10 * 60_000).toISOString();
      const message = "Failed to load target state: failed to generate manifest for source 1 of 1: rpc error: code = Unknown desc = services/cart/staging: app path does not exist";
      await reportApplication(kubectl, "shop-cart", { sync: { status: "Unknown" }, conditions: [{ type: "ComparisonError", message, lastTransitionTime: since }] });
      await run();

      const cart = await db.application.findFirstOrThrow({ where: { name: "argocd/shop-cart" } });
      const env = await db.environment.findUniqueOrThrow({ where: { name: "production" } });
      expect(await openAlerts()).toEqual([{ type: "convergence_failing", title: "production/argocd/shop-cart: Application/argocd/shop-cart is failing (ComparisonError)", application: "argocd/shop-cart" }]);
      const alert = await db.alert.findFirstOrThrow({ where: { type: "convergence_failing", resolvedAt: null } });
      expect(alert).toMatchObject({ fingerprint: `convergence_failing:${env.id}:Application/argocd/shop-cart`, details: expect.objectContaining({ applications: ["argocd/shop-cart"], condition: "ComparisonError", message, since }) });
      expect(cart.appliedSha).toBe(appOfApps.repo.head());

      // Its last sync failed as well: still one problem, one alert.
      await reportApplication(kubectl, "shop-cart", { operationState: { phase: "Failed", message: "one or more objects failed to apply", finishedAt: since, syncResult: { revision: appOfApps.repo.head() } } });
      await run();
      expect((await openAlerts()).map((a) => a.type)).toEqual(["convergence_failing"]);

      // Argo CD recovers: the condition goes, a sync succeeds, the alert resolves.
      await recover("shop-cart");
      await run();
      expect(await openAlerts()).toEqual([]);
      expect(await db.alert.findUniqueOrThrow({ where: { id: alert.id } })).toMatchObject({ resolvedAt: expect.any(Date) });
    }, 180_000);

    it("a repository every Application fails to read (a rotated credential) raises one convergence alert naming it and the Applications, resolving when Argo CD reads it again", async () => {
      await run();
      expect(await openAlerts()).toEqual([]);
      // The repository's credential was rotated ten minutes ago; Argo CD refreshed each Application a little apart since.
      const cannotRead = (minutesAgo: number) => ({
        sync: { status: "Unknown" },
        conditions: [
          {
            type: "ComparisonError",
            message: "Failed to load target state: failed to generate manifest for source 1 of 1: rpc error: code = Unknown desc = failed to list refs: authentication required: Repository not found.",
            lastTransitionTime: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
          },
        ],
      });
      for (const [i, name] of APP_OF_APPS_APPLICATIONS.entries()) await reportApplication(kubectl, name, cannotRead(10 - i));
      await run();

      const everyApplication = APP_OF_APPS_APPLICATIONS.map((n) => `argocd/${n}`);
      expect(await openAlerts()).toEqual([
        { type: "convergence_failing", title: `production: repository ${APP_OF_APPS_URL} is failing (ComparisonError), holding up 5 applications`, application: null },
      ]);
      const env = await db.environment.findUniqueOrThrow({ where: { name: "production" } });
      const alert = await db.alert.findFirstOrThrow({ where: { type: "convergence_failing", resolvedAt: null } });
      expect(alert).toMatchObject({
        fingerprint: `convergence_failing:${env.id}:Repository/https://git.example.com/acme/argocd-app-of-apps`,
        details: expect.objectContaining({ repository: APP_OF_APPS_URL, applications: everyApplication, applicationCount: 5, condition: "ComparisonError" }),
      });
      // The environment page's Controller panel lists the repository once, holding up every Application.
      const detail = EnvironmentDetailDto.parse(await getEnvironmentDetail(db, "production"));
      expect(detail.controllerRollup?.attention.map((o) => [o.object, o.kind, o.name, o.state, o.applicationCount])).toEqual([
        [`Repository/${APP_OF_APPS_URL}`, "Repository", APP_OF_APPS_URL, "failing", 5],
      ]);

      // Argo CD reads the repository again for all but the worker: the same alert, naming the worker alone.
      await recover("root", "shop-api", "shop-cart", "shop-web");
      await run();
      expect(await openAlerts()).toEqual([{ type: "convergence_failing", title: `production/argocd/shop-worker: repository ${APP_OF_APPS_URL} is failing (ComparisonError)`, application: "argocd/shop-worker" }]);
      expect((await db.alert.findMany({ where: { type: "convergence_failing" } })).map((a) => a.id)).toEqual([alert.id]);

      // And for the worker: the alert resolves.
      await recover("shop-worker");
      await run();
      expect(await openAlerts()).toEqual([]);
      expect(await db.alert.findUniqueOrThrow({ where: { id: alert.id } })).toMatchObject({ resolvedAt: expect.any(Date) });
    }, 180_000);
  });

  describe("the incident report of an Argo CD app-of-apps environment", () => {
    it("lists the commits going live in each Application, from its own path, once, at the first Application that ran them", async () => {
      const from = new Date(Date.now() - 60_000);
      const estate = appOfApps.repo.head();
      await run();
      // A commit to the api's and the worker's files, approved an hour ago: Argo CD syncs the api first, the worker a run later.
      const images = commitAgo(
        "api at two replicas, worker on 1.9.0",
        {
          "services/api/staging/kustomization.yaml": edited("services/api/staging/kustomization.yaml", "count: 1", "count: 2"),
          "services/worker/staging/deployment.yaml": edited("services/worker/staging/deployment.yaml", "shop-worker:1.8.0", "shop-worker:1.9.0"),
        },
        HOUR,
      );
      await sync("root", "shop-api", "shop-cart", "shop-web");
      await outOfSync("shop-worker");
      await run();
      await sync("shop-worker");
      await run();
      // A change to the cart's settings that Argo CD has not synced: the other Applications run the new head,
      // which holds it, but it is the cart's change and the cart does not run it yet.
      const settings = commitAgo("cart: a longer session", { "services/cart/staging/settings.yaml": edited("services/cart/staging/settings.yaml", "session-ttl: 30m", "session-ttl: 60m") }, HOUR / 2);
      await sync("root", "shop-api", "shop-web", "shop-worker");
      await outOfSync("shop-cart");
      await run();

      const apps = new Map((await db.application.findMany({ include: { appliedRevisions: true } })).map((a) => [a.name, a]));
      const ranAt = (app: string, sha: string) => apps.get(app)!.appliedRevisions.find((r) => r.sha === sha)!.firstSeenAt;
      expect(ranAt("argocd/shop-worker", images).getTime()).toBeGreaterThan(ranAt("argocd/shop-api", images).getTime());
      expect(apps.get("argocd/shop-cart")).toMatchObject({ approvedSha: settings, appliedSha: images });
      const now = new Date(Date.now() + 1000);
      const report = await loadIncidentReport(db, { environment: "production", window: { from: from.toISOString(), to: now.toISOString() }, now, generatedBy: "Tess Tester" });

      // The estate's own commit went live in every Application at the first run; the cart's settings in none yet.
      expect(report.leadTimes.map((l) => l.message)).toEqual(["app-of-apps", "api at two replicas, worker on 1.9.0"]);
      const [first, second] = report.leadTimes;
      expect(first).toMatchObject({ sha: estate, changes: ["argocd/root", "argocd/shop-api", "argocd/shop-cart", "argocd/shop-web", "argocd/shop-worker"] });
      // It went live when the api ran it, about an hour after it was committed, not when the worker caught up.
      expect(second).toMatchObject({ sha: images, changes: ["argocd/shop-api", "argocd/shop-worker"], liveAt: ranAt("argocd/shop-api", images).toISOString() });
      expect(second!.leadTimeMs).toBeGreaterThan(59 * 60_000);
      expect(report.counts.commitsLive).toBe(2);
    }, 180_000);
  });
});
