// Plays the scripted past: commits, reconciliations, manual edits and
// collections, each at its moment, with the clock of the API imitations and
// of the collector set to that moment. The result is true history: every
// drift item, applied revision and audit event was produced by the real
// collector from the real API.
import type { PrismaClient } from "@/lib/db/generated/client";
import type { DriftwatchConfig } from "@/lib/config";
import { collectorContext, enqueueRun, executeRun, leaseRunById } from "@/lib/collector";
import { createClaim } from "@/lib/claims";
import { createPause } from "@/lib/pauses";
import { resourcePath } from "@/lib/kube/discovery";
import { environmentFiles, type ShopRelease } from "./shop";
import { ACTIONS, DEMO_INCIDENT_URL, ENV_NAMES, FEATURES, INITIAL, PEOPLE, PRODUCTION_TOKEN_EXPIRES, type EnvName } from "./script";
import { reconcileFlux, fluxObjects, type FluxSetup } from "./flux";
import { reconcileArgo, argoObjects, type ArgoSetup } from "./argo";
import { ARGOCD_APPLICATION_CRD, FLUX_GITREPOSITORY_CRD, FLUX_HELMRELEASE_CRD, FLUX_HELMREPOSITORY_CRD, FLUX_KUSTOMIZATION_CRD } from "@driftwatch/kubesim";
import { serverSideApply } from "./kube-writer";
import { newToken, type DemoWorld } from "./world";

export const KUBECTL_UA = "kubectl/v1.32.4 (linux/amd64) kubernetes/59526cd";

/**
 * Test: one Kustomization over envs/test. Production: what `flux bootstrap`
 * leaves (GitRepository and Kustomization flux-system over clusters/production,
 * credential Secret flux-system); the rest of its Kustomizations come from Git.
 */
export function fluxSetup(env: "test" | "production", repoUrl: string): FluxSetup {
  if (env === "production") return { kustomization: "flux-system", source: "flux-system", secret: "flux-system", path: "clusters/production", branch: "main", repoUrl };
  return { kustomization: `shop-${env}`, source: `shop-${env}`, path: `envs/${env}`, branch: "main", repoUrl };
}
/** Staging's root Application (applied by hand, as an app-of-apps root usually is); its path holds the children. */
export function argoSetup(repoUrl: string): ArgoSetup {
  return { application: "shop-staging", path: "envs/staging/apps", branch: "main", repoUrl };
}

export const DEMO_REPO_URL = "https://git.shop.example/platform/shop-deploy.git";

interface Step {
  at: number;
  label: string;
  run: () => Promise<void>;
}

export interface PlayDeps {
  world: DemoWorld;
  db: PrismaClient;
  config: DriftwatchConfig;
  users: Record<string, { id: string; name: string }>;
  log: (m: string) => void;
}

export async function reconcile(world: DemoWorld, env: EnvName): Promise<void> {
  const now = world.clock.now();
  const valid = new Set(world.state?.tokens.valid ?? []);
  if (env === "staging") await reconcileArgo(world.kubes.staging, argoSetup(DEMO_REPO_URL).application, world.repo.gitDir, now);
  else await reconcileFlux(world.kubes[env], fluxSetup(env, DEMO_REPO_URL), world.repo.gitDir, valid, now);
}

export async function collect(deps: PlayDeps, env: EnvName): Promise<void> {
  const { db, config, world } = deps;
  const row = await db.environment.findUniqueOrThrow({ where: { name: env } });
  const ctx = collectorContext(db, config, { now: () => world.clock.now() });
  const runId = await enqueueRun(db, row.id, "schedule", { notBefore: world.clock.now() });
  const run = await leaseRunById(db, runId, "demo-history", 120_000, world.clock.now());
  if (!run) throw new Error(`could not lease the history run of ${env}`);
  const outcome = await executeRun(ctx, run, "demo-history", 120_000);
  if (outcome.status === "failed") deps.log(`  ${env}: collection failed: ${outcome.errors.map((e) => e.message).join("; ")}`);
}

/** A manual change, sent the way kubectl sends it (its User-Agent; its field manager where kubectl names one). */
async function kubectl(world: DemoWorld, env: EnvName, method: string, apiVersion: string, kind: string, namespace: string, name: string, opts: { sub?: string; manager?: string; contentType: string; body: unknown }): Promise<void> {
  const k = world.kubes[env];
  const r = k.discovery.lookup(apiVersion, kind);
  if (!r) throw new Error(`${env} does not serve ${kind}`);
  await k.client.requestJson(method, resourcePath(r, namespace, name) + (opts.sub ? `/${opts.sub}` : ""), {
    query: opts.manager ? { fieldManager: opts.manager } : {},
    body: opts.body,
    contentType: opts.contentType,
    userAgent: KUBECTL_UA,
  });
}

