// Applications that follow something other than a branch, discovered from
// real Flux and Argo CD objects: a Flux GitRepository on a tag (lightweight),
// one on a semver range over annotated and lightweight tags, one pinned to a
// commit, and an Argo CD Application on HEAD (the repository's default
// branch). The cluster holds what each controller applied at the revision it
// resolved, the Git repository's main branch has moved past it: no false
// drift, no false stale; a new tag in range moves the approved revision and
// makes that application (and only it) behind. On the imitation and on a real
// kube-apiserver, with the same assertions.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { endCase, forEachCluster, type TestCluster } from "../support/clusters";
import { installControllerCrds, kubectlFor } from "../support/estate-kube";
import { applicationsByName, runCollection } from "../support/collector-env";
import { requiredKustomize } from "../support/required-tools";
import { TestRepo } from "@/lib/git/test-support/repo-fixture";
import { parseConfig, type DriftwatchConfig } from "@/lib/config";
import { getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { getApplication } from "@/lib/dashboard/applications";
import { getLineage, lookupCommit } from "@/lib/dashboard/commits";

requiredKustomize();

const SHOP_URL = "https://git.example.com/acme/shop.git";
const APPS = ["tagged", "ranged", "pinned"] as const;

const db = getPrisma();
let dir: string;
let cluster: TestCluster | undefined;
let shop: TestRepo;
let config: DriftwatchConfig;
const kubectl = kubectlFor(() => cluster);
const commits: Record<string, string> = {};

const configMap = (name: string, v: string) => stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "shop" }, data: { version: v } });

/** Every application's folder at version `v`, committed. */
function release(v: string, date: string): string {
  for (const app of APPS) shop.write(`apps/${app}/configmap.yaml`, configMap(app, v));
  shop.write("apps/default/configmap.yaml", configMap("default", v));
  return shop.commit(`release ${v}`, { date });
}

/** What a controller applied: the ConfigMap at the version it resolved, server-side, as kustomize-controller (or Argo CD) does. */
async function applied(name: string, v: string, manager = "kustomize-controller"): Promise<void> {
  await kubectl(["apply", "--server-side", `--field-manager=${manager}`, "-f", "-"], configMap(name, v));
}

