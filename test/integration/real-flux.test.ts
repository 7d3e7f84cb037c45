// Driftwatch against real Flux: etcd + kube-apiserver (tools/realkube), the
// three Flux controllers running as processes beside them (tools/realkube/flux),
// a Git repository served over smart HTTP by `git http-backend`, and a Helm
// chart repository packaged and indexed by the pinned helm. Driftwatch reads
// with the shipped least-privilege collector role and pauses with the Roles
// `npm run rbac` generates (under the shipped admission policy), through its
// API. The tests run in order, as one story:
//   Flux applies the repository → pausing from Driftwatch suspends it and Flux
//   stops reverting → manual kubectl edits show as drift attributed to their
//   field managers → resuming lets Flux revert them and the drift resolves as
//   reverted → a history rewrite leaves an object only Flux's inventory still
//   names (Extra), which Flux prunes on resume → with prune disabled Flux
//   abandons a dropped object (out of its inventory; found by Flux's label) →
//   helm-controller installs a chart from the chart repository and writes its
//   release storage.
// Needs the binaries `npm test` builds first (npm run realkube:build), kubectl
// and kustomize (kubectl's); without them this fails, saying what is missing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { realKubeAccess, stopRealEstate, waitFor } from "@/test/support/real-kube-access";
import { stringify } from "yaml";
import { parseConfig, type DriftwatchConfig } from "@/lib/config";
import { getPrisma } from "@/lib/db";
import { syncConfigToDatabase, type RunOutcome } from "@/lib/collector";
import type { TestSession } from "@/lib/auth/testing";
import { TestRepo } from "@/lib/git/test-support/repo-fixture";
import { startGitHttpServer, type GitHttpServer } from "@/lib/git/test-support/git-http-server";
import { decodeReleaseSecretValue, HELM_RELEASE_SECRET_TYPE, releaseObjects } from "@/lib/helm/release-storage";
import { POST as postPause } from "@/app/api/pauses/route";
import { POST as postResume } from "@/app/api/pauses/[id]/resume/route";
import { startRealKube, type RealKube } from "@/tools/realkube/cluster";
import { startFlux, type RealFlux } from "@/tools/realkube/flux";
import { startHelmChartRepo, type HelmChartRepo } from "../support/helm-chart-repo";
import { requiredKubectl, requiredKustomize } from "../support/required-tools";
import { collectSucceeded, driftwatchFor, fluxGitKustomization, installDriftwatchAccounts, yamlDocuments } from "../support/real-flux-estate";

const kubectlBin = requiredKubectl();
requiredKustomize();

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (v && typeof v === "object" ? (v as Obj) : {});

// Flux's reconcile interval for every object here. Short, so a revert is seen within seconds.
const INTERVAL = "5s";
const INTERVAL_MS = 5_000;
const KUSTOMIZATION = "/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations/shop";

const db = getPrisma();
let kube: RealKube;
let flux: RealFlux;
let git: GitHttpServer;
let charts: HelmChartRepo;
let repo: TestRepo;
let config: DriftwatchConfig;
let operator: TestSession;
let tmp: string;
let environmentId: string;
const started = Date.now();

const { kubectl, kubectlOk, getObject } = realKubeAccess(() => kube, kubectlBin);

function readyCondition(obj: Obj | null): { status?: string; reason?: string; message?: string } | undefined {
  const conditions = (rec(obj?.status).conditions as Array<{ type: string; status: string; reason?: string; message?: string }> | undefined) ?? [];
  return conditions.find((c) => c.type === "Ready");
}

/** Waits until the Kustomization reports this commit applied and Ready. */
async function fluxApplied(sha: string): Promise<Obj> {
  return waitFor(
    `Kustomization shop to apply ${sha.slice(0, 12)}`,
    async () => {
      const k = await getObject(KUSTOMIZATION);
      const status = rec(k?.status);
      return status.lastAppliedRevision === `main@sha1:${sha}` && readyCondition(k)?.status === "True" && k;
    },
    60_000,
    () => `Kustomization: ${JSON.stringify(readyCondition(null))}\n${flux.logTail("kustomize-controller", 15)}\n${flux.logTail("source-controller", 15)}`,
  );
}

async function replicas(): Promise<number> {
  return Number(await kubectlOk(["-n", "shop", "get", "deployment", "web", "-o", "jsonpath={.spec.replicas}"]));
}

