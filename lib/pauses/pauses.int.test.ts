// Pauses against the in-repo Kubernetes imitation and a real kube-apiserver
// (the same cases on each, the Flux and Argo CD CRDs installed through the
// API): an operator pauses production (audit event, annotations on the
// Kustomization, timeline entry), a viewer cannot, resume restores the
// controller, someone suspends behind the dashboard's back with kubectl and an
// unattributed-pause alert names them.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { disconnectPrisma, getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { environmentSchema } from "@/lib/config/schema";
import { createClusterClient } from "@/lib/kube/client";
import { KubeError } from "@/lib/kube/errors";
import { fluxStatus, argoStatus } from "@/lib/kube/controller-status";
import { forEachCluster, type TestCluster } from "@/test/support/clusters";
import { FLUX_KUSTOMIZATION_CRD, ARGOCD_APPLICATION_CRD } from "@driftwatch/kubesim";
import { createTestSession, type TestSession } from "@/lib/auth/testing";
import { refreshAlerts } from "@/lib/alerts";
import { verifyAuditChain } from "@/lib/audit";
import { createPause, pausePolicy, reconcileApplicationPauses, reconcileDetectedPauses, resumeExpiredPauses, resumePause, takeOwnership } from "@/lib/pauses";
import { POST as postPause } from "@/app/api/pauses/route";
import { POST as postResume } from "@/app/api/pauses/[id]/resume/route";
import { GET as getTimeline } from "@/app/api/timeline/route";

const run = promisify(execFile);
const db = getPrisma();
let cluster: TestCluster;
let operator: TestSession;
let viewer: TestSession;

const KUSTOMIZATION = "/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations/shop";
const APPLICATION = "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/shop";

type Obj = Record<string, unknown>;
const rec = (v: unknown) => (v && typeof v === "object" ? (v as Obj) : {});

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const OBJECTS: Array<{ path: string; body: Obj }> = [
  {
    path: KUSTOMIZATION,
    body: {
      apiVersion: "kustomize.toolkit.fluxcd.io/v1",
      kind: "Kustomization",
      metadata: { name: "shop", namespace: "flux-system" },
      spec: { interval: "1m", path: "./production", prune: true, sourceRef: { kind: "GitRepository", name: "shop" }, suspend: false },
    },
  },
  {
    path: APPLICATION,
    body: {
      apiVersion: "argoproj.io/v1alpha1",
      kind: "Application",
      metadata: { name: "shop", namespace: "argocd" },
      spec: {
        project: "default",
        source: { repoURL: "https://git.example/shop.git", path: "staging", targetRevision: "main" },
        destination: { server: "https://kubernetes.default.svc", namespace: "shop" },
        syncPolicy: { automated: { prune: true, selfHeal: true } },
      },
    },
  },
];

async function ignoring(code: number, request: Promise<unknown>): Promise<void> {
  try {
    await request;
  } catch (e) {
    if (!(e instanceof KubeError && e.status === code)) throw e;
  }
}

afterAll(async () => {
  await disconnectPrisma();
});