async function fluxApplication(name: string, ref: Record<string, string>, lastAppliedRevision: string): Promise<void> {
  const gitRepository = { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", metadata: { name, namespace: "flux-system" }, spec: { interval: "1m0s", url: SHOP_URL, ref } };
  const kustomization = { apiVersion: "kustomize.toolkit.fluxcd.io/v1", kind: "Kustomization", metadata: { name, namespace: "flux-system" }, spec: { interval: "10m0s", path: `./apps/${name}`, prune: true, sourceRef: { kind: "GitRepository", name } } };
  await kubectl(["apply", "--server-side", "-f", "-"], [gitRepository, kustomization].map((o) => stringify(o)).join("---\n"));
  await kubectl(["-n", "flux-system", "patch", "kustomization", name, "--subresource=status", "--type=merge", "-p", JSON.stringify({ status: { lastAppliedRevision } })]);
}

const run = () => runCollection(db, config, path.join(dir, "mirrors"), "production");
async function badge(sha: string, application: string) {
  const found = await lookupCommit(db, sha);
  if (found.match !== "exact") throw new Error(`${sha} is not one commit`);
  return found.commit.environments.find((b) => b.application === application);
}
const follows = async (name: string) => (await getApplication(db, "production", name)).application.sources.map((s) => s.follows.text);

forEachCluster((server) => {
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-followed-refs-"));
    cluster = await server().forCase(dir);
    shop = TestRepo.create("followed-refs");
    commits.one = release("1", "2026-01-01T00:00:00Z");
    shop.git("tag", "v1.0.0");
    commits.two = release("2", "2026-01-02T00:00:00Z");
    shop.git("tag", "-a", "v1.1.0", "-m", "release 1.1.0");
    // main moves on, untagged: none of the tag, range or commit followers has it.
    commits.three = release("3", "2026-01-03T00:00:00Z");
    config = parseConfig(
      stringify({
        repositories: [{ name: "shop", url: shop.dir, aliases: [SHOP_URL] }],
        environments: [{ name: "production", cluster: { kubeconfig: cluster.kubeconfigPath, context: "t-readonly" }, namespaces: ["shop"], extraKinds: [], discover: { flux: {}, argocd: { namespace: "argocd" } } }],
      }),
    );
    await resetDatabase(db);
    await installControllerCrds(kubectl, cluster);
    for (const ns of ["flux-system", "argocd", "shop"]) await kubectl(["create", "namespace", ns]);
    await fluxApplication("tagged", { tag: "v1.0.0" }, `v1.0.0@sha1:${commits.one}`);
    await fluxApplication("ranged", { semver: ">=1.0.0 <2.0.0" }, `v1.1.0@sha1:${commits.two}`);
    await fluxApplication("pinned", { branch: "main", commit: commits.one! }, `main@sha1:${commits.one}`);
    await applied("tagged", "1");
    await applied("ranged", "2");
    await applied("pinned", "1");
    // Argo CD on HEAD: the default branch (main), synced at its tip.
    const application = {
      apiVersion: "argoproj.io/v1alpha1",
      kind: "Application",
      metadata: { name: "default", namespace: "argocd" },
      spec: { project: "default", source: { repoURL: SHOP_URL, targetRevision: "HEAD", path: "apps/default" }, destination: { server: "https://kubernetes.default.svc", namespace: "shop" } },
    };
    await kubectl(["apply", "--server-side", "-f", "-"], stringify(application));
    // Argo CD's Application has no status subresource: the controller writes status as any field.
    await kubectl(["-n", "argocd", "patch", "application", "default", "--type=merge", "-p", JSON.stringify({ status: { sync: { status: "Synced", revision: commits.three } } })]);
    await applied("default", "3", "argocd-controller");
  }, 120_000);
  afterEach(async () => {
    await endCase({ dir, cluster, repo: shop });
    cluster = undefined;
  }, 60_000);

  describe("applications following a tag, a semver range, a commit, the default branch", () => {
    it("are collected at what their ref resolves to: no false drift, no false stale, and the page says what each follows", async () => {
      const first = await run();
      expect(first.errors.filter((e) => e.severity !== "warning")).toEqual([]);
      expect(first.status).toBe("succeeded");
      const apps = await applicationsByName(db);
      const expected = { "flux-system/tagged": commits.one, "flux-system/ranged": commits.two, "flux-system/pinned": commits.one, "argocd/default": commits.three };
      expect([...apps.keys()].sort()).toEqual(Object.keys(expected).sort());
      for (const [name, sha] of Object.entries(expected)) {
        expect(apps.get(name), name).toMatchObject({ approvedSha: sha, appliedSha: sha, appliedBehind: false, driftCount: 0, lastError: null, objectCount: 1 });
      }
      expect(await follows("flux-system/tagged")).toEqual(["tag v1.0.0"]);
      expect(await follows("flux-system/ranged")).toEqual(["semver >=1.0.0 <2.0.0 → v1.1.0"]);
      expect(await follows("flux-system/pinned")).toEqual([`commit ${commits.one!.slice(0, 7)}`]);
      expect(await follows("argocd/default")).toEqual(["default branch (main)"]);
      // A revert lands on a branch: only the default-branch follower gets rollback guidance on its page.
      const rollbackOf = async (name: string) => (await getApplication(db, "production", name)).rollback;
      expect(await rollbackOf("flux-system/tagged")).toBeNull();
      expect(await rollbackOf("flux-system/pinned")).toBeNull();
      expect(await rollbackOf("argocd/default")).toMatchObject({ current: { sha: commits.three }, targets: [] });
      // One fetch for the four applications.
      expect(first.stats).toMatchObject({ repositoriesFetched: 1 });

      // A hand edit of the tag follower's ConfigMap is drift of that application, against the tag's content.
      await kubectl(["-n", "shop", "patch", "configmap", "tagged", "--type=merge", "-p", JSON.stringify({ data: { version: "hand-edited" } })]);
      await run();
      expect((await applicationsByName(db)).get("flux-system/tagged")).toMatchObject({ driftCount: 1 });
    }, 120_000);

    it("a ref that does not resolve leaves only its application out, with the reason, its last state kept", async () => {
      await run();
      // Someone points the tag follower at a tag nobody pushed, and hand-edits another application meanwhile.
      await kubectl(["-n", "flux-system", "patch", "gitrepository", "tagged", "--type=merge", "-p", JSON.stringify({ spec: { ref: { tag: "v9.9.9" } } })]);
      await kubectl(["-n", "shop", "patch", "configmap", "ranged", "--type=merge", "-p", JSON.stringify({ data: { version: "hand-edited" } })]);
      const second = await run();
      expect(second.status).toBe("partial");
      expect(second.errors.filter((e) => e.severity !== "warning")).toEqual([]);
      expect(second.errors.map((e) => e.message)).toContainEqual(expect.stringContaining('tag "v9.9.9" not found'));
      const apps = await applicationsByName(db);
      expect(apps.get("flux-system/tagged")).toMatchObject({ approvedSha: commits.one, appliedSha: commits.one, lastError: { category: "git-fetch", message: expect.stringContaining('tag "v9.9.9" not found') } });
      expect(apps.get("flux-system/ranged")).toMatchObject({ driftCount: 1, lastError: null });
      expect(apps.get("argocd/default")).toMatchObject({ approvedSha: commits.three, driftCount: 0, lastError: null });
    }, 120_000);

    it("a new tag in the range is picked up on the next run: that application is behind, the others are not", async () => {
      await run();
      shop.write("apps/ranged/configmap.yaml", configMap("ranged", "4"));
      commits.four = shop.commit("ranged 4", { date: "2026-01-04T00:00:00Z" });
      shop.git("tag", "v1.2.0");
      shop.git("tag", "v2.0.0");
      const second = await run();
      expect(second.errors.filter((e) => e.severity !== "warning")).toEqual([]);
      const apps = await applicationsByName(db);
      // Flux has not applied v1.2.0 yet: approved moved, applied did not, and the live state still matches what was applied.
      expect(apps.get("flux-system/ranged")).toMatchObject({ approvedSha: commits.four, appliedSha: commits.two, appliedBehind: true, driftCount: 0 });
      expect(await follows("flux-system/ranged")).toEqual(["semver >=1.0.0 <2.0.0 → v1.2.0"]);
      expect(apps.get("flux-system/tagged")).toMatchObject({ approvedSha: commits.one, appliedBehind: false, driftCount: 0 });
      expect(apps.get("flux-system/pinned")).toMatchObject({ approvedSha: commits.one, appliedBehind: false, driftCount: 0 });
      // main moved only in apps/ranged: the default-branch application's files did not change, so it is not behind either.
      expect(apps.get("argocd/default")).toMatchObject({ approvedSha: commits.three, appliedBehind: false, driftCount: 0 });
      // Lineage reads each followed ref at its own head: the new release is pending for the range's application only.
      const lineage = await getLineage(db);
      expect(lineage.repositories.flatMap((r) => r.branches.map((b) => [b.branch, b.head])).sort()).toEqual(
        [
          ["tag v1.0.0", commits.one],
          ["semver range >=1.0.0 <2.0.0", commits.four],
          [`commit ${commits.one!.slice(0, 12)}`, commits.one],
          ["the default branch", commits.four],
        ].sort(),
      );
      expect(await badge(commits.four!, "flux-system/ranged")).toMatchObject({ state: "pending" });

      // Flux applies v1.2.0: in sync again.
      await applied("ranged", "4");
      await kubectl(["-n", "flux-system", "patch", "kustomization", "ranged", "--subresource=status", "--type=merge", "-p", JSON.stringify({ status: { lastAppliedRevision: `v1.2.0@sha1:${commits.four}` } })]);
      await run();
      expect((await applicationsByName(db)).get("flux-system/ranged")).toMatchObject({ approvedSha: commits.four, appliedSha: commits.four, appliedBehind: false, driftCount: 0 });
      expect(await badge(commits.four!, "flux-system/ranged")).toMatchObject({ state: "live" });
    }, 120_000);
  });
});