function collect(): Promise<RunOutcome> {
  return collectSucceeded(db, config, tmp);
}

/** Open drift items, by key (code-point order, whatever the database's collation). */
async function openDrift() {
  const items = await db.driftItem.findMany({ where: { environmentId, resolvedAt: null } });
  return items.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function postJson(url: string, body: unknown): NextRequest {
  return new NextRequest(url, { method: "POST", headers: { host: "localhost", ...operator.headers }, body: JSON.stringify(body) });
}

async function pauseFromDriftwatch(reason: string): Promise<string> {
  const res = await postPause(postJson("http://localhost/api/pauses", { environment: "test", reason, duration: "1h" }), { params: Promise.resolve({}) });
  const body = (await res.json()) as { pause?: { id: string; executed: boolean }; error?: unknown };
  expect(res.status, JSON.stringify(body)).toBe(201);
  expect(body.pause?.executed).toBe(true);
  // A reconcile that began before the suspension may still be applying: let it finish (they take well under a second here).
  await new Promise((r) => setTimeout(r, 1_500));
  return body.pause?.id as string;
}

async function resumeFromDriftwatch(pauseId: string): Promise<void> {
  const res = await postResume(postJson(`http://localhost/api/pauses/${pauseId}/resume`, {}), { params: Promise.resolve({ id: pauseId }) });
  const body = (await res.json()) as { pause?: { resumedOnController: boolean; active: boolean } };
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(body.pause).toMatchObject({ resumedOnController: true, active: false });
}

const manifests = {
  "envs/test/web.yaml": stringify({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "shop", labels: { app: "web" } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx:1.27", resources: { requests: { cpu: "100m", memory: "64Mi" } } }] } },
    },
  }),
  "envs/test/settings.yaml": stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", namespace: "shop" }, data: { mode: "live", "max-connections": "100" } }),
};
// Unquoted scalars that kubectl and kustomize (so Flux) read differently: Flux applies what kustomize writes.
const flagsYaml = `apiVersion: v1
kind: ConfigMap
metadata:
  name: flags
  namespace: shop
data:
  new-checkout: on
  since: 2024-05-01
`;

/** driftwatch.yaml for one environment over this cluster and repository, with `extra` merged into the environment. */
function driftwatchConfig(repoUrl: string, extra: Record<string, unknown> = {}): DriftwatchConfig {
  const kubeconfig = path.join(tmp, "driftwatch-kubeconfig");
  return parseConfig(
    stringify({
      repositories: [{ name: "shop", url: repoUrl }],
      environments: [
        {
          name: "test",
          cluster: { kubeconfig, context: "collector" },
          write: { kubeconfig, context: "pause" },
          namespaces: ["shop"],
          defaultNamespace: "shop",
          source: { repository: "shop", branch: "main", path: "envs/test" },
          controller: { type: "flux", namespace: "flux-system", name: "shop" },
          ...extra,
        },
      ],
    }),
  );
}

let baseSha: string;
let flagsSha: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-real-flux-"));
  kube = await startRealKube();
  flux = await startFlux(kube);
  console.log(`[real-flux] kube-apiserver ready in ${(kube.startMillis / 1000).toFixed(1)} s, Flux CRDs + 3 controllers ready in ${(flux.startMillis / 1000).toFixed(1)} s`);

  // Git: two commits, the second adding a ConfigMap that a later history rewrite drops.
  repo = TestRepo.create("real-flux");
  for (const [file, text] of Object.entries(manifests)) repo.write(file, text);
  baseSha = repo.commit("shop: web and settings");
  repo.write("envs/test/flags.yaml", flagsYaml);
  flagsSha = repo.commit("shop: feature flags");
  // Anonymous, like a public repository: Flux refuses to send credentials over plain HTTP.
  git = await startGitHttpServer({ projectRoot: repo.dir });
  const repoUrl = `${git.origin}/.git`;

  charts = await startHelmChartRepo([
    {
      name: "greeting",
      version: "0.1.0",
      values: "message: hello\n",
      templates: {
        "configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-greeting\ndata:\n  message: {{ .Values.message | quote }}\n",
      },
    },
  ]);

  config = driftwatchConfig(repoUrl);

  await kubectlOk(["create", "namespace", "shop"]);
  await installDriftwatchAccounts(kube, kubectlOk, config, path.join(tmp, "driftwatch-kubeconfig"));

  // What `flux create source git` / `flux create kustomization` / `flux create helmrelease` would apply.
  await kubectlOk(
    ["apply", "-f", "-"],
    yamlDocuments([
      ...fluxGitKustomization("shop", repoUrl, "./envs/test", INTERVAL),
      { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "HelmRepository", metadata: { name: "charts", namespace: "flux-system" }, spec: { interval: "1m", url: charts.url } },
      {
        apiVersion: "helm.toolkit.fluxcd.io/v2",
        kind: "HelmRelease",
        metadata: { name: "greeting", namespace: "flux-system" },
        spec: {
          interval: "1m",
          targetNamespace: "shop",
          chart: { spec: { chart: "greeting", version: "0.1.0", sourceRef: { kind: "HelmRepository", name: "charts" }, interval: "1m" } },
          values: { message: "hello from Flux" },
        },
      },
    ]),
  );

  ({ environmentId, operator } = await driftwatchFor(config));
}, 120_000);

