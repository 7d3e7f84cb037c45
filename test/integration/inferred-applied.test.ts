// Without a controller, the applied revision is the newest revision whose
// render matches live, and lineage says it was inferred. On the imitation and
// on a real kube-apiserver (whose defaults live carries), with the same assertions.
import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { createCollectorFixture, deploymentYaml, type CollectorFixture } from "../support/collector-env";
import { forEachCluster, type ClusterServer } from "../support/clusters";
import { lookupCommit } from "@/lib/dashboard/commits";
import type { CommitDto } from "@/lib/api/contract";

let f: CollectorFixture | undefined;
afterEach(async () => {
  await f?.cleanup();
  f = undefined;
});

async function badgeFor(fixture: CollectorFixture, sha: string) {
  const found = await lookupCommit(fixture.db, sha);
  if (found.match !== "exact") throw new Error(`${sha} is ambiguous`);
  const commit: CommitDto = found.commit;
  return commit.environments.find((b) => b.environment === "test");
}

const v1 = deploymentYaml("api", "shop/api:1.4.0", 2);
const v2 = deploymentYaml("api", "shop/api:1.5.0", 2);

/** A repository whose first commit renders v1 and whose second ("release") renders v2. */
async function twoReleases(cluster: ClusterServer): Promise<{ fixture: CollectorFixture; first: string; release: string }> {
  const fixture = await createCollectorFixture({ "envs/test/api.yaml": [v1] }, { cluster });
  f = fixture; // cleaned up after the test
  const first = fixture.repo.head();
  fixture.repo.write("envs/test/api.yaml", stringify(v2));
  return { fixture, first, release: fixture.repo.commit("api 1.5.0") };
}

forEachCluster((server) => {
  describe("applied revision without a controller", () => {
    it("live equals the tip's render: the tip is applied (inferred), and lineage shows the tip live, inferred", async () => {
      const { fixture: fx, first, release } = await twoReleases(server());
      // The tip changes nothing the environment renders: its render is the release's.
      fx.repo.write("README.md", "# shop deploy\n");
      const tip = fx.repo.commit("docs: readme");
      await fx.applyAsController([v2]);

      const out = await fx.run();
      expect(out.status).toBe("succeeded");
      const env = await fx.db.environment.findUniqueOrThrow({ where: { name: "test" } });
      expect(env.approvedSha).toBe(release);
      expect(env.appliedSha).toBe(tip);
      expect(env.appliedSource).toBe("inferred");

      expect(await badgeFor(fx, tip)).toMatchObject({ state: "live", inferred: true, viaDescendant: false, through: expect.objectContaining({ sha: tip }) });
      expect(await badgeFor(fx, release)).toMatchObject({ state: "live", inferred: true, viaDescendant: true });
      expect(await badgeFor(fx, first)).toMatchObject({ state: "live", inferred: true });
    });

    it("live still runs an older render: that revision is applied (inferred) and the newer release is not live", async () => {
      const { fixture: fx, first, release } = await twoReleases(server());
      await fx.applyAsController([v1]);

      await fx.run();
      const env = await fx.db.environment.findUniqueOrThrow({ where: { name: "test" } });
      expect(env.appliedSha).toBe(first);
      expect(env.appliedSource).toBe("inferred");
      expect(await badgeFor(fx, first)).toMatchObject({ state: "live", inferred: true });
      expect((await badgeFor(fx, release))?.state).not.toBe("live");
    });
  });
});
