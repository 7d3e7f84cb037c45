// A child Application's detected pause while its parent is not collected
// (issue 19), on the Argo CD app-of-apps estate (test/support/app-of-apps-case.ts).
// Git declares the web's automated sync policy in the root's folder; someone
// removed it live, a detected pause. Then the root is pointed at a branch not
// pushed yet: its ref does not resolve, so the run leaves the root out (it
// keeps its last state, the run is partial) and collects the children. What Git
// declares for the web is unknown that run, not gone: the pause must hold, not
// end as "syncs by hand by design" and start again once the root is back.
// The same holds when the root is collected but its render of the web's file is
// withheld: Argo CD reports the root synced at a commit where apps/shop-web.yaml
// does not parse, so the file keeps its last good objects (carried, not rendered).
// Every run is followed by what a worker runs after it (detected pauses, then
// alerts). On the imitation and on a real kube-apiserver, with the same assertions.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { forEachCluster } from "../support/clusters";
import { eachAppOfAppsCase, reportApplication } from "../support/app-of-apps-case";
import { getPrisma } from "@/lib/db";

const db = getPrisma();
const pauses = () => db.pause.findMany({ select: { id: true, controllerRef: true, endedAt: true, endReason: true }, orderBy: { startedAt: "asc" } });
const lastRun = () => db.collectionRun.findFirstOrThrow({ orderBy: { id: "desc" }, select: { status: true, errors: true } });
const pauseEvents = async () => (await db.auditEvent.findMany({ where: { action: { startsWith: "pause." } }, select: { action: true } })).map((e) => e.action);
const webSync = async () => (await db.application.findFirstOrThrow({ where: { name: "argocd/shop-web" } })).controller;

forEachCluster((server) => {
  const appOfApps = eachAppOfAppsCase(server, "driftwatch-skipped-parent-");
  const { kubectl, run } = appOfApps;
  const patchApplication = (name: string, patch: object) => kubectl(["-n", "argocd", "patch", "applications.argoproj.io", name, "--type=merge", "--field-manager=kubectl-patch", "-p", JSON.stringify(patch)]);

  /** Someone removes the web's automated policy by hand, though the root's folder declares it: a detected pause. */
  const detectWebPause = async () => {
    await run();
    await patchApplication("shop-web", { spec: { syncPolicy: { automated: null } } });
    await run();
    const detected = await pauses();
    expect(detected).toEqual([{ id: expect.any(String), controllerRef: "Application/argocd/shop-web", endedAt: null, endReason: null }]);
    return detected;
  };
  /** The web's detected pause is the same one, still open, and the web reads as paused (not "by hand by design"). */
  const expectHeld = async (detected: Awaited<ReturnType<typeof pauses>>) => {
    expect(await pauses()).toEqual(detected);
    expect(await webSync()).toMatchObject({ argoSync: "automated-removed", suspended: true });
  };
  const expectPartialNaming = async (named: string) => {
    const partial = await lastRun();
    expect(partial.status).toBe("partial");
    expect(JSON.stringify(partial.errors)).toContain(named);
  };
  const expectNothingEndedOrStarted = async (detected: Awaited<ReturnType<typeof pauses>>) => {
    expect((await lastRun()).status).toBe("succeeded");
    await expectHeld(detected);
    expect(await pauseEvents()).toEqual(["pause.detected"]);
  };

  describe("a child's detected pause while its parent is left out of a run", () => {
    it("holds (the same pause, never ended as by design) while the root's branch does not resolve, and after it does", async () => {
      const detected = await detectWebPause();
      await expectHeld(detected);

      // The root is pointed at a release branch nobody has pushed yet: the run leaves it out and collects the rest.
      await patchApplication("root", { spec: { source: { targetRevision: "release" } } });
      await run();
      await expectPartialNaming("application argocd/root");
      await expectHeld(detected);

      // The branch is pushed: the root is collected again at it, and still declares the policy. Nothing ended or started.
      appOfApps.repo.git("branch", "release");
      await run();
      await expectNothingEndedOrStarted(detected);
    }, 180_000);

    it("holds while the root's file declaring the web does not parse at the revision the root is compared at, and after it is mended", async () => {
      // Argo CD compared the root at the repository's head (its status only: the root's render changes nothing live).
      const rootComparedAtHead = () => reportApplication(kubectl, "root", { sync: { status: "Synced", revision: appOfApps.repo.head() } });
      const detected = await detectWebPause();

      // A broken edit of the web's declaration: the file does not parse, so the root's render of it is withheld this run.
      const declaration = fs.readFileSync(path.join(appOfApps.repo.dir, "apps/shop-web.yaml"), "utf8");
      appOfApps.repo.write("apps/shop-web.yaml", `${declaration}  info: [unclosed\n`).commit("web: a broken edit");
      await rootComparedAtHead();
      await run();
      await expectPartialNaming("apps/shop-web.yaml");
      await expectHeld(detected);

      // Mended: the file parses again and still declares the policy. Nothing ended or started.
      appOfApps.repo.write("apps/shop-web.yaml", declaration).commit("web: mend the edit");
      await rootComparedAtHead();
      await run();
      await expectNothingEndedOrStarted(detected);
    }, 180_000);
  });
});