afterAll(async () => {
  await stopRealEstate({ flux, kube, git, charts, repo, tmp });
  console.log(`[real-flux] whole file: ${((Date.now() - started) / 1000).toFixed(1)} s`);
});

describe("real Flux, driven and watched by Driftwatch", () => {
  it("pulls the repository from the Git HTTP server and applies it; Driftwatch finds it in sync at the applied commit", async () => {
    const t0 = Date.now();
    const k = await fluxApplied(flagsSha);
    console.log(`[real-flux] Flux applied the repository ${((Date.now() - t0) / 1000).toFixed(1)} s after the first test began`);
    // source-controller fetched over smart HTTP with go-git, not from the folder.
    expect(git.userAgents.some((ua) => /go-git/i.test(ua))).toBe(true);
    expect(await replicas()).toBe(2);
    const inventory = ((rec(rec(k.status).inventory).entries as Array<{ id: string }> | undefined) ?? []).map((e) => e.id).sort();
    expect(inventory).toEqual(["shop_flags__ConfigMap", "shop_settings__ConfigMap", "shop_web_apps_Deployment"]);

    const outcome = await collect();
    expect(outcome).toMatchObject({ approvedSha: flagsSha, appliedSha: flagsSha });
    // Flux's server-side apply, server defaults and status are not drift.
    expect(await openDrift()).toEqual([]);
    const env = await db.environment.findUniqueOrThrow({ where: { id: environmentId } });
    expect(env).toMatchObject({ appliedSource: "controller", objectCount: 3 });
  });

  it("reverts a manual kubectl scale by itself while nothing is paused", async () => {
    await kubectlOk(["-n", "shop", "scale", "deployment", "web", "--replicas=3"]);
    const t0 = Date.now();
    await waitFor("Flux to revert the scale", async () => (await replicas()) === 2, 4 * INTERVAL_MS);
    console.log(`[real-flux] Flux reverted kubectl scale after ${((Date.now() - t0) / 1000).toFixed(1)} s (interval ${INTERVAL})`);
  });

  let pauseId: string;

  it("pausing from Driftwatch sets spec.suspend through the pause account, and Flux stops reverting manual edits, which Driftwatch shows attributed to their managers", async () => {
    pauseId = await pauseFromDriftwatch("hotfix INC-7: scaling by hand");
    const k = await getObject(KUSTOMIZATION);
    expect(rec(k?.spec).suspend).toBe(true);
    expect(rec(rec(k?.metadata).annotations)["driftwatch.dev/paused-by"]).toBe("olivia");

    await kubectlOk(["-n", "shop", "scale", "deployment", "web", "--replicas=5"]);
    await kubectlOk(["-n", "shop", "patch", "configmap", "settings", "--type=merge", "-p", '{"data":{"mode":"maintenance"}}']);
    // Ask Flux to reconcile now (what `flux reconcile kustomization shop` does) and give it two intervals.
    await kubectlOk(["-n", "flux-system", "annotate", "--overwrite", "kustomization", "shop", `reconcile.fluxcd.io/requestedAt=${new Date().toISOString()}`]);
    await new Promise((r) => setTimeout(r, 2 * INTERVAL_MS + 1_000));
    expect(await replicas()).toBe(5);
    expect(await kubectlOk(["-n", "shop", "get", "configmap", "settings", "-o", "jsonpath={.data.mode}"])).toBe("maintenance");

    await collect();
    const drift = await openDrift();
    // kubectl scale names no field manager: the API server names it after kubectl's User-Agent.
    expect(drift.map((d) => [d.key, d.type, d.attributionManager])).toEqual([
      ["/ConfigMap/shop/settings", "Modified", "kubectl-patch"],
      ["apps/Deployment/shop/web", "Modified", "kubectl"],
    ]);
    const web = drift.find((d) => d.kind === "Deployment");
    expect(JSON.stringify(web?.changes)).toMatch(/replicas/);
    // The suspension is Driftwatch's own pause, not one detected behind its back.
    const pauses = await db.pause.findMany({ where: { environmentId } });
    expect(pauses.map((p) => [p.origin, p.endedAt])).toEqual([["dashboard", null]]);
  });

  it("resuming from Driftwatch lets Flux revert the edits, and the drift items resolve as reverted", async () => {
    await resumeFromDriftwatch(pauseId);
    // Git never declared spec.suspend: resume removes it rather than writing false (a parent that declares this Kustomization sees no drift).
    expect(rec((await getObject(KUSTOMIZATION))?.spec)).not.toHaveProperty("suspend");
    const t0 = Date.now();
    await waitFor("Flux to revert after resume", async () => (await replicas()) === 2 && (await kubectlOk(["-n", "shop", "get", "configmap", "settings", "-o", "jsonpath={.data.mode}"])) === "live", 4 * INTERVAL_MS);
    console.log(`[real-flux] after resume, Flux reverted both edits in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

    await collect();
    expect(await openDrift()).toEqual([]);
    const resolved = await db.driftItem.findMany({ where: { environmentId, resolvedAt: { not: null } } });
    expect(resolved.map((d) => [d.key, d.resolution]).sort()).toEqual([
      ["/ConfigMap/shop/settings", "reverted"],
      ["apps/Deployment/shop/web", "reverted"],
    ]);
  });

  it("Flux's inventory makes an object Git no longer has Extra, and Flux prunes it once resumed", async () => {
    const pause = await pauseFromDriftwatch("history rewrite on main");
    // Someone rewrites main without the flags commit (a force-push). Flux, paused,
    // still reports the old commit applied, which is no longer on the branch.
    repo.git("reset", "--quiet", "--hard", baseSha);
    repo.write("envs/test/settings.yaml", manifests["envs/test/settings.yaml"].replace("max-connections: \"100\"", "max-connections: \"200\""));
    const rewrittenSha = repo.commit("shop: more connections (main rewritten)");

    const outcome = await collect();
    expect(outcome.approvedSha).toBe(rewrittenSha);
    expect(outcome.errors.map((e) => e.message)).toContainEqual(expect.stringMatching(/which is not on main; comparing with the approved revision/));
    const drift = await openDrift();
    expect(drift.map((d) => [d.key, d.type])).toEqual([
      ["/ConfigMap/shop/flags", "Extra"],
      ["/ConfigMap/shop/settings", "Modified"],
    ]);
    // Only the inventory ties the flags ConfigMap to this environment: no tracking label is configured.
    expect(config.environments[0]?.trackingLabel).toBeUndefined();

    await resumeFromDriftwatch(pause);
    await fluxApplied(rewrittenSha);
    expect((await kubectl(["-n", "shop", "get", "configmap", "flags"])).stderr).toMatch(/NotFound/);
    await collect();
    expect(await openDrift()).toEqual([]);
    const flags = await db.driftItem.findFirstOrThrow({ where: { environmentId, key: "/ConfigMap/shop/flags" } });
    expect(flags.resolution).toBe("deleted");
    // The rewritten settings were Git's while Flux was paused; live took them when Flux applied the commit.
    const settings = await db.driftItem.findFirstOrThrow({ where: { environmentId, key: "/ConfigMap/shop/settings" }, orderBy: { openedAt: "desc" } });
    expect(settings).toMatchObject({ type: "Modified", resolution: "reverted" });
    expect(JSON.stringify(settings.changes)).toMatch(/max-connections/);
  });

  it("with prune disabled, Flux leaves a dropped object running and drops it from its inventory: only Flux's labels still name it, and Driftwatch lists it as Extra by that label", async () => {
    await kubectlOk(["-n", "flux-system", "patch", "kustomization", "shop", "--type=merge", "-p", '{"spec":{"prune":false}}']);
    repo.write("envs/test/banner.yaml", stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "banner", namespace: "shop" }, data: { text: "sale" } }));
    const bannerSha = repo.commit("shop: sale banner");
    let k = await fluxApplied(bannerSha);
    const inventoryOf = (o: Obj) => ((rec(rec(o.status).inventory).entries as Array<{ id: string }> | undefined) ?? []).map((e) => e.id);
    expect(inventoryOf(k)).toContain("shop_banner__ConfigMap");

    repo.remove("envs/test/banner.yaml");
    const droppedSha = repo.commit("shop: sale over");
    k = await fluxApplied(droppedSha);
    // Flux rebuilds its inventory from each apply: what it did not prune, it no longer tracks.
    expect(inventoryOf(k)).not.toContain("shop_banner__ConfigMap");
    const banner = JSON.parse(await kubectlOk(["-n", "shop", "get", "configmap", "banner", "-o", "json"])) as { metadata: { labels: Record<string, string> } };
    expect(banner.metadata.labels).toMatchObject({ "kustomize.toolkit.fluxcd.io/name": "shop", "kustomize.toolkit.fluxcd.io/namespace": "flux-system" });

    await collect();
    // Neither Git nor the controller's record names it any more: by the inventory alone it is not this environment's.
    expect(await openDrift()).toEqual([]);

    // Tracking by Flux's own label (driftwatch.yaml `trackingLabel`) finds what Flux left behind.
    config = driftwatchConfig(`${git.origin}/.git`, { trackingLabel: "kustomize.toolkit.fluxcd.io/name=shop" });
    await syncConfigToDatabase(db, config);
    await collect();
    expect((await openDrift()).map((d) => [d.key, d.type])).toEqual([["/ConfigMap/shop/banner", "Extra"]]);
  });

  it("installs a HelmRelease from the local chart repository with the real helm-controller, which writes Helm's release storage", async () => {
    const release = await waitFor(
      "HelmRelease greeting to be Ready",
      async () => {
        const hr = await getObject("/apis/helm.toolkit.fluxcd.io/v2/namespaces/flux-system/helmreleases/greeting");
        return readyCondition(hr)?.status === "True" && hr;
      },
      90_000,
      () => `${flux.logTail("helm-controller", 20)}\n${flux.logTail("source-controller", 10)}`,
    );
    expect(readyCondition(release)?.reason).toBe("InstallSucceeded");
    expect(charts.requests).toEqual(expect.arrayContaining(["index.yaml", "greeting-0.1.0.tgz"]));

    // Helm's storage: a Secret of type helm.sh/release.v1 per revision, read here by
    // Driftwatch's own decoder (lib/helm) — what it will compare the live objects against.
    const secrets = JSON.parse(await kubectlOk(["get", "secrets", "--all-namespaces", "--field-selector", `type=${HELM_RELEASE_SECRET_TYPE}`, "-o", "json"])) as { items: Array<{ metadata: { name: string; namespace: string; labels: Record<string, string> }; data: { release: string } }> };
    // With a targetNamespace the release is named <namespace>-<name>; its storage stays in the HelmRelease's namespace.
    expect(secrets.items.map((s) => `${s.metadata.namespace}/${s.metadata.name}`)).toEqual(["flux-system/sh.helm.release.v1.shop-greeting.v1"]);
    expect(secrets.items[0]!.metadata.labels).toMatchObject({ owner: "helm", name: "shop-greeting", status: "deployed", version: "1" });
    const stored = decodeReleaseSecretValue(secrets.items[0]!.data.release, "real-flux-test-key");
    expect(stored).toMatchObject({ name: "shop-greeting", namespace: "shop", revision: 1, status: "deployed", chart: { name: "greeting", version: "0.1.0" } });
    const desired = releaseObjects(stored, () => true);
    // helm-controller's post-renderer labels every object with its HelmRelease before Helm stores the manifest.
    expect(desired).toEqual([
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "shop-greeting-greeting", namespace: "shop", labels: { "helm.toolkit.fluxcd.io/name": "greeting", "helm.toolkit.fluxcd.io/namespace": "flux-system" } },
        data: { message: "hello from Flux" },
      },
    ]);
    expect(await kubectlOk(["-n", "shop", "get", "configmap", "shop-greeting-greeting", "-o", "jsonpath={.data.message}"])).toBe("hello from Flux");
  });

  it("stops the controllers without leaving a process behind", async () => {
    const pids = flux.pids;
    await flux.stop();
    const alive = pids.filter((pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    });
    expect(alive).toEqual([]);
    expect(fs.existsSync(flux.dir)).toBe(false);
  });
});
