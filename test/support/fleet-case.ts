// One test case on the Flux fleet estate (test/fixtures/estates/flux-fleet):
// the fixture committed into a real Git repository, its production cluster
// reconciled as Flux would have left it, an empty database, and a
// driftwatch.yaml whose production discovers its applications. The discovered-
// estate suites share it, so each states only what its own case adds.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";
import { stringify } from "yaml";
import { parseConfig, type DriftwatchConfig } from "@/lib/config";
import { getPrisma } from "@/lib/db";
import { resetDatabase } from "@/lib/db/testing";
import { TestRepo } from "@/lib/git/test-support/repo-fixture";
import { endCase, type ClusterServer, type TestCluster } from "./clusters";
import { commitFluxFleet, kubectlFor, reconcileFleetProduction } from "./estate-kube";

/** The URL the fixture's GitRepository names; the configuration declares the test repository with it as an alias. */
export const FLEET_URL = "https://git.example.com/acme/flux-fleet.git";

export interface FleetCase {
  dir: string;
  cluster: TestCluster;
  fleet: TestRepo;
  config: DriftwatchConfig;
}

/** `before`: environments placed ahead of production in the configuration (and so in promotion order). */
export async function startFleetCase(server: ClusterServer, tmpPrefix: string, before: (cluster: TestCluster) => object[] = () => []): Promise<FleetCase> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), tmpPrefix));
  const cluster = await server.forCase(dir);
  const fleet = TestRepo.create("flux-fleet");
  commitFluxFleet(fleet);
  const config = parseConfig(
    stringify({
      repositories: [{ name: "fleet", url: fleet.dir, aliases: [FLEET_URL] }],
      environments: [...before(cluster), { name: "production", cluster: { kubeconfig: cluster.kubeconfigPath, context: "t-readonly" }, extraKinds: [], discover: { flux: {} } }],
    }),
  );
  await resetDatabase(getPrisma());
  await reconcileFleetProduction(kubectlFor(() => cluster), cluster);
  return { dir, cluster, fleet, config };
}

export async function endFleetCase(c: Partial<FleetCase>): Promise<void> {
  await endCase({ dir: c.dir, cluster: c.cluster, repo: c.fleet });
}

/**
 * A fresh fleet case around every test of the suite: its fields are set from
 * the suite's beforeEach on, and `cluster` is undefined again once a test's
 * case has ended (so a kubectl left running fails rather than reaching the next).
 */
export function eachFleetCase(server: () => ClusterServer, tmpPrefix: string, before?: (cluster: TestCluster) => object[]): Partial<FleetCase> {
  const c: Partial<FleetCase> = {};
  beforeEach(async () => {
    Object.assign(c, await startFleetCase(server(), tmpPrefix, before));
  }, 120_000);
  afterEach(async () => {
    await endFleetCase(c);
    c.cluster = undefined;
  }, 60_000);
  return c;
}