/** Installs the controllers' CRDs and objects into each imitation (what `flux bootstrap` / an Argo CD install would leave). */
async function bootstrap(world: DemoWorld, tokens: Record<EnvName, string>): Promise<void> {
  for (const env of ENV_NAMES) {
    const k = world.kubes[env];
    for (const c of env === "staging" ? [ARGOCD_APPLICATION_CRD] : [FLUX_GITREPOSITORY_CRD, FLUX_KUSTOMIZATION_CRD, FLUX_HELMREPOSITORY_CRD, FLUX_HELMRELEASE_CRD]) await serverSideApply(k, c, env === "staging" ? "argocd-server" : "flux");
    await world.rediscover(env);
    const objs = env === "staging" ? argoObjects(argoSetup(DEMO_REPO_URL)) : fluxObjects(fluxSetup(env, DEMO_REPO_URL), tokens[env]);
    for (const o of objs) await serverSideApply(world.kubes[env], o, env === "staging" ? "argocd-server" : "flux");
  }
}

export async function playHistory(deps: PlayDeps): Promise<void> {
  const { world, db, log } = deps;
  const start = Date.now();
  const T = Math.floor(start / 60_000) * 60_000;
  const at = (before: number) => T - before;
  const steps: Step[] = [];
  const releases: Record<EnvName, ShopRelease> = { test: INITIAL.release, staging: INITIAL.release, production: INITIAL.release };
  const step = (time: number, label: string, run: () => Promise<void>) => steps.push({ at: time, label, run });
  const afterChange = (time: number, env: EnvName) => {
    step(time + 3 * 60_000, `reconcile ${env}`, () => reconcile(world, env));
    step(time + 4 * 60_000, `collect ${env}`, () => collect(deps, env));
  };

  // Tokens: every environment's Flux holds a token the Git host accepts, until production's is rotated away.
  const tokens: Record<EnvName, string> = { test: newToken(), staging: newToken(), production: newToken() };
  world.saveState({ playedAt: new Date(T).toISOString(), complete: false, tokens: { valid: Object.values(tokens), byEnv: tokens } });

  step(at(INITIAL.before) - 60 * 60_000, "bootstrap controllers", () => bootstrap(world, tokens));
  step(at(INITIAL.before), "initial commit", async () => {
    const files: Record<string, string> = {};
    for (const env of ENV_NAMES) Object.assign(files, environmentFiles(INITIAL.release, env, DEMO_REPO_URL));
    await world.repo.commit(files, INITIAL.message, INITIAL.author, world.clock.now());
  });
  for (const env of ENV_NAMES) afterChange(at(INITIAL.before), env);

  const commitRelease = (env: EnvName, change: (r: ShopRelease) => ShopRelease, message: string, author: { name: string; email: string }) => async () => {
    releases[env] = change(releases[env]);
    await world.repo.commit(environmentFiles(releases[env], env, DEMO_REPO_URL), message, author, world.clock.now());
  };

  for (const f of FEATURES) {
    const t0 = at(f.before);
    step(t0, `test: ${f.message}`, commitRelease("test", f.change, f.message, f.author));
    afterChange(t0, "test");
    if (f.toStaging !== null) {
      step(t0 + f.toStaging, `staging: ${f.message}`, commitRelease("staging", f.change, `promote to staging: ${f.message}`, f.author));
      afterChange(t0 + f.toStaging, "staging");
    }
    if (f.toProduction !== null) {
      step(t0 + f.toProduction, `production: ${f.message}`, commitRelease("production", f.change, `promote to production: ${f.message}`, PEOPLE.alice));
      afterChange(t0 + f.toProduction, "production");
    }
  }

  // A value Git owns, edited by hand in staging; Argo CD's self-heal reverts it.
  const edit = ACTIONS.stagingConfigEdit;
  step(at(edit.before), "staging: kubectl edit configmap api-config", () =>
    kubectl(world, "staging", "PATCH", "v1", "ConfigMap", "shop", "api-config", { manager: "kubectl-edit", contentType: "application/strategic-merge-patch+json", body: { data: { CART_TTL: "90m" } } }),
  );
  step(at(edit.before) + 60_000, "collect staging", () => collect(deps, "staging"));
  step(at(edit.before) + edit.revertAfter, "staging: Argo CD self-heal", () => reconcile(world, "staging"));
  step(at(edit.before) + edit.revertAfter + 60_000, "collect staging", () => collect(deps, "staging"));

  // A hot fix in test with `kubectl set env`, adopted into Git later.
  const fix = ACTIONS.testHotfix;
  step(at(fix.before), "test: kubectl set env deployment/worker", () =>
    kubectl(world, "test", "PATCH", "apps/v1", "Deployment", "shop", "worker", {
      manager: "kubectl-set",
      contentType: "application/strategic-merge-patch+json",
      body: { spec: { template: { spec: { containers: [{ name: "worker", env: [{ name: "FEATURE_BULK_EXPORT", value: "true" }] }] } } } },
    }),
  );
  step(at(fix.before) + 60_000, "collect test", () => collect(deps, "test"));
  step(at(fix.before) + fix.adoptAfter, "test: adopt the hot fix into Git", commitRelease("test", (r) => ({ ...r, workerEnv: { ...r.workerEnv, FEATURE_BULK_EXPORT: "true" } }), "worker: adopt FEATURE_BULK_EXPORT=true from the test hot fix", fix.author));
  afterChange(at(fix.before) + fix.adoptAfter, "test");

  // Production's Git credential stops working: CI stays green, production stops moving.
  step(at(PRODUCTION_TOKEN_EXPIRES), "git host rotates its deploy token", async () => {
    const s = world.state;
    if (s) world.saveState({ ...s, tokens: { ...s.tokens, valid: s.tokens.valid.filter((t) => t !== s.tokens.byEnv.production) } });
  });
  afterChange(at(PRODUCTION_TOKEN_EXPIRES), "production");

  step(at(ACTIONS.productionScale.before), "production: kubectl scale deployment api --replicas=6", () =>
    kubectl(world, "production", "PATCH", "apps/v1", "Deployment", "shop", "api", { sub: "scale", contentType: "application/merge-patch+json", body: { spec: { replicas: ACTIONS.productionScale.replicas } } }),
  );
  step(at(ACTIONS.productionScale.before) + 60_000, "collect production", () => collect(deps, "production"));
  step(at(ACTIONS.productionWorkerEdit.before), "production: kubectl edit deployment worker", () =>
    kubectl(world, "production", "PATCH", "apps/v1", "Deployment", "shop", "worker", {
      manager: "kubectl-edit",
      contentType: "application/strategic-merge-patch+json",
      body: { spec: { template: { spec: { containers: [{ name: "worker", env: [{ name: "ORDERS_BATCH_SIZE", value: "50" }] }] } } } },
    }),
  );
  step(at(ACTIONS.productionWorkerEdit.before) + 60_000, "collect production", () => collect(deps, "production"));
  step(at(ACTIONS.claimScale.before), "olivia claims the api scale", async () => {
    const prod = await db.environment.findUniqueOrThrow({ where: { name: "production" } });
    const item = await db.driftItem.findFirst({ where: { environmentId: prod.id, key: "apps/Deployment/shop/api", resolvedAt: null } });
    if (!item) throw new Error("the scripted api scale did not open a drift item");
    const olivia = deps.users.olivia;
    if (!olivia) throw new Error("demo user olivia missing");
    await createClaim(
      db,
      {
        driftItemIds: [item.id],
        owner: "olivia",
        reason: "Absorbing the checkout retry storm by hand until api 1.8.0 (retries with backoff) reaches production",
        incidentUrl: DEMO_INCIDENT_URL,
        duration: "4h",
        returnPath: "revert",
      },
      { type: "user", id: olivia.id, name: olivia.name },
      world.clock.now(),
    );
  });
  step(at(ACTIONS.stagingAutoSyncOff.before), "staging: kubectl patch application shop-staging (automated sync off)", () =>
    kubectl(world, "staging", "PATCH", "argoproj.io/v1alpha1", "Application", "argocd", "shop-staging", { manager: "kubectl-patch", contentType: "application/merge-patch+json", body: { spec: { syncPolicy: { automated: { enabled: false } } } } }),
  );
  step(at(ACTIONS.stagingAutoSyncOff.before) + 2 * 60_000, "reconcile staging", () => reconcile(world, "staging"));
  step(at(ACTIONS.stagingAutoSyncOff.before) + 3 * 60_000, "collect staging", () => collect(deps, "staging"));
  step(at(ACTIONS.testPause.before), "dan pauses test from the dashboard", async () => {
    const dan = deps.users.dan;
    if (!dan) throw new Error("demo user dan missing");
    await createPause(db, "test", { reason: "Load-testing api 1.8.0 in test; holding reconciliation so results stay comparable", duration: "3h", incidentUrl: DEMO_INCIDENT_URL }, { type: "user", id: dan.id, name: dan.name }, { now: world.clock.now() });
  });
  step(at(ACTIONS.testPause.before) + 60_000, "collect test", () => collect(deps, "test"));
  for (const env of ENV_NAMES) step(T - 2 * 60_000, `collect ${env}`, () => collect(deps, env));

  steps.sort((a, b) => a.at - b.at);
  log(`Playing ${steps.length} scripted steps over the past two weeks…`);
  for (const s of steps) {
    world.clock.set(new Date(s.at));
    try {
      await s.run();
    } catch (e) {
      throw new Error(`demo step "${s.label}" at ${new Date(s.at).toISOString()} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  world.clock.release();
  if (world.state) world.saveState({ ...world.state, complete: true });
  log(`History played in ${((Date.now() - start) / 1000).toFixed(1)} s`);
}
