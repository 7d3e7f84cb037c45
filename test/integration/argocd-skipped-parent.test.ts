// A child Application's detected pause while its parent is not collected
// (issue 19), on the Argo CD app-of-apps estate (test/support/app-of-apps-case.ts).
// Git declares the web's automated sync policy in the root's folder; someone
// removed it live, a detected pause. Then the root is pointed at a branch not
// pushed yet: its ref does not resolve, so the run leaves the root out (it
// keeps its last state, the run is partial) and collects the children. What Git
// declares for the web is unknown that run, not gone: the pause must hold, not
// end as "syncs by hand by design" and start again once the root is back.
// Every run is followed by what a worker runs after it (detected pauses, then
// alerts). On the imitation and on a real kube-apiserver, with the same assertions.
import { describe, expect, it } from "vitest";
import { forEachCluster } from "../support/clusters";
import { eachAppOfAppsCase } from "../support/app-of-apps-case";
import { getPrisma } from "@/lib/db";

const db = getPrisma();
const pauses = () => db.pause.findMany({ select: { id: true, controllerRef: true, endedAt: true, endReason: true }, orderBy: { startedAt: "asc" } });
const lastRun = () => db.collectionRun.findFirstOrThrow({ orderBy: { id: "desc" }, select: { status: true, errors: true } });
const webSync = async () => (await db.application.findFirstOrThrow({ where: { name: "argocd/shop-web" } })).controller;

forEachCluster((server) => {
  const appOfApps = eachAppOfAppsCase(server, "driftwatch-skipped-parent-");
  const { kubectl, run } = appOfApps;
  const patchApplication = (name: string, patch: object) => kubectl(["-n", "argocd", "patch", "applications.argoproj.io", name, "--type=merge", "--field-manager=kubectl-patch", "-p", JSON.stringify(patch)]);

  describe("a child's detected pause while its parent is left out of a run", () => {
    it("holds (the same pause, never ended as by design) while the root's branch does not resolve, and after it does", async () => {
      await run();
      // Someone removes the web's automated policy by hand, though the root's folder declares it: a detected pause.
      await patchApplication("shop-web", { spec: { syncPolicy: { automated: null } } });
      await run();
      const detected = await pauses();
      expect(detected).toEqual([{ id: expect.any(String), controllerRef: "Application/argocd/shop-web", endedAt: null, endReason: null }]);
      expect(await webSync()).toMatchObject({ argoSync: "automated-removed", suspended: true });

      // The root is pointed at a release branch nobody has pushed yet: the run leaves it out and collects the rest.
      await patchApplication("root", { spec: { source: { targetRevision: "release" } } });
      await run();
      const partial = await lastRun();
      expect(partial.status).toBe("partial");
      expect(JSON.stringify(partial.errors)).toContain("application argocd/root");
      expect(await pauses()).toEqual(detected);
      expect(await webSync()).toMatchObject({ argoSync: "automated-removed", suspended: true });

      // The branch is pushed: the root is collected again at it, and still declares the policy. Nothing ended or started.
      appOfApps.repo.git("branch", "release");
      await run();
      expect((await lastRun()).status).toBe("succeeded");
      expect(await pauses()).toEqual(detected);
      expect(await webSync()).toMatchObject({ argoSync: "automated-removed", suspended: true });
      expect((await db.auditEvent.findMany({ where: { action: { startsWith: "pause." } }, select: { action: true } })).map((e) => e.action)).toEqual(["pause.detected"]);
    }, 180_000);
  });
});
