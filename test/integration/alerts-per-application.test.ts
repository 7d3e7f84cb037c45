// Alerts and the incident report of an environment that only discovers its
// applications (issue 19): the Flux fleet's production cluster
// (test/fixtures/estates/flux-fleet) committed into a real Git repository, its
// Flux objects applied with kubectl. Git moves on; one Kustomization stays on
// the old revision. Every run is followed by what a worker runs after it
// (detected pauses, then alerts), so the alerts are the product's own.
// On the imitation and on a real kube-apiserver, with the same assertions.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { forEachCluster } from "../support/clusters";
import { kubectlFor, reportFluxApplied } from "../support/estate-kube";
import { openAlertsNamed, runAsWorker } from "../support/collector-env";
import { eachFleetCase } from "../support/fleet-case";
import { pageText } from "../support/page-text";
import { getPrisma } from "@/lib/db";
import { getEnvironmentDetail, listEnvironments } from "@/lib/dashboard/environments";
import { listDrift } from "@/lib/dashboard/drift";
import { driftQuerySchema } from "@/lib/api/contract";
import { EnvironmentClient } from "@/app/environments/[env]/environment-client";
import { loadIncidentReport } from "@/lib/reports/load-incident";
import { EnvironmentCard } from "@/components/environment-card";

const KUSTOMIZATIONS = ["flux-system", "infra-controllers", "infra-configs", "apps", "shop-api", "shop-cart", "shop-web", "shop-worker"];

const db = getPrisma();

const openAlerts = () => openAlertsNamed(db);
const short = (sha: string) => sha.slice(0, 12);

