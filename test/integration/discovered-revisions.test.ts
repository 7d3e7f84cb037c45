// The commits of an environment that only discovers its applications (the Flux
// fleet estate, test/fixtures/estates/flux-fleet, committed into a real Git
// repository and reconciled as Flux would): the environment has no repository
// of its own, so every revision a page shows is resolved in its application's
// repository, and rollback is given per application, on its own path, from
// its own applied history. On the imitation and on a real kube-apiserver.
import path from "node:path";
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { forEachCluster } from "../support/clusters";
import { kubectlFor, reportFluxApplied } from "../support/estate-kube";
import { runCollection } from "../support/collector-env";
import { FLEET_URL, eachFleetCase } from "../support/fleet-case";
import { parseConfig } from "@/lib/config";
import { getPrisma } from "@/lib/db";
import { getEnvironmentDetail } from "@/lib/dashboard/environments";
import { getApplication } from "@/lib/dashboard/applications";
import { getObjectDetail } from "@/lib/dashboard/objects";
import { compareEnvironments } from "@/lib/dashboard/compare";
import { getLineage, lookupCommit } from "@/lib/dashboard/commits";
import { compareQuerySchema } from "@/lib/api/contract/compare";
import { ApplicationDetailDto, EnvironmentDetailDto } from "@/lib/api/contract";
import { ApplicationRevisions } from "@/components/application-revisions";
import { ApplicationRollback } from "@/components/application-rollback";
import { SideRevision } from "@/app/compare/compare-client";
import { EnvironmentStrip } from "@/app/lineage/lineage-client";

/** Every Kustomization of the fleet's production cluster. */
const KUSTOMIZATIONS = ["flux-system", "infra-controllers", "infra-configs", "apps", "shop-api", "shop-cart", "shop-web", "shop-worker"];

