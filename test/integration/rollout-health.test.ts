// Rollout health of a large environment as the collector stores it and the
// environment page reads it: counts over every workload, and only those still
// rolling out listed. Written whole, the list was megabytes of JSON at 100,000
// objects, rewritten by every run in which one workload moved.
// kubesim rolls Deployments out at once and has no DaemonSet controller, so
// its DaemonSets stay "rolling out": the two states side by side, on demand.
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { deploymentYaml, eachCollectorFixture } from "@/test/support/collector-env";
import { getEnvironmentDetail } from "@/lib/dashboard/environments";
import { ROLLOUT_LISTED } from "@/lib/kube/rollout";

const daemonSet = (name: string) => ({
  apiVersion: "apps/v1",
  kind: "DaemonSet",
  metadata: { name, namespace: "shop" },
  spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name, image: `shop/${name}:1.0.0` }] } } },
});
const deployments = Array.from({ length: ROLLOUT_LISTED + 10 }, (_, i) => deploymentYaml(`svc-${String(i).padStart(2, "0")}`, "shop/svc:2.0.0", 1));
const fixture = eachCollectorFixture({ "envs/test/app.yaml": [...deployments, daemonSet("log-agent"), daemonSet("node-exporter")] });

describe("rollout health of an environment with more workloads than are listed", () => {
  it("counts every workload and lists only those rolling out", async () => {
    const f = fixture();
    expect((await f.run()).status).toBe("succeeded");
    const env = await getEnvironmentDetail(f.db, "test");
    expect(env.rolloutCounts).toEqual({ total: ROLLOUT_LISTED + 12, rollingOut: 2 });
    expect(env.rollout.map((r) => `${r.kind}/${r.name}`)).toEqual(["DaemonSet/log-agent", "DaemonSet/node-exporter"]);
    expect(env.rollout[0]).toMatchObject({ rolledOut: false, images: ["shop/log-agent:1.0.0"] });
    // What is stored stays small however many workloads there are: the two listed, not the 62.
    const [row] = await f.db.$queryRaw<Array<{ bytes: number }>>`SELECT octet_length(rollout::text) AS bytes FROM "Environment" WHERE name = 'test'`;
    expect(row!.bytes).toBeLessThan(2_000);
  });

  it("follows workloads that come and go", async () => {
    const f = fixture();
    await f.run();
    // One DaemonSet goes from the cluster; another is added in Git and applied.
    await f.admin.client.requestJson("DELETE", "/apis/apps/v1/namespaces/shop/daemonsets/node-exporter");
    f.repo.write("envs/test/agents.yaml", stringify(daemonSet("fluent-bit")));
    f.repo.commit("fluent-bit on every node");
    await f.applyAsController([daemonSet("fluent-bit")]);
    await f.run();
    const env = await getEnvironmentDetail(f.db, "test");
    expect(env.rolloutCounts).toEqual({ total: ROLLOUT_LISTED + 12, rollingOut: 2 });
    expect(env.rollout.map((r) => `${r.kind}/${r.name}`)).toEqual(["DaemonSet/fluent-bit", "DaemonSet/log-agent"]);
  });
});