forEachCluster((server) => {
  const c = eachFleetCase(server, "driftwatch-alerts-apps-");
  const kubectl = kubectlFor(() => c.cluster);
  /** One run of production, then the worker's after-run hooks (detected pauses, alerts), as a worker does it. */
  const run = () => runAsWorker(db, c.config!, path.join(c.dir!, "mirrors"), "production");
  /** Flux reports `sha` applied for these Kustomizations. */
  const reportApplied = (sha: string, names: string[]) => reportFluxApplied(kubectl, sha, names);

  describe("alerts of an environment that discovers its applications", () => {
    it("one Kustomization left on an old revision opens that application's stale alert only, which resolves when it catches up; a suspended one raises none", async () => {
      const estate = c.fleet!.head();
      await reportApplied(estate, KUSTOMIZATIONS);
      await run();
      const env = await db.environment.findUniqueOrThrow({ where: { name: "production" } });
      expect(env.repositoryId).toBeNull();
      expect(await openAlerts()).toEqual([]);
      // What an older release raised from the environment's own fields (its first application's): never desired again.
      const older = await db.alert.create({
        data: { environmentId: env.id, type: "environment_stale", fingerprint: `environment_stale:${env.id}`, severity: "critical", title: "production is stale: x approved 40 min ago, y still applied", openedAt: new Date(), updatedAt: new Date() },
      });

      // A commit to the worker's and the web's files, approved an hour ago. Flux applies it everywhere except
      // shop-worker (its reconciliation is stuck) and shop-web (suspended by hand, so behind on purpose).
      c.fleet!.write("apps/production/worker/README.md", "# shop-worker\n");
      c.fleet!.write("apps/production/web/README.md", "# shop-web\n");
      const moved = c.fleet!.commit("worker, web: a readme", { date: new Date(Date.now() - 3_600_000) });
      await reportApplied(moved, KUSTOMIZATIONS.filter((k) => k !== "shop-worker" && k !== "shop-web"));
      await kubectl(["-n", "flux-system", "patch", "kustomization", "shop-web", "--type=merge", "--field-manager=kubectl-patch", "-p", '{"spec":{"suspend":true}}']);
      await run();

      const apps = new Map((await db.application.findMany()).map((a) => [a.name, a]));
      expect(apps.get("flux-system/shop-worker")).toMatchObject({ approvedSha: moved, appliedSha: estate, appliedBehind: true });
      expect(apps.get("flux-system/shop-web")).toMatchObject({ approvedSha: moved, appliedSha: estate, appliedBehind: true });
      const open = await openAlerts();
      expect(open.filter((a) => a.type === "environment_stale")).toEqual([
        { type: "environment_stale", title: expect.stringMatching(new RegExp(`^production/flux-system/shop-worker is stale: ${short(moved)} approved (59|60|61) min ago, ${short(estate)} still applied$`)), application: "flux-system/shop-worker" },
      ]);
      // The suspended one is a pause (its own alert, naming it, says nobody owns it), not stale.
      expect(open.filter((a) => a.type !== "environment_stale")).toEqual([
        { type: "pause_unattributed", title: "production/flux-system/shop-web: reconciliation paused outside Driftwatch (by kubectl-patch)", application: "flux-system/shop-web" },
      ]);
      expect(await db.alert.findUniqueOrThrow({ where: { id: older.id } })).toMatchObject({ resolvedAt: expect.any(Date) });
      const stale = await db.alert.findFirstOrThrow({ where: { type: "environment_stale", resolvedAt: null } });
      expect(stale).toMatchObject({ environmentId: env.id, fingerprint: `environment_stale:${env.id}:${apps.get("flux-system/shop-worker")!.id}` });

      // The environments page's card lists the alert under the environment, the application named.
      const [card] = (await listEnvironments(db, { path: "driftwatch.yaml", exists: true, declared: 1 })).environments;
      const shown = renderToString(createElement(EnvironmentCard, { env: card!, now: Date.now() })).replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
      expect(shown).toContain(`production/flux-system/shop-worker is stale: ${short(moved)}`);
      // The environment page's open alerts link the application's own page.
      const detail = await getEnvironmentDetail(db, "production");
      expect(detail.alerts.filter((a) => a.type === "environment_stale").map((a) => a.application)).toEqual(["flux-system/shop-worker"]);
      const page = await pageText(createElement(EnvironmentClient, { initial: detail, initialDrift: await listDrift(db, "production", driftQuerySchema.parse({})), initialFilters: "" }), "/environments/production");
      expect(page).toMatch(/production\/flux-system\/shop-worker is stale: .* Open flux-system\/shop-worker →/);

      // Another run with nothing changed keeps the same alert open (no churn).
      await run();
      expect(await db.alert.count({ where: { type: "environment_stale", resolvedAt: null } })).toBe(1);
      expect((await db.alert.findFirstOrThrow({ where: { type: "environment_stale", resolvedAt: null } })).id).toBe(stale.id);

      // shop-worker catches up: its alert resolves.
      await reportApplied(moved, ["shop-worker"]);
      await run();
      expect((await openAlerts()).filter((a) => a.type === "environment_stale")).toEqual([]);
      expect(await db.alert.findUniqueOrThrow({ where: { id: stale.id } })).toMatchObject({ resolvedAt: expect.any(Date) });
      const audit = await db.auditEvent.findMany({ where: { targetId: stale.id }, select: { action: true }, orderBy: { id: "asc" } });
      expect(audit.map((a) => a.action)).toEqual(["alert.opened", "alert.resolved"]);
    }, 180_000);
  });

  describe("the incident report of an environment that discovers its applications", () => {
    it("lists each application's commits going live once, at the first application that ran them, and the application's stale alert", async () => {
      const from = new Date(Date.now() - 60_000);
      const estate = c.fleet!.head();
      await reportApplied(estate, KUSTOMIZATIONS);
      await run();
      // A commit to the api's and the worker's files, approved an hour ago: shop-api runs it first, shop-worker a run later.
      c.fleet!.write("apps/production/api/README.md", "# shop-api\n");
      c.fleet!.write("apps/production/worker/README.md", "# shop-worker\n");
      const readme = c.fleet!.commit("api, worker: a readme", { date: new Date(Date.now() - 3_600_000) });
      await reportApplied(readme, KUSTOMIZATIONS.filter((k) => k !== "shop-worker"));
      await run();
      await reportApplied(readme, ["shop-worker"]);
      await run();

      const apps = new Map((await db.application.findMany({ include: { appliedRevisions: true } })).map((a) => [a.name, a]));
      const ranAt = (app: string, sha: string) => apps.get(app)!.appliedRevisions.find((r) => r.sha === sha)!.firstSeenAt;
      expect(ranAt("flux-system/shop-worker", readme).getTime()).toBeGreaterThan(ranAt("flux-system/shop-api", readme).getTime());
      const now = new Date(Date.now() + 1000);
      const report = await loadIncidentReport(db, { environment: "production", window: { from: from.toISOString(), to: now.toISOString() }, now, generatedBy: "Tess Tester" });

      // Each commit once: the fleet's own commit went live in every Kustomization's application at the first run.
      expect(report.leadTimes.map((l) => l.message)).toEqual(["flux-fleet", "api, worker: a readme"]);
      const [first, second] = report.leadTimes;
      expect(first!.changes).toEqual(expect.arrayContaining(["flux-system/apps", "flux-system/flux-system", "flux-system/shop-api", "flux-system/shop-cart", "flux-system/shop-web", "flux-system/shop-worker"]));
      // The readme changed the api's and worker's files (and their parent's, ./apps/production, which ran it too);
      // it went live when shop-api ran it, about an hour after it was committed.
      expect(second).toMatchObject({ sha: readme, changes: ["flux-system/apps", "flux-system/shop-api", "flux-system/shop-worker"], liveAt: ranAt("flux-system/shop-api", readme).toISOString() });
      expect(second!.leadTimeMs).toBeGreaterThan(59 * 60_000);
      expect(report.counts.commitsLive).toBe(2);
      // The alerts: shop-worker's stale alert, opened and resolved inside the window.
      expect(report.alerts.map((a) => [a.type, a.title.replace(/: .*/, ""), a.ongoing])).toEqual([["environment_stale", "production/flux-system/shop-worker is stale", false]]);
      expect(report.summary).toMatch(/, 1 alert; median lead time .+ over 2 commits that went live\.$/);
    }, 180_000);
  });
});