const db = getPrisma();
const text = (html: string) => html.replace(/<!-- -->/g, "").replace(/<[^>]+>/g, " ").replace(/&#x27;/g, "'").replace(/\s+/g, " ");

forEachCluster((server) => {
  // A single-source environment beside it, to compare with (never collected: it only has to exist).
  const c = eachFleetCase(server, "driftwatch-discovered-revisions-", (cluster) => [
    { name: "staging", cluster: { kubeconfig: cluster.kubeconfigPath, context: "t-readonly" }, namespaces: ["shop"], extraKinds: [], source: { repository: "fleet", branch: "main", path: "apps/staging" } },
  ]);
  const kubectl = kubectlFor(() => c.cluster);
  const run = () => runCollection(db, c.config!, path.join(c.dir!, "mirrors"), "production");
  /** What Flux reports once it has reconciled a push: every Kustomization of the repository at the branch's head. */
  const fluxApplies = (sha: string) => reportFluxApplied(kubectl, sha, KUSTOMIZATIONS);

  describe("the revisions of an environment whose applications follow sources of their own", () => {
    it("the environment, object and compare pages name each application's commits from its own repository, never one revision as the environment's", async () => {
      const estate = c.fleet!.head();
      await fluxApplies(estate);
      await run();
      c.fleet!.write("apps/production/api/README.md", "# shop-api\n");
      const api = c.fleet!.commit("api: a readme");
      await fluxApplies(api);
      await run();

      // The environment: no approved or applied revision of its own (the one it stores is its first application's);
      // each application's, with the commit message from the fleet repository.
      const env = EnvironmentDetailDto.parse(await getEnvironmentDetail(db, "production"));
      expect(env).toMatchObject({ approved: null, applied: null, appliedSource: null, appliedSince: null });
      const byName = new Map(env.applicationRevisions?.map((a) => [a.name, a]));
      expect(byName.get("flux-system/shop-api")).toMatchObject({
        href: "/environments/production/applications/flux-system%2Fshop-api",
        approved: { sha: api, message: "api: a readme", authorName: expect.any(String) },
        applied: { sha: api, message: "api: a readme" },
        behind: false,
      });
      // The cart's files did not change: approved is the estate's commit, applied the head Flux reports.
      expect(byName.get("flux-system/shop-cart")).toMatchObject({ approved: { sha: estate, message: "flux-fleet" }, applied: { sha: api, message: "api: a readme" } });
      expect(env.applicationRevisions?.filter((a) => (a.approved && !a.approved.message) || (a.applied && !a.applied.message))).toEqual([]);
      // The application's page: its revisions with their commits too.
      const shopApi = ApplicationDetailDto.parse(await getApplication(db, "production", "flux-system/shop-api"));
      expect(shopApi).toMatchObject({ approved: { sha: api, message: "api: a readme" }, applied: { sha: api, message: "api: a readme" } });
      expect(shopApi.revisions.map((r) => r.revision?.message)).toEqual(["api: a readme", "flux-fleet"]);
      const shown = text(renderToString(createElement(ApplicationRevisions, { environment: env.name, applications: env.applicationRevisions ?? [], now: Date.now() })));
      expect(shown).toContain("flux-system/shop-api");
      expect(shown).toContain("api: a readme");
      expect(shown).not.toContain("commit not fetched yet");

      // The object page: the commit its desired state was rendered from, found in its application's repository.
      const object = await getObjectDetail(db, "production", "apps/Deployment/shop/api");
      const messages = new Map([
        [estate, "flux-fleet"],
        [api, "api: a readme"],
      ]);
      expect(messages.has(object.desired?.revision?.sha ?? "")).toBe(true);
      expect(object.desired?.revision?.message).toBe(messages.get(object.desired?.revision?.sha ?? ""));

      // Compare: unnarrowed, the discovered side has no one revision (each application's is in the table);
      // narrowed to an application, its own commit with its message.
      const compare = (q: Record<string, string>) => compareEnvironments(db, compareQuerySchema.parse(q));
      const all = await compare({ from: "production", to: "staging" });
      expect(all.from).toEqual({ environment: "production", revision: null, perApplication: true });
      expect(all.to).toMatchObject({ environment: "staging", perApplication: false });
      expect(all.applications.find((a) => a.promotionKey === "api")?.from).toMatchObject({ name: "flux-system/shop-api", appliedSha: api });
      expect(text(renderToString(createElement(SideRevision, { side: all.from, mode: all.mode })))).toContain("Each application runs its own commit");
      const narrowed = await compare({ from: "production", to: "staging", application: "api" });
      expect(narrowed.from).toMatchObject({ perApplication: false, revision: { sha: api, message: "api: a readme" } });
      expect(text(renderToString(createElement(SideRevision, { side: narrowed.from, mode: narrowed.mode })))).toContain("api: a readme");
    }, 180_000);

    it("an application's rollback reverts its own commit on its own path, never a neighbour's commit Flux also applied", async () => {
      const estate = c.fleet!.head();
      await fluxApplies(estate);
      await run();
      c.fleet!.write("apps/production/api/README.md", "# shop-api\n");
      const api = c.fleet!.commit("api: a readme");
      c.fleet!.write("apps/production/cart/README.md", "# shop-cart\n");
      const cart = c.fleet!.commit("cart: a readme");
      // Flux reconciles the push: every Kustomization reports the head, the cart's commit.
      await fluxApplies(cart);
      await run();

      const detail = async (name: string) => ApplicationDetailDto.parse(await getApplication(db, "production", name));
      const shopApi = await detail("flux-system/shop-api");
      expect(shopApi.approved).toMatchObject({ sha: api, message: "api: a readme" });
      expect(shopApi.applied).toMatchObject({ sha: cart, message: "cart: a readme" });
      expect(shopApi.revisions.map((r) => r.revision?.message)).toEqual(["cart: a readme", "flux-fleet"]);
      // Back to the estate: the api's commit alone (the range holds nothing else), touching only its path.
      expect(shopApi.rollback).toEqual({
        current: expect.objectContaining({ sha: api, message: "api: a readme" }),
        targets: [
          expect.objectContaining({
            revision: expect.objectContaining({ sha: estate, message: "flux-fleet" }),
            revertCommand: `git revert --no-edit ${estate}..${api}`,
            commits: 1,
            touchesOtherPaths: 0,
            mergeCommits: 0,
            restoreCommand: `git restore --source=${estate} -- apps/production/api && git commit -m 'Roll back flux-system/shop-api to ${estate.slice(0, 7)}'`,
          }),
        ],
      });
      // The cart: the range back to the estate holds the api's commit too; only the cart's own is reverted.
      const shopCart = await detail("flux-system/shop-cart");
      expect(shopCart.rollback?.targets).toEqual([expect.objectContaining({ revertCommand: `git revert --no-edit ${cart}`, commits: 1, touchesOtherPaths: 0 })]);
      // The web application's files never changed: nothing to roll back.
      expect((await detail("flux-system/shop-web")).rollback).toMatchObject({ current: { sha: estate }, targets: [] });

      // What the page shows, and the command doing what it says in the repository: only the api's files go back.
      const shown = text(renderToString(createElement(ApplicationRollback, { detail: shopApi })));
      expect(shown).toContain(`git revert --no-edit ${estate}..${api}`);
      expect(shown).toContain("Reverts 1 commit.");
      expect(shown).toContain("On fleet, path apps/production/api");
      for (const command of [shopCart.rollback!.targets[0]!.revertCommand!, shopApi.rollback!.targets[0]!.revertCommand!]) c.fleet!.git(...command.replace(/^git /, "").split(" "));
      expect(c.fleet!.git("diff", "--name-only", cart, "HEAD").trim().split("\n").sort()).toEqual(["apps/production/api/README.md", "apps/production/cart/README.md"]);
      expect(c.fleet!.git("diff", "--name-only", estate, "HEAD").trim()).toBe("");
    }, 180_000);

    it("a commit lookup answers for the one application an environment discovers, on that application's repository", async () => {
      c.config = parseConfig(
        stringify({
          repositories: [{ name: "fleet", url: c.fleet!.dir, aliases: [FLEET_URL] }],
          environments: [{ name: "production", cluster: { kubeconfig: c.cluster?.kubeconfigPath, context: "t-readonly" }, extraKinds: [], discover: { flux: { include: ["shop-api"] } } }],
        }),
      );
      const estate = c.fleet!.head();
      await fluxApplies(estate);
      await run();
      c.fleet!.write("apps/production/api/README.md", "# shop-api\n");
      const api = c.fleet!.commit("api: a readme");
      await run();
      expect((await db.application.findMany({ select: { name: true } })).map((a) => a.name)).toEqual(["flux-system/shop-api"]);

      const badges = async (sha: string) => {
        const r = await lookupCommit(db, sha);
        if (r.match !== "exact") throw new Error(`${sha} is ambiguous`);
        return r.commit.environments.map((b) => [b.environment, b.application, b.state]);
      };
      // Flux still applies the estate: it is live there, the api's commit approved and waiting.
      expect(await badges(estate)).toEqual([["production", "flux-system/shop-api", "live"]]);
      expect(await badges(api)).toEqual([["production", "flux-system/shop-api", "pending"]]);
      const lineage = await getLineage(db);
      expect(lineage.repositories.map((r) => [r.name, r.branches.map((b) => [b.branch, b.tracks])])).toEqual([
        ["fleet", [["main", [{ environment: "production", application: "flux-system/shop-api", path: "apps/production/api" }]]]],
      ]);
      // The strip of environments names no one revision as the environment's: its applications' columns do.
      expect(lineage.environments).toEqual([{ name: "production", position: 0, applied: null, perApplication: true }]);
      expect(text(renderToString(createElement(EnvironmentStrip, { environments: lineage.environments })))).toContain("production per application");
    }, 180_000);
  });
});