forEachCluster((server) => {
  beforeAll(async () => {
    cluster = await server().forCase(fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-pauses-")));
    for (const crd of [FLUX_KUSTOMIZATION_CRD, ARGOCD_APPLICATION_CRD]) await client().requestJson("POST", CRDS, { body: crd });
    for (const ns of ["flux-system", "argocd"]) await client().requestJson("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } } });
    // A real server serves a new CRD's resource a moment after accepting it.
    const deadline = Date.now() + 15_000;
    for (const { path: p } of OBJECTS) {
      for (;;) {
        try {
          await client().requestJson("GET", p.slice(0, p.lastIndexOf("/")));
          break;
        } catch (e) {
          if (Date.now() > deadline) throw e;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    }
  });
  afterAll(async () => {
    await cluster?.release();
  });

  beforeEach(async () => {
    await resetDatabase(db);
    // Fresh objects, written by their controller's manager: nothing a previous case paused or annotated is left.
    for (const { path: p, body } of OBJECTS) {
      await ignoring(404, client().requestJson("DELETE", p));
      await client().requestJson("POST", p.slice(0, p.lastIndexOf("/")), { body, query: { fieldManager: "flux" } });
    }
    operator = await createTestSession(db, "operator", "olivia");
    viewer = await createTestSession(db, "viewer", "victor");
  });

  const client = () => createClusterClient({ kubeconfig: cluster.kubeconfigPath });

  async function addEnvironment(name: string, spec: Record<string, unknown>) {
    const config = environmentSchema.parse({
      name,
      cluster: { kubeconfig: cluster.kubeconfigPath },
      source: { repository: "shop", path: name },
      ...spec,
    });
    return db.environment.create({ data: { name, position: 0, branch: "main", path: name, spec: JSON.parse(JSON.stringify(config)) as object } });
  }

  async function fluxNow() {
    const k = await client().requestJson<Obj>("GET", KUSTOMIZATION);
    return { k, status: fluxStatus({ namespace: "flux-system", name: "shop" }, k, null) };
  }

  function postJson(url: string, body: unknown, headers: Record<string, string>): NextRequest {
    return new NextRequest(url, { method: "POST", headers: { host: "localhost", ...headers }, body: JSON.stringify(body) });
  }

  describe("pausing production through the dashboard", () => {
    it("suspends the Kustomization with who, why and until when; a viewer cannot", async () => {
      const env = await addEnvironment("production", {
        controller: { type: "flux", name: "shop" },
        write: { kubeconfig: cluster.kubeconfigPath },
        confirmPause: true,
        maxPause: "1d",
      });
      const body = { environment: "production", reason: "hotfix INC-42 in progress", duration: "2h", incidentUrl: "https://incidents.example/INC-42", confirm: "production" };

      const denied = await postPause(postJson("http://localhost/api/pauses", body, viewer.headers), { params: Promise.resolve({}) });
      expect(denied.status).toBe(403);
      expect((await fluxNow()).status.suspended).toBe(false);

      const unconfirmed = await postPause(postJson("http://localhost/api/pauses", { ...body, confirm: "prod" }, operator.headers), { params: Promise.resolve({}) });
      expect(unconfirmed.status).toBe(400);
      expect(((await unconfirmed.json()) as { error: { message: string } }).error.message).toMatch(/type the environment's name/);
      const tooLong = await postPause(postJson("http://localhost/api/pauses", { ...body, duration: "3d" }, operator.headers), { params: Promise.resolve({}) });
      expect(tooLong.status).toBe(400);
      const noReason = await postPause(postJson("http://localhost/api/pauses", { ...body, reason: "" }, operator.headers), { params: Promise.resolve({}) });
      expect(noReason.status).toBe(400);
      expect(await db.pause.count()).toBe(0);

      const res = await postPause(postJson("http://localhost/api/pauses", body, operator.headers), { params: Promise.resolve({}) });
      expect(res.status).toBe(201);
      const { pause } = (await res.json()) as { pause: { id: string; executed: boolean; owner: string; expiresAt: string } };
      expect(pause).toMatchObject({ executed: true, owner: "olivia" });

      const { k, status } = await fluxNow();
      expect(rec(k.spec).suspend).toBe(true);
      expect(rec(rec(k.metadata).annotations)).toMatchObject({
        "driftwatch.dev/paused-by": "olivia",
        "driftwatch.dev/pause-reason": "hotfix INC-42 in progress",
        "driftwatch.dev/paused-until": pause.expiresAt,
      });
      expect(status.suspendedBy?.manager).toBe("driftwatch");

      const audit = await db.auditEvent.findFirstOrThrow({ where: { action: "pause.created" } });
      expect(audit).toMatchObject({ actorName: "olivia", environment: "production", reason: "hotfix INC-42 in progress", targetId: pause.id });

      // The collector's next look at the controller finds it suspended by us: no detected pause.
      await db.environment.update({ where: { id: env.id }, data: { controller: JSON.parse(JSON.stringify(status)) as object } });
      expect(await reconcileDetectedPauses(db, env, status)).toEqual({ detected: [], ended: [] });

      const timeline = await getTimeline(new NextRequest("http://localhost/api/timeline?environment=production", { headers: { cookie: viewer.cookie } }), {
        params: Promise.resolve({}),
      });
      expect(timeline.status).toBe(200);
      const events = ((await timeline.json()) as { events: Array<{ action: string; title: string; actor: string }> }).events;
      expect(events.find((e) => e.action === "pause.created")).toMatchObject({ actor: "olivia", title: expect.stringContaining("Reconciliation paused") });

      const resumed = await postResume(postJson(`http://localhost/api/pauses/${pause.id}/resume`, {}, operator.headers), { params: Promise.resolve({ id: pause.id }) });
      expect(resumed.status).toBe(200);
      const after = await fluxNow();
      expect(rec(after.k.spec).suspend).toBe(false);
      expect(rec(rec(after.k.metadata).annotations)["driftwatch.dev/paused-by"]).toBeUndefined();
      expect(await db.auditEvent.count({ where: { action: "pause.ended", actorName: "olivia" } })).toBe(1);
      expect(await verifyAuditChain(db)).toMatchObject({ ok: true });
    });

    it("a Kustomization someone had suspended before the pause stays suspended after it, only Driftwatch's annotations go", async () => {
      await addEnvironment("production", { controller: { type: "flux", name: "shop" }, write: { kubeconfig: cluster.kubeconfigPath } });
      // Suspended by hand a moment ago; the collector has not looked since, so no pause is recorded for it yet.
      await client().requestJson("PATCH", KUSTOMIZATION, { body: { spec: { suspend: true } }, contentType: "application/merge-patch+json", query: { fieldManager: "kubectl-patch" } });
      const pause = await createPause(db, "production", { reason: "holding during the migration", duration: "1h" }, { type: "user", id: operator.user.id, name: "olivia" });
      expect(rec(rec((await fluxNow()).k.metadata).annotations)["driftwatch.dev/paused-by"]).toBe("olivia");

      await resumePause(db, pause.id, { type: "user", id: operator.user.id, name: "olivia" });
      const { k } = await fluxNow();
      expect(rec(k.spec).suspend).toBe(true);
      expect(rec(rec(k.metadata).annotations)["driftwatch.dev/paused-by"]).toBeUndefined();
    });

    it("turns Argo CD auto-sync off and puts the previous policy back on resume", async () => {
      await addEnvironment("staging", { controller: { type: "argocd", name: "shop" }, write: { kubeconfig: cluster.kubeconfigPath } });
      const pause = await createPause(db, "staging", { reason: "load test", duration: "1h" }, { type: "user", id: operator.user.id, name: "olivia" });
      let app = await client().requestJson<Obj>("GET", APPLICATION);
      expect(rec(rec(app.spec).syncPolicy).automated).toBeUndefined();
      expect(argoStatus({ namespace: "argocd", name: "shop" }, app).suspended).toBe(true);
      const row = await db.pause.findUniqueOrThrow({ where: { id: pause.id } });
      expect(row.previousPolicy).toEqual({ automated: { prune: true, selfHeal: true } });
      await resumePause(db, pause.id, { type: "user", id: operator.user.id, name: "olivia" });
      app = await client().requestJson<Obj>("GET", APPLICATION);
      expect(rec(rec(app.spec).syncPolicy).automated).toEqual({ prune: true, selfHeal: true });
    });

    it("without a write credential records the pause and says the cluster does not agree", async () => {
      const env = await addEnvironment("test", { controller: { type: "flux", name: "shop" } });
      const { status } = await fluxNow();
      await db.environment.update({ where: { id: env.id }, data: { controller: JSON.parse(JSON.stringify(status)) as object } });
      const pause = await createPause(db, "test", { reason: "freeze for demo", duration: "30m" }, { type: "user", id: operator.user.id, name: "olivia" });
      expect(pause).toMatchObject({ executed: false, clusterAgrees: false, active: true });
      expect((await fluxNow()).status.suspended).toBe(false);
    });
  });

  describe("pausing one application of an environment that holds several", () => {
    async function twoApplications() {
      const env = await addEnvironment("production", { write: { kubeconfig: cluster.kubeconfigPath } });
      const app = (name: string, controllerRef: Record<string, string> | null) =>
        db.application.create({ data: { environmentId: env.id, name, promotionKey: name, kind: controllerRef ? "flux-kustomization" : "declared", controllerRef: controllerRef ?? undefined, spec: {}, firstSeenAt: new Date() } });
      await app("shop", { type: "flux", kind: "Kustomization", namespace: "flux-system", name: "shop" });
      await app("storefront", { type: "argocd", kind: "Application", namespace: "argocd", name: "shop" });
      await app("settings", null);
      return env;
    }
    const olivia = () => ({ type: "user" as const, id: operator.user.id, name: "olivia" });
    const argoAutomated = async () => rec(rec((await client().requestJson<Obj>("GET", APPLICATION)).spec).syncPolicy).automated;

    it("suspends that application's controller object only; others can be paused beside it, the whole environment not", async () => {
      await twoApplications();
      expect(await pausePolicy(db, "production", "storefront")).toMatchObject({ application: "storefront", controllerRef: "Application/argocd/shop", executes: true });

      const shop = await createPause(db, "production", { reason: "hotfix INC-7 on the shop", duration: "1h", application: "shop" }, olivia());
      expect(shop).toMatchObject({ application: "shop", controllerRef: "Kustomization/flux-system/shop", executed: true, active: true });
      expect((await fluxNow()).status.suspended).toBe(true);
      expect(await argoAutomated()).toEqual({ prune: true, selfHeal: true });
      const audit = await db.auditEvent.findFirstOrThrow({ where: { action: "pause.created", targetId: shop.id } });
      expect(audit.after).toMatchObject({ application: "shop", controllerRef: "Kustomization/flux-system/shop" });

      const again = await createPause(db, "production", { reason: "twice", duration: "1h", application: "shop" }, olivia()).catch((e: unknown) => e);
      expect(again).toMatchObject({ code: "conflict", message: 'application "shop" is already paused; resume it first or extend the existing pause' });

      const storefront = await createPause(db, "production", { reason: "load test of the storefront", duration: "1h", application: "storefront" }, olivia());
      expect(storefront).toMatchObject({ application: "storefront", executed: true });
      expect(await argoAutomated()).toBeUndefined();

      const whole = await createPause(db, "production", { reason: "everything", duration: "1h" }, olivia()).catch((e: unknown) => e);
      expect(whole).toMatchObject({ code: "conflict", message: expect.stringMatching(/^application "(shop|storefront)" is already paused/) });

      // Resuming the shop leaves the storefront paused.
      const resumed = await resumePause(db, shop.id, olivia());
      expect(resumed).toMatchObject({ resumedOnController: true, active: false });
      expect((await fluxNow()).status.suspended).toBe(false);
      expect(await argoAutomated()).toBeUndefined();
      await resumePause(db, storefront.id, olivia());
      expect(await argoAutomated()).toEqual({ prune: true, selfHeal: true });
      expect(await verifyAuditChain(db)).toMatchObject({ ok: true });
    });

    it("an unknown application is not found; an application without a controller object cannot be paused on its own", async () => {
      await twoApplications();
      await expect(createPause(db, "production", { reason: "nope", duration: "1h", application: "payments" }, olivia())).rejects.toMatchObject({
        code: "not_found",
        message: 'application "payments" in environment "production" not found',
      });
      await expect(createPause(db, "production", { reason: "nope", duration: "1h", application: "settings" }, olivia())).rejects.toMatchObject({
        code: "bad_request",
        message: expect.stringContaining('application "settings" has no controller object to pause'),
      });
      expect(await db.pause.count()).toBe(0);
    });
  });

  describe("pausing every application of an environment that has no controller object of its own", () => {
    const olivia = () => ({ type: "user" as const, id: operator.user.id, name: "olivia" });
    const argoApp = async () => client().requestJson<Obj>("GET", APPLICATION);
    /** An environment that only discovers its applications: two with controller objects, one declared without. */
    async function discovered(extra: Array<{ name: string; controllerRef: Record<string, string> }> = []) {
      const config = environmentSchema.parse({ name: "production", cluster: { kubeconfig: cluster.kubeconfigPath }, discover: { flux: {}, argocd: {} }, write: { kubeconfig: cluster.kubeconfigPath } });
      const env = await db.environment.create({ data: { name: "production", position: 0, branch: "", path: "", spec: JSON.parse(JSON.stringify(config)) as object } });
      const app = (name: string, controllerRef: Record<string, string> | null) =>
        db.application.create({ data: { environmentId: env.id, name, promotionKey: name, kind: controllerRef ? "discovered" : "declared", controllerRef: controllerRef ?? undefined, spec: {}, firstSeenAt: new Date() } });
      await app("flux-system/shop", { type: "flux", kind: "Kustomization", namespace: "flux-system", name: "shop" });
      await app("argocd/storefront", { type: "argocd", kind: "Application", namespace: "argocd", name: "shop" });
      await app("settings", null);
      for (const e of extra) await app(e.name, e.controllerRef);
      return env;
    }

    it("suspends each application's controller object as one audited pause, and resume puts each back", async () => {
      const env = await discovered();
      expect(await pausePolicy(db, "production")).toMatchObject({ application: null, controllerRef: null, controllerRefs: ["Application/argocd/shop", "Kustomization/flux-system/shop"], executes: true });

      const pause = await createPause(db, "production", { reason: "freeze for the INC-9 investigation", duration: "2h" }, olivia());
      expect(pause).toMatchObject({ application: null, controllerRef: null, executed: true, active: true, owner: "olivia" });
      const { k, status } = await fluxNow();
      expect(rec(k.spec).suspend).toBe(true);
      expect(rec(rec(k.metadata).annotations)).toMatchObject({ "driftwatch.dev/paused-by": "olivia", "driftwatch.dev/pause-reason": "freeze for the INC-9 investigation", "driftwatch.dev/paused-until": pause.expiresAt, "driftwatch.dev/pause-id": pause.id });
      const argo = await argoApp();
      expect(rec(rec(argo.spec).syncPolicy).automated).toBeUndefined();
      expect(rec(rec(argo.metadata).annotations)["driftwatch.dev/pause-id"]).toBe(pause.id);
      // One pause, one audit entry naming every object it suspended.
      expect(await db.pause.count()).toBe(1);
      const audits = await db.auditEvent.findMany({ where: { action: "pause.created" } });
      expect(audits).toHaveLength(1);
      expect(audits[0]).toMatchObject({ actorName: "olivia", reason: "freeze for the INC-9 investigation", targetId: pause.id });
      expect(audits[0]?.after).toMatchObject({ executed: true, applications: [{ application: "argocd/storefront", controllerRef: "Application/argocd/shop" }, { application: "flux-system/shop", controllerRef: "Kustomization/flux-system/shop" }] });

      // The whole environment is paused: one application cannot be paused again beside it; the collector sees its own pause, detects nothing.
      await expect(createPause(db, "production", { reason: "twice", duration: "1h", application: "flux-system/shop" }, olivia())).rejects.toMatchObject({ code: "conflict", message: expect.stringContaining("this environment is already paused") });
      expect(await reconcileDetectedPauses(db, env, status)).toEqual({ detected: [], ended: [] });

      const resumed = await resumePause(db, pause.id, olivia());
      expect(resumed).toMatchObject({ resumedOnController: true, active: false });
      const after = await fluxNow();
      expect(rec(after.k.spec).suspend).toBe(false);
      expect(rec(rec(after.k.metadata).annotations)["driftwatch.dev/paused-by"]).toBeUndefined();
      expect(rec(rec((await argoApp()).spec).syncPolicy).automated).toEqual({ prune: true, selfHeal: true });
      expect((await db.auditEvent.findFirstOrThrow({ where: { action: "pause.ended" } })).after).toMatchObject({ resumedOnController: true, applications: expect.arrayContaining([expect.objectContaining({ controllerRef: "Kustomization/flux-system/shop" })]) });
      expect(await verifyAuditChain(db)).toMatchObject({ ok: true });
    });

    it("objects someone had suspended by hand before the environment's pause stay their suspensions: detected while the pause holds, and after it", async () => {
      const env = await discovered();
      // Suspended by hand a moment ago; the collector has not looked since, so no pause is recorded for them yet.
      await client().requestJson("PATCH", KUSTOMIZATION, { body: { spec: { suspend: true } }, contentType: "application/merge-patch+json", query: { fieldManager: "kubectl-patch" } });
      await client().requestJson("PATCH", APPLICATION, { body: { metadata: { annotations: { "argocd.argoproj.io/skip-reconcile": "true" } } }, contentType: "application/merge-patch+json", query: { fieldManager: "kubectl-annotate" } });
      const pause = await createPause(db, "production", { reason: "freeze for the INC-9 investigation", duration: "2h" }, olivia());
      const [shop, storefront] = await Promise.all(["flux-system/shop", "argocd/storefront"].map((name) => db.application.findFirstOrThrow({ where: { name } })));
      const statuses = async () => [
        { id: shop!.id, status: (await fluxNow()).status },
        { id: storefront!.id, status: argoStatus({ namespace: "argocd", name: "shop" }, await argoApp()) },
      ];

      // The collector's next look: each is someone's suspension, named after who made it, beside the pause.
      const seen = await reconcileApplicationPauses(db, env, await statuses());
      expect(seen.detected).toHaveLength(2);
      const detected = await db.pause.findMany({ where: { id: { in: seen.detected } }, orderBy: { controllerRef: "asc" } });
      expect(detected).toMatchObject([
        { origin: "detected", controllerRef: "Application/argocd/shop", applicationId: storefront!.id, detectedManager: "kubectl-annotate", endedAt: null },
        { origin: "detected", controllerRef: "Kustomization/flux-system/shop", applicationId: shop!.id, detectedManager: "kubectl-patch", endedAt: null },
      ]);
      expect(await reconcileApplicationPauses(db, env, await statuses())).toEqual({ detected: [], ended: [] });

      // The pause ends; both stay suspended as they were found, and so do their detected pauses.
      await resumePause(db, pause.id, olivia());
      expect(rec((await fluxNow()).k.spec).suspend).toBe(true);
      expect(await reconcileApplicationPauses(db, env, await statuses())).toEqual({ detected: [], ended: [] });
      expect(await db.pause.count({ where: { id: { in: seen.detected }, endedAt: null } })).toBe(2);
    });

    it("when one object cannot be suspended, the ones already suspended are put back and nothing is recorded; the error names the object", async () => {
      // Sorted by application name: the Argo CD Application first, then a Kustomization deleted since discovery, then the shop.
      await discovered([{ name: "flux-system/gone", controllerRef: { type: "flux", kind: "Kustomization", namespace: "flux-system", name: "gone" } }]);
      const failed = await createPause(db, "production", { reason: "freeze", duration: "1h" }, olivia()).catch((e: unknown) => e);
      expect(failed).toMatchObject({
        code: "unavailable",
        message: expect.stringMatching(/^could not pause Kustomization\/flux-system\/gone \(application "flux-system\/gone"\): .+; the 1 already paused was put back as it was; nothing was recorded$/),
        details: { controllerRef: "Kustomization/flux-system/gone", application: "flux-system/gone" },
      });
      const argo = await argoApp();
      expect(rec(rec(argo.spec).syncPolicy).automated).toEqual({ prune: true, selfHeal: true });
      expect(rec(rec(argo.metadata).annotations)["driftwatch.dev/pause-id"]).toBeUndefined();
      const { k } = await fluxNow();
      expect(rec(k.spec).suspend).toBe(false);
      expect(rec(rec(k.metadata).annotations)["driftwatch.dev/pause-id"]).toBeUndefined();
      expect(await db.pause.count()).toBe(0);
      expect(await db.auditEvent.count({ where: { action: "pause.created" } })).toBe(0);
    });

    it("an object deleted while paused does not hold the resume of the others back", async () => {
      await discovered();
      const pause = await createPause(db, "production", { reason: "freeze", duration: "1h" }, olivia());
      await client().requestJson("DELETE", APPLICATION);
      expect(await resumePause(db, pause.id, olivia())).toMatchObject({ resumedOnController: true, active: false });
      expect(rec((await fluxNow()).k.spec).suspend).toBe(false);
    });
  });

  describe("a pause made behind the dashboard's back", () => {
    async function kubectlSuspend(): Promise<string> {
      const kubectl = ["/usr/bin/kubectl", "/usr/local/bin/kubectl"].find((p) => fs.existsSync(p));
      if (kubectl) {
        await run(kubectl, ["--kubeconfig", cluster.kubeconfigPath, "-n", "flux-system", "patch", "kustomization", "shop", "--type", "merge", "-p", '{"spec":{"suspend":true}}']);
        return "kubectl";
      }
      // No kubectl on this machine: send what kubectl patch sends (merge patch, fieldManager kubectl-patch).
      console.log("[pauses.int] kubectl not found; sending kubectl's merge patch directly");
      await client().requestJson("PATCH", KUSTOMIZATION, { body: { spec: { suspend: true } }, contentType: "application/merge-patch+json", query: { fieldManager: "kubectl-patch" } });
      return "raw";
    }

    it("becomes an unattributed pause naming the kubectl-patch manager, alerts until owned, and ends when the cluster resumes", async () => {
      const env = await addEnvironment("production", { controller: { type: "flux", name: "shop" }, write: { kubeconfig: cluster.kubeconfigPath }, confirmPause: true });
      await kubectlSuspend();
      const { status } = await fluxNow();
      expect(status.suspended).toBe(true);
      expect(status.suspendedBy?.manager).toBe("kubectl-patch");
      await db.environment.update({ where: { id: env.id }, data: { controller: JSON.parse(JSON.stringify(status)) as object } });

      const first = await reconcileDetectedPauses(db, env, status);
      expect(first.detected).toHaveLength(1);
      expect((await reconcileDetectedPauses(db, env, status)).detected).toHaveLength(0); // once, not every run
      const pause = await db.pause.findUniqueOrThrow({ where: { id: first.detected[0]! } });
      expect(pause).toMatchObject({ origin: "detected", detectedManager: "kubectl-patch", ownerId: null, controllerRef: "Kustomization/flux-system/shop" });
      const detectedAudit = await db.auditEvent.findFirstOrThrow({ where: { action: "pause.detected" } });
      expect(detectedAudit.reason).toContain("kubectl-patch");

      const synced = await refreshAlerts(db, env.id);
      expect(synced.opened).toHaveLength(1);
      const alert = await db.alert.findFirstOrThrow({ where: { resolvedAt: null } });
      expect(alert).toMatchObject({ type: "pause_unattributed", severity: "critical" });
      expect(alert.title).toContain("kubectl-patch");
      expect((await refreshAlerts(db, env.id)).opened).toHaveLength(0); // still one open alert

      await takeOwnership(db, pause.id, { reason: "Bob's debugging session", duration: "1h" }, { type: "user", id: operator.user.id, name: "olivia" });
      const afterOwnership = await refreshAlerts(db, env.id);
      expect(afterOwnership.resolved).toEqual([alert.id]);
      expect(await db.auditEvent.count({ where: { action: "pause.claimed" } })).toBe(1);

      await client().requestJson("PATCH", KUSTOMIZATION, { body: { spec: { suspend: false } }, contentType: "application/merge-patch+json", query: { fieldManager: "kubectl-patch" } });
      const resumed = await fluxNow();
      const ended = await reconcileDetectedPauses(db, env, resumed.status);
      expect(ended.ended).toEqual([pause.id]);
      expect((await db.pause.findUniqueOrThrow({ where: { id: pause.id } })).endReason).toMatch(/outside Driftwatch/);
    });

    it("an expired pause alerts, and an environment with autoResume resumes it on the controller", async () => {
      const env = await addEnvironment("production", { controller: { type: "flux", name: "shop" }, write: { kubeconfig: cluster.kubeconfigPath }, autoResume: true });
      const t0 = new Date(Date.now() - 3 * 3_600_000);
      const pause = await createPause(db, "production", { reason: "maintenance window", duration: "1h" }, { type: "user", id: operator.user.id, name: "olivia" }, { now: t0 });
      expect((await fluxNow()).status.suspended).toBe(true);
      const alerts = await refreshAlerts(db, env.id);
      expect(alerts.opened).toHaveLength(1);
      expect((await db.alert.findFirstOrThrow()).type).toBe("pause_expired");

      expect(await resumeExpiredPauses(db)).toEqual({ resumed: [pause.id], failed: [] });
      expect((await fluxNow()).status.suspended).toBe(false);
      expect((await db.pause.findUniqueOrThrow({ where: { id: pause.id } })).endReason).toMatch(/automatic resume/);
      expect((await refreshAlerts(db, env.id)).resolved).toHaveLength(1);
    });
  });
});
